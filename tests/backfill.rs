//! Evolving a live table against DynamoDB Local: a backfill of items written without a new
//! index (raw, as the old code did, some without a type attribute or a defaulted field) while
//! an old-code writer changes the index's source fields; a run dropped half way and resumed
//! from its last progress cursor; dry runs; an item that does not decode; two workers sharing
//! one run by segments; a migration to a new key template with other entities in the same
//! partitions. Second runs write nothing.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dynamo_entity::{AttributeValue, Cursor, Entity, Item, MigrationReport, Table};

/// The current code: orders gained an index by status (`GSI1`) and a defaulted `priority`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<placed>#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
    pub placed: String,
    #[entity(default)]
    pub priority: u8,
    pub total: u64,
    pub tags: Vec<String>,
}

/// Another entity in the customers' partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "PROFILE"]
pub struct Customer {
    pub customer: String,
    pub name: String,
}

fn order(i: usize) -> Order {
    Order {
        customer: format!("c{}", i % 13),
        id: format!("o{i:04}"),
        status: "PENDING".into(),
        placed: format!("2026-11-{:02}T10:00:00.000Z", 1 + i % 28),
        priority: 0,
        total: i as u64 * 10,
        tags: vec!["a".into(), format!("t{i}")],
    }
}

/// The item as the old code wrote it: no index keys, no `priority`; every third one also
/// without the type attribute (written by another service).
fn old_item(i: usize) -> Item {
    let mut item = order(i).to_item().unwrap();
    item.remove("GSI1PK");
    item.remove("GSI1SK");
    item.remove("priority");
    if i.is_multiple_of(3) {
        item.remove("entity_type");
    }
    item
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn s(item: &Item, attr: &str) -> Option<String> {
    match item.get(attr) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    }
}

/// Orders whose index key is missing or does not say their status and placement.
fn out_of_step(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter(|i| s(i, "SK").is_some_and(|sk| sk.starts_with("ORDER#")))
        .filter(|i| {
            let want = (
                format!("STATUS#{}", s(i, "status").unwrap()),
                format!("{}#{}", s(i, "placed").unwrap(), s(i, "id").unwrap()),
            );
            (s(i, "GSI1PK"), s(i, "GSI1SK")) != (Some(want.0), Some(want.1))
        })
        .map(|i| s(i, "SK").unwrap())
        .collect()
}

async fn seed(table: &Table, n: usize) {
    for i in 0..n {
        raw_put(table, old_item(i)).await;
    }
    for c in 0..13 {
        table.put(&Customer { customer: format!("c{c}"), name: format!("Customer {c}") }).await.unwrap();
    }
}

#[tokio::test]
async fn a_backfill_under_a_concurrent_writer_loses_no_update_and_a_second_run_writes_nothing() {
    let table = common::table("backfill-writer", &[Order::SCHEMA, Customer::SCHEMA]).await;
    let n = 300;
    seed(&table, n).await;
    assert_eq!(table.query_all(Order::query_by_status("PENDING")).await.unwrap().len(), 0);

    // The old code keeps running: it changes `status` with a plain UpdateItem, index keys unknown to it.
    let writer = {
        let table = table.clone();
        tokio::spawn(async move {
            let mut changed = HashMap::new();
            for round in 0..3 {
                for i in (round..n).step_by(7) {
                    let o = order(i);
                    let status = format!("SHIPPED{round}");
                    table
                        .client()
                        .update_item()
                        .table_name(table.name())
                        .key("PK", AttributeValue::S(format!("CUSTOMER#{}", o.customer)))
                        .key("SK", AttributeValue::S(format!("ORDER#{}", o.id)))
                        .update_expression("SET #s = :s")
                        .expression_attribute_names("#s", "status")
                        .expression_attribute_values(":s", AttributeValue::S(status.clone()))
                        .send()
                        .await
                        .unwrap();
                    changed.insert(o.id, status);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
            changed
        })
    };
    let report = table.backfill::<Order>().segments(4).page_size(25).run().await.unwrap();
    let changed = writer.await.unwrap();
    eprintln!("first run: {report}");
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.scanned, (n + 13) as u64);
    assert_eq!(report.stepped_over, 13);
    assert_eq!(report.written + report.already_current, n as u64);
    assert!(report.cursor.is_none());

    // No update lost: every status the writer set is there.
    let items = common::raw_items(&table).await;
    for item in &items {
        if let Some(id) = s(item, "id")
            && let Some(status) = changed.get(&id)
        {
            assert_eq!(s(item, "status").as_ref(), Some(status), "{id}");
        }
        if s(item, "SK").is_some_and(|sk| sk.starts_with("ORDER#")) {
            assert!(item.contains_key("priority") && item.contains_key("entity_type"), "{item:?}");
        }
    }
    // Writes after an item's backfill leave its index key behind (the old code does not know
    // it); a second run catches up exactly those, and a third writes nothing.
    let stale = out_of_step(&items);
    let second = table.backfill::<Order>().segments(2).run().await.unwrap();
    assert_eq!(second.written, stale.len() as u64, "{stale:?}");
    assert_eq!(second.retried, 0);
    assert!(out_of_step(&common::raw_items(&table).await).is_empty());
    let third = table.backfill::<Order>().run().await.unwrap();
    assert_eq!((third.written, third.already_current, third.stepped_over), (0, n as u64, 13));

    // Every order is in its status's index partition.
    let mut by_status: HashMap<String, usize> = HashMap::new();
    for i in 0..n {
        let status = changed.get(&format!("o{i:04}")).cloned().unwrap_or_else(|| "PENDING".into());
        *by_status.entry(status).or_default() += 1;
    }
    for (status, count) in by_status {
        let found = table.query_all(Order::query_by_status(status.clone())).await.unwrap();
        assert_eq!(found.len(), count, "{status}");
        assert!(found.iter().all(|o| o.status == status && o.priority == 0));
    }
}

#[tokio::test]
async fn a_run_dropped_half_way_resumes_from_its_cursor_and_writes_each_item_once() {
    let table = common::table("backfill-resume", &[Order::SCHEMA, Customer::SCHEMA]).await;
    let n = 400;
    seed(&table, n).await;
    let saved: Arc<Mutex<(u32, Option<Cursor>)>> = Arc::default();
    let progress = saved.clone();
    let run = table
        .backfill::<Order>()
        .segments(2)
        .page_size(20)
        .on_progress(move |p| {
            let mut s = progress.lock().unwrap();
            s.0 += 1;
            s.1 = p.cursor.clone();
            assert!(p.to_string().contains("items read"), "{p}");
        })
        .run();
    // Stop it after 6 pages (as a crash or a deploy would).
    let pages = saved.clone();
    let stop = async move {
        while pages.lock().unwrap().0 < 6 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    tokio::select! {
        _ = run => panic!("the run ended before it was stopped"),
        () = stop => {}
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let written_before = n - out_of_step(&common::raw_items(&table).await).len();
    assert!(written_before > 0 && written_before < n, "{written_before}");
    let cursor = saved.lock().unwrap().1.clone().expect("a cursor");

    let rest: MigrationReport = table.backfill::<Order>().segments(2).after(cursor).run().await.unwrap();
    assert!(rest.failed.is_empty());
    assert_eq!(rest.retried, 0, "no conditional failure: no item written twice");
    assert_eq!(written_before as u64 + rest.written, n as u64);
    assert!(out_of_step(&common::raw_items(&table).await).is_empty());
    // A cursor of another run shape is refused.
    let other = table.backfill::<Order>().segments(2).page_size(20).run().await.unwrap();
    assert_eq!(other.written, 0);
}

#[tokio::test]
async fn dry_runs_write_nothing_bad_items_are_reported_and_workers_share_a_run() {
    let table = common::table("backfill-workers", &[Order::SCHEMA, Customer::SCHEMA]).await;
    let n = 200;
    seed(&table, n).await;
    // An order the current code cannot read: `total` is not a number.
    let mut bad = old_item(9999);
    bad.insert("total".into(), AttributeValue::S("lots".into()));
    raw_put(&table, bad).await;

    let dry = table.backfill::<Order>().dry_run().run().await.unwrap();
    assert_eq!(dry.written, n as u64);
    assert_eq!(out_of_step(&common::raw_items(&table).await).len(), n + 1);

    // Two workers, each with its own table handle, one segment each.
    let worker = |k: u32| {
        let table = Table::new(table.client().clone(), table.name());
        async move { table.backfill::<Order>().segment(k, 2).run().await.unwrap() }
    };
    let (a, b) = tokio::join!(worker(0), worker(1));
    assert!(a.scanned > 0 && b.scanned > 0, "both segments hold items");
    let mut total = a;
    total.merge(b);
    assert_eq!(total.scanned, (n + 1 + 13) as u64);
    assert_eq!(total.written, n as u64);
    assert_eq!(total.failed.len(), 1);
    let failed = &total.failed[0];
    assert_eq!(failed.key, ("CUSTOMER#c2".to_owned(), Some("ORDER#o9999".to_owned())));
    assert!(matches!(failed.error, dynamo_entity::Error::Decode { .. }), "{:?}", failed.error);
    assert_eq!(out_of_step(&common::raw_items(&table).await), vec!["ORDER#o9999".to_owned()]);
    // A segment out of range is refused before anything is read.
    assert!(table.backfill::<Order>().segment(2, 2).run().await.is_err());
}

#[tokio::test]
async fn merged_worker_reports_make_one_cursor_that_resumes_the_segments_no_worker_ran() {
    let table = common::table("backfill-merge", &[Order::SCHEMA, Customer::SCHEMA]).await;
    let n = 120;
    seed(&table, n).await;
    // Two of three workers ran (the third never started): their merged report is not finished.
    let a = table.backfill::<Order>().segment(0, 3).run().await.unwrap();
    let b = table.backfill::<Order>().segment(2, 3).run().await.unwrap();
    assert!(a.cursor.is_none() && b.cursor.is_none(), "each worker finished its segment");
    let mut total = MigrationReport::default();
    total.merge(a);
    total.merge(b);
    let left = out_of_step(&common::raw_items(&table).await).len();
    assert!(left > 0 && left < n, "segment 1 holds orders: {left}");
    let cursor = total.cursor.clone().expect("segment 1 was never run: the merged run is not finished");
    // The whole run resumed from it reads segment 1 only, and writes what is left.
    let rest = table.backfill::<Order>().segments(3).after(cursor).run().await.unwrap();
    assert_eq!(rest.written, left as u64, "{rest}");
    assert!(out_of_step(&common::raw_items(&table).await).is_empty());
    total.merge(rest);
    assert!(total.cursor.is_none(), "every segment done");
    assert_eq!(total.written, n as u64, "{total}");
    assert_eq!(total.scanned, (n + 13) as u64, "each item read once: {total}");
}

/// Notes as the old code keyed them...
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user>"]
#[sk = "NOTE#<id>"]
#[entity(type_name = "Note")]
pub struct NoteV1 {
    pub user: String,
    pub id: String,
    pub created: u64,
    pub text: String,
}

/// ... and as the new code does: by creation time, the same type name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user>"]
#[sk = "NOTE#<created:13>#<id>"]
#[entity(type_name = "Note")]
pub struct Note {
    pub user: String,
    pub created: u64,
    pub id: String,
    pub text: String,
}

/// Another entity in the users' partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user>"]
#[sk = "PROFILE"]
pub struct Profile {
    pub user: String,
    pub name: String,
}

#[tokio::test]
async fn a_migration_retries_a_transaction_cancelled_for_throttling() {
    let table = common::table("migrate-throttled", &[Note::SCHEMA, NoteV1::SCHEMA]).await;
    for i in 0..3u64 {
        let v1 = NoteV1 { user: "u".into(), id: format!("n{i}"), created: 1_764_000_000_000 + i, text: "t".into() };
        table.put(&v1).await.unwrap();
    }
    // Each item moves in one transaction (put the new key, delete the old): the first two
    // transactions sent are cancelled for throttling, then sent again.
    let (throttled, seen) = common::TransactionThrottler::on(&table, 2);
    let throttled = throttled.with_rate_limit(dynamo_entity::RateLimit::per_second(1000.0, 100.0));
    let report = throttled
        .migrate(|old: NoteV1| -> Note { Note { user: old.user, created: old.created, id: old.id, text: old.text } })
        .run()
        .await
        .unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.written, 3);
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), 5, "three transactions, two of them twice");
    assert_eq!(table.query_all(Note::query_by_user("u")).await.unwrap().len(), 3);
    assert!(throttled.rate_limit().unwrap().write_per_second() < 100.0);
}

#[tokio::test]
async fn a_migration_moves_every_item_to_its_new_key_once() {
    let table = common::table("migrate-notes", &[Note::SCHEMA, NoteV1::SCHEMA, Profile::SCHEMA]).await;
    let n = 120u64;
    for i in 0..n {
        let v1 = NoteV1 {
            user: format!("u{}", i % 5),
            id: format!("n{i:03}"),
            created: 1_764_000_000_000 + i * 7919 % 1000,
            text: format!("note {i}"),
        };
        table.put(&v1).await.unwrap();
    }
    for u in 0..5 {
        table.put(&Profile { user: format!("u{u}"), name: format!("User {u}") }).await.unwrap();
    }
    let report = table
        .migrate(|old: NoteV1| -> Note { Note { user: old.user, created: old.created, id: old.id, text: old.text } })
        .segments(3)
        .run()
        .await
        .unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.written, n);
    assert_eq!(report.stepped_over, 5);
    // Notes moved during the scan may be met again, in their new form: current.
    assert_eq!(report.scanned, n + 5 + report.already_current);

    for u in 0..5 {
        let notes = table.query_all(Note::query_by_user(format!("u{u}"))).await.unwrap();
        assert_eq!(notes.len() as u64, n / 5);
        assert!(notes.windows(2).all(|w| w[0].created <= w[1].created), "in creation order");
        assert_eq!(table.get(Profile::key(format!("u{u}"))).await.unwrap().unwrap().name, format!("User {u}"));
    }
    assert_eq!(table.get(NoteV1::key("u1", "n001")).await.unwrap(), None);

    let again = table
        .migrate(|old: NoteV1| -> Note { Note { user: old.user, created: old.created, id: old.id, text: old.text } })
        .run()
        .await
        .unwrap();
    assert_eq!((again.written, again.already_current, again.stepped_over), (0, n, 5));
    assert!(again.failed.is_empty());
}

#[tokio::test]
async fn a_backfill_keeps_to_the_table_s_rate_limit() {
    let table = common::table("backfill-rate", &[Order::SCHEMA, Customer::SCHEMA]).await;
    let n = 60;
    seed(&table, n).await;
    // Each write costs 1 WCU on the table and 1 on the index: 120 WCU at 40 per second. What
    // the limit guarantees (the guide's "Capacity and cost"): the units DynamoDB reports for the
    // requests started in any window of T seconds are at most the burst (one second of the
    // rate) plus the rate times T. Measured by an interceptor, not by the elapsed time.
    let sent = common::Sent::default();
    let limited = sent.on(&table).with_rate_limit(dynamo_entity::RateLimit::per_second(1000.0, 40.0));
    let report = limited.backfill::<Order>().segments(2).run().await.unwrap();
    assert_eq!(report.written, n as u64, "{report:?}");
    let used = limited.capacity().entity("Order");
    assert!(used.write_units >= 2.0 * n as f64, "{used:?}");
    for seconds in [1.0, 2.0] {
        let worst = sent.max_write_window(seconds);
        assert!(worst <= 40.0 + 40.0 * seconds + 1e-9, "{worst} WCU in {seconds} s");
    }
}

/// A ticket whose `title` gained a validator after some tickets were written: the newer code
/// refuses titles over 10 characters, and indexes tickets by queue.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "QUEUE#<queue>"]
#[sk = "TICKET#<id>"]
#[gsi1(pk = "OPEN#<queue>", sk = "<id>", query = "open_in")]
pub struct Ticket {
    pub queue: String,
    pub id: String,
    #[entity(validate = "short_title")]
    pub title: String,
}

// A field validator takes `&T`, the field's type.
#[allow(clippy::ptr_arg)]
fn short_title(t: &String) -> Result<(), String> {
    if t.len() <= 10 { Ok(()) } else { Err(format!("a title of {} characters (at most 10)", t.len())) }
}

#[tokio::test]
async fn a_backfill_validates_only_the_items_it_writes() {
    let table = common::table("backfill-validate", &[Ticket::SCHEMA]).await;
    let ticket = |id: &str, title: &str| Ticket { queue: "q".into(), id: id.into(), title: title.into() };
    // Written by the older code (no validator): with the index keys the current code derives
    // (nothing for the backfill to write), one of them with a title the new validator refuses.
    let current_ok = ticket("t1", "short");
    let current_long = ticket("t2", "a title far too long");
    // Written before the index: lacking its keys, so the backfill writes them.
    let mut old_ok = ticket("t3", "fine").to_item().unwrap();
    let mut old_long = ticket("t4", "another long title").to_item().unwrap();
    for item in [&mut old_ok, &mut old_long] {
        item.remove("GSI1PK");
        item.remove("GSI1SK");
    }
    for item in [current_ok.to_item().unwrap(), current_long.to_item().unwrap(), old_ok, old_long] {
        raw_put(&table, item).await;
    }
    let before = common::raw_items(&table).await;

    let report = table.backfill::<Ticket>().run().await.unwrap();
    let failed: Vec<_> = report.failed.iter().map(|f| f.key.1.clone()).collect();
    assert_eq!(failed, [Some("TICKET#t4".to_string())], "only the item it would write is validated: {report:?}");
    assert!(matches!(report.failed[0].error, dynamo_entity::Error::Invalid { field: Some("title"), .. }), "{report:?}");
    assert_eq!((report.written, report.already_current), (1, 2), "{report:?}");
    let after = common::raw_items(&table).await;
    let by_sk = |items: &[Item], sk: &str| items.iter().find(|i| s(i, "SK").as_deref() == Some(sk)).cloned();
    for sk in ["TICKET#t1", "TICKET#t2", "TICKET#t4"] {
        assert_eq!(by_sk(&after, sk), by_sk(&before, sk), "{sk} is not written");
    }
    assert_eq!(s(&by_sk(&after, "TICKET#t3").unwrap(), "GSI1PK").as_deref(), Some("OPEN#q"));
}

/// A document whose text was trimmed by an in-place migration (the same type name and key),
/// stamped on every write.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SPACE#<space>"]
#[sk = "PAGE#<id>"]
pub struct Page {
    pub space: String,
    pub id: String,
    pub body: String,
    pub labels: std::collections::BTreeSet<String>,
    #[updated_at]
    pub updated: std::time::SystemTime,
}

#[tokio::test]
async fn an_in_place_migration_to_the_same_type_settles() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let table = common::table("migrate-in-place", &[Page::SCHEMA]).await;
    // A clock that moves a second on each reading: a rewrite would show as a new stamp.
    let ticks = Arc::new(AtomicU64::new(0));
    let clock = ticks.clone();
    let table = table.with_clock(move || {
        std::time::UNIX_EPOCH + Duration::from_secs(1_780_000_000 + clock.fetch_add(1, Ordering::SeqCst))
    });
    let n = 20;
    for i in 0..n {
        let labels = (0..5).map(|l| format!("label-{}", (i * 7 + l * 3) % 11)).collect();
        let page = Page {
            space: format!("s{}", i % 3),
            id: format!("p{i:02}"),
            body: format!("  page {i}  "),
            labels,
            updated: std::time::UNIX_EPOCH,
        };
        table.put(&page).await.unwrap();
    }
    let trim = |p: Page| Page { body: p.body.trim().to_owned(), ..p };

    let first = table.migrate(trim).run().await.unwrap();
    assert!(first.failed.is_empty(), "{:?}", first.failed);
    assert_eq!((first.written, first.already_current), (n as u64, 0), "{first:?}");
    let after_first = common::raw_items(&table).await;

    let second = table.migrate(trim).segments(2).run().await.unwrap();
    assert!(second.failed.is_empty(), "{:?}", second.failed);
    assert_eq!(
        (second.scanned, second.written, second.already_current),
        (n as u64, 0, n as u64),
        "every item is already as the migration writes it: {second:?}"
    );
    assert_eq!(common::raw_items(&table).await, after_first, "the items are unchanged, byte for byte");
    let page = table.get(Page::key("s0", "p00")).await.unwrap().unwrap();
    assert_eq!(page.body, "page 0");
}
