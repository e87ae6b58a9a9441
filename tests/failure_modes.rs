//! Failure modes against a server each test has for itself: an engine (`local::Engine`) behind
//! a loopback proxy the test owns (`common/proxy.rs`). A server that stops answering (the proxy
//! paused: bytes held both ways, as a process stopped with SIGSTOP holds them) makes calls fail
//! within their timeouts, and a server gone in the middle of a batch (the proxy cut: every
//! connection dropped and new ones refused, as when a process is killed) leaves an error that
//! accounts for every key.

use dynamo_entity::prelude::*;
use std::time::{Duration, Instant};

use dynamo_entity::local::{self, Engine};
use dynamo_entity::{Entity, Table, Timeouts};

#[path = "common/proxy.rs"]
mod proxy;
use proxy::Proxy;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "ITEM#<n>"]
pub struct Thing {
    pub group: String,
    pub n: u32,
    pub label: String,
}

fn things(group: &str, n: u32) -> Vec<Thing> {
    (0..n).map(|n| Thing { group: group.into(), n, label: format!("label {n}") }).collect()
}

/// Pauses the proxy now and lets it run again when dropped (also when the test fails).
struct Stopped<'a>(&'a Proxy);

impl<'a> Stopped<'a> {
    fn new(proxy: &'a Proxy) -> Stopped<'a> {
        proxy.pause();
        Stopped(proxy)
    }
}

impl Drop for Stopped<'_> {
    fn drop(&mut self) {
        self.0.resume();
    }
}

/// One dedicated server at a time: the timings here should not depend on how many run at once
/// on a loaded machine.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A server of the test's own: the engine, the proxy in front of it, and a table through the proxy.
struct Dedicated {
    proxy: Proxy,
    _engine: Engine,
}

impl Dedicated {
    fn client(&self) -> aws_sdk_dynamodb::Client {
        local::client_at(&self.proxy.endpoint())
    }
}

async fn dedicated(name: &str) -> (Dedicated, Table) {
    let engine = Engine::start().expect("the engine");
    let proxy = Proxy::start(engine.port());
    let local = Dedicated { proxy, _engine: engine };
    let table = Table::new(local.client(), name);
    table.create_table(&[Thing::SCHEMA]).await.expect("create table");
    (local, table)
}

#[tokio::test]
async fn tables_bound_every_request_by_default() {
    let _serial = SERIAL.lock().await;
    let (local, table) = dedicated("bounded").await;
    assert_eq!(table.timeouts(), (Some(Timeouts::DEFAULT_OPERATION), Some(Timeouts::DEFAULT_ATTEMPT)));
    // `local::client()` (and `Engine::client`, `local::client_at`) set the same defaults themselves.
    let own = local.client();
    let config = own.config().timeout_config().expect("timeouts set by the local client");
    assert_eq!(config.operation_timeout(), Some(Timeouts::DEFAULT_OPERATION));
    assert_eq!(config.operation_attempt_timeout(), Some(Timeouts::DEFAULT_ATTEMPT));
    let shorter = table.clone().with_timeouts(Timeouts::new(Duration::from_secs(4), Duration::from_secs(1)));
    assert_eq!(shorter.timeouts(), (Some(Duration::from_secs(4)), Some(Duration::from_secs(1))));
    // The original handle keeps its own.
    assert_eq!(table.timeouts().0, Some(Timeouts::DEFAULT_OPERATION));
}

#[tokio::test]
async fn a_stopped_server_fails_calls_within_the_timeout() {
    let _serial = SERIAL.lock().await;
    let (local, table) = dedicated("stopped").await;
    // Set up with the default timeouts (a loaded machine can make a cold server slow).
    table.batch_put(&things("g", 30)).await.unwrap();
    assert_eq!(table.query_all(Thing::query_by_group("g")).await.unwrap().len(), 30);
    let timeout = Duration::from_secs(3);
    let table = table.with_timeouts(Timeouts::new(timeout, Duration::from_secs(1)));

    let stopped = Stopped::new(&local.proxy);
    // A call still pending after this is a hang (the test fails rather than waits forever).
    let hang = timeout + Duration::from_secs(10);
    let timed = |what: &'static str, started: Instant, failed: bool| {
        let took = started.elapsed();
        assert!(failed, "{what} did not fail (it succeeded, or still hung) against a stopped server");
        assert!(took <= timeout + Duration::from_secs(2), "{what} took {took:?}");
        took
    };
    let get = async {
        let t = Instant::now();
        let r = tokio::time::timeout(hang, table.get(Thing::key("g", 1u32))).await;
        if let Ok(Err(e)) = &r {
            // The message says what happened, not just "unhandled error".
            assert!(e.to_string().contains("timeout"), "{e}");
        }
        timed("get", t, r.is_ok_and(|r| r.is_err()))
    };
    let query = async {
        let t = Instant::now();
        let r = tokio::time::timeout(hang, table.query(Thing::query_by_group("g").limit(10))).await;
        timed("query", t, r.is_ok_and(|r| r.is_err()))
    };
    let more = things("h", 2_000);
    let batch = async {
        let t = Instant::now();
        let r = tokio::time::timeout(hang, table.batch_put(&more)).await;
        timed("batch_put", t, r.is_ok_and(|r| r.is_err()))
    };
    let (g, q, b) = tokio::join!(get, query, batch);
    eprintln!("against a stopped server: get failed after {g:?}, query after {q:?}, batch_put after {b:?}");
    drop(stopped);
    // Running again, the server answers again.
    assert!(table.get(Thing::key("g", 1u32)).await.unwrap().is_some());
}

/// Every position 0..n is in exactly one of the outcome's lists.
fn assert_partition(outcome: &dynamo_entity::BatchWriteOutcome, n: usize) {
    let mut seen = vec![0u8; n];
    for k in outcome.written.iter().chain(&outcome.not_written).chain(&outcome.unknown) {
        seen[k.index] += 1;
    }
    let wrong: Vec<usize> = (0..n).filter(|i| seen[*i] != 1).collect();
    assert!(wrong.is_empty(), "positions listed other than once: {wrong:?}");
}

#[tokio::test]
async fn a_server_stopped_mid_batch_leaves_every_key_accounted_for_and_a_replay_completes_it() {
    let _serial = SERIAL.lock().await;
    let (local, table) = dedicated("mid-batch").await;
    // Warm the server up with the default timeouts; the batch gets shorter ones, so that the
    // requests in flight when the server stops time out soon.
    table.batch_put(&things("warm-up", 500)).await.unwrap();
    let short = table.clone().with_timeouts(Timeouts::new(Duration::from_secs(10), Duration::from_secs(4)));
    let items = things("m", 4_000);
    let stored = |table: Table| async move {
        let all = table.query_all(Thing::query_by_group("m")).await.unwrap();
        all.into_iter().map(|t| t.n).collect::<std::collections::BTreeSet<u32>>()
    };

    // Stop the server once the batch has written some items, while requests are in flight.
    let batch = tokio::spawn({
        let (table, items) = (short, items.clone());
        async move { table.batch_put(&items).await }
    });
    let watcher = table.clone();
    while watcher.query(Thing::query_by_group("m").limit(300)).await.unwrap().items.len() < 300 {
        if batch.is_finished() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // (On a loaded machine the batch may already have stopped on a timeout of its own: a fault
    // all the same, accounted for in the same way.)
    let stopped = (!batch.is_finished()).then(|| Stopped::new(&local.proxy));
    let result = batch.await.unwrap();
    drop(stopped);

    let Err(dynamo_entity::Error::BatchWrite { outcome, source, .. }) = result else {
        panic!("expected a BatchWrite error, got {result:?}")
    };
    eprintln!("stopped mid-batch: {} ({source})", outcome.summary());
    assert_partition(&outcome, items.len());
    assert!(!outcome.not_written.is_empty() && !outcome.unknown.is_empty(), "{}", outcome.summary());
    // The server runs again: requests it had received may still complete (they are unknown),
    // so look once they are done.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = stored(table.clone()).await;
    let missing: Vec<usize> =
        outcome.written.iter().map(|k| k.index).filter(|i| !after.contains(&(*i as u32))).collect();
    assert!(missing.is_empty(), "reported written but absent: {missing:?}");
    let present: Vec<usize> =
        outcome.not_written.iter().map(|k| k.index).filter(|i| after.contains(&(*i as u32))).collect();
    assert!(present.is_empty(), "reported not written but present: {present:?}");

    // Replaying the not written and the unknown completes the call: every item, once.
    let replay: Vec<Thing> = outcome.to_replay().iter().map(|k| items[k.index].clone()).collect();
    assert_eq!(replay.len(), outcome.not_written.len() + outcome.unknown.len());
    table.batch_put(&replay).await.unwrap();
    let all = table.query_all(Thing::query_by_group("m")).await.unwrap();
    assert_eq!(all, items, "the table holds every item exactly once, as written");
}

#[tokio::test]
async fn a_server_killed_mid_batch_leaves_every_key_accounted_for() {
    let _serial = SERIAL.lock().await;
    let (local, table) = dedicated("killed").await;
    table.batch_put(&things("warm-up", 500)).await.unwrap();
    let items = things("k", 4_000);
    let batch = tokio::spawn({
        let (table, items) = (table.clone(), items.clone());
        async move { table.batch_put(&items).await }
    });
    // Take the server away (every connection dropped, new ones refused) once the batch has
    // written some items.
    let watcher = table.clone();
    while watcher.query(Thing::query_by_group("k").limit(300)).await.unwrap().items.len() < 300 {
        assert!(!batch.is_finished(), "the batch ended before the server was killed: {:?}", batch.await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    local.proxy.cut();
    let started = Instant::now();
    let result = batch.await.unwrap();
    let Err(dynamo_entity::Error::BatchWrite { outcome, source, .. }) = result else {
        panic!("expected a BatchWrite error, got {result:?}")
    };
    eprintln!("killed mid-batch: {} after {:?} ({source})", outcome.summary(), started.elapsed());
    assert_partition(&outcome, items.len());
    // (Some of the 300 seen may have been in a request whose answer never came: unknown.)
    assert!(!outcome.written.is_empty(), "{}", outcome.summary());
    assert!(!outcome.not_written.is_empty(), "{}", outcome.summary());
    // (The server that was cut off is gone for this table, so the replay is checked against a
    // server that comes back, in the paused test above.)
}
