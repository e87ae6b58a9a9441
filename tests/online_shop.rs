//! Reading and writing AWS's published "an-online-shop" layout (aws-samples,
//! amazon-dynamodb-design-patterns) as whole entities (issue 21, items 5, 7 and 21): its items
//! keep an order item's customer and date only in index key texts (`GSI1-SK`, `GSI2-PK`), a
//! shipment's warehouse only in `GSI2-PK`, and carry neither a type attribute nor the key
//! fields as attributes of their own.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, EntityKey, Error, Item, Table};

/// An order line: `PK = o#<order>`, `SK = p#<product>`; orders of a product by date (GSI1),
/// products a customer ordered by date (GSI2).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "p#<product_id>"]
#[gsi1(
    index = "GSI1",
    pk_attr = "GSI1-PK",
    sk_attr = "GSI1-SK",
    pk = "p#<product_id>",
    sk = "o#<date>",
    query = "orders_of_product"
)]
#[gsi2(
    index = "GSI2",
    pk_attr = "GSI2-PK",
    sk_attr = "GSI2-SK",
    pk = "c#<customer_id>",
    sk = "p#<date>",
    query = "products_of_customer"
)]
#[entity(key_attributes = false, type_attr = false)]
pub struct OrderItem {
    pub order_id: String,
    pub product_id: String,
    pub customer_id: String,
    pub date: String,
    pub quantity: u32,
    pub price: u64,
}

/// A shipment of an order from a warehouse: the warehouse only in `GSI2-PK`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "sh#<shipment_id>"]
#[gsi2(
    index = "GSI2",
    pk_attr = "GSI2-PK",
    sk_attr = "GSI2-SK",
    pk = "w#<warehouse_id>",
    sk = "sh#<shipment_id>",
    query = "shipments_of_warehouse"
)]
#[entity(key_attributes = false, type_attr = false)]
pub struct Shipment {
    pub order_id: String,
    pub shipment_id: String,
    pub warehouse_id: String,
    pub address: String,
}

/// The same order line, read by code that keeps the usual attributes (its own writes carry
/// the key fields and a type): it reads the published items too.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "p#<product_id>"]
#[gsi1(
    index = "GSI1",
    pk_attr = "GSI1-PK",
    sk_attr = "GSI1-SK",
    pk = "p#<product_id>",
    sk = "o#<date>",
    query = "orders_of_product"
)]
#[gsi2(
    index = "GSI2",
    pk_attr = "GSI2-PK",
    sk_attr = "GSI2-SK",
    pk = "c#<customer_id>",
    sk = "p#<date>",
    query = "products_of_customer"
)]
#[entity(type_name = "OrderItem")]
pub struct OrderLine {
    pub order_id: String,
    pub product_id: String,
    pub customer_id: String,
    pub date: String,
    pub quantity: u32,
    pub price: u64,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The published items, as the design's tools wrote them.
fn published() -> Vec<Item> {
    let order_item = |o: &str, p: &str, c: &str, d: &str, q: u64| {
        Item::from([
            ("PK".to_owned(), s(&format!("o#{o}"))),
            ("SK".to_owned(), s(&format!("p#{p}"))),
            ("GSI1-PK".to_owned(), s(&format!("p#{p}"))),
            ("GSI1-SK".to_owned(), s(&format!("o#{d}"))),
            ("GSI2-PK".to_owned(), s(&format!("c#{c}"))),
            ("GSI2-SK".to_owned(), s(&format!("p#{d}"))),
            ("quantity".to_owned(), n(q)),
            ("price".to_owned(), n(100 * q)),
        ])
    };
    vec![
        Item::from([
            ("PK".to_owned(), s("c#ana@mail.com")),
            ("SK".to_owned(), s("metadata")),
            ("name".to_owned(), s("Ana")),
        ]),
        Item::from([("PK".to_owned(), s("o#o1")), ("SK".to_owned(), s("metadata")), ("total".to_owned(), n(300))]),
        order_item("o1", "p1", "ana@mail.com", "2022-05-25T16:00:00", 1),
        order_item("o1", "p2", "ana@mail.com", "2022-05-25T16:00:00", 2),
        order_item("o2", "p1", "bo@mail.com", "2022-05-28T09:30:00", 3),
        Item::from([
            ("PK".to_owned(), s("o#o1")),
            ("SK".to_owned(), s("sh#sh1")),
            ("GSI2-PK".to_owned(), s("w#w1")),
            ("GSI2-SK".to_owned(), s("sh#sh1")),
            ("address".to_owned(), s("1 Main St")),
        ]),
    ]
}

async fn table(test: &str) -> Table {
    let table = common::table(test, &[OrderItem::SCHEMA, Shipment::SCHEMA]).await;
    for item in published() {
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    table
}

fn line(o: &str, p: &str, c: &str, d: &str, q: u32) -> OrderItem {
    OrderItem {
        order_id: o.into(),
        product_id: p.into(),
        customer_id: c.into(),
        date: d.into(),
        quantity: q,
        price: 100 * u64::from(q),
    }
}

#[tokio::test]
async fn fields_kept_only_in_index_keys_are_read_back_as_whole_entities() {
    let table = table("shop-read").await;
    let o1p1 = line("o1", "p1", "ana@mail.com", "2022-05-25T16:00:00", 1);
    assert_eq!(table.get(OrderItem::key("o1", "p1")).await.unwrap(), Some(o1p1.clone()));

    // Pattern 6: the products of an order (the order's metadata and shipment stepped over).
    let lines = table.query_all(OrderItem::query_by_order("o1")).await.unwrap();
    assert_eq!(lines.len(), 2);
    // Pattern 9: the orders of a product in a date range.
    let of_p1 = table
        .query_all(OrderItem::query_orders_of_product("p1").date().between("2022-05-25", "2022-05-27"))
        .await
        .unwrap();
    assert_eq!(of_p1, vec![o1p1.clone()]);
    // Pattern 16: the products a customer ordered in a date range.
    let ana =
        table.query_all(OrderItem::query_products_of_customer("ana@mail.com").date().begins_with("2022-05")).await;
    assert_eq!(ana.unwrap().len(), 2);
    // Pattern 13: the shipments of a warehouse; the warehouse comes from GSI2-PK.
    let shipments = table.query_all(Shipment::query_shipments_of_warehouse("w1")).await.unwrap();
    assert_eq!(
        shipments,
        vec![Shipment {
            order_id: "o1".into(),
            shipment_id: "sh1".into(),
            warehouse_id: "w1".into(),
            address: "1 Main St".into()
        }]
    );
    // An entity that writes the usual attributes reads the published items as well.
    let usual = table.get(OrderLine::key("o1", "p1")).await.unwrap().unwrap();
    assert_eq!((usual.customer_id.as_str(), usual.date.as_str()), ("ana@mail.com", "2022-05-25T16:00:00"));
}

#[tokio::test]
async fn the_entity_writes_the_published_layout_byte_for_byte() {
    let table = table("shop-write").await;
    let item = line("o1", "p1", "ana@mail.com", "2022-05-25T16:00:00", 1).to_item().unwrap();
    assert_eq!(item, published()[2], "no type attribute, no key-field attributes");
    // Written by us, read by us and found by every index.
    let new = line("o3", "p9", "cy@mail.com", "2022-06-01T00:00:00", 4);
    table.create(&new).await.unwrap();
    assert_eq!(table.query_all(OrderItem::query_orders_of_product("p9")).await.unwrap(), vec![new.clone()]);
    // An update of a field kept in the keys moves the index keys and writes no attribute.
    let moved =
        table.update(OrderItem::update_from(&new).set(OrderItem::fields().customer_id, "dee@mail.com")).await.unwrap();
    assert_eq!(moved.customer_id, "dee@mail.com");
    assert_eq!(table.query_all(OrderItem::query_products_of_customer("dee@mail.com")).await.unwrap(), vec![moved]);
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .set_key(Some(OrderItem::key("o3", "p9").to_key_item().unwrap()))
        .send()
        .await
        .unwrap();
    assert!(!raw.item.unwrap().contains_key("customer_id"));
}

#[tokio::test]
async fn filters_on_fields_kept_only_in_keys_are_refused_and_contradicting_keys_are_errors() {
    let table = table("shop-refuse").await;
    // Item 5: such a field has no attribute to compare: refused before sending, saying why.
    let f = OrderItem::fields();
    let e =
        table.query_all(OrderItem::query_by_order("o1").filter(f.customer_id.eq("ana@mail.com"))).await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("kept only in the item's keys")), "{e}");
    // A field on an entity that writes it as an attribute still filters (its own items).
    let g = OrderLine::fields();
    table
        .put(&OrderLine {
            order_id: "o9".into(),
            product_id: "p1".into(),
            customer_id: "zed".into(),
            date: "2023".into(),
            quantity: 1,
            price: 1,
        })
        .await
        .unwrap();
    let zed = table.query_all(OrderLine::query_by_order("o9").filter(g.customer_id.eq("zed"))).await.unwrap();
    assert_eq!(zed.len(), 1);

    // Two index keys that disagree on a field: an error naming both.
    let mut bad = published()[2].clone();
    bad.insert("GSI2-SK".into(), s("p#2030-01-01T00:00:00"));
    bad.insert("SK".into(), s("p#p7"));
    bad.insert("GSI1-PK".into(), s("p#p7"));
    table.client().put_item().table_name(table.name()).set_item(Some(bad)).send().await.unwrap();
    let e = table.get(OrderItem::key("o1", "p7")).await.unwrap_err();
    let Error::Decode { attribute, message, .. } = &e else { panic!("{e:?}") };
    assert_eq!(attribute, "date");
    assert!(message.contains("`GSI1-PK` and `GSI1-SK`") && message.contains("`GSI2-PK` and `GSI2-SK`"), "{message}");
}
