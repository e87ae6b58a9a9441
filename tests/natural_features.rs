//! Natural keys across the features (issue 46): tables keyed on a field's own attribute
//! (`#[pk = "<order_id>"]` with `pk_attr = "orderId"`), string (S) and number (N) keyed, read and
//! written by every feature that reads keys: tenant handles and the tenant IAM policy,
//! collections and views through narrower indexes, stream readers and Lambda records,
//! backfill and migrate, the exports, and encryption. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use std::time::Duration;

use common::Executed;
use dynamo_entity::stream::{ChangeKind, StreamReader};
use dynamo_entity::{
    AttributeValue, Collection, Entity, Error, IamPolicy, Item, StreamView, Table, TableDefinition, View,
};
use futures_util::StreamExt;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}
fn num(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

// ---------------------------------------------------------------------------------------------
// 1. Tenants: the tenant field is the whole natural partition key.

/// A tenant's document: the table is keyed on the tenant's id as it is (`tenantId`), sorted by
/// the document's id (`docId`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<tenant_id>"]
#[sk = "<doc_id>"]
#[entity(pk_attr = "tenantId", sk_attr = "docId", rename_all = "camelCase", tenant = "tenant_id", query = "docs")]
pub struct TenantDoc {
    pub tenant_id: String,
    pub doc_id: String,
    pub body: String,
}

fn tdoc(tenant: &str, id: &str) -> TenantDoc {
    TenantDoc { tenant_id: tenant.into(), doc_id: id.into(), body: format!("{tenant}/{id}") }
}

/// Asserts `OutsideTenant { expected, found }`, and that nothing was sent.
#[track_caller]
fn outside<T: std::fmt::Debug>(what: &str, result: Result<T, Error>, expected: &str, found: &str, sent: (u64, u64)) {
    match result {
        Err(Error::OutsideTenant { expected: e, found: f }) => {
            assert_eq!((e.as_str(), f.as_str()), (expected, found), "{what}");
        }
        other => panic!("{what}: expected OutsideTenant, got {other:?}"),
    }
    assert_eq!(sent.0, sent.1, "{what}: requests were sent");
}

#[tokio::test]
async fn a_tenant_handle_reads_and_writes_only_its_own_natural_partition() {
    let table = common::table("natural-tenant", &[TenantDoc::SCHEMA]).await;
    let executed = Executed::default();
    let client =
        aws_sdk_dynamodb::Client::from_conf(table.client().config().to_builder().interceptor(executed.clone()).build());
    let counted = Table::new(client, table.name());
    let t1 = counted.for_tenant("t1");

    // The tenant's own items pass through every operation; the key is the id as it is.
    t1.put(&tdoc("t1", "a")).await.unwrap();
    t1.batch_put(&[tdoc("t1", "b"), tdoc("t1", "c")]).await.unwrap();
    table.put(&tdoc("t10", "a")).await.unwrap();
    table.put(&tdoc("t1#x", "a")).await.unwrap();
    table.put(&tdoc("t2", "a")).await.unwrap();
    let raw = common::raw_items(&table).await;
    assert!(raw.iter().any(|i| i.get("tenantId") == Some(&s("t1")) && i.get("docId") == Some(&s("a"))), "{raw:?}");
    assert!(raw.iter().all(|i| !i.contains_key("PK") && !i.contains_key("SK")), "{raw:?}");

    assert_eq!(t1.get(TenantDoc::key("t1", "a")).await.unwrap(), Some(tdoc("t1", "a")));
    assert_eq!(
        t1.query_all(TenantDoc::query_docs("t1")).await.unwrap(),
        vec![tdoc("t1", "a"), tdoc("t1", "b"), tdoc("t1", "c")]
    );
    t1.update(TenantDoc::update(TenantDoc::key("t1", "a")).set(TenantDoc::fields().body, "changed".to_owned()))
        .await
        .unwrap();
    assert_eq!(t1.batch_get([TenantDoc::key("t1", "a")]).await.unwrap().len(), 1);
    assert_eq!(t1.transact_get([TenantDoc::key("t1", "b")]).await.unwrap().len(), 1);
    t1.transact().delete(TenantDoc::key("t1", "c")).send().await.unwrap();
    t1.batch_delete([TenantDoc::key("t1", "b")]).await.unwrap();
    t1.delete(TenantDoc::key("t1", "a")).await.unwrap();

    // Another tenant's natural key, a longer id, one holding `#`: refused, nothing sent.
    for other in ["t2", "t10", "t1#x"] {
        let at = (executed.count(), counted.requests_sent());
        let now = || (executed.count(), counted.requests_sent());
        outside("get", t1.get(TenantDoc::key(other, "a")).await, "t1", other, (at.0, now().0));
        outside("put", t1.put(&tdoc(other, "z")).await, "t1", other, (at.1, now().1));
        outside("query", t1.query_all(TenantDoc::query_docs(other)).await, "t1", other, (at.0, now().0));
        let upd = TenantDoc::update(TenantDoc::key(other, "a")).set(TenantDoc::fields().body, "x".to_owned());
        outside("update", t1.update(upd).await, "t1", other, (at.0, now().0));
        outside("delete", t1.delete(TenantDoc::key(other, "a")).await, "t1", other, (at.0, now().0));
        outside("batch_get", t1.batch_get([TenantDoc::key(other, "a")]).await, "t1", other, (at.0, now().0));
        outside("batch_put", t1.batch_put(&[tdoc(other, "z")]).await, "t1", other, (at.0, now().0));
        outside("transaction", t1.transact().put(&tdoc(other, "z")).send().await, "t1", other, (at.0, now().0));
        assert_eq!(now(), at, "{other}: requests were sent");
    }
    // What the others had is untouched, and nothing of theirs was written.
    let mut left: Vec<String> = common::raw_items(&table)
        .await
        .iter()
        .map(|i| match (i.get("tenantId"), i.get("docId")) {
            (Some(AttributeValue::S(t)), Some(AttributeValue::S(d))) => format!("{t}/{d}"),
            other => panic!("{other:?}"),
        })
        .collect();
    left.sort();
    assert_eq!(left, ["t1#x/a", "t10/a", "t2/a"]);
}

/// The IAM policy's `dynamodb:LeadingKeys` is the tenant id itself: the whole partition key.
#[test]
fn the_tenant_policy_leading_key_is_the_tenant_id_itself() {
    let policy = IamPolicy::read_write().tenant_tag("TenantId").table_name("Docs");
    let json = TableDefinition::from_entities(&[TenantDoc::SCHEMA]).unwrap().iam_policy(&policy).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let statements = doc["Statement"].as_array().unwrap();
    let leading: Vec<&serde_json::Value> = statements
        .iter()
        .filter_map(|st| st["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"].as_array())
        .flatten()
        .collect();
    assert!(!leading.is_empty(), "{json}");
    assert!(leading.iter().all(|p| p.as_str() == Some("${aws:PrincipalTag/TenantId}")), "{json}");
}

// ---------------------------------------------------------------------------------------------
// 2. Collections of entities sharing a natural partition key; views through narrower indexes.

/// An order: the table is keyed on `orderId`, its sort attribute `lineId` holds `ORDER`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<order_id>"]
#[sk = "ORDER"]
#[entity(pk_attr = "orderId", sk_attr = "lineId", rename_all = "camelCase")]
pub struct Order {
    pub order_id: String,
    pub customer: String,
}

/// A line of an order: keyed on `orderId` and its own `lineId`; indexed by product (KEYS_ONLY)
/// and by day (INCLUDE quantity).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<order_id>"]
#[sk = "<line_id>"]
#[gsi1(index = "LinesBySku", pk = ["sku"], sk = ["order_id"], query = "by_sku", projection = "keys_only")]
#[gsi2(index = "LinesByDay", pk = ["day"], sk = ["order_id", "line_id"], query = "by_day", include = "quantity")]
#[entity(pk_attr = "orderId", sk_attr = "lineId", rename_all = "camelCase", query = "lines")]
pub struct OrderLine {
    pub order_id: String,
    pub line_id: String,
    pub sku: String,
    pub day: String,
    pub quantity: u32,
    pub note: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderItems {
    Order(Order),
    Line(OrderLine),
}

/// What the KEYS_ONLY index holds: the table's keys and the index's.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "OrderLine")]
pub struct LineRef {
    pub order_id: String,
    pub line_id: String,
    pub sku: String,
}

/// What the INCLUDE index holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "OrderLine")]
pub struct LineQuantity {
    pub order_id: String,
    pub line_id: String,
    pub quantity: u32,
}

/// A field neither index holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "OrderLine")]
pub struct LineNote {
    pub line_id: String,
    pub note: String,
}

fn line(order: &str, id: &str, sku: &str, quantity: u32) -> OrderLine {
    OrderLine {
        order_id: order.into(),
        line_id: id.into(),
        sku: sku.into(),
        day: "2026-11-27".into(),
        quantity,
        note: format!("note {id}"),
    }
}

#[tokio::test]
async fn a_collection_reads_both_entities_of_a_natural_partition() {
    let table = common::table("natural-collection", &[Order::SCHEMA, OrderLine::SCHEMA]).await;
    let order = Order { order_id: "o1".into(), customer: "c1".into() };
    table.put(&order).await.unwrap();
    let lines = [line("o1", "L1", "sku-a", 1), line("o1", "L2", "sku-b", 2), line("o1", "L3", "sku-a", 3)];
    table.batch_put(&lines).await.unwrap();
    table.put(&Order { order_id: "o2".into(), customer: "c2".into() }).await.unwrap();
    table.put(&line("o2", "L1", "sku-a", 9)).await.unwrap();
    // As stored: the order's own attributes, no copies.
    let raw = common::raw_items(&table).await;
    assert!(raw.iter().all(|i| !i.contains_key("PK") && i.contains_key("orderId") && i.contains_key("lineId")));

    let mut expected = vec![OrderItems::Line(lines[0].clone()), OrderItems::Line(lines[1].clone())];
    expected.push(OrderItems::Line(lines[2].clone()));
    expected.push(OrderItems::Order(order.clone()));
    let all = table.query_all(OrderItems::query(Order::partition("o1"))).await.unwrap();
    assert_eq!(all, expected, "sorted by lineId: L1 < L2 < L3 < ORDER");
    let same = table.query_all(OrderItems::query(OrderLine::partition("o1"))).await.unwrap();
    assert_eq!(same, expected);
    // Page by page, resumed from each page's cursor: the same items, each once.
    let mut q = OrderItems::query(Order::partition("o1")).limit(2);
    let mut paged = Vec::new();
    loop {
        let page = table.query(q.clone()).await.unwrap();
        paged.extend(page.items);
        match page.next {
            Some(c) => q = q.after(c),
            None => break,
        }
    }
    assert_eq!(paged, expected);
    // The lines alone, by the entity's own query.
    assert_eq!(table.query_all(OrderLine::query_lines("o1")).await.unwrap(), lines.to_vec());
}

#[tokio::test]
async fn views_read_through_narrower_indexes_of_a_natural_table() {
    let table = common::table("natural-views", &[Order::SCHEMA, OrderLine::SCHEMA]).await;
    let def = TableDefinition::from_entities(&[Order::SCHEMA, OrderLine::SCHEMA]).unwrap();
    let of = |name: &str| def.indexes.iter().find(|i| i.name == name).unwrap().projection.clone();
    assert_eq!(of("LinesBySku"), dynamo_entity::Projection::KeysOnly);
    let lines = [line("o1", "L1", "sku-a", 1), line("o1", "L2", "sku-b", 2), line("o2", "L1", "sku-a", 3)];
    table.batch_put(&lines).await.unwrap();

    // KEYS_ONLY: the table's natural keys and the index's attribute are the view's fields.
    let refs = table.query_all(OrderLine::query_by_sku("sku-a").into_query().view::<LineRef>()).await.unwrap();
    let r = |o: &str, l: &str| LineRef { order_id: o.into(), line_id: l.into(), sku: "sku-a".into() };
    assert_eq!(refs, vec![r("o1", "L1"), r("o2", "L1")]);
    // INCLUDE: the included attribute beside the keys.
    let q = OrderLine::query_by_day("2026-11-27").into_query().view::<LineQuantity>();
    let quantities = table.query_all(q).await.unwrap();
    let qv = |o: &str, l: &str, quantity| LineQuantity { order_id: o.into(), line_id: l.into(), quantity };
    assert_eq!(quantities, vec![qv("o1", "L1", 1), qv("o1", "L2", 2), qv("o2", "L1", 3)]);
    // Page by page through the KEYS_ONLY index, resumed from each cursor.
    let mut q = OrderLine::query_by_sku("sku-a").into_query().view::<LineRef>().limit(1);
    let mut paged = Vec::new();
    loop {
        let page = table.query(q.clone()).await.unwrap();
        paged.extend(page.items);
        match page.next {
            Some(c) => q = q.after(c),
            None => break,
        }
    }
    assert_eq!(paged, vec![r("o1", "L1"), r("o2", "L1")]);
    // A field the index does not hold: refused before sending.
    let sent = table.requests_sent();
    let e = table.query_all(OrderLine::query_by_sku("sku-a").into_query().view::<LineNote>()).await.unwrap_err();
    assert!(e.to_string().contains("does not hold") && e.to_string().contains("`note`"), "{e:?}");
    assert_eq!(table.requests_sent(), sent);
}

/// An alarm of a meter: the readings' table (`meterId`, `at`: numbers), another entity.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<meter_id>"]
#[sk = "<at>"]
#[entity(pk_attr = "meterId", sk_attr = "at", rename_all = "camelCase")]
pub struct Alarm {
    pub meter_id: u64,
    pub at: u64,
    pub reason: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum MeterItems {
    Reading(Reading),
    Alarm(Alarm),
}

#[tokio::test]
async fn a_collection_of_a_number_keyed_partition_and_what_cannot_apply_to_it() {
    let table = common::table("natural-collection-n", &[Reading::SCHEMA, Alarm::SCHEMA]).await;
    let reading = |at: u64| Reading { meter_id: 42, at, kwh: at as u32 };
    let alarm = Alarm { meter_id: 42, at: 15, reason: "spike".into() };
    for at in [9, 10, 20, 100] {
        table.put(&reading(at)).await.unwrap();
    }
    table.put(&alarm).await.unwrap();
    table.put(&Reading { meter_id: 43, at: 1, kwh: 1 }).await.unwrap();
    // In number order (9 < 10 < 15 < 20 < 100), as DynamoDB sorts an N sort key.
    let all = table.query_all(MeterItems::query(Reading::partition(42u64))).await.unwrap();
    let r = |at| MeterItems::Reading(reading(at));
    assert_eq!(all, vec![r(9), r(10), MeterItems::Alarm(alarm.clone()), r(20), r(100)]);
    let mut q = MeterItems::query(Alarm::partition(42u64)).limit(2);
    let mut paged = Vec::new();
    loop {
        let page = table.query(q.clone()).await.unwrap();
        paged.extend(page.items);
        match page.next {
            Some(c) => q = q.after(c),
            None => break,
        }
    }
    assert_eq!(paged, all);
    // A member's own conditions range over the number.
    let q = Reading::query_readings(42u64).at().between(10u64, 20u64);
    assert_eq!(table.query_all(q).await.unwrap(), vec![reading(10), reading(20)]);

    // Ranges over a shared component of key text cannot apply to a value compared as a number:
    // refused before sending (DynamoDB would refuse a string for an N key).
    let sent = table.requests_sent();
    let q = MeterItems::query(Reading::partition(42u64)).sort_key_between(10u64, 20u64);
    let e = table.query_all(q).await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("own attribute") && m.contains("(N)")), "{e}");
    let q = MeterItems::query(Reading::partition(42u64)).sort_key_begins_with(1u64);
    assert!(matches!(table.query_all(q).await, Err(Error::Validation(_))));
    let q = MeterItems::query(Reading::partition(42u64)).under(&Reading::key(42u64, 10u64));
    let e = table.query_all(q).await.unwrap_err();
    assert!(e.to_string().contains("`under`"), "{e}");
    assert_eq!(table.requests_sent(), sent, "nothing sent");
}

// ---------------------------------------------------------------------------------------------
// 3. Streams: the records of a natural-key table give the entity and its key.

/// A meter keyed on its own number (`meterId`, N), sorted by the reading's time (`at`, N).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<meter_id>"]
#[sk = "<at>"]
#[entity(pk_attr = "meterId", sk_attr = "at", rename_all = "camelCase", query = "readings")]
pub struct Reading {
    pub meter_id: u64,
    pub at: u64,
    pub kwh: u32,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderChange {
    Order(Order),
    Line(OrderLine),
}

async fn stream_table(test: &str, schemas: &[dynamo_entity::EntitySchema]) -> Table {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("{test}-{}", std::process::id()));
    let def = TableDefinition::from_entities(schemas).unwrap().stream(StreamView::NewAndOldImages);
    table.create_table_from(&def).await.expect("create table");
    table
}

#[tokio::test]
async fn the_stream_reader_gives_natural_keys_and_entities() {
    let streams = dynamo_entity::local::streams_client().await.expect("DynamoDB Local");
    let table = stream_table("natural-stream-s", &[Order::SCHEMA, OrderLine::SCHEMA]).await;
    let order = Order { order_id: "o#1".into(), customer: "c1".into() };
    table.put(&order).await.unwrap();
    table.put(&line("o#1", "L1", "sku-a", 1)).await.unwrap();
    table.put(&line("o#1", "L1", "sku-a", 5)).await.unwrap();
    table.delete(Order::key("o#1")).await.unwrap();
    let reader = StreamReader::for_table(&table, streams.clone())
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<OrderChange>().map(|c| c.expect("a change")).collect().await;
    let got: Vec<_> = changes.iter().map(|c| (c.pk.as_str(), c.sk.as_deref(), c.kind.clone())).collect();
    let mut got_sorted = got.clone();
    got_sorted.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    assert_eq!(
        got_sorted,
        [
            ("o#1", Some("L1"), ChangeKind::Inserted(OrderChange::Line(line("o#1", "L1", "sku-a", 1)))),
            (
                "o#1",
                Some("L1"),
                ChangeKind::Modified {
                    old: OrderChange::Line(line("o#1", "L1", "sku-a", 1)),
                    new: OrderChange::Line(line("o#1", "L1", "sku-a", 5)),
                }
            ),
            ("o#1", Some("ORDER"), ChangeKind::Inserted(OrderChange::Order(order.clone()))),
            ("o#1", Some("ORDER"), ChangeKind::Removed(OrderChange::Order(order.clone()))),
        ]
    );

    // A number-keyed table: the key is the number's text.
    let table = stream_table("natural-stream-n", &[Reading::SCHEMA]).await;
    let reading = Reading { meter_id: 42, at: 1_700_000_000, kwh: 7 };
    table.put(&reading).await.unwrap();
    table.delete(Reading::key(42u64, 1_700_000_000u64)).await.unwrap();
    let reader = StreamReader::for_table(&table, streams)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Reading>().map(|c| c.expect("a change")).collect().await;
    let got: Vec<_> = changes.iter().map(|c| (c.pk.as_str(), c.sk.as_deref(), c.kind.clone())).collect();
    assert_eq!(
        got,
        [
            ("42", Some("1700000000"), ChangeKind::Inserted(reading.clone())),
            ("42", Some("1700000000"), ChangeKind::Removed(reading.clone())),
        ]
    );
}

#[test]
fn lambda_records_of_a_natural_table_decode_with_their_keys() {
    let image = serde_json::json!({
        "meterId": {"N": "42"}, "at": {"N": "1700000000"}, "kwh": {"N": "7"}, "entity_type": {"S": "Reading"}
    });
    let json = serde_json::json!({ "Records": [{
        "eventID": "id-1", "eventName": "INSERT", "eventVersion": "1.1", "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": 1_709_234_567.0,
            "Keys": {"meterId": {"N": "42"}, "at": {"N": "1700000000"}},
            "NewImage": image, "SequenceNumber": "111", "SizeBytes": 40, "StreamViewType": "NEW_AND_OLD_IMAGES"
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Meters/stream/2026-03-01T00:00:00.000"
    }]});
    let changes: Vec<_> =
        dynamo_entity::stream::lambda::changes::<Reading>(serde_json::from_value(json).unwrap()).collect();
    assert_eq!(changes.len(), 1);
    let c = changes[0].as_ref().unwrap();
    assert_eq!((c.pk.as_str(), c.sk.as_deref()), ("42", Some("1700000000")));
    assert_eq!(c.kind, ChangeKind::Inserted(Reading { meter_id: 42, at: 1_700_000_000, kwh: 7 }));
    // The key as an entity key: the same as the entity's own.
    assert_eq!(ReadingKey::parse("42", "1700000000").ok(), Some(Reading::key(42u64, 1_700_000_000u64)));
}

// ---------------------------------------------------------------------------------------------
// 4. Backfill and migrate on natural-key tables.

/// A shipment keyed on its own id (`shipmentId`, AWS's package delivery design), with an index
/// by status the new code added (written as `GSI1PK`/`GSI1SK`) and a defaulted field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<shipment_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<placed>#<shipment_id>", query = "by_status")]
#[entity(pk_attr = "shipmentId", rename_all = "camelCase")]
pub struct Shipment {
    pub shipment_id: String,
    pub status: String,
    pub placed: String,
    #[entity(default)]
    pub priority: u8,
    pub note: String,
}

fn shipment(i: usize) -> Shipment {
    Shipment {
        shipment_id: format!("ship#{i:03}"),
        status: if i.is_multiple_of(2) { "PENDING".into() } else { "SENT".into() },
        placed: format!("2026-11-{:02}", 1 + i % 28),
        priority: 0,
        note: format!("  note {i}  "),
    }
}

/// As the old code wrote it: no index keys, no `priority`; every third without type attribute.
fn old_shipment(i: usize) -> Item {
    let mut item = shipment(i).to_item().unwrap();
    for attr in ["GSI1PK", "GSI1SK", "priority"] {
        item.remove(attr);
    }
    if i.is_multiple_of(3) {
        item.remove("entity_type");
    }
    item
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

#[tokio::test]
async fn a_backfill_writes_the_index_keys_of_a_natural_table_once() {
    let table = common::table("natural-backfill", &[Shipment::SCHEMA]).await;
    let n = 40;
    for i in 0..n {
        raw_put(&table, old_shipment(i)).await;
    }
    let before = common::raw_items(&table).await;
    assert!(before.iter().all(|i| !i.contains_key("GSI1PK")));

    let dry = table.backfill::<Shipment>().dry_run().run().await.unwrap();
    assert_eq!((dry.scanned, dry.written), (n as u64, n as u64), "{dry:?}");
    assert_eq!(common::raw_items(&table).await.len(), n);
    let report = table.backfill::<Shipment>().segments(3).page_size(7).run().await.unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!((report.scanned, report.written, report.already_current), (n as u64, n as u64, 0), "{report:?}");

    // Each item is now exactly as the current code writes it, keyed by its own attribute.
    let mut after = common::raw_items(&table).await;
    after.sort_by_key(|i| format!("{:?}", i.get("shipmentId")));
    let mut expected: Vec<Item> = (0..n).map(|i| shipment(i).to_item().unwrap()).collect();
    expected.sort_by_key(|i| format!("{:?}", i.get("shipmentId")));
    assert_eq!(after, expected);
    let pending = table.query_all(Shipment::query_by_status("PENDING")).await.unwrap();
    assert_eq!(pending.len(), n / 2);
    assert_eq!(table.get(Shipment::key("ship#004")).await.unwrap(), Some(shipment(4)));

    let second = table.backfill::<Shipment>().segments(2).run().await.unwrap();
    assert_eq!((second.written, second.already_current), (0, n as u64), "{second:?}");
}

/// Shipments as the old code read them: the same type and key, the note untrimmed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<shipment_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<placed>#<shipment_id>", query = "by_status")]
#[entity(pk_attr = "shipmentId", rename_all = "camelCase", type_name = "Shipment")]
pub struct ShipmentV1 {
    pub shipment_id: String,
    pub status: String,
    pub placed: String,
    #[entity(default)]
    pub priority: u8,
    pub note: String,
}

/// A parcel keyed on its number (`parcelId`, N), as the old code numbered them...
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<parcel_id>"]
#[entity(pk_attr = "parcelId", rename_all = "camelCase", type_name = "Parcel")]
pub struct ParcelV1 {
    pub parcel_id: u64,
    pub weight: u32,
}

/// ... and as the new code does: a thousand higher, with the old number kept (a type of its
/// own, so that a renumbered parcel is never read as an old one).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<parcel_id>"]
#[entity(pk_attr = "parcelId", rename_all = "camelCase", type_name = "ParcelV2")]
pub struct Parcel {
    pub parcel_id: u64,
    pub legacy_id: u64,
    pub weight: u32,
}

fn renumber(old: ParcelV1) -> Parcel {
    Parcel { parcel_id: old.parcel_id + 1000, legacy_id: old.parcel_id, weight: old.weight }
}

#[tokio::test]
async fn migrations_rewrite_in_place_and_move_natural_keys() {
    // In place: the same key (the shipment's own id), the note trimmed.
    let table = common::table("natural-migrate-s", &[Shipment::SCHEMA]).await;
    let n = 12;
    for i in 0..n {
        table.put(&shipment(i)).await.unwrap();
    }
    let trim = |old: ShipmentV1| -> Shipment {
        Shipment {
            shipment_id: old.shipment_id,
            status: old.status,
            placed: old.placed,
            priority: old.priority,
            note: old.note.trim().to_owned(),
        }
    };
    let first = table.migrate(trim).segments(2).run().await.unwrap();
    assert!(first.failed.is_empty(), "{:?}", first.failed);
    assert_eq!((first.written, first.already_current), (n as u64, 0), "{first:?}");
    assert_eq!(common::raw_items(&table).await.len(), n, "rewritten in place, nothing added");
    let got = table.get(Shipment::key("ship#003")).await.unwrap().unwrap();
    assert_eq!(got.note, "note 3");
    let second = table.migrate(trim).run().await.unwrap();
    assert_eq!((second.written, second.already_current), (0, n as u64), "{second:?}");

    // Moved: a number key renumbered; the old items are gone, the new ones hold N keys.
    let table = common::table("natural-migrate-n", &[Parcel::SCHEMA]).await;
    for id in 1..=10u64 {
        table.put(&ParcelV1 { parcel_id: id, weight: id as u32 * 3 }).await.unwrap();
    }
    let report = table.migrate(renumber).segments(2).run().await.unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.written, 10, "{report:?}");
    let mut ids: Vec<AttributeValue> =
        common::raw_items(&table).await.iter().map(|i| i.get("parcelId").unwrap().clone()).collect();
    ids.sort_by_key(|v| v.as_n().unwrap().parse::<u64>().unwrap());
    assert_eq!(ids, (1001..=1010u64).map(|i| num(&i.to_string())).collect::<Vec<_>>());
    assert_eq!(table.get(ParcelV1::key(3u64)).await.unwrap(), None);
    assert_eq!(
        table.get(Parcel::key(1003u64)).await.unwrap(),
        Some(Parcel { parcel_id: 1003, legacy_id: 3, weight: 9 })
    );
    let again = table.migrate(renumber).run().await.unwrap();
    assert_eq!((again.written, again.stepped_over), (0, 10), "{again:?}");
}

// ---------------------------------------------------------------------------------------------
// 5. Exports: the natural key's attribute and type.

/// Another entity on the parcels' table, keyed by a template on the same attribute: a string.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DEPOT#<depot>"]
#[entity(pk_attr = "parcelId")]
pub struct Depot {
    pub depot: String,
}

#[test]
fn the_exports_declare_the_natural_keys_with_their_types() {
    // A number partition and sort key (N), a string one (S), as DynamoDB reads them.
    let def = TableDefinition::from_entities(&[Reading::SCHEMA]).unwrap();
    let cfn: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("meters")).unwrap();
    let props = &cfn["Resources"]["meters"]["Properties"];
    assert_eq!(
        props["AttributeDefinitions"],
        serde_json::json!([{"AttributeName": "at", "AttributeType": "N"}, {"AttributeName": "meterId", "AttributeType": "N"}])
    );
    assert_eq!(
        props["KeySchema"],
        serde_json::json!([{"AttributeName": "meterId", "KeyType": "HASH"}, {"AttributeName": "at", "KeyType": "RANGE"}])
    );
    let tf = def.to_terraform("meters");
    assert!(tf.contains("hash_key                    = \"meterId\"\n  range_key                   = \"at\""), "{tf}");
    assert!(tf.contains("attribute {\n    name = \"meterId\"\n    type = \"N\"\n  }"), "{tf}");
    assert!(tf.contains("attribute {\n    name = \"at\"\n    type = \"N\"\n  }"), "{tf}");
    assert!(!tf.contains("\"PK\"") && !tf.contains("\"SK\""), "{tf}");
    let md = def.to_markdown("meters");
    let row = "| Reading | (table) | `meterId` = `<meter_id>` (N) | `at` = `<at>` (N) | `.at().eq/lt/lte/gt/gte/between(..)` |";
    assert!(md.lines().any(|l| l == row), "no row {row:?} in\n{md}");
    assert!(md.lines().any(|l| l == "| (table) | table | `meterId` | `at` | ALL |"), "{md}");

    let def = TableDefinition::from_entities(&[Order::SCHEMA, OrderLine::SCHEMA]).unwrap();
    let cfn: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("orders")).unwrap();
    let props = &cfn["Resources"]["orders"]["Properties"];
    let attrs = props["AttributeDefinitions"].as_array().unwrap();
    for name in ["orderId", "lineId", "sku", "day"] {
        assert!(attrs.contains(&serde_json::json!({"AttributeName": name, "AttributeType": "S"})), "{name}: {attrs:?}");
    }
    assert_eq!(attrs.len(), 4, "no PK/SK: {attrs:?}");
    let md = def.to_markdown("orders");
    for row in [
        "| Order | (table) | `orderId` = `<order_id>` | `lineId` = `ORDER` | the exact key `ORDER` |",
        "| OrderLine | (table) | `orderId` = `<order_id>` | `lineId` = `<line_id>` | `.line_id().eq/lt/lte/gt/gte/between(..)` |",
    ] {
        assert!(md.lines().any(|l| l == row), "no row {row:?} in\n{md}");
    }
    let tf = def.to_terraform("orders");
    assert!(
        tf.contains("hash_key                    = \"orderId\"\n  range_key                   = \"lineId\""),
        "{tf}"
    );

    // The tenant policy in the exports: the tenant id itself is the leading key.
    let def = TableDefinition::from_entities(&[TenantDoc::SCHEMA])
        .unwrap()
        .with_iam_policy(IamPolicy::read_write().tenant_tag("TenantId"))
        .unwrap();
    let cfn = def.to_cloudformation_json("docs");
    assert!(cfn.contains("\"dynamodb:LeadingKeys\": [\n") || cfn.contains("LeadingKeys"), "{cfn}");
    assert!(cfn.contains("\"${aws:PrincipalTag/TenantId}\""), "{cfn}");
    assert!(!cfn.contains("TenantId}#*"), "{cfn}");

    // One attribute cannot be a number for one entity and a string for another.
    let e = TableDefinition::from_entities(&[Parcel::SCHEMA, Depot::SCHEMA]).unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("parcelId")), "{e}");
}

/// The analytics (Parquet) export writes a natural key as the field's value, typed.
#[cfg(feature = "analytics")]
mod analytics {
    use std::io::Write as _;

    use dynamo_entity::export::TableExport;
    use dynamo_entity::export::arrow_array::{Array, Int64Array, RecordBatchReader, StringArray};
    use dynamo_entity::export::arrow_schema::DataType;
    use dynamo_entity::export::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use dynamo_entity::{AttributeValue, Entity, Item};

    use super::{Order, OrderLine, Reading, line};

    fn ddb(v: &AttributeValue) -> serde_json::Value {
        match v {
            AttributeValue::S(s) => serde_json::json!({ "S": s }),
            AttributeValue::N(n) => serde_json::json!({ "N": n }),
            other => panic!("not in these items: {other:?}"),
        }
    }

    fn line_of(item: &Item) -> String {
        let item: serde_json::Map<_, _> = item.iter().map(|(k, v)| (k.clone(), ddb(v))).collect();
        serde_json::json!({ "Item": item }).to_string() + "\n"
    }

    /// A full export of `items` as S3 holds it (`manifest-summary.json`, `manifest-files.json`,
    /// one gzipped data file), in a scratch folder; returns the export's folder.
    fn export_of(test: &str, items: &[Item]) -> std::path::PathBuf {
        let bucket = std::env::temp_dir().join(format!("dynamo-entity-natural-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&bucket);
        let id = "01700000000000-a1b2c3d4";
        let dir = bucket.join("exports/AWSDynamoDB").join(id);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(items.iter().map(line_of).collect::<String>().as_bytes()).unwrap();
        let key = format!("exports/AWSDynamoDB/{id}/data/a.json.gz");
        std::fs::write(bucket.join(&key), gz.finish().unwrap()).unwrap();
        std::fs::write(dir.join("_started"), b"").unwrap();
        let file = serde_json::json!({
            "itemCount": items.len(), "md5Checksum": "J1d7iNE0Yk3rA3fHcw8KQQ==",
            "etag": "2f1d5d8a3f1b4b7b9e5c0d6a1e2f3a4b-1", "dataFileS3Key": key,
        });
        std::fs::write(dir.join("manifest-files.json"), file.to_string() + "\n").unwrap();
        let summary = serde_json::json!({
            "version": "2023-08-01",
            "exportArn": format!("arn:aws:dynamodb:us-east-1:123456789012:table/Meters/export/{id}"),
            "startTime": "2023-11-14T22:13:20.000Z", "endTime": "2023-11-14T22:18:43.897Z",
            "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Meters",
            "tableId": "12345a12-abcd-123a-ab12-1234abc12345", "exportTime": "2023-11-14T22:13:20.000Z",
            "s3Bucket": "exports", "s3Prefix": "exports", "s3SseAlgorithm": "AES256", "s3SseKmsKeyId": null,
            "manifestFilesS3Key": format!("exports/AWSDynamoDB/{id}/manifest-files.json"),
            "billedSizeBytes": 4096, "itemCount": items.len(), "outputFormat": "DYNAMODB_JSON",
            "exportType": "FULL_EXPORT",
        });
        std::fs::write(dir.join("manifest-summary.json"), summary.to_string()).unwrap();
        dir
    }

    #[test]
    fn parquet_holds_natural_keys_as_the_fields_values() {
        // A number-keyed table: `meterId` and `at` are Int64 columns holding the numbers.
        let readings: Vec<Reading> =
            (0..20u64).map(|i| Reading { meter_id: 40 + i % 3, at: 1_700_000_000 + i, kwh: i as u32 }).collect();
        let items: Vec<Item> = readings.iter().map(|r| r.to_item().unwrap()).collect();
        let dir = export_of("parquet-n", &items);
        let export = TableExport::open(&dir).unwrap().threads(1);
        assert_eq!(export.items::<Reading>().map(Result::unwrap).collect::<Vec<_>>().len(), 20);
        let path = dir.join("readings.parquet");
        assert_eq!(export.write_parquet::<Reading>(&path).unwrap(), 20);
        let reader =
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
        let types: Vec<(String, DataType)> =
            reader.schema().fields().iter().map(|f| (f.name().clone(), f.data_type().clone())).collect();
        assert_eq!(
            types,
            [("meterId".into(), DataType::Int64), ("at".into(), DataType::Int64), ("kwh".into(), DataType::Int64)]
        );
        let mut rows = Vec::new();
        for batch in reader {
            let batch = batch.unwrap();
            let int = |i: usize| batch.column(i).as_any().downcast_ref::<Int64Array>().unwrap().clone();
            for r in 0..batch.num_rows() {
                rows.push(Reading {
                    meter_id: int(0).value(r) as u64,
                    at: int(1).value(r) as u64,
                    kwh: int(2).value(r) as u32,
                });
            }
        }
        rows.sort_by_key(|r| r.at);
        assert_eq!(rows, readings);

        // A string-keyed table with two entities: each file has its own rows, keys as strings.
        let order = Order { order_id: "o#1".into(), customer: "c1".into() };
        let lines = [line("o#1", "L1", "sku-a", 1), line("o#1", "L2", "sku-b", 2)];
        let mut items = vec![order.to_item().unwrap()];
        items.extend(lines.iter().map(|l| l.to_item().unwrap()));
        let dir = export_of("parquet-s", &items);
        let export = TableExport::open(&dir).unwrap().threads(1);
        let path = dir.join("lines.parquet");
        assert_eq!(export.write_parquet::<OrderLine>(&path).unwrap(), 2);
        let reader =
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
        let names: Vec<String> = reader.schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["orderId", "lineId", "sku", "day", "quantity", "note"]);
        let mut keys = Vec::new();
        for batch in reader {
            let batch = batch.unwrap();
            let text = |i: usize| batch.column(i).as_any().downcast_ref::<StringArray>().unwrap().clone();
            for r in 0..batch.num_rows() {
                keys.push((text(0).value(r).to_owned(), text(1).value(r).to_owned()));
            }
        }
        keys.sort();
        assert_eq!(keys, [("o#1".to_owned(), "L1".to_owned()), ("o#1".to_owned(), "L2".to_owned())]);
        std::fs::remove_dir_all(dir.parent().unwrap().parent().unwrap().parent().unwrap()).unwrap();
    }
}

/// Encryption: a natural key is signed, never encrypted; items round-trip.
#[cfg(feature = "encryption")]
mod encryption {
    use dynamo_entity::encryption::Keyring;
    use dynamo_entity::{AttributeValue, Entity, Error};

    /// A prescription keyed on its own id; the drug is encrypted.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "<rx_id>"]
    #[entity(pk_attr = "rxId", rename_all = "camelCase")]
    pub struct Prescription {
        pub rx_id: String,
        pub patient: String,
        #[encrypt]
        pub drug: String,
    }

    /// A dose keyed on the patient's number and the time (N, N); the amount is encrypted.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "<patient>"]
    #[sk = "<at>"]
    #[entity(pk_attr = "patient", sk_attr = "at", query = "doses")]
    pub struct Dose {
        pub patient: u64,
        pub at: u64,
        #[encrypt]
        pub amount: String,
    }

    fn keyring() -> Keyring {
        Keyring::raw_aes("app", "key-1", [7u8; 32])
    }

    #[tokio::test]
    async fn natural_keys_are_signed_in_plaintext_and_items_round_trip() {
        let plain = super::common::table("natural-enc-s", &[Prescription::SCHEMA]).await;
        let table = plain.with_encryption(&[Prescription::SCHEMA], keyring()).unwrap();
        let rx = |id: &str, drug: &str| Prescription { rx_id: id.into(), patient: "p1".into(), drug: drug.into() };
        table.put(&rx("rx#1", "amoxicillin")).await.unwrap();
        table.put(&rx("rx#2", "ibuprofen")).await.unwrap();
        assert_eq!(table.get(Prescription::key("rx#1")).await.unwrap(), Some(rx("rx#1", "amoxicillin")));
        let got = table.batch_get([Prescription::key("rx#1"), Prescription::key("rx#2")]).await.unwrap();
        assert_eq!(got.len(), 2);

        // As stored: the key is the plaintext value, the drug ciphertext, the item signed.
        let raw = super::common::raw_items(&plain).await;
        let one = raw.iter().find(|i| i.get("rxId") == Some(&AttributeValue::S("rx#1".into()))).expect("rx#1");
        assert!(matches!(one.get("drug"), Some(AttributeValue::B(_))), "{one:?}");
        assert_eq!(one.get("patient"), Some(&AttributeValue::S("p1".into())));
        assert!(one.contains_key("aws_dbe_head") && one.contains_key("aws_dbe_foot"), "{one:?}");

        // The key is signed: the same item copied under another key fails verification.
        let mut moved = one.clone();
        moved.insert("rxId".into(), AttributeValue::S("rx#9".into()));
        plain.client().put_item().table_name(plain.name()).set_item(Some(moved)).send().await.unwrap();
        let e = table.get(Prescription::key("rx#9")).await.unwrap_err();
        assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
        assert_eq!(table.get(Prescription::key("rx#2")).await.unwrap().unwrap().drug, "ibuprofen");
    }

    #[tokio::test]
    async fn number_natural_keys_are_signed_and_queried_through_encryption() {
        let plain = super::common::table("natural-enc-n", &[Dose::SCHEMA]).await;
        let table = plain.with_encryption(&[Dose::SCHEMA], keyring()).unwrap();
        let dose = |at: u64| Dose { patient: 7, at, amount: format!("{at} mg") };
        for at in [10, 20, 30] {
            table.put(&dose(at)).await.unwrap();
        }
        assert_eq!(table.query_all(Dose::query_doses(7u64).at().gte(20u64)).await.unwrap(), vec![dose(20), dose(30)]);
        let raw = super::common::raw_items(&plain).await;
        assert!(raw.iter().all(|i| matches!(i.get("patient"), Some(AttributeValue::N(n)) if n == "7")), "{raw:?}");
        assert!(raw.iter().all(|i| matches!(i.get("amount"), Some(AttributeValue::B(_)))), "{raw:?}");
        // A signed number key changed behind the client's back: refused on read.
        let mut moved = raw[0].clone();
        moved.insert("at".into(), AttributeValue::N("99".into()));
        plain.client().put_item().table_name(plain.name()).set_item(Some(moved)).send().await.unwrap();
        let e = table.get(Dose::key(7u64, 99u64)).await.unwrap_err();
        assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    }
}
