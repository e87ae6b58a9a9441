//! Every request runs in a `dynamodb` span naming the operation, table, entity, index, items
//! returned and consumed capacity, and no span holds an item value.

mod common;

use dynamo_entity::Entity;
use dynamo_entity::prelude::*;

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
    // The binary's span capture is installed by `common::table` (see `common::spans`).
    let table = common::table("traced", &[Note::SCHEMA]).await;

    let secret = "top-secret-content";
    table.put(&Note { owner: "ann".into(), at: 1, text: secret.into() }).await.unwrap();
    table.get(Note::key("ann", 1u64)).await.unwrap().unwrap();
    let page = table.query(Note::query_by_owner("ann").limit(10)).await.unwrap();
    assert_eq!(page.items.len(), 1);

    let ours: Vec<_> = common::spans::of_table(table.name()).into_iter().filter(|s| s.name == "dynamodb").collect();
    let ops: Vec<&str> = ours.iter().filter_map(|s| s.field("operation")).collect();
    assert_eq!(ops, vec!["CreateTable", "PutItem", "GetItem", "Query"]);
    let ours = &ours[1..];
    for span in ours {
        assert_eq!(span.field("entity"), Some("Note"));
        assert!(span.field("consumed_capacity").is_some(), "{span:?}");
        // OpenTelemetry's database semantic-convention names, beside the short ones.
        assert_eq!(span.field("db.system.name"), Some("aws.dynamodb"), "{span:?}");
        assert_eq!(span.field("db.operation.name"), span.field("operation"), "{span:?}");
        assert_eq!(span.field("aws.dynamodb.table_names"), Some(table.name()), "{span:?}");
    }
    let query = &ours[2];
    assert_eq!(query.field("items"), Some("1"));
    assert_eq!(query.field("index"), Some(""));
    // No span of the binary (the SDK's included) holds an item value.
    for span in common::spans::all() {
        for (name, value) in &span.fields {
            assert!(
                !value.contains(secret) && !value.contains("ann"),
                "span field {name} holds an item value: {value}"
            );
        }
    }
}
