//! Times outside keys are stored as the design guidelines store them: ISO 8601 UTC strings by
//! default, epoch seconds or milliseconds with `#[entity(with = ..)]`; items, conditions,
//! filters and updates agree. Against DynamoDB Local; the other writer is the SDK's PutItem.

mod common;

use dynamo_entity::prelude::*;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::{AttributeValue, Entity, Error, Item, Table, View};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "FEED#<feed>"]
#[sk = "EVENT#<id>"]
pub struct Event {
    pub feed: String,
    pub id: String,
    pub created_at: SystemTime,
    pub updated_at: Option<SystemTime>,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub seen_at: SystemTime,
    #[entity(with = "dynamo_entity::time::epoch_seconds")]
    pub archived_at: Option<SystemTime>,
    #[ttl]
    pub expires: Option<SystemTime>,
}

/// A view reads each time field in the entity's format.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Event")]
pub struct EventTimes {
    pub created_at: SystemTime,
    pub seen_at: SystemTime,
    pub archived_at: Option<SystemTime>,
    pub expires: Option<SystemTime>,
}

fn t(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn event(id: &str, created_ms: u64) -> Event {
    Event {
        feed: "f".into(),
        id: id.into(),
        created_at: t(created_ms),
        updated_at: None,
        seen_at: t(created_ms + 5),
        archived_at: None,
        expires: None,
    }
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.expect("raw PutItem");
}

async fn raw_get(table: &Table, id: &str) -> Item {
    let key = Item::from([("PK".to_owned(), s("FEED#f")), ("SK".to_owned(), s(&format!("EVENT#{id}")))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("GetItem");
    out.item.expect("the item exists")
}

#[tokio::test]
async fn times_written_by_others_as_iso_strings_and_numbers_are_read() {
    let table = common::table("time-read", &[Event::SCHEMA]).await;
    // As JavaScript writes them: `new Date().toISOString()` and `Date.now()`.
    raw_put(
        &table,
        Item::from([
            ("PK".to_owned(), s("FEED#f")),
            ("SK".to_owned(), s("EVENT#e1")),
            ("created_at".to_owned(), s("2023-11-14T22:13:20.123Z")),
            ("updated_at".to_owned(), s("2024-02-29T00:00:00.000Z")),
            ("seen_at".to_owned(), n("1700000000128")),
            ("archived_at".to_owned(), n("1700000100")),
            ("expires".to_owned(), n("1800000000")),
        ]),
    )
    .await;
    let got = table.get(Event::key("f", "e1")).await.unwrap().expect("read");
    assert_eq!(
        got,
        Event {
            feed: "f".into(),
            id: "e1".into(),
            created_at: t(1_700_000_000_123),
            updated_at: Some(t(1_709_164_800_000)),
            seen_at: t(1_700_000_000_128),
            archived_at: Some(t(1_700_000_100_000)),
            expires: Some(t(1_800_000_000_000)),
        }
    );
    let times = table.query_all(Event::query_by_feed("f").into_query().view::<EventTimes>()).await.unwrap();
    assert_eq!(
        times,
        vec![EventTimes {
            created_at: t(1_700_000_000_123),
            seen_at: t(1_700_000_000_128),
            archived_at: Some(t(1_700_000_100_000)),
            expires: Some(t(1_800_000_000_000)),
        }]
    );
}

#[tokio::test]
async fn times_we_write_are_iso_strings_or_the_chosen_numbers() {
    let table = common::table("time-write", &[Event::SCHEMA]).await;
    // A time finer than a millisecond is stored as its millisecond, rounded towards the past.
    let fine = t(1_700_000_000_123) + Duration::from_nanos(999_999);
    let e = Event {
        updated_at: Some(t(1_700_000_000_999)),
        archived_at: Some(t(1_700_000_100_999)),
        expires: Some(t(1_800_000_000_000)),
        created_at: fine,
        ..event("e2", 0)
    };
    table.put(&e).await.unwrap();
    let item = raw_get(&table, "e2").await;
    assert_eq!(item.get("created_at"), Some(&s("2023-11-14T22:13:20.123Z")));
    assert_eq!(item.get("updated_at"), Some(&s("2023-11-14T22:13:20.999Z")));
    assert_eq!(item.get("seen_at"), Some(&n("5")));
    assert_eq!(item.get("archived_at"), Some(&n("1700000100")));
    assert_eq!(item.get("expires"), Some(&n("1800000000")), "TTL stays epoch seconds");
    let back = table.get(Event::key("f", "e2")).await.unwrap().unwrap();
    assert_eq!(back.created_at, t(1_700_000_000_123));
    assert_eq!(back.archived_at, Some(t(1_700_000_100_000)));

    // Updates write each field's format.
    let updated = table
        .update(
            Event::update(Event::key("f", "e2"))
                .set(Event::fields().created_at, t(1_600_000_000_000))
                .set(Event::fields().seen_at, t(42))
                .set(Event::fields().archived_at, t(3_000))
                .remove(Event::fields().updated_at),
        )
        .await
        .unwrap();
    assert_eq!(
        (updated.created_at, updated.seen_at, updated.archived_at),
        (t(1_600_000_000_000), t(42), Some(t(3_000)))
    );
    let item = raw_get(&table, "e2").await;
    assert_eq!(item.get("created_at"), Some(&s("2020-09-13T12:26:40.000Z")));
    assert_eq!((item.get("seen_at"), item.get("archived_at")), (Some(&n("42")), Some(&n("3"))));
    assert!(!item.contains_key("updated_at"));
}

#[tokio::test]
async fn conditions_and_filters_compare_in_the_fields_format() {
    let table = common::table("time-cond", &[Event::SCHEMA]).await;
    for (i, ms) in [1_000u64, 2_000, 3_000, 4_000].iter().enumerate() {
        table.put(&event(&format!("e{i}"), *ms)).await.unwrap();
    }
    let f = Event::fields();
    let feed = || Event::query_by_feed("f").into_query();
    let ids = |q: dynamo_entity::Query<Event>| {
        let table = table.clone();
        async move {
            let got: Vec<Event> = table.query_all(q).await.unwrap();
            got.into_iter().map(|e| e.id).collect::<Vec<_>>()
        }
    };
    // ISO strings compare as times.
    assert_eq!(ids(feed().filter(f.created_at.gt(t(2_000)))).await, ["e2", "e3"]);
    assert_eq!(ids(feed().filter(f.created_at.between(t(1_500), t(3_000)))).await, ["e1", "e2"]);
    // Epoch milliseconds compare as numbers.
    assert_eq!(ids(feed().filter(f.seen_at.lte(t(2_005)))).await, ["e0", "e1"]);

    // A write condition on a time field.
    let r = table.put(&event("e0", 9_000)).condition(f.created_at.gt(t(1_000))).await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    table.put(&event("e0", 9_000)).condition(f.created_at.eq(t(1_000))).await.unwrap();
    let r = table
        .update(
            Event::update(Event::key("f", "e0")).set(Event::fields().seen_at, t(1)).condition(f.seen_at.lt(t(9_005))),
        )
        .await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    table
        .update(
            Event::update(Event::key("f", "e0")).set(Event::fields().seen_at, t(1)).condition(f.seen_at.eq(t(9_005))),
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn a_time_stored_in_another_shape_is_a_decode_error() {
    let table = common::table("time-bad", &[Event::SCHEMA]).await;
    let base = |id: &str| {
        Item::from([
            ("PK".to_owned(), s("FEED#f")),
            ("SK".to_owned(), s(&format!("EVENT#{id}"))),
            ("created_at".to_owned(), s("2023-11-14T22:13:20.123Z")),
            ("seen_at".to_owned(), n("1")),
        ])
    };
    let serde_map = AttributeValue::M(
        [("secs_since_epoch".to_owned(), n("1700000000")), ("nanos_since_epoch".to_owned(), n("0"))].into(),
    );
    let cases: [(&str, &str, AttributeValue); 5] = [
        ("b1", "created_at", serde_map),
        ("b2", "created_at", s("2023-11-14T22:13:20Z")),
        ("b3", "created_at", n("1700000000")),
        ("b4", "seen_at", s("2023-11-14T22:13:20.123Z")),
        ("b5", "archived_at", n("1700000000.5")),
    ];
    for (id, attr, value) in cases {
        let mut item = base(id);
        item.insert(attr.to_owned(), value);
        raw_put(&table, item).await;
        match table.get(Event::key("f", id)).await {
            Err(Error::Decode { entity: "Event", attribute, key: Some((pk, sk)), message }) => {
                assert_eq!((attribute.as_str(), pk.as_str()), (attr, "FEED#f"), "{message}");
                assert_eq!(sk.as_deref(), Some(format!("EVENT#{id}").as_str()));
            }
            other => panic!("{id}: {other:?}"),
        }
    }
}

/// A time in a key: the key text is always ISO 8601 (it must sort); its own attribute follows
/// the field's format.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LOG#<source>"]
#[sk = "AT#<at>"]
pub struct LogLine {
    pub source: String,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub at: SystemTime,
    pub text: String,
}

#[tokio::test]
async fn a_key_field_with_a_format_keeps_iso_keys_and_its_own_attribute_format() {
    let table = common::table("time-key", &[LogLine::SCHEMA]).await;
    let line = LogLine { source: "api".into(), at: t(1_700_000_000_123), text: "up".into() };
    table.put(&line).await.unwrap();
    let key = Item::from([("PK".to_owned(), s("LOG#api")), ("SK".to_owned(), s("AT#2023-11-14T22:13:20.123Z"))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.unwrap();
    assert_eq!(out.item.unwrap().get("at"), Some(&n("1700000000123")));
    assert_eq!(table.get(LogLine::key("api", t(1_700_000_000_123))).await.unwrap(), Some(line.clone()));
    let r = table.put(&line).condition(LogLine::fields().at.eq(t(1_700_000_000_123))).await;
    assert!(r.is_ok(), "{r:?}");
    // Written by others without the attribute: read from the key.
    raw_put(
        &table,
        Item::from([
            ("PK".to_owned(), s("LOG#api")),
            ("SK".to_owned(), s("AT#2024-01-01T00:00:00.000Z")),
            ("text".to_owned(), s("x")),
        ]),
    )
    .await;
    let got = table.query_all(LogLine::query_by_source("api").at().gte(t(1_704_067_200_000))).await.unwrap();
    assert_eq!(got, vec![LogLine { source: "api".into(), at: t(1_704_067_200_000), text: "x".into() }]);
}

/// A key field stored its own way (`with`): the attribute a view reads back from the keys, and
/// the one an upsert writes, are in that format, as `to_item` writes it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ALERT#<source>"]
#[sk = "AT#<at>"]
#[gsi1(pk = "LEVEL#<level>", sk = "AT#<at>", query = "by_level", projection = "keys_only")]
pub struct Alert {
    pub source: String,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub at: SystemTime,
    pub level: String,
    pub text: String,
}

/// Key fields only: a KEYS_ONLY index serves it, each field read back from a key text.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Alert")]
pub struct AlertRef {
    pub source: String,
    pub at: SystemTime,
    pub level: String,
}

#[tokio::test]
async fn a_key_field_read_back_from_the_keys_keeps_its_own_format() {
    let table = common::table("time-key-with", &[Alert::SCHEMA]).await;
    let line = Alert { source: "api".into(), at: t(1_700_000_000_123), level: "warn".into(), text: "slow".into() };
    table.put(&line).await.unwrap();
    let key = Item::from([("PK".to_owned(), s("ALERT#api")), ("SK".to_owned(), s("AT#2023-11-14T22:13:20.123Z"))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("GetItem");
    assert_eq!(out.item.expect("stored").get("at"), Some(&n("1700000000123")), "to_item writes epoch millis");

    // The index holds only the keys: `source` and `at` come back from PK/SK, `level` from GSI1PK.
    let refs = table.query_all(Alert::query_by_level("warn").into_query().view::<AlertRef>()).await.unwrap();
    assert_eq!(refs, vec![AlertRef { source: "api".into(), at: t(1_700_000_000_123), level: "warn".into() }]);

    // An upsert writes the key fields' attributes as `to_item` does.
    table
        .update(
            Alert::update(Alert::key("api", t(1_700_000_000_456)))
                .set(Alert::fields().level, "info")
                .set(Alert::fields().text, "ok")
                .upsert(),
        )
        .await
        .unwrap();
    let key = Item::from([("PK".to_owned(), s("ALERT#api")), ("SK".to_owned(), s("AT#2023-11-14T22:13:20.456Z"))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("GetItem");
    assert_eq!(out.item.expect("upserted").get("at"), Some(&n("1700000000456")));
    let back = table.get(Alert::key("api", t(1_700_000_000_456))).await.unwrap().expect("readable");
    assert_eq!(back.level, "info");
}
