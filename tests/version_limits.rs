//! A `#[version]` of a small type never grows past what it holds (issue 21, item 1): the write
//! that would store `MAX + 1` is refused before sending (or, for an update that does not know
//! the stored version, by DynamoDB's check), so the item stays readable.

mod common;

use dynamo_entity::aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Error, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "COUNTER#<id>"]
#[sk = "METADATA"]
pub struct Small {
    pub id: String,
    pub n: u32,
    #[version]
    pub version: u8,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "WIDE#<id>"]
#[sk = "METADATA"]
pub struct Wide {
    pub id: String,
    #[version]
    pub version: u16,
}

async fn table(test: &str) -> Table {
    common::table(test, &[Small::SCHEMA, Wide::SCHEMA]).await
}

/// Stores `id` with the version `version` as another program (or many writes) left it.
async fn raw_small(table: &Table, id: &str, version: u64) {
    let mut item = Small { id: id.into(), n: 1, version: 0 }.to_item().unwrap();
    item.insert("version".into(), AttributeValue::N(version.to_string()));
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn is_overflow(r: &Result<impl std::fmt::Debug, Error>) -> bool {
    matches!(r, Err(Error::Validation(m)) if m.contains("largest its type holds"))
}

#[tokio::test]
async fn put_update_and_transactions_refuse_a_version_past_the_type() {
    let table = table("ver-limit").await;
    raw_small(&table, "a", 255).await;
    let read = table.get(Small::key("a")).await.unwrap().unwrap();
    assert_eq!(read.version, 255);

    // Each write path refuses before sending: the put (version + 1), an update that names the
    // version (update_from, if_version), and the same in a transaction.
    let put = table.put(&Small { n: 2, ..read.clone() }).await;
    assert!(is_overflow(&put), "{put:?}");
    let from = table.update(Small::update_from(&read).set(Small::fields().n, 2)).await;
    assert!(is_overflow(&from), "{from:?}");
    let named = table.update(Small::update(Small::key("a")).set(Small::fields().n, 2).if_version(255)).await;
    assert!(is_overflow(&named), "{named:?}");
    let tx = table.transact().put(&Small { n: 2, ..read.clone() }).send().await;
    assert!(is_overflow(&tx), "{tx:?}");
    let tx = table.transact().update(Small::update_from(&read).set(Small::fields().n, 2)).send().await;
    assert!(is_overflow(&tx), "{tx:?}");

    // An update that does not know the stored version: DynamoDB checks it can still grow.
    let blind = table.update(Small::update(Small::key("a")).set(Small::fields().n, 3)).await;
    assert!(is_overflow(&blind), "{blind:?}");

    // Nothing was written: the item still reads, unchanged.
    assert_eq!(table.get_consistent(Small::key("a")).await.unwrap(), Some(read));
}

#[tokio::test]
async fn versions_below_the_limit_still_grow_to_it() {
    let table = table("ver-below").await;
    raw_small(&table, "b", 253).await;
    let s = table.update(Small::update(Small::key("b")).set(Small::fields().n, 2)).await.unwrap();
    assert_eq!(s.version, 254);
    let s = table.update(Small::update_from(&s).set(Small::fields().n, 3)).await.unwrap();
    assert_eq!(s.version, 255, "the largest version is written");
    let blind = table.update(Small::update(Small::key("b")).set(Small::fields().n, 4)).await;
    assert!(is_overflow(&blind), "{blind:?}");
    // An upsert of a missing item starts at 1.
    let new = table.update(Small::update(Small::key("c")).set(Small::fields().n, 1).upsert()).await.unwrap();
    assert_eq!(new.version, 1);

    // Every unsigned width has its limit.
    let w = Wide { id: "w".into(), version: u16::MAX };
    let put = table.put(&w).await;
    assert!(is_overflow(&put), "{put:?}");
    assert_eq!(Wide::SCHEMA.version_max, 65_535);
    assert_eq!(Small::SCHEMA.version_max, 255);
}

#[tokio::test]
async fn batches_refuse_versioned_entities_alike_and_delete_nothing() {
    let table = table("ver-batch").await;
    let s = Small { id: "d".into(), n: 1, version: 0 };
    table.put(&s).await.unwrap();
    let put = table.batch_put(&[Small { id: "e".into(), n: 1, version: 0 }]).await;
    let delete = table.batch_delete([Small::key("d")]).await;
    let (Err(Error::Validation(put)), Err(Error::Validation(delete))) = (put, delete) else {
        panic!("both are refused before sending")
    };
    assert_eq!(
        put,
        "batch_put of Small: its `#[version]` (`version`) cannot be checked in a batch; use put or a transaction"
    );
    assert_eq!(
        delete,
        "batch_delete of Small: its `#[version]` (`version`) cannot be checked in a batch; use delete or a transaction"
    );
    assert!(table.get_consistent(Small::key("d")).await.unwrap().is_some(), "nothing deleted");
    assert!(table.get_consistent(Small::key("e")).await.unwrap().is_none(), "nothing written");
}
