//! Views: a subset of an entity's fields, read with a ProjectionExpression of exactly their
//! attributes (and the keys). Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, KeyPart, View};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum OrderStatus {
    Pending,
    Shipped,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[entity(rename_all = "camelCase")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: OrderStatus,
    pub total_amount: u64,
    pub shipping_address: String,
    pub notes: Option<String>,
}

/// The order list shows only these.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderSummary {
    pub order_id: String,
    pub status: OrderStatus,
    pub total_amount: u64,
}

#[tokio::test]
async fn views_read_only_their_attributes() {
    let table = common::table("views", &[Order::SCHEMA]).await;
    let orders: Vec<Order> = (0..5)
        .map(|i| Order {
            user_id: "u1".into(),
            order_id: format!("o{i}"),
            status: if i % 2 == 0 { OrderStatus::Pending } else { OrderStatus::Shipped },
            total_amount: 1000 + i,
            shipping_address: "x".repeat(2000),
            notes: None,
        })
        .collect();
    table.batch_put(&orders).await.unwrap();

    let q = Order::query_by_user("u1").into_query().view::<OrderSummary>();
    let req = q.request().unwrap();
    let projection = req.projection_expression.clone().unwrap();
    let mut projected: Vec<&str> = projection.split(", ").map(|p| req.expression_attribute_names[p].as_str()).collect();
    projected.sort_unstable();
    assert_eq!(projected, ["PK", "SK", "entity_type", "orderId", "status", "totalAmount"]);

    let summaries = table.query_all(q).await.unwrap();
    let want: Vec<OrderSummary> = orders
        .iter()
        .map(|o| OrderSummary { order_id: o.order_id.clone(), status: o.status, total_amount: o.total_amount })
        .collect();
    assert_eq!(summaries, want);
    // Paged, with a filter, descending.
    let page = table
        .query(
            Order::query_by_user("u1")
                .into_query()
                .filter(Order::fields().status.eq(OrderStatus::Shipped))
                .descending()
                .limit(1)
                .view::<OrderSummary>(),
        )
        .await
        .unwrap();
    assert_eq!(page.items, [want[3].clone()]);

    let one = table.get_view::<OrderSummary>(Order::key("u1", "o2")).await.unwrap();
    assert_eq!(one, Some(want[2].clone()));
    assert_eq!(table.get_view::<OrderSummary>(Order::key("u1", "nope")).await.unwrap(), None);

    // What DynamoDB returned really is the projection: the raw query holds no address.
    let raw = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("#pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("USER#u1".into()))
        .set_projection_expression(Some(projection))
        .set_expression_attribute_names(Some(
            req.expression_attribute_names
                .iter()
                .filter(|(k, _)| k.starts_with("#p"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ))
        .send()
        .await
        .unwrap();
    assert!(raw.items().iter().all(|i| !i.contains_key("shippingAddress") && i.len() == 6));
}
