//! The entities of the seed e-commerce design (`shared/seeds/dynamodb-design-patterns.md`,
//! "Single Table Design"): one table, `PK`/`SK`, GSI1 and GSI2, TTL on `expiresAt`.

use std::time::SystemTime;

use dynamo_entity::{Collection, Entity, KeyPart, View};

/// An order's status: a fixed word in keys (`STATUS#PENDING`) and in its attribute.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
#[key(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    Pending,
    Paid,
    Shipped,
}

/// Pattern 1: `USER#<id>` / `PROFILE`; GSI1 finds a user by email. The design writes the
/// address into `GSI1PK` as it is (`EMAIL#sales#jp@example.com`), so the placeholder is raw: the
/// items the design's own code wrote are found (`tests/seed_items.rs`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "EMAIL#<email:raw>", sk = "USER#<id>", query = "by_email")]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
    pub created_at: String,
}

/// Pattern 3: `ORDER#<id>` / `METADATA`; GSI1 by status since a date (pattern 5), GSI2 by user.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "<created_at>", query = "by_status")]
#[gsi2(pk = "USER#<user_id>", sk = "ORDER#<created_at>", query = "of_user")]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub user_id: String,
    pub status: OrderStatus,
    pub total_amount: u64,
    pub created_at: String,
    #[version]
    pub version: u64,
}

/// Pattern 2: the user's orders, denormalized under the user: `USER#<user_id>` /
/// `ORDER#<created_at>#<order_id>`, newest first with a descending query.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<created_at>#<order_id>"]
#[entity(rename_all = "camelCase", type_attr = "entityType", query = "orders_of")]
pub struct UserOrder {
    pub user_id: String,
    pub created_at: String,
    pub order_id: String,
    pub status: OrderStatus,
    pub total_amount: u64,
}

/// Pattern 4: the items of an order: `ORDER#<order_id>` / `ITEM#<item_id>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<order_id>"]
#[sk = "ITEM#<item_id>"]
#[entity(rename_all = "camelCase", type_attr = "entityType", query = "items_of")]
pub struct OrderItem {
    pub order_id: String,
    pub item_id: String,
    pub product_name: String,
    pub quantity: u32,
    pub unit_price: u64,
}

/// A session that expires after 24 hours: TTL attribute `expiresAt`, epoch seconds.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SESSION#<id>"]
#[sk = "DATA"]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Session {
    pub id: String,
    pub user_id: String,
    pub data: std::collections::BTreeMap<String, String>,
    #[ttl]
    pub expires_at: SystemTime,
}

/// The order list (pattern 5) reads only these attributes of an order: a view, read with a
/// ProjectionExpression, as the guideline asks queries to name what they read.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderListEntry {
    pub id: String,
    pub status: OrderStatus,
    pub total_amount: u64,
    pub created_at: String,
}

/// An order's partition (`ORDER#<id>`): the order and its items, the order page in one Query.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderPage {
    Order(Order),
    Item(OrderItem),
}

/// A product's stock, decremented by a conditional update (only while positive).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PRODUCT#<sku>"]
#[sk = "STOCK"]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Stock {
    pub sku: String,
    pub quantity: i64,
}

/// Every entity of the table, to create it.
pub fn schemas() -> [dynamo_entity::EntitySchema; 6] {
    [User::SCHEMA, Order::SCHEMA, UserOrder::SCHEMA, OrderItem::SCHEMA, Session::SCHEMA, Stock::SCHEMA]
}

/// The table's name (the design's Terraform names it `${project}-${environment}-main`).
#[allow(dead_code)] // not every file that includes this module exports the table
pub const TABLE_NAME: &str = "shop-main";

/// The table as the design's Terraform defines it for production, on demand: GSI1 and GSI2
/// projecting all attributes, TTL on `expiresAt`, a `NEW_AND_OLD_IMAGES` stream (consumed by the
/// order Lambda), point-in-time recovery and deletion protection.
#[allow(dead_code)]
pub fn definition() -> Result<dynamo_entity::TableDefinition, dynamo_entity::Error> {
    Ok(dynamo_entity::TableDefinition::from_entities(&schemas())?
        .stream(dynamo_entity::StreamView::NewAndOldImages)
        .point_in_time_recovery(true)
        .deletion_protection(true))
}
