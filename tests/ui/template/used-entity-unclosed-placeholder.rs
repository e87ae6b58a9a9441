use dynamo_entity::prelude::*;

// One mistake (an unclosed placeholder) in an entity that the rest of the file uses: one error,
// at the template. The uses of what the derive generates (its key, queries, fields, update and
// `Entity` methods, a `Table::put`) stay quiet.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer_id"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<placed>#<order_id>", query = "by_status")]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    pub placed: String,
    pub total: u32,
    pub note: Option<String>,
    pub tags: Vec<String>,
}

// A view of it, and a collection holding it beside a valid entity.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderTotal {
    pub order_id: String,
    pub total: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer_id>"]
#[sk = "PROFILE"]
pub struct Customer {
    pub customer_id: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum CustomerItems {
    Customer(Customer),
    Order(Order),
}

pub async fn uses(table: &Table, order: &Order) -> Result<(), dynamo_entity::Error> {
    table.put(order).await?;
    let key = Order::key("c1", "o1");
    let _: Option<Order> = table.get(key.clone()).await?;
    let _ = (key.pk(), key.sk());
    let q = Order::query_by_customer("c1").order_id().begins_with("2024").limit(10);
    let _: Vec<Order> = table.query_all(q).await?;
    let _: Vec<Order> = table.query_all(Order::query_by_status("OPEN").placed().gte("2024").descending()).await?;
    let open = Order::fields().status.eq("OPEN");
    let _: Vec<Order> = table.query_all(Order::query_by_customer("c1").filter(open)).await?;
    let update = Order::update(Order::key("c1", "o1")).set(Order::fields().total, 3u32).remove(Order::fields().note).append(Order::fields().tags, ["a".to_owned()]);
    let _: Order = table.update(update).await?;
    let _: Order = table.update(Order::update_from(order).add(Order::fields().total, 1u32)).await?;
    let item = order.to_item()?;
    let _ = Order::from_item(item)?;
    let _ = (Order::SCHEMA, order.primary_key());
    let _ = Order::partition("c1");
    let _: Vec<OrderTotal> = table.query_all(Order::query_by_customer("c1").view::<OrderTotal>()).await?;
    let _: Option<OrderTotal> = table.get_view::<OrderTotal>(Order::key("c1", "o1")).await?;
    let _: Vec<CustomerItems> = table.query_all(CustomerItems::query(Customer::partition("c1"))).await?;
    Ok(())
}

fn main() {}
