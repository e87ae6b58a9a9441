//! Collection queries take the key conditions their members' sort keys share (issue 21, item
//! 18): the online shop's "a customer's activity in a date range", orders and invoices in one
//! request, a key condition and never a filter.

mod common;

use dynamo_entity::{Collection, Entity, Error, SortCondition};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "METADATA"]
#[gsi2(index = "GSI2", pk = "c#<customer_id>", sk = "<date>#o#<order_id>", query = "orders_of")]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
    pub date: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "i#<invoice_id>"]
#[sk = "METADATA"]
#[gsi2(index = "GSI2", pk = "c#<customer_id>", sk = "<date>#i#<invoice_id>", query = "invoices_of")]
pub struct Invoice {
    pub invoice_id: String,
    pub customer_id: String,
    pub date: String,
    pub amount: u64,
}

/// Another entity of the customer's GSI2 partition, outside the collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "n#<note_id>"]
#[sk = "METADATA"]
#[gsi2(index = "GSI2", pk = "c#<customer_id>", sk = "<date>#n#<note_id>", query = "notes_of")]
pub struct Note {
    pub note_id: String,
    pub customer_id: String,
    pub date: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Activity {
    Order(Order),
    Invoice(Invoice),
}

/// Members whose sort keys begin differently.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Mixed {
    Order(Order),
    Rooms(Room),
}

/// Sort keys that begin differently.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Mixed2 {
    Rooms(Room),
    Seats(Seat),
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "SEAT#<n>"]
pub struct Seat {
    pub order_id: String,
    pub n: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "ROOM#<n>"]
pub struct Room {
    pub order_id: String,
    pub n: u16,
}

#[tokio::test]
async fn a_customer_s_activity_in_a_date_range_is_one_key_condition() {
    let table = common::table("coll-range", &[Order::SCHEMA, Invoice::SCHEMA, Note::SCHEMA, Room::SCHEMA]).await;
    let order = |id: &str, d: &str| Order { order_id: id.into(), customer_id: "ana".into(), date: d.into() };
    let invoice =
        |id: &str, d: &str| Invoice { invoice_id: id.into(), customer_id: "ana".into(), date: d.into(), amount: 5 };
    table
        .batch_put(&[order("o1", "2022-05-24"), order("o2", "2022-05-25T10:00"), order("o3", "2022-05-31")])
        .await
        .unwrap();
    table.batch_put(&[invoice("i1", "2022-05-25T11:00"), invoice("i2", "2022-05-30T23:59")]).await.unwrap();
    table.put(&Note { note_id: "n1".into(), customer_id: "ana".into(), date: "2022-05-26".into() }).await.unwrap();

    let q = Activity::query(Order::partition_orders_of("ana")).sort_key_between("2022-05-25", "2022-05-30");
    let request = q.request().unwrap();
    assert!(request.filter_expression.is_none());
    assert!(matches!(&request.sort_condition, SortCondition::Range { lower: Some(l), .. } if l == "2022-05-25"));
    let got = table.query_all(q).await.unwrap();
    assert_eq!(
        got,
        vec![
            Activity::Order(order("o2", "2022-05-25T10:00")),
            Activity::Invoice(invoice("i1", "2022-05-25T11:00")),
            Activity::Invoice(invoice("i2", "2022-05-30T23:59")),
        ],
        "the whole of the 30th included, the note stepped over, the 24th and 31st outside"
    );
    let may =
        table.query_all(Activity::query(Invoice::partition_invoices_of("ana")).sort_key_begins_with("2022-05-2")).await;
    assert_eq!(may.unwrap().len(), 3, "the 24th and the 25th (orders and an invoice)");
    let empty = Activity::query(Order::partition_orders_of("ana")).sort_key_between("2022-06", "2022-05");
    assert_eq!(empty.request().unwrap().sort_condition, SortCondition::Nothing);

    // Members whose sort keys hold no shared component: refused, saying why.
    let e = Mixed::query(Order::partition("o1")).sort_key_between("a", "b").request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("`METADATA`) has no placeholder to range over")), "{e}");
    let e = Mixed2::query(Room::partition("o1")).sort_key_between("a", "b").request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("do not share their beginning")), "{e}");
}
