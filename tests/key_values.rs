//! The values that can key an index on a field's own attribute (issue 46): `f64`/`f32` (stored
//! as N in their plain number form, compared as numbers, NaN and the infinities refused before
//! sending), and fields stored `with` a module that keeps the type the index declares
//! (`dynamo_entity::time::iso8601_seconds`, a module of one's own). Against DynamoDB Local: an
//! `f64` in a multi-attribute sort key ordered by value, ranges, cursors, and refusals with
//! nothing sent; AWS's second-precision times written raw, read, range-queried through indexes
//! keyed on them, and written back byte for byte.

mod common;

use dynamo_entity::prelude::*;
use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::{AttributeType, AttributeValue, Entity, Error, Item, Table, TableDefinition};

/// A product rated in its category (AWS's `rating >= 4.5`): `ByRating` sorts a category by the
/// `f64` rating, then the name; `ByPrice` keys a shop's products on an `f32` price; `ByWeight`
/// is partitioned by an optional `f64` weight (sparse: `None` is not in it).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PRODUCT#<product_id>"]
#[gsi1(index = "ByRating", pk = ["category"], sk = ["rating", "name"], query = "by_rating")]
#[gsi2(index = "ByPrice", pk = "<shop>", pk_attr = "shop", sk = "<price>", sk_attr = "price", query = "by_price")]
#[gsi3(index = "ByWeight", pk = "<weight>", pk_attr = "weight", query = "by_weight")]
pub struct Product {
    pub product_id: String,
    pub category: String,
    pub name: String,
    pub rating: f64,
    pub shop: String,
    pub price: f32,
    pub weight: Option<f64>,
}

fn product(id: &str, rating: f64) -> Product {
    Product {
        product_id: id.into(),
        category: "books".into(),
        name: format!("name of {id}"),
        rating,
        shop: "s1".into(),
        price: 1.5,
        weight: None,
    }
}

async fn ids(table: &Table, q: impl QueryOptions<Entity = Product>) -> Vec<String> {
    table.query_all(q).await.unwrap().into_iter().map(|p| p.product_id).collect()
}

#[test]
fn floats_key_an_index_as_numbers_in_their_plain_form() {
    let by_rating = Product::SCHEMA.index("ByRating").unwrap().multi.unwrap();
    assert_eq!(by_rating.sk[0].attr, "rating");
    assert_eq!(by_rating.sk[0].ty, AttributeType::N);
    let def = TableDefinition::from_entities(&[Product::SCHEMA]).unwrap();
    let types: Vec<(&str, &str)> = def.attribute_types.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    for attr in ["rating", "price", "weight"] {
        assert!(types.contains(&(attr, "N")), "{attr} is N: {types:?}");
    }
    for (rating, text) in [(4.5, "4.5"), (10.0, "10"), (-2.0, "-2"), (1e3, "1000"), (0.1 + 0.2, "0.30000000000000004")]
    {
        let item = product("p", rating).to_item().unwrap();
        assert_eq!(item["rating"], AttributeValue::N(text.into()));
    }
    let mut p = product("p", 1.0);
    p.price = 0.1;
    p.weight = Some(2.25);
    let item = p.to_item().unwrap();
    assert_eq!(
        (&item["price"], &item["weight"]),
        (&AttributeValue::N("0.1".into()), &AttributeValue::N("2.25".into()))
    );
    // The query's values are the attribute's: numbers, in the same form.
    let r = Product::query_by_rating("books").rating().gte(4.5).request().unwrap();
    assert_eq!(r.expression_attribute_values[":lo"], AttributeValue::N("4.5".into()));
    // Compared as numbers: 10 > 9.5 (as text, "10" < "9.5"), so this range is empty.
    let q = Product::query_by_rating("books").rating().between(10.0, 9.5);
    assert_eq!(q.sort_condition(), &dynamo_entity::SortCondition::Nothing);
}

#[test]
fn nan_and_infinities_are_refused_before_sending() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e200, 1e-200] {
        let err = product("p", bad).to_item().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`") && m.contains("ByRating")), "{err:?}");
        let err = Product::update(Product::key("p")).set(Product::fields().rating, bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating().gte(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating().between(1.0, bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating().eq(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_weight(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`weight`")), "{bad}: {err:?}");
    }
    let mut p = product("p", 1.0);
    p.price = f32::NAN;
    let err = p.to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`price`")), "{err:?}");
    p.price = 1.0;
    p.weight = Some(f64::INFINITY);
    let err = p.to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`weight`")), "{err:?}");
    let err = Product::query_by_price("s1").price().lt(f32::NEG_INFINITY).request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`price`")), "{err:?}");
}

#[tokio::test]
async fn an_f64_in_a_multi_attribute_sort_key_is_compared_as_a_number() {
    let table = common::table("key-values-f64", &[Product::SCHEMA]).await;
    // Text order would be -2, 0.25, 10, 1000, 4.5, 9, 9.75; by value it is the order below.
    let ratings = [("p1", -2.0), ("p2", 0.25), ("p3", 4.5), ("p4", 9.0), ("p5", 9.75), ("p6", 10.0), ("p7", 1e3)];
    for (id, r) in ratings {
        table.put(&product(id, r)).await.unwrap();
    }
    let q = || Product::query_by_rating("books");
    assert_eq!(ids(&table, q()).await, ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating().gte(4.5)).await, ["p3", "p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating().gt(4.5)).await, ["p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating().lt(9.0)).await, ["p1", "p2", "p3"]);
    assert_eq!(ids(&table, q().rating().lte(0.25)).await, ["p1", "p2"]);
    assert_eq!(ids(&table, q().rating().between(-2.5, 9.9)).await, ["p1", "p2", "p3", "p4", "p5"]);
    assert_eq!(ids(&table, q().rating().gte(9.5).descending()).await, ["p7", "p6", "p5"]);
    assert_eq!(ids(&table, q().rating().eq(1000.0).name().eq("name of p7")).await, ["p7"]);
    assert_eq!(ids(&table, q().rating().eq(9.75).name().gt("name of p0")).await, ["p5"]);
    // Read back exactly.
    let all = table.query_all(q()).await.unwrap();
    assert_eq!(all.iter().map(|p| p.rating).collect::<Vec<_>>(), [-2.0, 0.25, 4.5, 9.0, 9.75, 10.0, 1e3]);

    // Page by page: each cursor holds the rating as a number and resumes exactly after it.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut page_q = q().rating().gt(-100.0).limit(2);
        if let Some(c) = next.take() {
            page_q = page_q.after(c);
        }
        let page = table.query(page_q).await.unwrap();
        seen.extend(page.items.into_iter().map(|p| p.product_id));
        match page.next {
            Some(c) => next = Some(c.to_string().parse().unwrap()),
            None => break,
        }
    }
    assert_eq!(seen, ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]);

    // The single-attribute forms: an f32 sort key, an f64 partition key.
    let mut light = product("w1", 1.0);
    light.price = 0.5;
    light.weight = Some(0.125);
    table.put(&light).await.unwrap();
    assert_eq!(ids(&table, Product::query_by_price("s1").price().lt(1.0)).await, ["w1"]);
    assert_eq!(ids(&table, Product::query_by_weight(0.125)).await, ["w1"]);

    // Refused with nothing sent: a write, an update and a query holding NaN or an infinity.
    let sent = table.requests_sent();
    let err = table.put(&product("bad", f64::NAN)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table
        .update(Product::update(Product::key("p1")).set(Product::fields().rating, f64::INFINITY))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table.query(q().rating().gte(f64::NAN)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table.query_all(Product::query_by_weight(f64::NEG_INFINITY)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    assert_eq!(table.requests_sent(), sent, "nothing was sent");
    assert_eq!(common::raw_items(&table).await.len(), 8, "no item was written");
}

/// A match as AWS's multi-attribute designs store it: dates as `2026-02-19T14:00:00Z` (whole
/// seconds). `ByTournament` sorts a tournament's matches by date then round (a multi-attribute
/// key); `ByRegion` keys on the region (stored upper-case by a module of this file) and the
/// date; `Finished` on the optional finishing time (sparse).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[entity(type_attr = false, owns_partition = true)]
#[gsi1(index = "ByTournament", pk = ["tournament_id"], sk = ["match_date", "round"], query = "by_tournament")]
#[gsi2(
    index = "ByRegion",
    pk = "<region>",
    pk_attr = "region",
    sk = "<match_date>",
    sk_attr = "match_date",
    query = "by_region"
)]
#[gsi3(
    index = "Finished",
    pk = "<tournament_id>",
    pk_attr = "tournament_id",
    sk = "<finished_at>",
    sk_attr = "finished_at",
    query = "finished"
)]
pub struct Match {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    #[entity(with = "upper")]
    pub region: String,
    pub round: String,
    #[entity(with = "dynamo_entity::time::iso8601_seconds")]
    pub match_date: SystemTime,
    #[entity(with = "dynamo_entity::time::iso8601_seconds")]
    pub finished_at: Option<SystemTime>,
}

/// A module of one's own keeping the attribute a string (S): it says so in `ATTRIBUTE_TYPE`.
mod upper {
    use dynamo_entity::{AttributeType, AttributeValue};

    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::S;

    #[allow(clippy::ptr_arg)] // `encode(&T)` of the field's type, `String`.
    pub fn encode(v: &String) -> Result<AttributeValue, String> {
        Ok(AttributeValue::S(v.to_uppercase()))
    }

    pub fn decode(v: AttributeValue) -> Result<String, String> {
        match v {
            AttributeValue::S(s) => Ok(s),
            other => Err(format!("expected a string, found {other:?}")),
        }
    }
}

/// `2026-02-19T<hh>:<mm>:00Z`.
fn at(hh: u64, mm: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_771_459_200 + hh * 3600 + mm * 60)
}

/// An item as AWS's tools write it (raw, by the SDK).
fn raw_match(player: &str, m: &str, tournament: &str, round: &str, date: &str, finished: Option<&str>) -> Item {
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let mut item: Item = HashMap::from([
        ("PK".to_owned(), s(&format!("PLAYER#{player}"))),
        ("SK".to_owned(), s(&format!("MATCH#{m}"))),
        ("player_id".to_owned(), s(player)),
        ("match_id".to_owned(), s(m)),
        ("tournament_id".to_owned(), s(tournament)),
        ("region".to_owned(), s("NA-EAST")),
        ("round".to_owned(), s(round)),
        ("match_date".to_owned(), s(date)),
    ]);
    if let Some(f) = finished {
        item.insert("finished_at".to_owned(), s(f));
    }
    item
}

#[test]
fn a_with_module_keeping_the_type_keys_an_index() {
    let by_region = Match::SCHEMA.index("ByRegion").unwrap();
    assert_eq!((by_region.pk.unwrap().ty, by_region.sk.unwrap().ty), (AttributeType::S, AttributeType::S));
    let m = Match {
        player_id: "p1".into(),
        match_id: "m1".into(),
        tournament_id: "W26".into(),
        region: "eu-west".into(),
        round: "FINAL".into(),
        match_date: at(14, 0) + Duration::from_millis(999),
        finished_at: None,
    };
    let item = m.to_item().unwrap();
    // Whole seconds (the milliseconds dropped towards the past), the module's upper case.
    assert_eq!(item["match_date"], AttributeValue::S("2026-02-19T14:00:00Z".into()));
    assert_eq!(item["region"], AttributeValue::S("EU-WEST".into()));
    assert!(!item.contains_key("finished_at"));
    // Query values go through the same modules.
    let r = Match::query_by_region("eu-west").match_date().gte(at(14, 0)).request().unwrap();
    assert_eq!(r.expression_attribute_values[":pk"], AttributeValue::S("EU-WEST".into()));
    assert_eq!(r.expression_attribute_values[":lo"], AttributeValue::S("2026-02-19T14:00:00Z".into()));
    let r = Match::query_by_tournament("W26").match_date().eq(at(9, 30)).round().eq("F").request().unwrap();
    assert_eq!(r.expression_attribute_values[":k0"], AttributeValue::S("2026-02-19T09:30:00Z".into()));
    // So do updates, checked as index keys.
    let u = Match::update(Match::key("p1", "m1"))
        .set(Match::fields().finished_at, at(16, 5))
        .set(Match::fields().region, "");
    let err = u.request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`region`") && m.contains("empty")), "{err:?}");
    let u = Match::update(Match::key("p1", "m1")).set(Match::fields().finished_at, at(16, 5)).request().unwrap();
    assert!(
        u.expression_attribute_values.unwrap().values().any(|v| *v == AttributeValue::S("2026-02-19T16:05:00Z".into()))
    );
    // `set` of an `Option` field takes the time inside it (above); `remove` sets `None`.
    let u = Match::update(Match::key("p1", "m1")).remove(Match::fields().finished_at).request().unwrap();
    assert!(u.update_expression.contains("REMOVE"), "{}", u.update_expression);
}

#[tokio::test]
async fn second_precision_times_are_read_queried_and_written_back_byte_for_byte() {
    let table = common::table("key-values-seconds", &[Match::SCHEMA]).await;
    let raw = [
        raw_match("p1", "m1", "W26", "QUARTER", "2026-02-19T09:30:00Z", Some("2026-02-19T10:45:00Z")),
        raw_match("p2", "m2", "W26", "SEMI", "2026-02-19T14:00:00Z", None),
        raw_match("p3", "m3", "W26", "FINAL", "2026-02-19T18:00:00Z", Some("2026-02-19T19:59:59Z")),
        raw_match("p4", "m4", "W26", "SEMI", "2026-02-19T14:00:00Z", Some("2026-02-19T15:00:00Z")),
    ];
    for item in &raw {
        table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    }

    // Read.
    let m1 = table.get(Match::key("p1", "m1")).await.unwrap().unwrap();
    assert_eq!((m1.match_date, m1.finished_at), (at(9, 30), Some(at(10, 45))));
    assert_eq!(m1.region, "NA-EAST");

    // Range-queried through the indexes keyed on the times.
    // In DynamoDB's order, except that items of equal index keys (m2 and m4), whose order
    // DynamoDB does not promise, are put in id order among themselves.
    let ids = |ms: Vec<Match>| {
        let mut runs: Vec<Vec<Match>> = Vec::new();
        for m in ms {
            match runs.last_mut() {
                Some(run) if (run[0].match_date, &run[0].round) == (m.match_date, &m.round) => run.push(m),
                _ => runs.push(vec![m]),
            }
        }
        runs.into_iter()
            .flat_map(|mut run| {
                run.sort_by(|a, b| a.match_id.cmp(&b.match_id));
                run.into_iter().map(|m| m.match_id)
            })
            .collect::<Vec<_>>()
    };
    let by_t = || Match::query_by_tournament("W26");
    assert_eq!(ids(table.query_all(by_t()).await.unwrap()), ["m1", "m2", "m4", "m3"]);
    assert_eq!(ids(table.query_all(by_t().match_date().gte(at(14, 0))).await.unwrap()), ["m2", "m4", "m3"]);
    assert_eq!(
        ids(table.query_all(by_t().match_date().between(at(9, 0), at(14, 0))).await.unwrap()),
        ["m1", "m2", "m4"]
    );
    assert_eq!(ids(table.query_all(by_t().match_date().eq(at(14, 0)).round().eq("SEMI")).await.unwrap()), ["m2", "m4"]);
    // Through the module of the region (queried in lower case, stored upper case).
    let by_r = || Match::query_by_region("na-east");
    assert_eq!(ids(table.query_all(by_r().match_date().lt(at(14, 0))).await.unwrap()), ["m1"]);
    assert_eq!(ids(table.query_all(by_r().match_date().gt(at(14, 0)).descending()).await.unwrap()), ["m3"]);
    // Sparse: m2 has not finished.
    let finished = table.query_all(Match::query_finished("W26").finished_at().lte(at(15, 0))).await.unwrap();
    assert_eq!(ids(finished), ["m1", "m4"]);
    // Page by page: each cursor holds the time text and resumes after it.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut q = by_t().match_date().gte(at(0, 0)).limit(1);
        if let Some(c) = next.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        seen.extend(page.items.into_iter().map(|m| m.match_id));
        match page.next {
            Some(c) => next = Some(c.to_string().parse().unwrap()),
            None => break,
        }
    }
    // The pages hold what one query holds, in its order (ties included).
    let whole = table.query_all(by_t().match_date().gte(at(0, 0))).await.unwrap();
    assert_eq!(seen, whole.into_iter().map(|m| m.match_id).collect::<Vec<_>>());
    assert_eq!((seen[0].as_str(), seen[3].as_str()), ("m1", "m3"));

    // Written back: the same bytes as AWS's items.
    for m in table.query_all(by_t()).await.unwrap() {
        table.put(&m).await.unwrap();
    }
    let mut stored = common::raw_items(&table).await;
    stored.sort_by_key(|i| format!("{:?}", i["PK"]));
    assert_eq!(stored, raw.to_vec());

    // A fraction would be lost on the next write: refused when read, naming the attribute.
    let fraction = raw_match("p5", "m5", "OTHER", "SEMI", "2026-02-19T14:00:00.500Z", None);
    table.client().put_item().table_name(table.name()).set_item(Some(fraction)).send().await.unwrap();
    let err = table.get(Match::key("p5", "m5")).await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { attribute, message, .. } if attribute == "match_date" && message.contains("YYYY-MM-DDTHH:MM:SSZ")),
        "{err:?}"
    );
}
