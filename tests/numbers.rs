//! Numbers DynamoDB cannot store are refused before sending, as `Error::Validation` naming the
//! attribute, and the rule agrees with DynamoDB Local: 10,000 random values (floats of every
//! kind, NaN and infinities included, integers up to 39 digits, lists of floats) are written
//! through the library; each one it refuses is then written raw with the SDK, and DynamoDB
//! Local must refuse it too, while each one it sends must be accepted.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use dynamo_entity::{Entity, Error, Table};
use futures_util::StreamExt;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NUM#<id>"]
pub struct Num {
    pub id: u32,
    pub f: Option<f64>,
    pub i: Option<i128>,
    pub u: Option<u128>,
    pub list: Option<Vec<f64>>,
}

/// One value in one of the fields.
#[derive(Debug, Clone)]
enum Value {
    F(f64),
    I(i128),
    U(u128),
    List(Vec<f64>),
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        // Every class: normal, subnormal, zero, infinite, NaN.
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        // Around the largest and smallest magnitudes DynamoDB stores.
        (1.0f64..10.0, 118i32..134, any::<bool>()).prop_map(|(m, e, neg)| if neg {
            -m * 10f64.powi(e)
        } else {
            m * 10f64.powi(e)
        }),
        (1.0f64..10.0, -136i32..-124).prop_map(|(m, e)| m * 10f64.powi(e)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let pow10 = |k: u32| 10u128.pow(k);
    prop_oneof![
        4 => float().prop_map(Value::F),
        1 => any::<i128>().prop_map(Value::I),
        1 => any::<u128>().prop_map(Value::U),
        // Trailing zeros do not count as significant digits.
        1 => (1u128..1000, 0u32..36).prop_map(move |(m, k)| Value::U(m * pow10(k))),
        // Around 38 digits.
        1 => (0u128..1000).prop_map(move |d| Value::U(pow10(38) - 500 + d)),
        1 => proptest::collection::vec(float(), 0..4).prop_map(Value::List),
    ]
}

fn entity(id: u32, v: &Value) -> Num {
    let mut n = Num { id, f: None, i: None, u: None, list: None };
    match v {
        Value::F(f) => n.f = Some(*f),
        Value::I(i) => n.i = Some(*i),
        Value::U(u) => n.u = Some(*u),
        Value::List(l) => n.list = Some(l.clone()),
    }
    n
}

fn is_validation_exception(e: &aws_sdk_dynamodb::Error) -> bool {
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    e.code() == Some("ValidationException")
}

/// Writes `n` through the library and, if refused, raw; `None` when both agree.
async fn disagreement(table: &Table, n: &Num, refused: &AtomicUsize) -> Option<String> {
    match table.put(n).await {
        Ok(()) => None,
        Err(Error::Validation(why)) => {
            refused.fetch_add(1, Ordering::Relaxed);
            let field = ["f", "i", "u", "list"]
                .into_iter()
                .find(|f| why.contains(&format!("attribute `{f}")))
                .unwrap_or_else(|| panic!("the validation error names no attribute: {why}"));
            let raw = n.to_item().expect("item");
            assert!(raw.contains_key(field), "{why} names `{field}`, which {n:?} does not set");
            let sent = table.client().put_item().table_name(table.name()).set_item(Some(raw)).send().await;
            match sent.map_err(aws_sdk_dynamodb::Error::from) {
                Ok(_) => Some(format!("{n:?}: refused ({why}) but DynamoDB Local accepts it")),
                Err(e) if is_validation_exception(&e) => None,
                Err(e) => panic!("raw write of {n:?}: {e:?}"),
            }
        }
        Err(Error::Sdk(e)) if is_validation_exception(&e) => {
            Some(format!("{n:?}: sent, but DynamoDB Local refuses it: {}", Error::Sdk(e)))
        }
        Err(e) => panic!("{n:?}: {e}"),
    }
}

#[tokio::test]
async fn number_validation_agrees_with_dynamodb_local() {
    let table = common::table("numbers", &[Num::SCHEMA]).await;
    let mut runner = TestRunner::deterministic();
    let strategy = value();
    let values: Vec<Value> = (0..10_000).map(|_| strategy.new_tree(&mut runner).expect("value").current()).collect();
    let refused = AtomicUsize::new(0);
    let disagreements: Vec<String> = futures_util::stream::iter(values.iter().enumerate())
        .map(|(id, v)| {
            let table = &table;
            let refused = &refused;
            async move {
                let n = entity(u32::try_from(id).unwrap(), v);
                disagreement(table, &n, refused).await
            }
        })
        .buffer_unordered(8)
        .filter_map(|d| async move { d })
        .collect()
        .await;
    let refused = refused.into_inner();
    eprintln!("{} values: {refused} refused before sending, {} accepted", values.len(), values.len() - refused);
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first: {:#?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(5)]
    );
    // Both outcomes are well represented, or the comparison says little.
    assert!(refused > 1_000 && values.len() - refused > 1_000, "{refused} refused");
}

#[tokio::test]
async fn every_write_path_refuses_a_bad_number_before_sending() {
    let table = common::table("numbers-paths", &[Num::SCHEMA]).await;
    let bad = Num { id: 1, f: Some(f64::NAN), i: None, u: None, list: None };
    let too_precise = Num { id: 2, f: None, i: None, u: Some(u128::MAX), list: None };
    let nested = Num { id: 3, f: None, i: None, u: None, list: Some(vec![1.0, 1e300]) };
    let named = |e: Error, attr: &str| {
        let text = e.to_string();
        assert!(matches!(e, Error::Validation(_)) && text.contains(&format!("attribute `{attr}")), "{text}");
    };
    named(table.put(&bad).await.unwrap_err(), "f");
    named(table.create(&too_precise).await.unwrap_err(), "u");
    named(table.put(&nested).await.unwrap_err(), "list[1]");
    named(table.transact().put(&bad).send().await.unwrap_err(), "f");
    // In a batch, the bad item is found before the first request: nothing is written.
    let mut many: Vec<Num> = (10..110).map(|id| Num { id, f: Some(1.5), i: None, u: None, list: None }).collect();
    many[60].f = Some(f64::INFINITY);
    named(table.batch_put(&many).await.unwrap_err(), "f");
    assert!(table.get(Num::key(10u32)).await.unwrap().is_none(), "a batch with a bad item wrote something");
    // Update values too.
    named(
        table.update(Num::update(Num::key(1u32)).set(Num::fields().f, f64::NEG_INFINITY).upsert()).await.unwrap_err(),
        "f",
    );
    named(table.update(Num::update(Num::key(1u32)).set(Num::fields().u, u128::MAX).upsert()).await.unwrap_err(), "u");
    assert!(table.get(Num::key(1u32)).await.unwrap().is_none());
}
