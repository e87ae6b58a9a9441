//! Business rules as condition expressions on writes: "decrement stock only while it is
//! positive", "approve only a pending request", "delete only if not shipped"; combined with the
//! version and existence conditions, never replacing them. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{CancelCode, Entity, Error, KeyPart, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "WAREHOUSE#<warehouse>"]
#[sk = "STOCK#<sku>"]
pub struct Stock {
    pub warehouse: String,
    pub sku: String,
    pub quantity: i64,
}

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Status {
    Pending,
    Approved,
    Shipped,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
pub struct Order {
    pub id: String,
    pub status: Status,
    #[version]
    pub version: u64,
}

#[tokio::test]
async fn concurrent_decrements_stop_at_zero() {
    let table = common::table("stock", &[Stock::SCHEMA]).await;
    table.put(&Stock { warehouse: "A".into(), sku: "s1".into(), quantity: 10 }).await.unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let table: Table = table.clone();
            tokio::spawn(async move {
                let f = Stock::fields();
                table
                    .update(
                        Stock::update(Stock::key("A", "s1"))
                            .add(Stock::fields().quantity, -1)
                            .condition(f.quantity.gt(0)),
                    )
                    .await
            })
        })
        .collect();
    let mut ok = 0;
    let mut failed = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => ok += 1,
            Err(Error::ConditionFailed { entity: "Stock", .. }) => failed += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((ok, failed), (10, 6));
    assert_eq!(table.get(Stock::key("A", "s1")).await.unwrap().unwrap().quantity, 0);
}

#[tokio::test]
async fn user_conditions_combine_with_version_and_existence() {
    let table = common::table("write-conditions", &[Order::SCHEMA]).await;
    let f = Order::fields();
    let order = Order { id: "o1".into(), status: Status::Pending, version: 0 };
    // create + a condition: both must hold (the condition on an absent item fails).
    table.create(&order).await.unwrap();
    let again = table.create(&order).await;
    assert!(matches!(again, Err(Error::AlreadyExists { .. })), "{again:?}");

    // Approve only a pending order: a conditional update.
    let approved = table
        .update(
            Order::update(Order::key("o1"))
                .set(Order::fields().status, Status::Approved)
                .condition(f.status.eq(Status::Pending)),
        )
        .await
        .unwrap();
    assert_eq!((approved.status, approved.version), (Status::Approved, 2));
    let twice = table
        .update(
            Order::update(Order::key("o1"))
                .set(Order::fields().status, Status::Approved)
                .condition(f.status.eq(Status::Pending)),
        )
        .await;
    assert!(matches!(twice, Err(Error::ConditionFailed { .. })), "{twice:?}");

    // put with a condition and a version: a stale version is a VersionConflict, a failed user
    // condition at the right version a ConditionFailed, and the item as it was comes back.
    let current = table.get(Order::key("o1")).await.unwrap().unwrap();
    let stale = Order { version: 0, ..current.clone() };
    let r = table.put(&stale).condition(f.status.eq(Status::Approved)).await;
    assert!(matches!(r, Err(Error::VersionConflict { .. })), "{r:?}");
    let r = table
        .put(&Order { status: Status::Shipped, ..current.clone() })
        .condition(f.status.eq(Status::Pending))
        .return_old_on_failure()
        .await;
    match r {
        Err(Error::ConditionFailed { old: Some(old), .. }) => {
            assert_eq!(Order::from_item(*old).unwrap(), current);
        }
        other => panic!("{other:?}"),
    }
    table
        .put(&Order { status: Status::Shipped, ..current.clone() })
        .condition(f.status.eq(Status::Approved))
        .await
        .unwrap();

    // Delete only if not shipped.
    let r = table.delete(Order::key("o1")).condition(f.status.ne(Status::Shipped)).await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    assert!(table.get(Order::key("o1")).await.unwrap().is_some());
    table.delete(Order::key("o1")).condition(f.status.eq(Status::Shipped)).await.unwrap();
    assert!(table.get(Order::key("o1")).await.unwrap().is_none());
    // A plain `.await` still works.
    table.delete(Order::key("o1")).await.unwrap();
}

#[tokio::test]
async fn a_failed_condition_in_a_transaction_names_its_action() {
    let table = common::table("tx-conditions", &[Stock::SCHEMA, Order::SCHEMA]).await;
    let f = Stock::fields();
    table.put(&Stock { warehouse: "A".into(), sku: "s1".into(), quantity: 0 }).await.unwrap();
    table.put(&Stock { warehouse: "A".into(), sku: "s2".into(), quantity: 5 }).await.unwrap();
    let r = table
        .transact()
        .update(Stock::update(Stock::key("A", "s2")).add(Stock::fields().quantity, -1).condition(f.quantity.gt(0)))
        .update(Stock::update(Stock::key("A", "s1")).add(Stock::fields().quantity, -1).condition(f.quantity.gt(0)))
        .send()
        .await;
    match r {
        Err(Error::TransactionCanceled { reasons }) => {
            assert_eq!(reasons[0].code, CancelCode::None);
            assert_eq!(reasons[1].code, CancelCode::ConditionalCheckFailed);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(table.get(Stock::key("A", "s2")).await.unwrap().unwrap().quantity, 5, "nothing written");
    // put_if, delete_if and a condition check on the transaction's other actions.
    table
        .transact()
        .put_if(&Stock { warehouse: "A".into(), sku: "s2".into(), quantity: 4 }, f.quantity.eq(5))
        .check(Stock::key("A", "s1"), f.quantity.eq(0))
        .send()
        .await
        .unwrap();
    let r = table.transact().delete_if(Stock::key("A", "s2"), f.quantity.gt(100)).send().await;
    assert!(matches!(r, Err(Error::TransactionCanceled { .. })), "{r:?}");
    table.transact().delete_if(Stock::key("A", "s2"), f.quantity.eq(4)).send().await.unwrap();
    assert!(table.get(Stock::key("A", "s2")).await.unwrap().is_none());
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SENSOR#<sensor>"]
pub struct Reading {
    pub sensor: String,
    pub value: f64,
}

#[tokio::test]
async fn a_number_dynamodb_cannot_store_in_a_condition_is_refused_before_sending() {
    // No such table: a request that reached DynamoDB would fail with ResourceNotFound instead.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, "no-such-table-conditions");
    let f = Reading::fields();
    for bad in [f64::NAN, f64::INFINITY, 1e200] {
        let r = table.delete(Reading::key("s1")).condition(f.value.gt(bad)).await;
        assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("value")), "{bad}: {r:?}");
        let q = table.query_all(Reading::query_by_sensor("s1").filter(f.value.lt(bad))).await;
        assert!(matches!(&q, Err(Error::Validation(_))), "{bad}: {q:?}");
    }
}

/// A user condition that is itself a group (`a AND b`) beside the write's own existence or
/// version condition: DynamoDB rejects redundant parentheses (`((a AND b))`), so it must be sent
/// as `own AND (a AND b)`, and hold or fail as written.
#[tokio::test]
async fn a_combined_user_condition_beside_the_writes_own() {
    let table = common::table("combined-condition", &[Stock::SCHEMA, Order::SCHEMA]).await;
    table.put(&Stock { warehouse: "A".into(), sku: "s1".into(), quantity: 3 }).await.unwrap();
    let f = Stock::fields();
    let both = || f.quantity.gt(0).and(f.quantity.lt(10));
    let s = table
        .update(Stock::update(Stock::key("A", "s1")).add(Stock::fields().quantity, -1).condition(both()))
        .await
        .unwrap();
    assert_eq!(s.quantity, 2);
    let err = table
        .update(
            Stock::update(Stock::key("A", "s1"))
                .add(Stock::fields().quantity, -1)
                .condition(f.quantity.gt(5).and(f.quantity.lt(10))),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    let r = Stock::update(Stock::key("A", "s1")).add(Stock::fields().quantity, -1).condition(both()).request().unwrap();
    let text = r.condition_expression.unwrap();
    assert!(!text.contains("(("), "{text}");

    // A versioned put (its own condition) with a combined condition.
    let order = Order { id: "o1".into(), status: Status::Pending, version: 0 };
    table.put(&order).await.unwrap();
    let o = Order::fields();
    let stored = table.get(Order::key("o1")).await.unwrap().unwrap();
    table
        .put(&Order { status: Status::Approved, ..stored.clone() })
        .condition(o.status.eq(Status::Pending).or(o.status.eq(Status::Approved)))
        .await
        .unwrap();
    let err = table
        .put(&Order { status: Status::Shipped, ..stored })
        .condition(o.status.eq(Status::Shipped).or(o.status.eq(Status::Pending)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::VersionConflict { .. } | Error::ConditionFailed { .. }), "{err:?}");
}
