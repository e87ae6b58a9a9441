//! Client-side encryption in production (feature `encryption`): the algorithm suite chosen per
//! handle, the items of a page decrypted in parallel. Against DynamoDB Local, with the raw AES
//! keyring of the clinic.

mod clinic;
mod common;

use aws_sdk_dynamodb::config::Intercept;
use clinic::{Chart, Note, Visit, keyring};
use dynamo_entity::encryption::Suite;
use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, Error, Table};

fn visit(at: &str, diagnosis: &str) -> Visit {
    Visit { patient_id: "p1".into(), at: at.into(), ward: "north".into(), diagnosis: diagnosis.into() }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// A plain table, its encrypting handle under the default suite, and under the symmetric one.
async fn tables(test: &str) -> (Table, Table, Table) {
    let plain = common::table(test, &[Visit::SCHEMA]).await;
    let default = plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    let symmetric =
        plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap().encryption_suite(Suite::SymmetricSignatures);
    (plain, default, symmetric)
}

/// The raw item at `at`: its header's flavor byte (DB-ESDK's header: version, then flavor, 1 for
/// a suite with an ECDSA signature, 0 without) and its footer's length (an HMAC-SHA384 of 48
/// bytes per data key, then the ECDSA P-384 signature if the suite has one).
async fn flavor_and_footer(plain: &Table, at: &str) -> (u8, usize) {
    let item =
        common::raw_items(plain).await.into_iter().find(|i| i.get("SK") == Some(&s(&format!("VISIT#{at}")))).unwrap();
    let (Some(AttributeValue::B(head)), Some(AttributeValue::B(foot))) =
        (item.get("aws_dbe_head"), item.get("aws_dbe_foot"))
    else {
        panic!("not an item of DB-ESDK's: {item:?}")
    };
    (head.as_ref()[1], foot.as_ref().len())
}

#[tokio::test]
async fn each_handle_writes_with_its_suite_and_reads_back_its_items() {
    let (plain, default, symmetric) = tables("enc-suite").await;
    default.put(&visit("2026-01-01", "asthma")).await.unwrap();
    symmetric.put(&visit("2026-01-02", "hay fever")).await.unwrap();

    // The default suite signs with ECDSA P-384 (flavor 1, an HMAC and a signature in the
    // footer); the symmetric suite does not (flavor 0, the HMAC alone).
    let (flavor, footer) = flavor_and_footer(&plain, "2026-01-01").await;
    assert_eq!(flavor, 1);
    assert!(footer > 48, "{footer}");
    assert_eq!(flavor_and_footer(&plain, "2026-01-02").await, (0, 48));

    assert_eq!(default.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "asthma");
    assert_eq!(symmetric.get(Visit::key("p1", "2026-01-02")).await.unwrap().unwrap().diagnosis, "hay fever");
    // Nothing in plaintext.
    let text = format!("{:?}", common::raw_items(&plain).await);
    assert!(!text.contains("asthma") && !text.contains("hay fever"), "{text}");
}

#[tokio::test]
async fn items_written_under_either_suite_are_read_under_both() {
    let (plain, default, symmetric) = tables("enc-suite-cross").await;
    let asthma = visit("2026-01-01", "asthma");
    let hay_fever = visit("2026-01-02", "hay fever");
    default.put(&asthma).await.unwrap();
    symmetric.put(&hay_fever).await.unwrap();

    // DB-ESDK's configured suite is the one it encrypts with; on read it takes the suite from
    // the item's header: each handle reads the other's items, and a handle configured with the
    // default suite does not require the ECDSA signature of what it reads.
    assert_eq!(symmetric.get(Visit::key("p1", "2026-01-01")).await.unwrap(), Some(asthma.clone()));
    assert_eq!(default.get(Visit::key("p1", "2026-01-02")).await.unwrap(), Some(hay_fever.clone()));
    assert_eq!(default.query_all(Visit::query_visits("p1")).await.unwrap(), [asthma.clone(), hay_fever.clone()]);
    assert_eq!(symmetric.query_all(Visit::query_visits("p1")).await.unwrap(), [asthma.clone(), hay_fever.clone()]);

    // Reading leaves the items as they are; writing one again through the other handle moves
    // it to that handle's suite (how a table changes suite: a migration through the new handle).
    assert_eq!(flavor_and_footer(&plain, "2026-01-01").await.0, 1);
    assert_eq!(flavor_and_footer(&plain, "2026-01-02").await, (0, 48));
    symmetric.put(&asthma).await.unwrap();
    default.put(&hay_fever).await.unwrap();
    assert_eq!(flavor_and_footer(&plain, "2026-01-01").await, (0, 48));
    assert_eq!(flavor_and_footer(&plain, "2026-01-02").await.0, 1);
}

#[tokio::test]
async fn the_symmetric_suite_detects_an_edited_signed_attribute() {
    let (plain, _default, symmetric) = tables("enc-suite-tamper").await;
    symmetric.put(&visit("2026-01-01", "gout")).await.unwrap();
    symmetric.put(&visit("2026-01-02", "gout again")).await.unwrap();
    plain
        .client()
        .update_item()
        .table_name(plain.name())
        .key("PK", s("PATIENT#p1"))
        .key("SK", s("VISIT#2026-01-02"))
        .update_expression("SET ward = :w")
        .expression_attribute_values(":w", s("south"))
        .send()
        .await
        .unwrap();
    let e = symmetric.get(Visit::key("p1", "2026-01-02")).await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    println!("edited: {e}");
    assert_eq!(symmetric.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "gout");
}

#[tokio::test]
async fn choosing_a_suite_keeps_the_handles_other_interceptors() {
    let plain = common::table("enc-suite-interceptors", &[Visit::SCHEMA]).await;
    let limited = plain.with_rate_limit(dynamo_entity::RateLimit::per_second(1000.0, 1000.0));
    let table = limited.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    let names = |t: &Table| t.client().config().interceptors().map(|i| i.name()).collect::<Vec<_>>();
    let before = names(&table);
    assert_eq!(before.iter().filter(|n| **n == "DbEsdkInterceptor").count(), 1, "{before:?}");
    let switched = table.encryption_suite(Suite::SymmetricSignatures).encryption_suite(Suite::Default);
    assert_eq!(names(&switched), before);
    // And it still reads what the first handle wrote.
    table.put(&visit("2026-01-01", "asthma")).await.unwrap();
    assert_eq!(switched.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "asthma");
}

// ---------------------------------------------------------------------------------------------
// Pages decrypted in parallel.

/// CPU time (clock ticks) of each of this process's threads that decrypt pages
/// (`de-decrypt-N`), from /proc.
fn decrypting_threads() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let Ok(name) = std::fs::read_to_string(dir.join("comm")) else { continue };
        let name = name.trim().to_owned();
        if !name.starts_with("de-decrypt-") {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else { continue };
        // After the name in parentheses: state is field 3; utime and stime fields 14 and 15.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        out.push((name, ticks));
    }
    out
}

fn visits(n: usize) -> Vec<Visit> {
    (0..n).map(|i| visit(&format!("2026-{i:04}"), &format!("diagnosis number {i}"))).collect()
}

#[tokio::test]
async fn a_page_is_decrypted_in_order_on_more_than_one_thread() {
    let (_plain, default, symmetric) = tables("enc-page").await;
    let all = visits(120);
    default.batch_put(&all).await.unwrap();

    // Queries (pages of 50 and whole), scans, batch gets and collections: the same items in
    // the same order as they are stored.
    for table in [&default, &symmetric] {
        assert_eq!(table.query_all(Visit::query_visits("p1")).await.unwrap(), all);
        let page = table.query(Visit::query_visits("p1").limit(50)).await.unwrap();
        assert_eq!(page.items, all[..50]);
        let mut scanned = table.scan::<Visit>().all().await.unwrap();
        scanned.sort_by(|a, b| a.at.cmp(&b.at));
        assert_eq!(scanned, all);
        let keys: Vec<_> = all.iter().rev().take(70).map(|v| Visit::key(&v.patient_id, &v.at)).collect();
        let got = table.batch_get(keys).await.unwrap();
        let mut want: Vec<Visit> = all.iter().rev().take(70).cloned().collect();
        let mut got: Vec<Visit> = got.into_iter().collect();
        got.sort_by(|a, b| a.at.cmp(&b.at));
        want.sort_by(|a, b| a.at.cmp(&b.at));
        assert_eq!(got, want);
    }

    // A collection's page: notes and visits of one partition, in sort-key order.
    let both = _plain.with_encryption(&[Visit::SCHEMA, Note::SCHEMA], keyring()).unwrap();
    let notes: Vec<Note> =
        (0..30).map(|i| Note { patient_id: "p1".into(), id: format!("{i:03}"), text: format!("note {i}") }).collect();
    both.batch_put(&notes).await.unwrap();
    let chart = both.query_all(Chart::query(Visit::partition("p1"))).await.unwrap();
    let want: Vec<Chart> =
        notes.iter().cloned().map(Chart::Note).chain(all.iter().cloned().map(Chart::Visit)).collect();
    assert_eq!(chart, want);

    // The work ran on the pool's threads, more than one of them.
    let threads = decrypting_threads();
    let busy = threads.iter().filter(|(_, ticks)| *ticks > 0).count();
    println!("decrypting threads (name, CPU ticks): {threads:?}");
    assert!(busy >= 2, "{threads:?}");
}

#[tokio::test]
async fn an_item_of_a_page_that_does_not_verify_fails_the_page_with_its_error() {
    let (plain, table, _) = tables("enc-page-tamper").await;
    let all = visits(50);
    table.batch_put(&all).await.unwrap();
    plain
        .client()
        .update_item()
        .table_name(plain.name())
        .key("PK", s("PATIENT#p1"))
        .key("SK", s("VISIT#2026-0037"))
        .update_expression("SET ward = :w")
        .expression_attribute_values(":w", s("south"))
        .send()
        .await
        .unwrap();
    let e = table.query_all(Visit::query_visits("p1")).await.unwrap_err();
    match &e {
        Error::Encryption { reading: true, message } => assert!(message.contains("Signature of record"), "{message}"),
        e => panic!("{e:?}"),
    }
    let e = table.scan::<Visit>().all().await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    // The pages before it still read.
    assert_eq!(table.query(Visit::query_visits("p1").limit(30)).await.unwrap().items, all[..30]);
}

#[tokio::test]
async fn the_handles_client_leaves_other_tables_pages_alone() {
    let (plain, table, _) = tables("enc-page-other").await;
    let other = common::table("enc-page-other-plain", &[Visit::SCHEMA]).await;
    other.put(&visit("2026-01-01", "plain")).await.unwrap();
    let out = table
        .client()
        .query()
        .table_name(other.name())
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", s("PATIENT#p1"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.items.unwrap()[0]["diagnosis"], s("plain"));
    let _ = plain;
}
