//! Every request runs in a `dynamodb` span naming the operation, table, entity, index, items
//! returned and consumed capacity, and no span holds an item value.

mod common;

use std::sync::{Arc, Mutex};

use dynamo_entity::Entity;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<owner>"]
#[sk = "AT#<at>"]
pub struct Note {
    pub owner: String,
    pub at: u64,
    pub text: String,
}

type Spans = Arc<Mutex<Vec<(u64, String, Vec<(String, String)>)>>>;

struct Capture(Spans);

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned()));
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Vec::new();
        attrs.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push((id.into_u64(), attrs.metadata().name().to_owned(), fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some((_, _, fields)) = spans.iter_mut().rev().find(|(i, _, _)| *i == id.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn operations_are_traced_without_item_values() {
    let table = common::table("traced", &[Note::SCHEMA]).await;
    let spans: Spans = Arc::default();
    let subscriber = tracing_subscriber::registry().with(Capture(spans.clone()));
    let _guard = tracing::subscriber::set_default(subscriber);

    let secret = "top-secret-content";
    table.put(&Note { owner: "ann".into(), at: 1, text: secret.into() }).await.unwrap();
    table.get(Note::key("ann", 1u64)).await.unwrap().unwrap();
    let page = table.query(Note::query_by_owner("ann").limit(10)).await.unwrap();
    assert_eq!(page.items.len(), 1);

    let spans = spans.lock().unwrap();
    let ours: Vec<_> = spans.iter().filter(|(_, name, _)| name == "dynamodb").collect();
    let ops: Vec<&str> = ours.iter().filter_map(|(_, _, f)| field(f, "operation")).collect();
    assert_eq!(ops, vec!["PutItem", "GetItem", "Query"]);
    for (_, _, fields) in &ours {
        assert_eq!(field(fields, "table"), Some(table.name()));
        assert_eq!(field(fields, "entity"), Some("Note"));
        assert!(field(fields, "consumed_capacity").is_some(), "{fields:?}");
    }
    let query = &ours[2].2;
    assert_eq!(field(query, "items"), Some("1"));
    assert_eq!(field(query, "index"), Some(""));
    for (_, _, fields) in spans.iter() {
        for (name, value) in fields {
            assert!(
                !value.contains(secret) && !value.contains("ann"),
                "span field {name} holds an item value: {value}"
            );
        }
    }
}
