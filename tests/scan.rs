//! Scans: only the entity's (or collection's) items, in parallel segments, with filters and
//! limits. Against DynamoDB Local.

mod common;

use std::collections::HashSet;

use dynamo_entity::{AttributeValue, Collection, Entity, Error, Item};
use futures_util::StreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
pub struct Order {
    pub id: u32,
    pub total: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<order_id>"]
#[sk = "ITEM#<n:3>"]
pub struct OrderItem {
    pub order_id: u32,
    pub n: u16,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<name>"]
#[sk = "PROFILE"]
pub struct User {
    pub name: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderParts {
    Order(Order),
    Item(OrderItem),
}

#[tokio::test]
async fn a_parallel_scan_returns_every_item_of_the_entity_once_and_nothing_else() {
    let table = common::table("scan", &[Order::SCHEMA, OrderItem::SCHEMA, User::SCHEMA]).await;
    let orders: Vec<Order> = (0..300).map(|id| Order { id, total: u64::from(id % 10) }).collect();
    let items: Vec<OrderItem> = (0..300).flat_map(|o| (0..2).map(move |n| OrderItem { order_id: o, n })).collect();
    let users: Vec<User> = (0..50).map(|i| User { name: format!("u{i}") }).collect();
    table.batch_put(&orders).await.unwrap();
    table.batch_put(&items).await.unwrap();
    table.batch_put(&users).await.unwrap();
    // An item written by other code, without a type attribute, under an order's key.
    let raw: Item = [
        ("PK", AttributeValue::S("ORDER#0000000999".into())),
        ("SK", AttributeValue::S("METADATA".into())),
        ("total", AttributeValue::N("7".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    table.client().put_item().table_name(table.name()).set_item(Some(raw)).send().await.unwrap();

    let scanned: Vec<Order> = table.scan::<Order>().segments(4).stream().map(Result::unwrap).collect().await;
    let ids: HashSet<u32> = scanned.iter().map(|o| o.id).collect();
    assert_eq!(scanned.len(), 301, "every order once");
    assert_eq!(ids.len(), 301);
    assert!(ids.contains(&999));

    let all = table.scan::<User>().segments(3).all().await.unwrap();
    assert_eq!(all.len(), 50);

    // A collection scan: orders and their items, nothing of users.
    let parts = table.scan::<OrderParts>().segments(2).all().await.unwrap();
    assert_eq!(parts.iter().filter(|p| matches!(p, OrderParts::Order(_))).count(), 301);
    assert_eq!(parts.iter().filter(|p| matches!(p, OrderParts::Item(_))).count(), 600);

    // Filter and limit.
    let big = table.scan::<Order>().segments(4).filter(Order::fields().total.gte(8)).all().await.unwrap();
    assert_eq!(big.len(), 60);
    assert!(big.iter().all(|o| o.total >= 8));
    let few = table.scan::<Order>().segments(4).limit(7).all().await.unwrap();
    assert_eq!(few.len(), 7);

    // Refused before sending.
    assert!(matches!(table.scan::<Order>().segments(0).all().await, Err(Error::Validation(_))));
    assert!(matches!(table.scan::<Order>().limit(0).all().await, Err(Error::Validation(_))));
}
