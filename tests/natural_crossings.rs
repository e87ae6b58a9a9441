//! Where natural keys (tables keyed on plain attributes) cross the other features (issue 69):
//! Lambda filter patterns of entities without a type attribute, cursors checked against every
//! attribute of their key, decode errors that name the item's key, number keys equal as values
//! (`0` and `-0`), and `under` on a sort key that holds values as they are. Against the embedded
//! engine; what it cannot say (which records Lambda delivers) is evaluated here on the patterns'
//! JSON, as Lambda's filter rules read it.

mod common;

use dynamo_entity::stream::{EventName, filter_patterns};
use dynamo_entity::{AttributeValue, Collection, Entity, Item};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// 1. Lambda filter patterns.

/// An entity with a type attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[entity(type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub total: u64,
}

/// Another typed entity of the same table, not asked for.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<order_id>"]
#[sk = "ITEM#<sku>"]
#[entity(type_attr = "entityType")]
pub struct OrderLine {
    pub order_id: String,
    pub sku: String,
}

/// An entity without a type attribute whose keys start with literal text.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LEGACY#<id>"]
#[sk = "V1"]
#[entity(type_attr = false)]
pub struct Legacy {
    pub id: String,
    pub note: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Asked {
    Order(Order),
    Legacy(Legacy),
}

/// An entity of a table keyed on a plain attribute, without a type attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<match_id>"]
#[entity(pk_attr = "matchId", rename_all = "camelCase", type_attr = false, owns_partition = true)]
pub struct Match {
    pub match_id: String,
    pub round: String,
}

/// An attribute value as DynamoDB JSON (the stream record's form).
fn ddb_json(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(ddb_json).collect::<Vec<_>>() }),
        AttributeValue::M(m) => {
            json!({ "M": m.iter().map(|(k, v)| (k.clone(), ddb_json(v))).collect::<serde_json::Map<_, _>>() })
        }
        AttributeValue::Ss(s) => json!({ "SS": s }),
        other => panic!("not in these tests: {other:?}"),
    }
}

fn image(item: &Item) -> Value {
    Value::Object(item.iter().map(|(k, v)| (k.clone(), ddb_json(v))).collect())
}

/// A Lambda stream record of `event` on `item`, whose table keys are `keys`.
fn record(event: &str, item: &Item, keys: &[&str]) -> Value {
    let key_item: Item = keys.iter().map(|k| ((*k).to_owned(), item[*k].clone())).collect();
    let mut dynamodb = json!({
        "ApproximateCreationDateTime": 1_709_234_567.0,
        "Keys": image(&key_item),
        "SequenceNumber": "100",
        "SizeBytes": 59,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
    });
    if event != "INSERT" {
        dynamodb["OldImage"] = image(item);
    }
    if event != "REMOVE" {
        dynamodb["NewImage"] = image(item);
    }
    json!({
        "eventID": "1", "eventName": event, "eventVersion": "1.1", "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1", "dynamodb": dynamodb,
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2026-03-01T00:00:00.000"
    })
}

/// Whether `record` satisfies `pattern`, by Lambda's filter rules: every field of the pattern
/// is in the record; an array lists the values allowed (a string as it is, `{"prefix": p}`);
/// an object goes one level down. Any other rule is not one these patterns may use.
fn satisfies(pattern: &Value, record: &Value) -> bool {
    pattern.as_object().expect("a pattern is an object").iter().all(|(field, rule)| {
        let Some(got) = record.get(field) else { return false };
        match rule {
            Value::Array(allowed) => allowed.iter().any(|a| match a {
                Value::String(_) => got == a,
                Value::Object(op) if op.len() == 1 && op.contains_key("prefix") => {
                    got.as_str().is_some_and(|s| s.starts_with(op["prefix"].as_str().unwrap()))
                }
                other => panic!("a rule these patterns do not use: {other}"),
            }),
            Value::Object(_) => satisfies(rule, got),
            other => panic!("not a pattern: {other}"),
        }
    })
}

/// Whether Lambda delivers `record` through a mapping with `patterns` (ORed).
fn delivered(patterns: &[String], record: &Value) -> bool {
    patterns.iter().any(|p| satisfies(&serde_json::from_str(p).expect("pattern JSON"), record))
}

/// What a function decoding `T` gets of `record`: whether it is one of `T`'s.
fn decoded<T: dynamo_entity::Readable + std::fmt::Debug>(record: &Value) -> bool {
    let event = serde_json::from_value(json!({ "Records": [record] })).unwrap();
    let changes: Vec<_> = dynamo_entity::stream::lambda::changes::<T>(event).collect();
    changes.iter().for_each(|c| assert!(c.is_ok(), "{c:?}"));
    !changes.is_empty()
}

const EVENTS: [&str; 3] = ["INSERT", "MODIFY", "REMOVE"];

/// Issue 69, item 6: the patterns of a typed entity and an entity without a type attribute let
/// through every record of both; the typed entity's pattern alone would drop the other's.
#[test]
fn filter_patterns_deliver_every_record_of_every_entity_asked_for() {
    let order = Order { id: "o1".into(), total: 5 }.to_item().unwrap();
    let line = OrderLine { order_id: "o1".into(), sku: "s".into() }.to_item().unwrap();
    let legacy = Legacy { id: "l1".into(), note: "old".into() }.to_item().unwrap();
    assert!(!legacy.contains_key("entityType") && !legacy.contains_key("entity_type"), "{legacy:?}");
    let mut foreign = Item::new();
    foreign.insert("PK".into(), AttributeValue::S("OTHER#1".into()));
    foreign.insert("SK".into(), AttributeValue::S("V1".into()));
    let table_keys = ["PK", "SK"];

    // Typed and untyped with literal keys: exactly the records a function of both decodes.
    let patterns = filter_patterns(&[&Order::SCHEMA, &Legacy::SCHEMA], &[]);
    for event in EVENTS {
        for (what, item) in [("order", &order), ("legacy", &legacy), ("line", &line), ("foreign", &foreign)] {
            let r = record(event, item, &table_keys);
            assert_eq!(delivered(&patterns, &r), decoded::<Asked>(&r), "{what} {event}: {patterns:?}");
        }
        assert!(delivered(&patterns, &record(event, &legacy, &table_keys)), "{patterns:?}");
    }
    // The events asked for only.
    let inserts = filter_patterns(&[&Legacy::SCHEMA], &[EventName::Insert]);
    assert!(delivered(&inserts, &record("INSERT", &legacy, &table_keys)), "{inserts:?}");
    assert!(!delivered(&inserts, &record("REMOVE", &legacy, &table_keys)), "{inserts:?}");
    // The typed pattern is as the e-commerce seed writes it, the untyped one on the keys.
    assert_eq!(
        serde_json::from_str::<Value>(&inserts[0]).unwrap(),
        json!({"eventName": ["INSERT"], "dynamodb": {"Keys": {"PK": {"S": [{"prefix": "LEGACY#"}]}, "SK": {"S": ["V1"]}}}})
    );

    // A natural key offers nothing to match on: every record goes through, the entity's too.
    let m = Match { match_id: "match-001".into(), round: "FINAL".into() }.to_item().unwrap();
    let patterns = filter_patterns(&[&Order::SCHEMA, &Match::SCHEMA], &[]);
    for event in EVENTS {
        assert!(delivered(&patterns, &record(event, &m, &["matchId"])), "{event}: {patterns:?}");
        assert!(decoded::<Match>(&record(event, &m, &["matchId"])));
        assert!(delivered(&patterns, &record(event, &order, &table_keys)), "{event}: {patterns:?}");
    }
    assert_eq!(patterns, [r#"{"eventName":["INSERT","MODIFY","REMOVE"]}"#]);
    let modify = filter_patterns(&[&Match::SCHEMA], &[EventName::Modify]);
    assert!(!delivered(&modify, &record("INSERT", &m, &["matchId"])), "{modify:?}");
}
