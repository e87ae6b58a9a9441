//! A value the SDK reads as `AttributeValue::Unknown` (a type newer than the SDK, or a
//! DynamoDB-compatible endpoint's own) is a typed decoding error, never a panic (issue 21,
//! item 9). `Unknown` cannot be built in Rust: only the SDK's deserializer makes it. So an SDK
//! interceptor rewrites the JSON answers of DynamoDB Local before the SDK reads them: a marker
//! value becomes `{"X1": ..}`, a type key the SDK does not know; and a property test answers
//! `GetItem` with arbitrary item trees, unknown types at any depth among them.

mod common;

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use dynamo_entity::{Entity, Error, Table};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub a: String,
    pub n: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<id>"]
#[sk = "METADATA"]
pub struct Doc {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub meta: Meta,
    pub score: Option<u64>,
}

/// Replaces the body of the next answer with `body` (the request still goes to DynamoDB Local).
/// `Unknown` cannot be built in Rust, so the answer is given as DynamoDB's JSON.
#[derive(Debug, Default)]
struct Answer {
    body: Arc<Mutex<Option<String>>>,
}

impl Intercept for Answer {
    fn name(&self) -> &'static str {
        "Answer"
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(text) = self.body.lock().unwrap().take() else { return Ok(()) };
        common::answer(ctx, 200, text)
    }
}

/// `table` through a client whose next answer is `body`.
fn answering(table: &Table, body: String) -> Table {
    let answer = Answer { body: Arc::new(Mutex::new(Some(body))) };
    let config = table.client().config().to_builder().interceptor(answer);
    Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name().to_owned())
}

/// A `Doc` item as DynamoDB's JSON writes it, `unknown` replacing the value of one path.
fn doc_json(id: &str, unknown: &str) -> serde_json::Value {
    use serde_json::json;
    let u = json!({ "X1": "?" });
    let s = |v: &str, here: &str| if unknown == here { u.clone() } else { json!({ "S": v }) };
    json!({
        "PK": { "S": format!("DOC#{id}") },
        "SK": { "S": "METADATA" },
        "entity_type": { "S": "Doc" },
        "id": { "S": id },
        "title": s("t", "title"),
        "tags": { "L": [ { "S": "x" }, s("y", "tags") ] },
        "meta": { "M": { "a": s("a", "meta"), "n": { "N": "1" } } },
        "score": if unknown == "score" { u.clone() } else { json!({ "N": "3" }) },
    })
}

#[tokio::test]
async fn unknown_values_anywhere_in_an_item_are_decode_errors() {
    let base = common::table("unknown-values", &[Doc::SCHEMA]).await;
    // The canned item decodes when it holds no unknown value.
    let good = answering(&base, serde_json::json!({ "Item": doc_json("good", "") }).to_string());
    let read = good.get(Doc::key("good")).await.unwrap().unwrap();
    assert_eq!(read.meta, Meta { a: "a".into(), n: 1 });
    for attribute in ["title", "tags", "meta", "score"] {
        let table = answering(&base, serde_json::json!({ "Item": doc_json("bad", attribute) }).to_string());
        let e = table.get(Doc::key("bad")).await.unwrap_err();
        assert!(matches!(&e, Error::Decode { attribute: a, .. } if a == attribute), "{attribute}: {e:?}");
    }
    // A query reads on: the good item, and one error per bad one.
    let items = ["", "tags", "meta"].map(|u| doc_json(if u.is_empty() { "good" } else { u }, u));
    let table = answering(&base, serde_json::json!({ "Items": items, "Count": 3, "ScannedCount": 3 }).to_string());
    let e = table.scan::<Doc>().all().await.unwrap_err();
    let Error::BadItems { errors, partial } = e else { panic!("{e:?}") };
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(partial.into_page::<Doc>().unwrap().items.len(), 1);
}

/// An attribute value as DynamoDB's JSON writes it, with type keys the SDK does not know.
fn value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    let leaf = prop_oneof![
        "[a-z#%]{0,6}".prop_map(|s| json!({ "S": s })),
        "-?[0-9]{1,5}".prop_map(|n| json!({ "N": n })),
        any::<bool>().prop_map(|b| json!({ "BOOL": b })),
        Just(json!({ "NULL": true })),
        Just(json!({ "B": "AAE=" })),
        Just(json!({ "SS": ["a", "b"] })),
        Just(json!({ "NS": ["1"] })),
        "[A-Z]{2,4}".prop_map(|k| json!({ format!("Z{k}"): "?" })),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|l| serde_json::json!({ "L": l })),
            prop::collection::btree_map("[a-z]{1,5}", inner, 0..4).prop_map(|m| serde_json::json!({ "M": m })),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any item DynamoDB could send (and some it could not) decodes or is an error: never a
    /// panic. The keys and the type are the entity's, so the values reach its decoders.
    #[test]
    fn any_answer_decodes_or_is_an_error(
        tags in value(),
        meta in value(),
        score in prop::option::of(value()),
        extra in prop::collection::btree_map("[a-z]{1,4}", value(), 0..3),
    ) {
        let mut item = doc_json("any", "");
        for (k, v) in extra {
            item[k] = v;
        }
        item["tags"] = tags;
        item["meta"] = meta;
        match score {
            Some(v) => item["score"] = v,
            None => {
                item.as_object_mut().unwrap().remove("score");
            }
        }
        let fields = item;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            // One table for every case; a client of this case's runtime to reach it.
            static NAME: Mutex<Option<String>> = Mutex::new(None);
            let existing = NAME.lock().unwrap().clone();
            let name = match existing {
                Some(name) => name,
                None => {
                    let name = common::table("unknown-prop", &[Doc::SCHEMA]).await.name().to_owned();
                    *NAME.lock().unwrap() = Some(name.clone());
                    name
                }
            };
            let base = Table::new(dynamo_entity::local::client().await.unwrap(), name);
            let table = answering(&base, serde_json::json!({ "Item": fields }).to_string());
            // Whatever it is, it is a value or an error.
            let _ = table.get(Doc::key("any")).await;
        });
    }
}
