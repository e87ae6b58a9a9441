//! Views read through indexes that hold fewer attributes: `projection = "keys_only"` and
//! `include = ".."` in the index attribute become the table's index projections, and a read that
//! needs an attribute the index does not hold is refused before it is sent. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use std::collections::BTreeSet;

use dynamo_entity::{Entity, Error, IndexProjection, KeyPart, Projection, TableDefinition, View};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Status {
    Pending,
    Shipped,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>", query = "by_status", projection = "keys_only")]
#[gsi2(pk = "DAY#<day>", sk = "ORDER#<order_id>", query = "by_day", include = "total_amount, status")]
#[entity(rename_all = "camelCase")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: Status,
    pub day: String,
    pub total_amount: u64,
    pub shipping_address: String,
    pub notes: Option<String>,
}

/// Another entity in the same index partitions, with sort keys inside the orders' range.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "REFUND#<refund_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<order_id>#REFUND#<refund_id>", projection = "keys_only")]
#[gsi2(pk = "DAY#<day>", sk = "ORDER#<order_id>#REFUND#<refund_id>", include = "amount")]
#[entity(rename_all = "camelCase")]
pub struct Refund {
    pub user_id: String,
    pub refund_id: String,
    pub order_id: String,
    pub status: Status,
    pub day: String,
    pub amount: u64,
}

/// Only primary-key fields: a KEYS_ONLY index serves it (they are read back from the keys).
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderRef {
    pub user_id: String,
    pub order_id: String,
}

/// Key fields of the table and of GSI1: GSI1 serves it (`status` is read back from `GSI1PK`).
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderState {
    pub order_id: String,
    pub status: Status,
}

/// What the INCLUDE index holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderTotal {
    pub order_id: String,
    pub total_amount: u64,
    pub status: Status,
}

/// A field no index holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderAddress {
    pub order_id: String,
    pub shipping_address: String,
}

fn order(i: u64) -> Order {
    Order {
        user_id: format!("u{}", i % 3),
        order_id: format!("o{i:02}"),
        status: if i.is_multiple_of(2) { Status::Pending } else { Status::Shipped },
        day: "2026-11-23".into(),
        total_amount: 100 + i,
        shipping_address: "x".repeat(300),
        notes: Some(format!("note {i}")),
    }
}

fn refund(i: u64) -> Refund {
    Refund {
        user_id: format!("u{}", i % 3),
        refund_id: format!("r{i:02}"),
        order_id: format!("o{i:02}"),
        status: if i.is_multiple_of(2) { Status::Pending } else { Status::Shipped },
        day: "2026-11-23".into(),
        amount: 7 + i,
    }
}

#[test]
fn the_derive_declares_each_index_projection() {
    let gsi1 = Order::SCHEMA.index("GSI1").unwrap();
    let gsi2 = Order::SCHEMA.index("GSI2").unwrap();
    assert_eq!(gsi1.projection, IndexProjection::KeysOnly);
    assert_eq!(gsi2.projection, IndexProjection::Include(&["totalAmount", "status"]));
    // Keys are held always; the INCLUDE index also holds the type attribute.
    assert!(gsi1.holds(&Order::SCHEMA, "GSI1SK") && gsi1.holds(&Order::SCHEMA, "SK"));
    assert!(!gsi1.holds(&Order::SCHEMA, "entity_type") && !gsi1.holds(&Order::SCHEMA, "status"));
    assert!(gsi2.holds(&Order::SCHEMA, "entity_type") && !gsi2.holds(&Order::SCHEMA, "notes"));
}

#[test]
fn the_definition_merges_the_entities_projections() {
    let def = TableDefinition::from_entities(&[Order::SCHEMA, Refund::SCHEMA]).unwrap();
    let of = |name: &str| def.indexes.iter().find(|i| i.name == name).unwrap().projection.clone();
    assert_eq!(of("GSI1"), Projection::KeysOnly);
    assert_eq!(
        of("GSI2"),
        Projection::Include(vec!["totalAmount".into(), "status".into(), "entity_type".into(), "amount".into()])
    );
    // An entity reading whole items through the index makes it ALL.
    let def = TableDefinition::from_entities(&[Order::SCHEMA, Wide::SCHEMA, Refund::SCHEMA]).unwrap();
    let of = |name: &str| def.indexes.iter().find(|i| i.name == name).unwrap().projection.clone();
    assert_eq!(of("GSI1"), Projection::All);
    assert_eq!(of("GSI2"), Projection::All);
    // KEYS_ONLY and INCLUDE on one index: the INCLUDE.
    let def = TableDefinition::from_entities(&[Refund::SCHEMA, Narrow::SCHEMA]).unwrap();
    let of = |name: &str| def.indexes.iter().find(|i| i.name == name).unwrap().projection.clone();
    assert_eq!(of("GSI2"), Projection::Include(vec!["amount".into(), "entity_type".into()]));
    // An explicit option still decides.
    let def = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap().projection("GSI2", Projection::All).unwrap();
    assert_eq!(def.indexes.iter().find(|i| i.name == "GSI2").unwrap().projection, Projection::All);
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "WIDE#<id>"]
#[gsi1(pk = "STATUS#<id>", sk = "ORDER#<id>", projection = "all")]
#[gsi2(pk = "DAY#<id>", sk = "ORDER#<id>", projection = "all")]
pub struct Wide {
    pub user_id: String,
    pub id: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "NARROW#<id>"]
#[gsi2(pk = "DAY#<id>", sk = "ORDER#<id>", projection = "keys_only")]
pub struct Narrow {
    pub user_id: String,
    pub id: String,
}

fn names(page: &[OrderRef]) -> Vec<String> {
    page.iter().map(|o| o.order_id.clone()).collect()
}

#[tokio::test]
async fn views_read_through_keys_only_and_include_indexes() {
    let table = common::table("index-views", &[Order::SCHEMA, Refund::SCHEMA]).await;

    // The table has the projections the derive declared.
    let described = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let gsis = described.table().unwrap().global_secondary_indexes();
    let projection = |name: &str| {
        let p = gsis.iter().find(|g| g.index_name() == Some(name)).unwrap().projection().unwrap().clone();
        let attrs: BTreeSet<String> = p.non_key_attributes().iter().cloned().collect();
        (p.projection_type().unwrap().as_str().to_owned(), attrs)
    };
    assert_eq!(projection("GSI1"), ("KEYS_ONLY".to_owned(), BTreeSet::new()));
    let include: BTreeSet<String> = ["amount", "entity_type", "status", "totalAmount"].map(String::from).into();
    assert_eq!(projection("GSI2"), ("INCLUDE".to_owned(), include));

    let orders: Vec<Order> = (0..12).map(order).collect();
    let refunds: Vec<Refund> = (0..12).map(refund).collect();
    table.batch_put(&orders).await.unwrap();
    table.batch_put(&refunds).await.unwrap();

    // KEYS_ONLY: a view of primary-key fields, read back from the keys; refunds interleave
    // (`ORDER#o02#REFUND#r02` sorts right after `ORDER#o02`) and are stepped over.
    let pending: Vec<OrderRef> = orders
        .iter()
        .filter(|o| o.status == Status::Pending)
        .map(|o| OrderRef { user_id: o.user_id.clone(), order_id: o.order_id.clone() })
        .collect();
    let q = Order::query_by_status(Status::Pending).into_query().view::<OrderRef>();
    let req = q.request().unwrap();
    let mut asked: Vec<&str> = req
        .projection_expression
        .as_deref()
        .unwrap()
        .split(", ")
        .map(|p| req.expression_attribute_names[p].as_str())
        .collect();
    asked.sort_unstable();
    assert_eq!(asked, ["GSI1PK", "GSI1SK", "PK", "SK"]);
    assert_eq!(table.query_all(q.clone()).await.unwrap(), pending);

    // Paged with a limit, resumed from each page's cursor: every order once, in order.
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut query = q.clone().limit(2);
    loop {
        let page = table.query(query.clone()).await.unwrap();
        assert!(page.items.len() <= 2);
        seen.extend(page.items);
        pages += 1;
        match page.next {
            Some(c) => query = q.clone().limit(2).after(c),
            None => break,
        }
    }
    assert_eq!(seen, pending);

    // An index key field, read back from the index's key.
    let q = Order::query_by_status(Status::Shipped).into_query().view::<OrderState>();
    let shipped: Vec<OrderState> = orders
        .iter()
        .filter(|o| o.status == Status::Shipped)
        .map(|o| OrderState { order_id: o.order_id.clone(), status: o.status })
        .collect();
    let req = q.request().unwrap();
    let asked = req.projection_expression.as_deref().unwrap().split(", ").count();
    assert_eq!(asked, 4, "the keys only: `status` is not asked of a KEYS_ONLY index");
    assert_eq!(table.query_all(q).await.unwrap(), shipped);
    // 6 pending orders, 2 a page; the third page stops at `o10`, whose refund follows it in the
    // index, so its cursor leads to a fourth, empty page that ends the query.
    assert_eq!(pages, 4);

    // INCLUDE: the included fields, and the order id from the keys.
    let want: Vec<OrderTotal> = orders
        .iter()
        .map(|o| OrderTotal { order_id: o.order_id.clone(), total_amount: o.total_amount, status: o.status })
        .collect();
    let q = Order::query_by_day("2026-11-23").into_query().view::<OrderTotal>();
    assert_eq!(table.query_all(q.clone()).await.unwrap(), want);
    let page = table.query(q.clone().limit(5)).await.unwrap();
    assert_eq!(page.items, want[..5]);
    let rest = table.query_all(q.limit(100).after(page.next.unwrap())).await.unwrap();
    assert_eq!(rest, want[5..]);
    let shown =
        names(&table.query_all(Order::query_by_day("2026-11-23").into_query().view::<OrderRef>()).await.unwrap());
    assert_eq!(shown.len(), 12);

    // Scans of views through the indexes: every order once, refunds stepped over.
    let mut scanned = table.scan::<Order>().index("GSI2").segments(2).view::<OrderTotal>().all().await.unwrap();
    scanned.sort_by(|a, b| a.order_id.cmp(&b.order_id));
    assert_eq!(scanned, want);
    let mut refs = table.scan::<Order>().index("GSI1").segments(3).view::<OrderState>().all().await.unwrap();
    refs.sort_by(|a, b| a.order_id.cmp(&b.order_id));
    let states: Vec<OrderState> =
        orders.iter().map(|o| OrderState { order_id: o.order_id.clone(), status: o.status }).collect();
    assert_eq!(refs, states);
    // The whole entity through an index that lacks attributes, and a view it does not serve.
    let e = table.scan::<Order>().index("GSI1").all().await.unwrap_err();
    assert!(matches!(e, Error::NotProjected { index: "GSI1", .. }), "{e:?}");
    let e = table.scan::<Order>().index("GSI2").view::<OrderAddress>().all().await.unwrap_err();
    assert!(matches!(&e, Error::NotProjected { missing, .. } if *missing == ["shippingAddress"]), "{e:?}");
}

#[tokio::test]
async fn reads_needing_attributes_an_index_lacks_are_refused_before_sending() {
    // A table that does not exist: a request that was sent would fail with the SDK's error.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = dynamo_entity::Table::new(client, "no-such-table-index-views");
    let not_projected = |e: Error| match e {
        Error::NotProjected { entity, index, missing } => (entity, index, missing),
        other => panic!("expected NotProjected, got {other:?}"),
    };

    let e = table.query(Order::query_by_status(Status::Pending)).await.unwrap_err();
    let (entity, index, missing) = not_projected(e);
    assert_eq!((entity, index), ("Order", "GSI1"));
    assert_eq!(missing, ["userId", "orderId", "status", "day", "totalAmount", "shippingAddress", "notes"]);

    let e = table.query_all(Order::query_by_day("d").into_query().view::<OrderAddress>()).await.unwrap_err();
    let (_, index, missing) = not_projected(e);
    assert_eq!((index, missing), ("GSI2", vec!["shippingAddress"]));

    // `status` is read back from GSI1's key; `totalAmount` is nowhere in GSI1.
    let e = table.query_all(Order::query_by_status(Status::Shipped).into_query().view::<OrderTotal>()).await;
    let (_, index, missing) = not_projected(e.unwrap_err());
    assert_eq!((index, missing), ("GSI1", vec!["totalAmount"]));
    let e = table.query(Order::query_by_day("d")).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "index GSI2 does not hold attributes of Order, which this read needs: `userId`, `orderId`, `day`, `shippingAddress`, \
         `notes`; read a view of the fields it holds"
    );

    // The same views where the index holds them reach DynamoDB (and its missing table).
    let e = table.query_all(Order::query_by_status(Status::Shipped).into_query().view::<OrderRef>()).await;
    assert!(matches!(e, Err(Error::Sdk(_))), "{e:?}");
}

/// An item written by other code whose index key holds a value its field's type cannot take
/// (`STATUS#Lost`: no `Status` has it). Read through the KEYS_ONLY index, where `status` comes
/// back from that key, it is a bad item of its own, named by its key and the key text, and the
/// good items around it are still read; a typed query of another status never meets it.
#[tokio::test]
async fn an_index_key_written_by_other_code_that_does_not_parse_is_a_bad_item_and_hides_nothing() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let table = common::table("index-views-bad-key", &[Order::SCHEMA]).await;
    let good: Vec<Order> = [1, 3, 5].map(order).to_vec();
    table.batch_put(&good).await.unwrap();
    let mut lost = order(9).to_item().unwrap();
    lost.insert("GSI1PK".into(), AttributeValue::S("STATUS#Lost".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(lost)).send().await.unwrap();
    let states = |ids: &[&str]| -> Vec<OrderState> {
        ids.iter().map(|id| OrderState { order_id: (*id).into(), status: Status::Shipped }).collect()
    };

    let e = table.scan::<Order>().index("GSI1").segments(2).view::<OrderState>().all().await.unwrap_err();
    let Error::BadItems { errors, partial } = e else { panic!("expected BadItems, got {e:?}") };
    let mut read: Vec<OrderState> = partial.into_page().expect("the view's items").items;
    read.sort_by(|a, b| a.order_id.cmp(&b.order_id));
    assert_eq!(read, states(&["o01", "o03", "o05"]));
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(message.contains("ORDER#o09") && message.contains("STATUS#Lost"), "{message}");

    let q = Order::query_by_status(Status::Shipped).into_query().view::<OrderState>();
    assert_eq!(table.query_all(q).await.unwrap(), states(&["o01", "o03", "o05"]));
}
