//! Failure modes against a DynamoDB Local that each test starts for itself (its own JVM, its
//! own PID): a server that stops answering (SIGSTOP) makes calls fail within their timeouts,
//! and a server killed in the middle of a batch leaves an error that accounts for every key.
//!
//! Only the process the test started is ever signalled, by its PID.

use std::process::Command;
use std::time::{Duration, Instant};

use dynamo_entity::local::DynamoDbLocal;
use dynamo_entity::{Entity, Table, Timeouts};

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

fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill").arg(format!("-{signal}")).arg(pid.to_string()).status().expect("kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Sends SIGSTOP to one process now and SIGCONT when dropped (also when the test fails).
struct Stopped(u32);

impl Stopped {
    fn new(pid: u32) -> Stopped {
        signal(pid, "STOP");
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-CONT").arg(self.0.to_string()).status();
    }
}

async fn dedicated(name: &str) -> (DynamoDbLocal, Table) {
    let local = DynamoDbLocal::start().await.expect("DynamoDB Local");
    let table = Table::new(local.client(), name);
    table.create_table(&[Thing::SCHEMA]).await.expect("create table");
    (local, table)
}

#[tokio::test]
async fn tables_bound_every_request_by_default() {
    let (local, table) = dedicated("bounded").await;
    assert_eq!(table.timeouts(), (Some(Timeouts::DEFAULT_OPERATION), Some(Timeouts::DEFAULT_ATTEMPT)));
    // `local::client()` (and `DynamoDbLocal::client`) set the same defaults themselves.
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
    let (local, table) = dedicated("stopped").await;
    let timeout = Duration::from_secs(3);
    let table = table.with_timeouts(Timeouts::new(timeout, Duration::from_secs(1)));
    table.batch_put(&things("g", 30)).await.unwrap();
    assert_eq!(table.query_all(Thing::query_by_group("g")).await.unwrap().len(), 30);

    let stopped = Stopped::new(local.pid());
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
