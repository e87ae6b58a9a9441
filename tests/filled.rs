//! Fields the library fills on write (`#[created_at]`, `#[updated_at]`), with a clock the test
//! controls (`Table::with_clock`): every write path sets (or keeps) each one, and a request reads
//! the clock once. Against DynamoDB Local; items checked with raw SDK reads.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::{AttributeValue, Entity, Item, Table};

/// Keyed on its creation time: the key is computed from the filled value.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<created>#<id>"]
pub struct Order {
    pub customer: String,
    pub id: String,
    #[created_at]
    pub created: SystemTime,
    #[updated_at]
    pub updated: Option<SystemTime>,
    pub total: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
pub struct Profile {
    pub user_id: String,
    pub name: String,
    pub visits: u64,
    #[created_at]
    pub created: SystemTime,
    #[updated_at]
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub updated: SystemTime,
}

const BASE: u64 = 1_700_000_000;

fn at(s: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(BASE + s)
}

/// A clock that reads `BASE + n` seconds, `n` the number of readings so far: two readings are
/// never equal, so a field stamped by a second reading shows.
fn stepping(table: &Table) -> (Table, Arc<AtomicU64>) {
    let n = Arc::new(AtomicU64::new(0));
    let reads = n.clone();
    (table.clone().with_clock(move || at(reads.fetch_add(1, Ordering::SeqCst))), n)
}

fn iso(s: u64) -> AttributeValue {
    let t = at(s);
    AttributeValue::S(dynamo_entity::time::iso8601::encode(&t).map(|v| v.as_s().unwrap().clone()).unwrap())
}

fn millis(s: u64) -> AttributeValue {
    AttributeValue::N(((BASE + s) * 1000).to_string())
}

async fn raw(table: &Table, pk: &str, sk: &str) -> Option<Item> {
    let out = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S(pk.into()))
        .key("SK", AttributeValue::S(sk.into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item
}

fn profile(id: &str) -> Profile {
    Profile { user_id: id.into(), name: "Ann".into(), visits: 0, created: UNIX_EPOCH, updated: UNIX_EPOCH }
}

#[tokio::test]
async fn create_stamps_both_and_keys_on_the_creation_time() {
    let base = common::table("filled-create", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, reads) = stepping(&base);
    let order = Order { customer: "c1".into(), id: "o1".into(), created: UNIX_EPOCH, updated: None, total: 5 };
    table.create(&order).await.unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 1, "one reading per request");
    let sk = "ORDER#2023-11-14T22:13:20.000Z#o1";
    let item = raw(&table, "CUSTOMER#c1", sk).await.expect("keyed on the filled creation time");
    assert_eq!(item["created"], iso(0));
    assert_eq!(item["updated"], iso(0));

    table.create(&profile("u1")).await.unwrap();
    let item = raw(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!(item["created"], iso(1));
    assert_eq!(item["updated"], millis(1), "in the field's own format");
}

#[tokio::test]
async fn put_keeps_the_structs_creation_time_and_sets_the_update_time() {
    let base = common::table("filled-put", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, _) = stepping(&base);
    table.create(&profile("u1")).await.unwrap();
    // Read, change, put back: the creation time stays.
    let mut p = table.get(Profile::key("u1")).await.unwrap().unwrap();
    assert_eq!((p.created, p.updated), (at(0), at(0)));
    p.name = "Bob".into();
    table.put(&p).await.unwrap();
    let item = raw(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!(item["created"], iso(0));
    assert_eq!(item["updated"], millis(1));
    // A put of a struct never read writes the creation time it holds.
    table.put(&Profile { created: at(100), ..profile("u2") }).await.unwrap();
    let item = raw(&table, "USER#u2", "PROFILE").await.unwrap();
    assert_eq!(item["created"], iso(100));
    assert_eq!(item["updated"], millis(2));
}

#[tokio::test]
async fn updates_set_the_update_time_never_the_creation_time() {
    let base = common::table("filled-update", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, reads) = stepping(&base);
    table.create(&profile("u1")).await.unwrap();
    let p = table.update(Profile::update(Profile::key("u1")).set(Profile::fields().name, "Bob")).await.unwrap();
    assert_eq!((p.created, p.updated), (at(0), at(1)));
    // An ADD alone sets it too.
    let p = table.update(Profile::update(Profile::key("u1")).add(Profile::fields().visits, 2)).await.unwrap();
    assert_eq!((p.created, p.updated, p.visits), (at(0), at(2), 2));
    let item = raw(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!(item["created"], iso(0));
    assert_eq!(item["updated"], millis(2));
    assert_eq!(reads.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn an_upsert_writes_the_creation_time_only_where_the_item_has_none() {
    let base = common::table("filled-upsert", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, _) = stepping(&base);
    let up = || {
        Profile::update(Profile::key("u1"))
            .set(Profile::fields().name, "Ann")
            .set(Profile::fields().visits, 1u64)
            .upsert()
    };
    let p = table.update(up()).await.unwrap();
    assert_eq!((p.created, p.updated), (at(0), at(0)));
    let p = table.update(up()).await.unwrap();
    assert_eq!((p.created, p.updated), (at(0), at(1)), "the second upsert keeps the creation time");
}

#[tokio::test]
async fn a_transaction_stamps_every_action_with_one_reading() {
    let base = common::table("filled-transact", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, reads) = stepping(&base);
    table.create(&profile("u1")).await.unwrap();
    let order = Order { customer: "c1".into(), id: "o1".into(), created: UNIX_EPOCH, updated: None, total: 5 };
    table
        .transact()
        .create(&order)
        .put(&Profile { created: at(0), ..profile("u2") })
        .update(Profile::update(Profile::key("u1")).add(Profile::fields().visits, 1))
        .send()
        .await
        .unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 2, "one reading for the create before, one for the transaction");
    let o = raw(&table, "CUSTOMER#c1", "ORDER#2023-11-14T22:13:21.000Z#o1").await.expect("created at reading 1");
    assert_eq!((&o["created"], &o["updated"]), (&iso(1), &iso(1)));
    let u2 = raw(&table, "USER#u2", "PROFILE").await.unwrap();
    assert_eq!((&u2["created"], &u2["updated"]), (&iso(0), &millis(1)));
    let u1 = raw(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!((&u1["created"], &u1["updated"]), (&iso(0), &millis(1)));
}

#[tokio::test]
async fn batch_puts_and_migrate_stamp_the_update_time() {
    let base = common::table("filled-batch", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, reads) = stepping(&base);
    let items: Vec<Profile> = (0..30).map(|i| Profile { created: at(50), ..profile(&format!("u{i}")) }).collect();
    table.batch_put(&items).await.unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 1, "one reading for the whole batch");
    for i in [0, 29] {
        let item = raw(&table, &format!("USER#u{i}"), "PROFILE").await.unwrap();
        assert_eq!((&item["created"], &item["updated"]), (&iso(50), &millis(0)));
    }
    // A migration's output is stamped too.
    let report = table.migrate::<Profile, Profile, _>(|p| Profile { name: "Moved".into(), ..p }).run().await.unwrap();
    assert_eq!(report.failed.len(), 0, "{report:?}");
    let item = raw(&table, "USER#u5", "PROFILE").await.unwrap();
    assert_eq!(item["name"], AttributeValue::S("Moved".into()));
    assert_eq!(item["created"], iso(50));
    assert_ne!(item["updated"], millis(0), "stamped by the migration's reading");
}

#[tokio::test]
async fn returning_gives_the_item_as_written() {
    let base = common::table("filled-returning", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, _) = stepping(&base);
    let order = Order { customer: "c1".into(), id: "o1".into(), created: UNIX_EPOCH, updated: None, total: 5 };
    let saved: Order = table.create(&order).returning().await.unwrap();
    assert_eq!(saved, Order { created: at(0), updated: Some(at(0)), ..order });
    let stored = table.get(saved.primary_key()).await.unwrap();
    assert_eq!(stored.as_ref(), Some(&saved));
    let put: Order = table.put(&saved).returning().await.unwrap();
    assert_eq!(put, Order { updated: Some(at(1)), ..saved });
}

#[tokio::test]
async fn stream_changes_carry_the_filled_fields() {
    use dynamo_entity::stream::{ChangeKind, StreamReader};
    use dynamo_entity::{StreamView, TableDefinition};
    use futures_util::StreamExt;

    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let base = Table::new(client, format!("filled-stream-{}", std::process::id()));
    let def = TableDefinition::from_entities(&[Profile::SCHEMA]).unwrap().stream(StreamView::NewAndOldImages);
    base.create_table_from(&def).await.unwrap();
    let (table, _) = stepping(&base);
    table.create(&profile("u1")).await.unwrap();
    table.update(Profile::update(Profile::key("u1")).add(Profile::fields().visits, 1)).await.unwrap();

    let streams = dynamo_entity::local::streams_client().await.unwrap();
    let reader = StreamReader::for_table(&table, streams)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Profile>().collect().await;
    let kinds: Vec<ChangeKind<Profile>> = changes.into_iter().map(|c| c.unwrap().kind).collect();
    let created = Profile { created: at(0), updated: at(0), ..profile("u1") };
    let updated = Profile { visits: 1, updated: at(1), ..created.clone() };
    assert_eq!(kinds, vec![ChangeKind::Inserted(created.clone()), ChangeKind::Modified { old: created, new: updated }]);
}

#[test]
fn the_markdown_document_lists_the_filled_fields() {
    let md =
        dynamo_entity::TableDefinition::from_entities(&[Order::SCHEMA, Profile::SCHEMA]).unwrap().to_markdown("orders");
    assert!(md.contains("## Fields the library fills"), "{md}");
    assert!(md.contains("| Order | `created` | `updated` |"), "{md}");
    assert!(md.contains("| Profile | `created` | `updated` |"), "{md}");
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<id>"]
#[sk = "NOTE"]
pub struct Note {
    pub id: String,
    #[entity(default)]
    pub tag: String,
    #[created_at]
    pub created: Option<SystemTime>,
    #[updated_at]
    pub updated: Option<SystemTime>,
}

#[tokio::test]
async fn a_backfill_that_writes_an_item_stamps_its_update_time() {
    let base = common::table("filled-backfill", &[Note::SCHEMA]).await;
    let (table, _) = stepping(&base);
    // Written by other code: no `tag`, no times.
    for id in ["n1", "n2"] {
        let item = Item::from([
            ("PK".to_owned(), AttributeValue::S(format!("NOTE#{id}"))),
            ("SK".to_owned(), AttributeValue::S("NOTE".into())),
            ("entity_type".to_owned(), AttributeValue::S("Note".into())),
            ("id".to_owned(), AttributeValue::S(id.into())),
        ]);
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    let report = table.backfill::<Note>().run().await.unwrap();
    assert_eq!((report.written, report.failed.len()), (2, 0), "{report:?}");
    let item = raw(&table, "NOTE#n1", "NOTE").await.unwrap();
    assert_eq!(item["tag"], AttributeValue::S(String::new()));
    assert!(matches!(&item["updated"], AttributeValue::S(s) if s.starts_with("2023-11-14T22:13:2")), "{item:?}");
    assert!(!item.contains_key("created"), "the creation time is the item's own: none");
    // Nothing left to write: the second run changes nothing, and stamps nothing.
    let again = table.backfill::<Note>().run().await.unwrap();
    assert_eq!((again.written, again.already_current), (0, 2), "{again:?}");
}

// An upsert of an entity keyed on `#[created_at]`: the key's time is the creation time.

#[tokio::test]
async fn an_upsert_keyed_on_its_creation_time_stores_the_keys_time() {
    let base = common::table("filled-upsert-keyed", &[Order::SCHEMA, Profile::SCHEMA]).await;
    let (table, _) = stepping(&base);
    let key = || Order::key("c1", at(500), "o1");
    // A new item: created (and keyed) at the key's time, not the clock's (reading 0).
    let o = table.update(Order::update(key()).set(Order::fields().total, 5u32).upsert()).await.unwrap();
    assert_eq!((o.created, o.updated, o.total), (at(500), Some(at(0)), 5));
    let item = raw(&table, "CUSTOMER#c1", "ORDER#2023-11-14T22:21:40.000Z#o1").await.expect("keyed on the key's time");
    assert_eq!((&item["created"], &item["updated"]), (&iso(500), &iso(0)));
    assert_eq!(table.get(key()).await.unwrap(), Some(o.clone()), "readable");
    // Again: it exists, it keeps everything but what the upsert sets.
    let o = table.update(Order::update(key()).set(Order::fields().total, 6u32).upsert()).await.unwrap();
    assert_eq!((o.created, o.updated, o.total), (at(500), Some(at(1)), 6));
    assert_eq!(table.get(key()).await.unwrap(), Some(o));
    // Inside a transaction too.
    let key2 = || Order::key("c1", at(600), "o2");
    table.transact().update(Order::update(key2()).set(Order::fields().total, 1u32).upsert()).send().await.unwrap();
    let o2 = table.get(key2()).await.unwrap().expect("readable");
    assert_eq!((o2.created, o2.updated), (at(600), Some(at(2))));
}

/// A feed keyed on the creation time, on an index: an upsert that creates the item must put it
/// in the feed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "POST#<id>"]
#[gsi1(pk = "FEED#<user_id>", sk = "<created>#<id>", query = "feed")]
#[gsi2(pk = "KIND#<kind>", sk = "<created>#<id>", query = "by_kind")]
pub struct Post {
    pub user_id: String,
    pub id: String,
    pub text: String,
    #[entity(default = "note_kind")]
    pub kind: String,
    #[created_at]
    pub created: SystemTime,
    #[updated_at]
    pub updated: SystemTime,
}

/// The kind of a post written without one (an index key is never empty: `#[entity(default)]`'s
/// empty string would be refused).
fn note_kind() -> String {
    "note".to_owned()
}

#[tokio::test]
async fn an_upsert_puts_a_new_item_in_the_indexes_keyed_on_its_creation_time() {
    let base = common::table("filled-upsert-feed", &[Post::SCHEMA]).await;
    let (table, _) = stepping(&base);
    let up = |text: &str| Post::update(Post::key("u1", "p1")).set(Post::fields().text, text).upsert();
    let p = table.update(up("hi")).await.unwrap();
    assert_eq!((p.created, p.updated), (at(0), at(0)));
    let item = raw(&table, "USER#u1", "POST#p1").await.unwrap();
    assert_eq!(item["GSI1PK"], AttributeValue::S("FEED#u1".into()));
    assert_eq!(item["GSI1SK"], AttributeValue::S("2023-11-14T22:13:20.000Z#p1".into()));
    // Made of a defaulted field too: the default is written with it.
    assert_eq!(item["GSI2PK"], AttributeValue::S("KIND#note".into()));
    assert_eq!(item["GSI2SK"], AttributeValue::S("2023-11-14T22:13:20.000Z#p1".into()));
    assert_eq!(item["kind"], AttributeValue::S("note".into()));
    let feed = table.query_all(Post::query_feed("u1")).await.unwrap();
    assert_eq!(feed, vec![p.clone()], "the feed finds the new item");
    // An upsert of the existing item keeps its creation time and its place in the feed.
    let p = table.update(up("hello")).await.unwrap();
    assert_eq!((p.created, p.updated, p.text.as_str()), (at(0), at(1), "hello"));
    let item = raw(&table, "USER#u1", "POST#p1").await.unwrap();
    assert_eq!(item["GSI1SK"], AttributeValue::S("2023-11-14T22:13:20.000Z#p1".into()));
    assert_eq!(table.query_all(Post::query_feed("u1")).await.unwrap(), vec![p]);
    // `#[updated_at]` keys no index: a compile error (tests/ui), so no update can leave one stale.
}

// `Table::update_request`: the request `table.update` sends, stamped with the table's clock.

#[tokio::test]
async fn a_request_built_for_a_table_is_stamped_by_its_clock() {
    let base = common::table("filled-request", &[Profile::SCHEMA]).await;
    let (table, reads) = stepping(&base);
    let r = table
        .update_request(
            Profile::update(Profile::key("u1"))
                .set(Profile::fields().name, "Bob")
                .set(Profile::fields().visits, 1u64)
                .upsert(),
        )
        .unwrap();
    assert_eq!(reads.load(Ordering::SeqCst), 1, "one reading");
    let values = r.expression_attribute_values.unwrap();
    assert!(values.values().any(|v| *v == millis(0)), "`updated` from the table's clock: {values:?}");
    assert!(values.values().any(|v| *v == iso(0)), "an upsert's `created` from the table's clock: {values:?}");
}
