//! Items written by the e-commerce seed's own TypeScript (AWS JS SDK v3), read with the
//! example's models. `tests/seed_items/ecommerce.json` holds every item that code wrote, as
//! DynamoDB JSON: the record of one run of it (the project no longer runs Node.js). The items go
//! in with the SDK's plain PutItem: no type attribute of ours, no `version`, key fields only in
//! the keys where the seed wrote them so, an email with `#`.

mod common;

#[path = "../examples/ecommerce/model.rs"]
mod ecommerce;

use dynamo_entity::prelude::*;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use dynamo_entity::{AttributeValue, Entity, Error, Item, Table};
use ecommerce::*;

const DUMP: &str = "tests/seed_items/ecommerce.json";

/// One attribute value of DynamoDB JSON (`{"S": ".."}`, `{"N": ".."}`, `{"M": {..}}`, ...).
fn value(json: &serde_json::Value) -> AttributeValue {
    let (kind, v) = json.as_object().and_then(|o| o.iter().next()).expect("a typed value");
    match (kind.as_str(), v) {
        ("S", serde_json::Value::String(s)) => AttributeValue::S(s.clone()),
        ("N", serde_json::Value::String(n)) => AttributeValue::N(n.clone()),
        ("BOOL", serde_json::Value::Bool(b)) => AttributeValue::Bool(*b),
        ("NULL", _) => AttributeValue::Null(true),
        ("L", serde_json::Value::Array(l)) => AttributeValue::L(l.iter().map(value).collect()),
        ("M", serde_json::Value::Object(m)) => {
            AttributeValue::M(m.iter().map(|(k, v)| (k.clone(), value(v))).collect())
        }
        ("SS", serde_json::Value::Array(l)) => {
            AttributeValue::Ss(l.iter().map(|s| s.as_str().expect("a string").to_owned()).collect())
        }
        other => panic!("unexpected DynamoDB JSON {other:?}"),
    }
}

fn seed_items() -> Vec<Item> {
    let text = std::fs::read_to_string(DUMP).expect("the checked-in dump");
    let json: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(&text).expect("DynamoDB JSON");
    json.iter().map(|item| item.iter().map(|(k, v)| (k.clone(), value(v))).collect()).collect()
}

fn key_of(item: &Item) -> (String, String) {
    let text = |a: &str| match item.get(a) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("{a}: {other:?}"),
    };
    (text("PK"), text("SK"))
}

async fn raw_get(table: &Table, pk: &str, sk: &str) -> Item {
    let key =
        Item::from([("PK".to_owned(), AttributeValue::S(pk.into())), ("SK".to_owned(), AttributeValue::S(sk.into()))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("GetItem");
    out.item.expect("the item exists")
}

/// A table holding exactly the seed's items, written by the SDK's PutItem.
async fn seeded(test: &str) -> (Table, Vec<Item>) {
    let table = common::table(test, &ecommerce::schemas()).await;
    let items = seed_items();
    for item in &items {
        table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.expect("PutItem");
    }
    (table, items)
}

#[tokio::test]
async fn the_seeds_items_are_read_by_every_access_pattern() {
    let (table, items) = seeded("seed-read").await;
    assert_eq!(items.len(), 13, "2 users, 3 orders, 3 copies under the user, 4 order items, 1 session");
    assert!(items.iter().all(|i| !i.contains_key("version")), "the seed writes no version");

    // 1. A user; and by email through GSI1, whose key holds the address as it is.
    let alice = table.get(User::key("u-alice")).await.unwrap().expect("alice");
    assert_eq!((alice.name.as_str(), alice.email.as_str()), ("Alice", "alice@example.com"));
    let jp = table.query_all(User::query_by_email("sales#jp@example.com")).await.unwrap();
    assert_eq!(jp.iter().map(|u| u.id.as_str()).collect::<Vec<_>>(), ["u-sales-jp"]);

    // 2. The user's orders, newest first (the denormalized copies; `userId` only in the key).
    let copies = table.query_all(UserOrder::query_orders_of("u-alice").descending()).await.unwrap();
    assert_eq!(copies.iter().map(|o| o.order_id.as_str()).collect::<Vec<_>>(), ["o-1002", "o-1001"]);
    assert_eq!(
        (copies[1].user_id.as_str(), copies[1].status, copies[1].total_amount),
        ("u-alice", OrderStatus::Pending, 3500)
    );

    // 3. An order, without a version attribute: version 0.
    let order = table.get(Order::key("o-1001")).await.unwrap().expect("o-1001");
    assert_eq!(
        order,
        Order {
            id: "o-1001".into(),
            user_id: "u-alice".into(),
            status: OrderStatus::Pending,
            total_amount: 3500,
            created_at: "2024-01-15T10:30:00.000Z".into(),
            version: 0,
        }
    );

    // 4. An order's items (`orderId`/`itemId` only in the keys), and the order page in one query.
    let lines = table.query_all(OrderItem::query_items_of("o-1001")).await.unwrap();
    assert_eq!(
        lines
            .iter()
            .map(|i| (i.item_id.as_str(), i.product_name.as_str(), i.quantity, i.unit_price))
            .collect::<Vec<_>>(),
        [("i-1", "Keyboard", 1, 3000), ("i-2", "Cable", 2, 250)]
    );
    let page = table.query_all(OrderPage::query(Order::partition("o-1001"))).await.unwrap();
    assert_eq!(page.len(), 3);
    assert!(matches!(&page[0], OrderPage::Item(i) if i.order_id == "o-1001"));
    assert!(matches!(&page[2], OrderPage::Order(o) if *o == order));

    // 5. Orders by status since a date (the design's getOrdersByStatus), and by user (GSI2).
    let since = "2024-01-01T00:00:00.000Z";
    let pending = table.query_all(Order::query_by_status(OrderStatus::Pending).created_at().gte(since)).await.unwrap();
    assert_eq!(pending.iter().map(|o| (o.id.as_str(), o.version)).collect::<Vec<_>>(), [("o-1001", 0), ("o-1003", 0)]);
    let later =
        table.query_all(Order::query_by_status(OrderStatus::Pending).created_at().gte("2024-02")).await.unwrap();
    assert_eq!(later.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["o-1003"]);
    let entries = table
        .query_all(Order::query_by_status(OrderStatus::Shipped).created_at().gte(since).view::<OrderListEntry>())
        .await
        .unwrap();
    assert_eq!(entries.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["o-1002"]);
    let of_user = table.query_all(Order::query_of_user("u-alice")).await.unwrap();
    assert_eq!(of_user.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["o-1001", "o-1002"]);

    // The session: TTL in epoch seconds, a map of strings.
    let session = table.get(Session::key("s-1")).await.unwrap().expect("s-1");
    assert_eq!(session.user_id, "u-alice");
    assert_eq!(session.data, BTreeMap::from([("cart".into(), "o-1001".into()), ("theme".into(), "dark".into())]));
    let stored = items.iter().find(|i| key_of(i).0 == "SESSION#s-1").unwrap();
    let Some(AttributeValue::N(secs)) = stored.get("expiresAt") else { panic!("expiresAt") };
    assert_eq!(session.expires_at, SystemTime::UNIX_EPOCH + Duration::from_secs(secs.parse().unwrap()));
}

#[tokio::test]
async fn an_order_read_without_a_version_is_updated_optimistically() {
    let (table, _) = seeded("seed-update").await;
    let order = table.get(Order::key("o-1001")).await.unwrap().unwrap();
    let paid = table.update(Order::update_from(&order).set(Order::fields().status, OrderStatus::Paid)).await.unwrap();
    assert_eq!((paid.status, paid.version), (OrderStatus::Paid, 1));
    // The order moved between GSI1 partitions.
    let pending = table.query_all(Order::query_by_status(OrderStatus::Pending)).await.unwrap();
    assert_eq!(pending.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), ["o-1003"]);
    // A second writer that read the same version-less order is stale.
    let stale = table.update(Order::update_from(&order).set(Order::fields().status, OrderStatus::Shipped)).await;
    assert!(matches!(stale, Err(Error::VersionConflict { entity: "Order", .. })), "{stale:?}");
    let stale = table.put(&Order { status: OrderStatus::Shipped, ..order }).await;
    assert!(matches!(stale, Err(Error::VersionConflict { entity: "Order", .. })), "{stale:?}");
}

/// Written back by this crate, every key attribute has exactly the bytes the seed wrote.
#[tokio::test]
async fn what_we_write_has_the_seeds_key_bytes() {
    let (table, items) = seeded("seed-bytes").await;
    let keys = ["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "entityType"];
    let same = |theirs: &Item, ours: &Item| {
        for k in keys {
            assert_eq!(theirs.get(k), ours.get(k), "{k} of {:?}", key_of(theirs));
        }
    };
    for theirs in &items {
        let (pk, sk) = key_of(theirs);
        // Read each item as its entity and put it back (a version-less order writes version 1).
        match theirs.get("entityType") {
            Some(AttributeValue::S(t)) if t == "User" => {
                let (Some(AttributeValue::S(id)), Some(AttributeValue::S(email))) =
                    (theirs.get("id"), theirs.get("email"))
                else {
                    panic!("a user")
                };
                let u = table.get(User::key(id.clone())).await.unwrap().unwrap();
                assert_eq!(&u.email, email);
                table.put(&u).await.unwrap();
            }
            Some(AttributeValue::S(t)) if t == "Order" => {
                let o = Order::from_item(theirs.clone()).unwrap();
                table.put(&o).await.unwrap();
            }
            Some(AttributeValue::S(t)) if t == "UserOrder" => {
                table.put(&UserOrder::from_item(theirs.clone()).unwrap()).await.unwrap()
            }
            Some(AttributeValue::S(t)) if t == "OrderItem" => {
                table.put(&OrderItem::from_item(theirs.clone()).unwrap()).await.unwrap()
            }
            Some(AttributeValue::S(t)) if t == "Session" => {
                table.put(&Session::from_item(theirs.clone()).unwrap()).await.unwrap()
            }
            other => panic!("unexpected item type {other:?}"),
        }
        same(theirs, &raw_get(&table, &pk, &sk).await);
    }
}
