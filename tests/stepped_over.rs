//! Nothing in an entity's key range disappears without a trace (issue 21, items 12 and 19):
//! `Page::skipped` counts what a page stepped over, `.strict()` makes items without a type
//! attribute whose key is not the entity's errors, and a `query()` through a partition flooded
//! with other entities' items stops after `max_empty_pages` with a cursor to continue from.
//! Every generated query builder takes every option directly (item 16).

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, Error, Item, Table, View};

/// Versions of a document, as a Python program wrote them: `v1`, `v2` (unpadded).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<doc>"]
#[sk = "v<version>"]
#[entity(type_attr = "Type")]
pub struct Version {
    pub doc: String,
    pub version: u64,
    pub body: String,
}

/// Another entity in the same partitions, inside `Version`'s sort-key range.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<doc>"]
#[sk = "v<n:20>#NOISE"]
#[entity(type_attr = "Type")]
pub struct Noise {
    pub doc: String,
    pub n: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<doc>"]
#[sk = "z<n:6>"]
#[entity(type_attr = "Type")]
pub struct Last {
    pub doc: String,
    pub n: u32,
    pub tag: String,
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Last")]
pub struct LastTag {
    pub tag: String,
}

async fn table(test: &str) -> Table {
    common::table(test, &[Version::SCHEMA, Noise::SCHEMA, Last::SCHEMA]).await
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn raw_version(doc: &str, sk: &str) -> Item {
    Item::from([
        ("PK".to_owned(), AttributeValue::S(format!("DOC#{doc}"))),
        ("SK".to_owned(), AttributeValue::S(sk.to_owned())),
        ("body".to_owned(), AttributeValue::S("from python".into())),
    ])
}

#[tokio::test]
async fn items_that_do_not_parse_are_counted_and_strict_makes_them_errors() {
    let table = table("skip-count").await;
    let ours = Version { doc: "d".into(), version: 3, body: "ours".into() };
    table.put(&ours).await.unwrap();
    raw_put(&table, raw_version("d", "v1")).await;
    raw_put(&table, raw_version("d", "v2")).await;

    // Stepped over, but counted.
    let page = table.query(Version::query_by_doc("d")).await.unwrap();
    assert_eq!(page.items, vec![ours.clone()]);
    assert_eq!(page.skipped, 2);

    // Strict: the two are errors naming their keys, beside the good item.
    let e = table.query(Version::query_by_doc("d").strict()).await.unwrap_err();
    let Error::BadItems { errors, partial } = e else { panic!("{e:?}") };
    let keys: Vec<_> = errors
        .iter()
        .map(|e| match e {
            Error::Decode { key: Some((_, sk)), message, .. } => {
                assert!(message.contains("no type attribute"), "{message}");
                sk.clone().unwrap()
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(keys, vec!["v1", "v2"]);
    assert_eq!(partial.into_page::<Version>().unwrap().items, vec![ours]);

    // Another entity's items (typed) are counted, never errors, strict or not.
    table.put(&Noise { doc: "e".into(), n: 1 }).await.unwrap();
    let page = table.query(Version::query_by_doc("e").strict()).await.unwrap();
    assert!(page.items.is_empty());
}

#[tokio::test]
async fn a_query_through_a_flooded_partition_stops_and_resumes_from_its_cursor() {
    let table = table("skip-flood").await;
    // 300 items of another entity inside `Version`'s key range (`begins_with(SK, "v")`).
    let noise: Vec<Noise> = (0..300).map(|n| Noise { doc: "f".into(), n }).collect();
    table.batch_put(&noise).await.unwrap();

    let flooded = Version::query_by_doc("f").limit(1).max_empty_pages(3);
    let e = table.query(flooded.clone()).await.unwrap_err();
    assert!(e.to_string().contains("read 3 DynamoDB pages in a row without one of its items"), "{e}");
    let Error::TooManySkipped { entity, pages, skipped, partial } = e else { panic!("{e:?}") };
    assert_eq!((entity, pages), ("Version", 3));
    assert!(skipped > 0 && skipped < 300, "{skipped}");
    let page = partial.into_page::<Version>().unwrap();
    assert!(page.items.is_empty());
    let cursor = page.next.expect("a cursor to continue from");

    // A version written after the noise is found by continuing from the cursor.
    let late = Version { doc: "f".into(), version: 1, body: "late".into() };
    let mut raw = late.to_item().unwrap();
    raw.insert("SK".into(), AttributeValue::S("v00000000000000000999#late".into())); // after the noise
    raw.remove("Type");
    raw_put(&table, raw).await;
    let rest = table.query(flooded.clone().after(cursor).max_empty_pages(1000)).await.unwrap();
    assert!(rest.items.is_empty(), "not a key of Version: stepped over");
    assert_eq!(rest.skipped as usize + skipped as usize, 301, "every item read once, counted once");

    // query_all reads on through the flood.
    assert!(table.query_all(Version::query_by_doc("f")).await.unwrap().is_empty());
}

#[tokio::test]
async fn every_option_works_on_a_bare_builder() {
    let table = table("bare-options").await;
    let last = Last { doc: "g".into(), n: 1, tag: "end".into() };
    table.put(&last).await.unwrap();
    let f = Last::fields();
    let tags = table.query_all(Last::query_by_doc("g").filter(f.tag.eq("end")).view::<LastTag>()).await.unwrap();
    assert_eq!(tags, vec![LastTag { tag: "end".into() }]);
    let views = table.query_all(Last::query_by_doc("g").view::<LastTag>()).await.unwrap();
    assert_eq!(views, vec![LastTag { tag: "end".into() }]);
    let none = table.query_all(Last::query_by_doc("g").filter(f.tag.eq("other"))).await.unwrap();
    assert!(none.is_empty());
    let strict = table.query(Last::query_by_doc("g").strict().max_empty_pages(2).limit(5)).await.unwrap();
    assert_eq!(strict.items, vec![last]);
}
