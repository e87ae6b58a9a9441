//! Tables that others wrote: items without the type attribute, without a version, without
//! fields added later, read and then written back optimistically. Against DynamoDB Local; the
//! "other writer" is the SDK's own PutItem/UpdateItem with hand-written items.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Error, Item};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer_id>"]
#[sk = "ORDER#<order_id>"]
pub struct Order {
    pub customer_id: String,
    pub order_id: String,
    pub status: String,
    /// Added after the first items were written.
    #[entity(default)]
    pub notes: Vec<String>,
    #[entity(default = "default_currency")]
    pub currency: String,
    #[entity(default)]
    pub discount: Option<u32>,
    #[version]
    pub version: u64,
}

/// A view reads the defaulted fields and the version as the entity does.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Order")]
pub struct OrderBrief {
    pub status: String,
    pub notes: Vec<String>,
    pub currency: String,
    pub version: u64,
}

fn default_currency() -> String {
    "JPY".to_owned()
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// An order as another program writes it: keys and status, nothing else.
fn foreign_order(order_id: &str, status: &str) -> Item {
    Item::from([
        ("PK".to_owned(), s("CUSTOMER#c1")),
        ("SK".to_owned(), s(&format!("ORDER#{order_id}"))),
        ("status".to_owned(), s(status)),
    ])
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.expect("raw PutItem");
}

async fn raw_get(table: &Table, order_id: &str) -> Item {
    let key = Item::from([("PK".to_owned(), s("CUSTOMER#c1")), ("SK".to_owned(), s(&format!("ORDER#{order_id}")))]);
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("raw GetItem");
    out.item.expect("the item exists")
}

#[tokio::test]
async fn missing_fields_read_as_their_defaults_and_a_missing_version_as_0() {
    let table = common::table("adopt-defaults", &[Order::SCHEMA]).await;
    raw_put(&table, foreign_order("o1", "PENDING")).await;
    let got = table.get(Order::key("c1", "o1")).await.unwrap().expect("the foreign item is read");
    assert_eq!(
        got,
        Order {
            customer_id: "c1".into(),
            order_id: "o1".into(),
            status: "PENDING".into(),
            notes: vec![],
            currency: "JPY".into(),
            discount: None,
            version: 0,
        }
    );
    // A query reads it too (no type attribute: its key says it is an `Order`).
    let all = table.query_all(Order::query_by_customer("c1")).await.unwrap();
    assert_eq!(all, vec![got]);
    let briefs = table.query_all(Order::query_by_customer("c1").into_query().view::<OrderBrief>()).await.unwrap();
    assert_eq!(
        briefs,
        vec![OrderBrief { status: "PENDING".into(), notes: vec![], currency: "JPY".into(), version: 0 }]
    );

    // A default applies to a missing attribute only: a present one of the wrong type is an error.
    let mut bad = foreign_order("o2", "PENDING");
    bad.insert("currency".into(), AttributeValue::N("1".into()));
    raw_put(&table, bad).await;
    match table.get(Order::key("c1", "o2")).await {
        Err(Error::Decode { entity: "Order", attribute, key: Some((pk, sk)), .. }) => {
            assert_eq!((attribute.as_str(), pk.as_str(), sk.as_deref()), ("currency", "CUSTOMER#c1", Some("ORDER#o2")));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_item_read_without_a_version_is_updated_once_then_a_stale_update_conflicts() {
    let table = common::table("adopt-update", &[Order::SCHEMA]).await;
    raw_put(&table, foreign_order("o1", "PENDING")).await;
    let read = table.get(Order::key("c1", "o1")).await.unwrap().unwrap();
    assert_eq!(read.version, 0);

    let updated = table.update(Order::update_from(&read).set(Order::fields().status, "SHIPPED")).await.unwrap();
    assert_eq!((updated.status.as_str(), updated.version), ("SHIPPED", 1));
    assert_eq!(raw_get(&table, "o1").await.get("version"), Some(&AttributeValue::N("1".into())));

    // A second writer that read the same version-less item is now stale.
    let stale = table.update(Order::update_from(&read).set(Order::fields().status, "CANCELLED")).await;
    assert!(matches!(stale, Err(Error::VersionConflict { entity: "Order", .. })), "{stale:?}");
    assert_eq!(table.get(Order::key("c1", "o1")).await.unwrap().unwrap().status, "SHIPPED");
}

#[tokio::test]
async fn an_item_read_without_a_version_is_put_back_once_then_a_stale_put_conflicts() {
    let table = common::table("adopt-put", &[Order::SCHEMA]).await;
    raw_put(&table, foreign_order("o1", "PENDING")).await;
    let read = table.get(Order::key("c1", "o1")).await.unwrap().unwrap();
    table.put(&Order { status: "PAID".into(), ..read.clone() }).await.unwrap();
    let stored = raw_get(&table, "o1").await;
    assert_eq!(stored.get("version"), Some(&AttributeValue::N("1".into())));
    assert_eq!(stored.get("entity_type"), Some(&s("Order")), "what we write carries the type attribute");
    let stale = table.put(&Order { status: "CANCELLED".into(), ..read.clone() }).await;
    assert!(matches!(stale, Err(Error::VersionConflict { .. })), "{stale:?}");

    // Another program sets a version between our read and our write: a conflict, not an overwrite.
    raw_put(&table, foreign_order("o3", "PENDING")).await;
    let read = table.get(Order::key("c1", "o3")).await.unwrap().unwrap();
    let mut theirs = foreign_order("o3", "PACKED");
    theirs.insert("version".into(), AttributeValue::N("4".into()));
    raw_put(&table, theirs).await;
    let r = table.put(&Order { status: "PAID".into(), ..read.clone() }).await;
    assert!(matches!(r, Err(Error::VersionConflict { .. })), "{r:?}");
    let r = table.update(Order::update_from(&read).set(Order::fields().status, "PAID")).await;
    assert!(matches!(r, Err(Error::VersionConflict { .. })), "{r:?}");
    assert_eq!(table.get(Order::key("c1", "o3")).await.unwrap().unwrap().status, "PACKED");

    // A stored version 0 (written by another program) is the same as none.
    let mut zero = foreign_order("o4", "PENDING");
    zero.insert("version".into(), AttributeValue::N("0".into()));
    raw_put(&table, zero).await;
    let read = table.get(Order::key("c1", "o4")).await.unwrap().unwrap();
    assert_eq!(read.version, 0);
    let updated = table.update(Order::update_from(&read).set(Order::fields().status, "PAID")).await.unwrap();
    assert_eq!(updated.version, 1);
}

#[tokio::test]
async fn a_new_item_at_version_0_is_created_and_a_second_create_at_0_conflicts() {
    let table = common::table("adopt-new", &[Order::SCHEMA]).await;
    let fresh = Order {
        customer_id: "c1".into(),
        order_id: "n1".into(),
        status: "NEW".into(),
        notes: vec!["gift".into()],
        currency: "EUR".into(),
        discount: Some(5),
        version: 0,
    };
    table.put(&fresh).await.unwrap();
    let got = table.get(Order::key("c1", "n1")).await.unwrap().unwrap();
    assert_eq!(got, Order { version: 1, ..fresh.clone() });
    assert!(matches!(table.put(&fresh).await, Err(Error::VersionConflict { .. })));
}

/// A defaulted field in an index key: an item without it reads as the default (and is in no
/// index, since the other writer wrote no index key); an upsert need not set it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TICKET#<id>"]
#[gsi1(pk = "QUEUE#<queue>", query = "by_queue")]
pub struct Ticket {
    pub id: String,
    #[entity(default = "inbox")]
    pub queue: String,
    pub title: String,
}

fn inbox() -> String {
    "inbox".to_owned()
}

#[tokio::test]
async fn a_defaulted_index_field_reads_as_its_default_and_an_upsert_need_not_set_it() {
    let table = common::table("adopt-index-default", &[Ticket::SCHEMA]).await;
    raw_put(&table, Item::from([("PK".to_owned(), s("TICKET#t1")), ("title".to_owned(), s("Help"))])).await;
    let t = table.get(Ticket::key("t1")).await.unwrap().unwrap();
    assert_eq!(t, Ticket { id: "t1".into(), queue: "inbox".into(), title: "Help".into() });
    assert!(table.query_all(Ticket::query_by_queue("inbox")).await.unwrap().is_empty());
    // Written back, it joins its index.
    table.put(&t).await.unwrap();
    assert_eq!(table.query_all(Ticket::query_by_queue("inbox")).await.unwrap(), vec![t]);
    // An upsert creating a ticket without `queue` makes a readable item.
    let created =
        table.update(Ticket::update(Ticket::key("t2")).set(Ticket::fields().title, "New").upsert()).await.unwrap();
    assert_eq!(created, Ticket { id: "t2".into(), queue: "inbox".into(), title: "New".into() });
}
