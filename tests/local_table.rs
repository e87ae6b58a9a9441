//! `local::table`: a test's own database and table in one call, made from entity schemas.

use dynamo_entity::{Entity, local};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MESSAGE#<n:6>"]
pub struct Message {
    pub room: String,
    pub n: u32,
    pub text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MEMBER#<user>"]
pub struct Member {
    pub room: String,
    pub user: String,
}

fn message(n: u32) -> Message {
    Message { room: "r".into(), n, text: format!("hello {n}") }
}

#[tokio::test]
async fn each_call_is_a_database_of_its_own() {
    let first = local::table(&[Message::SCHEMA, Member::SCHEMA]).await.expect("a table");
    let second = local::table(&[Message::SCHEMA]).await.expect("another table");
    first.put(&message(1)).await.unwrap();
    first.put(&Member { room: "r".into(), user: "ada".into() }).await.unwrap();
    assert_eq!(first.get(Message::key("r", 1u32)).await.unwrap(), Some(message(1)));
    assert_eq!(second.get(Message::key("r", 1u32)).await.unwrap(), None);
    // Without the variable set, both tables have the same name, in databases of their own.
    if std::env::var_os(local::ENDPOINT_ENV).is_none() {
        assert_eq!(first.name(), second.name());
    }
}

#[tokio::test]
async fn a_clone_keeps_the_engine_running_after_the_original_is_dropped() {
    let table = local::table(&[Message::SCHEMA]).await.expect("a table");
    table.put(&message(2)).await.unwrap();
    let clone = table.clone();
    drop(table);
    let spawned = tokio::spawn(async move { clone.query_all(Message::query_by_room("r")).await });
    assert_eq!(spawned.await.unwrap().unwrap(), vec![message(2)]);
}

#[tokio::test]
async fn schemas_that_make_no_table_are_a_typed_error() {
    // No entity, no table: refused before anything is sent.
    let none: &[dynamo_entity::EntitySchema] = &[];
    match local::table(none).await {
        Err(local::LocalError::CreateTable { source, .. }) => {
            assert!(matches!(*source, dynamo_entity::Error::Validation(_)), "{source}")
        }
        other => panic!("expected CreateTable, got {other:?}"),
    }
}
