//! The seed e-commerce design end to end: `cargo run --example ecommerce`; `-- --export terraform`
//! (or `cloudformation-json`, `cloudformation-yaml`, `markdown`) prints the table definition instead.
//!
//! Users, orders (denormalized under their user), order items and sessions in one table; the
//! idempotent createOrder transaction; the user's orders newest first; orders by status since a
//! date; an order's items; a status change that moves the order between GSI1 partitions while
//! keeping its denormalized copy in step.

#[path = "../common/export.rs"]
mod export;
#[path = "../common/layout.rs"]
mod layout;
mod model;

use dynamo_entity::prelude::*;
use std::time::{Duration, SystemTime};

use dynamo_entity::{Error, Table};
use model::*;

/// createOrder: the order (must not exist), its copy under the user, and its items, all or
/// nothing. The order id doubles as the idempotency token: a retried request is applied once.
async fn create_order(table: &Table, order: &Order, items: &[OrderItem]) -> Result<(), Error> {
    let copy = UserOrder {
        user_id: order.user_id.clone(),
        created_at: order.created_at.clone(),
        order_id: order.id.clone(),
        status: order.status,
        total_amount: order.total_amount,
    };
    let mut tx = table.transact().create(order).put(&copy);
    for item in items {
        tx = tx.put(item);
    }
    tx.idempotency_token(format!("create-{}", order.id)).send().await
}

/// Moves an order to `status`: the order (its GSI1 key follows, and only at the version read)
/// and the user's copy, in one transaction.
/// The design's status change: the order and the user's copy in one transaction, each only from
/// the status the caller expects (a condition, checked by DynamoDB), the order also only at the
/// version that was read.
async fn change_status(table: &Table, order: &Order, from: OrderStatus, to: OrderStatus) -> Result<(), Error> {
    let copy = UserOrder::key(order.user_id.clone(), order.created_at.clone(), order.id.clone());
    table
        .transact()
        .update(Order::update_from(order).set(Order::fields().status, to).condition(Order::fields().status.eq(from)))
        .update(
            UserOrder::update(copy).set(UserOrder::fields().status, to).condition(UserOrder::fields().status.eq(from)),
        )
        .send()
        .await
}

fn order(id: &str, user: &str, total: u64, created_at: &str) -> Order {
    Order {
        id: id.into(),
        user_id: user.into(),
        status: OrderStatus::Pending,
        total_amount: total,
        created_at: created_at.into(),
        version: 0,
    }
}

fn item(order: &str, id: &str, name: &str, quantity: u32, price: u64) -> OrderItem {
    OrderItem { order_id: order.into(), item_id: id.into(), product_name: name.into(), quantity, unit_price: price }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(text) = export::requested(&definition()?, TABLE_NAME) {
        print!("{}", text?);
        return Ok(());
    }
    let client = dynamo_entity::local::client().await?;
    let table = Table::new(client, format!("shop-main-{}", std::process::id()));
    table.create_table_from(&definition()?).await?;

    let alice = User {
        id: "u-alice".into(),
        name: "Alice".into(),
        email: "alice@example.com".into(),
        created_at: "2026-01-05T09:00:00.000Z".into(),
    };
    table.create(&alice).await?;
    table
        .put(&Session {
            id: "s-1".into(),
            user_id: alice.id.clone(),
            data: [("cart".to_owned(), "2 items".to_owned())].into(),
            expires_at: SystemTime::now() + Duration::from_secs(24 * 60 * 60),
        })
        .await?;

    let o1 = order("o-1001", "u-alice", 4_200, "2026-02-01T10:00:00.000Z");
    let o2 = order("o-1002", "u-alice", 1_500, "2026-02-14T18:30:00.000Z");
    let o3 = order("o-1003", "u-alice", 9_900, "2026-03-01T08:15:00.000Z");
    create_order(
        &table,
        &o1,
        &[item("o-1001", "sku-1", "Golf balls", 2, 1_200), item("o-1001", "sku-2", "Tees", 1, 1_800)],
    )
    .await?;
    create_order(&table, &o2, &[item("o-1002", "sku-3", "Glove", 1, 1_500)]).await?;
    create_order(&table, &o3, &[item("o-1003", "sku-4", "Driver", 1, 9_900)]).await?;

    println!("createOrder is idempotent: the same request again is applied once ...");
    create_order(&table, &o3, &[item("o-1003", "sku-4", "Driver", 1, 9_900)]).await?;
    let count = table.query_all(OrderItem::query_items_of("o-1003")).await?.len();
    println!("   -> o-1003 still has {count} item(s)");
    println!("... and another request for an existing order id is refused, writing nothing:");
    let again = table
        .transact()
        .create(&o3)
        .put(&item("o-1003", "sku-5", "Bag", 1, 5_000))
        .idempotency_token("another-request")
        .send()
        .await;
    match again {
        Err(Error::TransactionCanceled { reasons }) => println!("   -> cancelled: action 0 {:?}", reasons[0].code),
        other => println!("   -> unexpected: {other:?}"),
    }
    println!();

    layout::print(&table, &definition()?, "ecommerce").await?;

    println!("#1 Get: user u-alice");
    let user = table.get(User::key("u-alice")).await?.ok_or_else(|| Error::not_found(&User::key("u-alice")))?;
    println!("   -> {} <{}>", user.name, user.email);
    println!(
        "   (GSI1, by email) -> {:?}\n",
        table.query_all(User::query_by_email("alice@example.com")).await?.iter().map(|u| &u.id).collect::<Vec<_>>()
    );

    println!("#2 Query: u-alice's orders, newest first, 2 per page");
    let page = table.query(UserOrder::query_orders_of("u-alice").descending().limit(2)).await?;
    for o in &page.items {
        println!("   -> {} {} {:?} {}", o.created_at, o.order_id, o.status, o.total_amount);
    }
    if let Some(next) = page.next {
        let rest = table.query(UserOrder::query_orders_of("u-alice").descending().limit(2).after(next)).await?;
        for o in &rest.items {
            println!("   -> {} {} {:?} {} (page 2)", o.created_at, o.order_id, o.status, o.total_amount);
        }
    }
    println!();

    println!("#3 Get: order o-1001");
    let o1 = table.get(Order::key("o-1001")).await?.ok_or_else(|| Error::not_found(&Order::key("o-1001")))?;
    println!("   -> {:?}, total {}, version {}\n", o1.status, o1.total_amount, o1.version);

    println!("#4 Query: items of o-1001");
    for i in table.query_all(OrderItem::query_items_of("o-1001")).await? {
        println!("   -> {} x{} {} @ {}", i.item_id, i.quantity, i.product_name, i.unit_price);
    }
    println!();

    println!("#3+#4 in one request: the order page of o-1001 (an item collection, one Query)");
    for part in table.query_all(OrderPage::query(Order::partition("o-1001"))).await? {
        match part {
            OrderPage::Order(o) => println!("   -> order {:?}, total {}", o.status, o.total_amount),
            OrderPage::Item(i) => println!("   -> {} x{} {} @ {}", i.item_id, i.quantity, i.product_name, i.unit_price),
        }
    }
    println!();

    let since = "2026-02-10T00:00:00.000Z";
    println!("#5 Query GSI1: PENDING orders since {since}");
    let pending = table
        .query_all(Order::query_by_status(OrderStatus::Pending).created_at().gte(since).view::<OrderListEntry>())
        .await?;
    for o in &pending {
        println!(
            "   -> {} {} {:?} {} (a view: only these attributes are read)",
            o.created_at, o.id, o.status, o.total_amount
        );
    }
    println!();

    println!("Status change: o-1002 PENDING -> SHIPPED (order and user's copy, one transaction)");
    let o2 = table.get(Order::key("o-1002")).await?.ok_or_else(|| Error::not_found(&Order::key("o-1002")))?;
    change_status(&table, &o2, OrderStatus::Pending, OrderStatus::Shipped).await?;
    let pending = table.query_all(Order::query_by_status(OrderStatus::Pending)).await?;
    let shipped = table.query_all(Order::query_by_status(OrderStatus::Shipped)).await?;
    println!("   -> STATUS#PENDING: {:?}", pending.iter().map(|o| &o.id).collect::<Vec<_>>());
    println!("   -> STATUS#SHIPPED: {:?}", shipped.iter().map(|o| &o.id).collect::<Vec<_>>());
    let copy = table.query_all(UserOrder::query_orders_of("u-alice")).await?;
    println!("   -> user's copy: {:?}", copy.iter().map(|o| (&o.order_id, o.status)).collect::<Vec<_>>());
    println!("A second change from the same (now stale) read is refused:");
    match change_status(&table, &o2, OrderStatus::Pending, OrderStatus::Paid).await {
        Err(Error::TransactionCanceled { reasons }) => println!("   -> cancelled: action 0 {:?}", reasons[0].code),
        other => println!("   -> unexpected: {other:?}"),
    }
    println!();

    println!("Stock: decrement only while it is positive (a condition on the update, not a read and a check)");
    table.put(&Stock { sku: "sku-9".into(), quantity: 1 }).await?;
    for attempt in 1..=2 {
        let decrement = Stock::update(Stock::key("sku-9"))
            .add(Stock::fields().quantity, -1)
            .condition(Stock::fields().quantity.gt(0));
        match table.update(decrement).await {
            Ok(s) => println!("   -> attempt {attempt}: sold, {} left", s.quantity),
            Err(Error::ConditionFailed { .. }) => println!("   -> attempt {attempt}: refused, out of stock"),
            Err(e) => return Err(e.into()),
        }
    }
    println!();

    println!("GSI2: orders of u-alice by date");
    let of_user = table.query_all(Order::query_of_user("u-alice").created_at().gte("2026-02")).await?;
    println!("   -> {:?}", of_user.iter().map(|o| (&o.id, &o.created_at)).collect::<Vec<_>>());
    Ok(())
}
