//! Every request runs in a `dynamodb` span naming the operation, table, entity, index, items
//! returned and consumed capacity, and no span holds an item value.

mod common;

use common::spans::{Capture, Spans, field};
use dynamo_entity::Entity;
use tracing_subscriber::layer::SubscriberExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<owner>"]
#[sk = "AT#<at>"]
pub struct Note {
    pub owner: String,
    pub at: u64,
    pub text: String,
}

#[tokio::test]
async fn operations_are_traced_without_item_values() {
    let table = common::table("traced", &[Note::SCHEMA]).await;
    let spans: Spans = Spans::default();
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
