//! `<field:unpadded>`: integers in keys that others wrote without padding (issue 21, item 19),
//! AWS's version-control design as a Python program keys it: `v1`, `v2`, ..., `v10`.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, Item};
use proptest::prelude::*;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<doc>"]
#[sk = "v<version:unpadded>"]
pub struct Revision {
    pub doc: String,
    pub version: u64,
    pub author: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "N#<n:unpadded>#<m:unpadded>"]
pub struct Pair {
    pub n: u128,
    pub m: u8,
}

proptest! {
    #[test]
    fn unpadded_keys_round_trip_and_are_the_shortest_decimal(n: u128, m: u8, v: u64) {
        let key = Pair::key(n, m);
        prop_assert_eq!(key.pk(), format!("N#{n}#{m}"));
        prop_assert_eq!(PairKey::parse(&key.pk()).unwrap(), key);
        let key = Revision::key("d", v);
        prop_assert_eq!(key.sk(), format!("v{v}"));
        prop_assert_eq!(RevisionKey::parse(&key.pk(), &key.sk()).unwrap(), key);
    }
}

#[test]
fn leading_zeros_and_empty_components_do_not_parse() {
    assert!(RevisionKey::parse("DOC#d", "v01").is_err());
    assert!(RevisionKey::parse("DOC#d", "v").is_err());
    assert!(RevisionKey::parse("DOC#d", "v18446744073709551616").is_err(), "past u64::MAX");
    assert_eq!(RevisionKey::parse("DOC#d", "v0").unwrap().version, 0);
}

#[tokio::test]
async fn a_python_layout_reads_back_and_ranges_are_text_order() {
    let table = common::table("unpadded", &[Revision::SCHEMA]).await;
    // Written by other code: unpadded versions, no type attribute.
    for v in [1u64, 2, 10] {
        let item = Item::from([
            ("PK".to_owned(), AttributeValue::S("DOC#d".into())),
            ("SK".to_owned(), AttributeValue::S(format!("v{v}"))),
            ("author".to_owned(), AttributeValue::S(format!("a{v}"))),
        ]);
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    let page = table.query(Revision::query_by_doc("d")).await.unwrap();
    let versions: Vec<u64> = page.items.iter().map(|r| r.version).collect();
    assert_eq!(versions, vec![1, 10, 2], "text order of the keys: v1 < v10 < v2");
    assert_eq!(page.skipped, 0);
    assert_eq!(page.items[1].author, "a10");

    // Our own writes use the same layout.
    table.put(&Revision { doc: "d".into(), version: 3, author: "us".into() }).await.unwrap();
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(Item::from([
            ("PK".to_owned(), AttributeValue::S("DOC#d".into())),
            ("SK".to_owned(), AttributeValue::S("v3".into())),
        ])))
        .send()
        .await
        .unwrap();
    assert!(raw.item.is_some());

    // A range is a range of key text: `version_gte(2)` is every key from `v2` on in text order.
    let from_2: Vec<u64> = table
        .query_all(Revision::query_by_doc("d").version().gte(2))
        .await
        .unwrap()
        .iter()
        .map(|r| r.version)
        .collect();
    assert_eq!(from_2, vec![2, 3]);
    assert_eq!(table.get(Revision::key("d", 10)).await.unwrap().unwrap().author, "a10");
}
