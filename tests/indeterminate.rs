//! Writes whose answer is lost (issue 45, item 8): an update that is not idempotent (an `ADD`, a
//! list append, a `#[version]`) is never sent again after a failure that leaves its outcome
//! unknown; it is `Error::Indeterminate`, and counts at most once. `.idempotent()` sends it as a
//! one-action TransactWriteItems with a token, retried safely: the counter is exact. A throttling
//! answer (nothing applied) is still retried. A conditional write the SDK sent again after such a
//! failure, whose condition then fails, is `Indeterminate`, not a false `AlreadyExists`.
//!
//! DynamoDB Local never loses an answer, so an SDK interceptor on the test's client injects the
//! faults, per attempt: the request reaches DynamoDB Local (and is applied), then its answer is
//! replaced by a 500 `InternalServerError`, by a body that breaks off (a dropped connection), or by
//! one that never comes (the attempt times out). A throttling answer is injected instead of
//! sending the request (it never reaches DynamoDB Local).

mod common;

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_smithy_types::body::SdkBody;
use dynamo_entity::{Entity, Error, Table, Timeouts};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "COUNTER#<id>"]
#[sk = "COUNTER"]
pub struct Counter {
    pub id: String,
    pub hits: i64,
    pub log: Vec<String>,
    pub label: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<id>"]
#[sk = "DOC"]
pub struct Doc {
    pub id: String,
    pub body: String,
    #[version]
    pub version: u64,
}

/// A unique value beside a counter: an update that changes both is one transaction with the
/// value's guards.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<id>"]
#[sk = "PLAYER"]
pub struct Player {
    pub id: String,
    #[unique]
    pub handle: String,
    pub score: i64,
}

/// What happens to one attempt of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Reaches DynamoDB Local, then its answer is a 500 `InternalServerError`.
    ServerError,
    /// Reaches DynamoDB Local, then its answer's body breaks off (a dropped connection).
    Dropped,
    /// Reaches DynamoDB Local, then its answer never comes (the attempt timeout fires).
    Stalled,
    /// Never reaches DynamoDB Local: answered with a `ThrottlingException`.
    Throttled,
    /// Never reaches DynamoDB Local: a transaction answered `TransactionCanceledException` with the
    /// reason `TransactionConflict` (another transaction held the item).
    Conflict,
    /// Never reaches DynamoDB Local: a transaction answered `TransactionInProgressException` (an
    /// earlier attempt under its token is still being applied), which the SDK retries.
    InProgress,
    /// Sent and answered as it is.
    None,
}

/// Applies a script of faults to the attempts of the writes (`UpdateItem`, `PutItem`,
/// `DeleteItem`, `TransactWriteItems`), one per attempt in order; attempts past the script pass.
/// Reads pass.
#[derive(Debug, Clone, Default)]
struct Faults {
    script: Arc<Mutex<VecDeque<Fault>>>,
    /// The fault of the attempt in flight (the tests send one request at a time).
    current: Arc<Mutex<Option<Fault>>>,
    /// Every write attempt, with its fault.
    seen: Arc<Mutex<Vec<(String, Fault)>>>,
}

impl Faults {
    fn script(&self, faults: &[Fault]) {
        *self.script.lock().unwrap() = faults.iter().copied().collect();
        self.seen.lock().unwrap().clear();
    }

    fn seen(&self) -> Vec<(String, Fault)> {
        self.seen.lock().unwrap().clone()
    }
}

const WRITES: [&str; 4] = ["UpdateItem", "PutItem", "DeleteItem", "TransactWriteItems"];

impl Intercept for Faults {
    fn name(&self) -> &'static str {
        "Faults"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let target = request.headers().get("x-amz-target").unwrap_or_default().to_owned();
        let operation = target.strip_prefix("DynamoDB_20120810.").unwrap_or_default().to_owned();
        if !WRITES.contains(&operation.as_str()) {
            *self.current.lock().unwrap() = None;
            return Ok(());
        }
        let fault = self.script.lock().unwrap().pop_front().unwrap_or(Fault::None);
        self.seen.lock().unwrap().push((operation, fault));
        *self.current.lock().unwrap() = Some(fault);
        if matches!(fault, Fault::Throttled | Fault::Conflict | Fault::InProgress) {
            // Nothing of the write reaches DynamoDB Local: it answers a harmless ListTables.
            common::divert(request);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(fault) = self.current.lock().unwrap().take() else { return Ok(()) };
        match fault {
            Fault::None => Ok(()),
            Fault::ServerError => {
                let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"injected"}"#;
                common::answer(ctx, 500, body.to_owned())
            }
            Fault::Throttled => {
                let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"injected"}"#;
                common::answer(ctx, 400, body.to_owned())
            }
            Fault::Conflict => {
                let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]","CancellationReasons":[{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}]}"#;
                common::answer(ctx, 400, body.to_owned())
            }
            Fault::InProgress => {
                let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionInProgressException","Message":"Transaction is in progress"}"#;
                common::answer(ctx, 400, body.to_owned())
            }
            Fault::Dropped | Fault::Stalled => {
                let response = ctx.response_mut();
                response.headers_mut().remove("x-amz-crc32");
                response.headers_mut().remove("content-length");
                *response.body_mut() = SdkBody::from_body_1_x(Broken(fault == Fault::Stalled));
                Ok(())
            }
        }
    }
}

/// A response body that breaks off at once (`false`: the connection dropped) or never ends
/// (`true`).
struct Broken(bool);

impl http_body::Body for Broken {
    type Data = bytes::Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match self.0 {
            true => Poll::Pending,
            false => Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "connection reset by peer (injected)",
            )))),
        }
    }
}

/// A table of counters and docs, and a handle of it whose client injects `Faults` (the SDK's
/// standard retries, 3 attempts; an attempt timeout of 4 s, which a stalled answer runs into and
/// DynamoDB Local's own answers, on a busy machine, do not).
async fn tables(test: &str) -> (Table, Table, Faults) {
    let table = common::table(test, &[Counter::SCHEMA, Doc::SCHEMA, Player::SCHEMA]).await;
    let faults = Faults::default();
    let config = table.client().config().to_builder().interceptor(faults.clone());
    let faulty = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
        .with_timeouts(Timeouts::new(Duration::from_secs(60), Duration::from_secs(4)));
    (table, faulty, faults)
}

async fn counter(table: &Table, id: &str) -> Counter {
    table.get(Counter::key(id)).await.unwrap().expect("the counter")
}

async fn new_counter(table: &Table, id: &str) {
    table.put(&Counter { id: id.into(), hits: 0, log: Vec::new(), label: None }).await.unwrap();
}

fn is_indeterminate(e: &Error, operation: &str) -> bool {
    matches!(e, Error::Indeterminate { operation: o, entity: "Counter" | "Doc" | "Player", .. } if *o == operation)
}

async fn player(table: &Table, id: &str) -> Player {
    table.get(Player::key(id)).await.unwrap().expect("the player")
}

#[tokio::test]
async fn an_add_whose_answer_is_lost_is_indeterminate_and_counts_once() {
    let (table, faulty, faults) = tables("indet-add").await;
    for (n, fault) in [Fault::ServerError, Fault::Dropped, Fault::Stalled].into_iter().enumerate() {
        let id = format!("c{n}");
        new_counter(&table, &id).await;
        faults.script(&[fault, Fault::None, Fault::None]);
        let e = faulty.update(Counter::update(Counter::key(&id)).add(Counter::fields().hits, 1)).await.unwrap_err();
        assert!(is_indeterminate(&e, "UpdateItem"), "{fault:?}: {e:?}");
        assert!(e.to_string().contains("may or may not have happened"), "{e}");
        assert!(e.to_string().contains(&format!("COUNTER#{id}")), "{e}");
        // The first attempt reached DynamoDB Local and was applied; it was not sent again.
        assert_eq!(faults.seen(), vec![("UpdateItem".to_owned(), fault)], "{fault:?}");
        assert_eq!(counter(&table, &id).await.hits, 1, "{fault:?}: counted once");
    }
}

#[tokio::test]
async fn a_list_append_and_a_versioned_update_are_not_sent_twice() {
    let (table, faulty, faults) = tables("indet-append").await;
    new_counter(&table, "l").await;
    faults.script(&[Fault::ServerError, Fault::None]);
    let e = faulty
        .update(Counter::update(Counter::key("l")).append(Counter::fields().log, ["a".to_owned()]))
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "UpdateItem"), "{e:?}");
    assert_eq!(counter(&table, "l").await.log, ["a"], "{e}");

    // The `#[version]` is an `ADD`: a second attempt would add 1 again (and fail `if_version`).
    table.put(&Doc { id: "d".into(), body: "v0".into(), version: 0 }).await.unwrap();
    faults.script(&[Fault::Dropped, Fault::None]);
    let e = faulty.update(Doc::update(Doc::key("d")).set(Doc::fields().body, "v1").if_version(1)).await.unwrap_err();
    assert!(is_indeterminate(&e, "UpdateItem"), "{e:?}");
    let doc = table.get(Doc::key("d")).await.unwrap().unwrap();
    assert_eq!((doc.body.as_str(), doc.version), ("v1", 2));
}

#[tokio::test]
async fn a_throttled_add_is_retried_and_counts_once() {
    let (table, faulty, faults) = tables("indet-throttle").await;
    new_counter(&table, "t").await;
    faults.script(&[Fault::Throttled, Fault::Throttled]);
    let c = faulty.update(Counter::update(Counter::key("t")).add(Counter::fields().hits, 1)).await.unwrap();
    assert_eq!(c.hits, 1);
    let attempts: Vec<Fault> = faults.seen().into_iter().map(|(_, f)| f).collect();
    assert_eq!(attempts, [Fault::Throttled, Fault::Throttled, Fault::None]);
    assert_eq!(counter(&table, "t").await.hits, 1);
}

#[tokio::test]
async fn an_idempotent_add_is_retried_and_counts_exactly_once() {
    let (table, faulty, faults) = tables("indet-idem").await;
    new_counter(&table, "i").await;
    let mut expected = 0;
    let scripts: [&[Fault]; 7] = [
        &[Fault::ServerError],
        &[Fault::Dropped, Fault::Stalled],
        &[Fault::Stalled],
        &[Fault::Throttled, Fault::ServerError],
        // Every attempt of the SDK's first send lost (3): the table sends it again, same token.
        &[Fault::ServerError, Fault::Dropped, Fault::ServerError],
        // Cancelled by a conflict (nothing applied): sent again, as a transaction is.
        &[Fault::Conflict],
        &[Fault::ServerError, Fault::Conflict, Fault::Conflict],
    ];
    for script in scripts {
        faults.script(script);
        let c = faulty
            .update(Counter::update(Counter::key("i")).add(Counter::fields().hits, 5).idempotent())
            .await
            .unwrap();
        expected += 5;
        assert_eq!(c.hits, expected, "{script:?}: the returned item");
        assert_eq!(counter(&table, "i").await.hits, expected, "{script:?}: counted once");
        let seen = faults.seen();
        assert!(seen.iter().all(|(op, _)| op == "TransactWriteItems"), "{seen:?}");
        assert_eq!(seen.len(), script.len() + 1, "{seen:?}: each fault, then an answer");
    }
    // Its failures are typed as for any update.
    let e = faulty
        .update(Counter::update(Counter::key("none")).add(Counter::fields().hits, 1).idempotent())
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { entity: "Counter", .. }), "{e:?}");
    let e = faulty
        .update(
            Counter::update(Counter::key("i"))
                .add(Counter::fields().hits, 1)
                .condition(Counter::fields().hits.lt(0))
                .idempotent(),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::ConditionFailed { entity: "Counter", .. }), "{e:?}");
    assert_eq!(counter(&table, "i").await.hits, expected);
}

#[tokio::test]
async fn an_update_that_only_sets_values_is_still_retried() {
    let (table, faulty, faults) = tables("indet-set").await;
    new_counter(&table, "s").await;
    faults.script(&[Fault::ServerError, Fault::Dropped]);
    let c = faulty.update(Counter::update(Counter::key("s")).set(Counter::fields().label, "x")).await.unwrap();
    assert_eq!(c.label.as_deref(), Some("x"));
    assert_eq!(faults.seen().len(), 3, "two lost answers, then the answer");
}

#[tokio::test]
async fn a_create_refused_after_a_lost_answer_is_indeterminate_not_already_exists() {
    let (table, faulty, faults) = tables("indet-create").await;
    // The first attempt creates the item; the SDK's second finds it: not "already exists".
    faults.script(&[Fault::ServerError, Fault::None]);
    let c = Counter { id: "n".into(), hits: 3, log: Vec::new(), label: None };
    let e = faulty.create(&c).await.unwrap_err();
    assert!(is_indeterminate(&e, "PutItem"), "{e:?}");
    let Error::Indeterminate { source, .. } = &e else { unreachable!() };
    assert!(matches!(**source, Error::AlreadyExists { .. }), "{source:?}");
    assert_eq!(counter(&table, "n").await, c);
    // A create that meets an item without a lost answer before is `AlreadyExists`, as ever.
    faults.script(&[]);
    let e = faulty.create(&c).await.unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e:?}");
    // A throttled create is retried: its retry finds no item, since nothing was applied.
    faults.script(&[Fault::Throttled]);
    let c2 = Counter { id: "m".into(), ..c.clone() };
    faulty.create(&c2).await.unwrap();
    assert_eq!(counter(&table, "m").await, c2);
    faults.script(&[Fault::Stalled]);
    let c3 = Counter { id: "k".into(), ..c };
    assert!(is_indeterminate(&faulty.create(&c3).await.unwrap_err(), "PutItem"));

    // A conditional delete: its retry finds no item, which its own first attempt deleted.
    let f = Counter::fields();
    faults.script(&[Fault::ServerError, Fault::None]);
    let e = faulty.delete(Counter::key("n")).condition(f.hits.eq(3)).await.unwrap_err();
    assert!(matches!(e, Error::Indeterminate { operation: "DeleteItem", .. }), "{e:?}");
    assert!(table.get(Counter::key("n")).await.unwrap().is_none());

    // A versioned put: its retry would be refused by its own first attempt.
    let doc = Doc { id: "v".into(), body: "one".into(), version: 0 };
    faults.script(&[Fault::Dropped, Fault::None]);
    let e = faulty.put(&doc).await.unwrap_err();
    assert!(is_indeterminate(&e, "PutItem"), "{e:?}");
    let Error::Indeterminate { source, .. } = &e else { unreachable!() };
    assert!(matches!(**source, Error::VersionConflict { .. }), "{source:?}");
}

#[tokio::test]
async fn an_add_beside_a_unique_change_whose_answer_is_lost_is_indeterminate_and_counts_once() {
    let (table, faulty, faults) = tables("indet-unique").await;
    table.create(&Player { id: "p".into(), handle: "ann".into(), score: 0 }).await.unwrap();
    // Every attempt of the SDK's send lost: the first was applied (the others, under its token,
    // were not applied again). Sent again by the caller, it would count twice: Indeterminate.
    faults.script(&[Fault::ServerError, Fault::Dropped, Fault::ServerError]);
    let e = faulty
        .update(Player::update(Player::key("p")).set(Player::fields().handle, "bea").add(Player::fields().score, 1))
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "TransactWriteItems"), "{e:?}");
    assert!(e.to_string().contains("PLAYER#p"), "{e}");
    assert_eq!(faults.seen().len(), 3, "{:?}", faults.seen());
    assert_eq!(player(&table, "p").await, Player { id: "p".into(), handle: "bea".into(), score: 1 });

    // `.idempotent()`: a token of the library's, which the table sends again after the SDK's
    // retries: applied once, answered.
    faults.script(&[Fault::ServerError, Fault::Dropped, Fault::ServerError]);
    let p = faulty
        .update(
            Player::update(Player::key("p"))
                .set(Player::fields().handle, "cid")
                .add(Player::fields().score, 1)
                .idempotent(),
        )
        .await
        .unwrap();
    assert_eq!(p, Player { id: "p".into(), handle: "cid".into(), score: 2 });
    assert_eq!(faults.seen().len(), 4, "the SDK's three attempts, then the table's send");
    // Cancelled by a conflict (nothing applied): read and built again, applied once.
    faults.script(&[Fault::Conflict, Fault::ServerError]);
    let p = faulty
        .update(
            Player::update(Player::key("p"))
                .set(Player::fields().handle, "dee")
                .add(Player::fields().score, 1)
                .idempotent(),
        )
        .await
        .unwrap();
    assert_eq!((p.handle.as_str(), p.score), ("dee", 3));
    // Every send lost: still unknown after the table's sends, Indeterminate, applied once.
    faults.script(&[Fault::ServerError; 12]);
    let e = faulty
        .update(
            Player::update(Player::key("p"))
                .set(Player::fields().handle, "eve")
                .add(Player::fields().score, 1)
                .idempotent(),
        )
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "TransactWriteItems"), "{e:?}");
    assert_eq!(faults.seen().len(), 12, "four sends of three attempts");
    assert_eq!(player(&table, "p").await, Player { id: "p".into(), handle: "eve".into(), score: 4 });
    // The old values' guards were freed, the last one's taken.
    let e = table.create(&Player { id: "q".into(), handle: "eve".into(), score: 0 }).await.unwrap_err();
    assert!(matches!(e, Error::UniqueViolation { field: "handle", .. }), "{e:?}");
    table.create(&Player { id: "q".into(), handle: "ann".into(), score: 0 }).await.unwrap();

    // An update that only sets values is idempotent: still retried, and its failure is the SDK's.
    faults.script(&[Fault::ServerError; 3]);
    let e = faulty.update(Player::update(Player::key("p")).set(Player::fields().handle, "fay")).await.unwrap_err();
    assert!(matches!(e, Error::Sdk(_)), "{e:?}");
}

#[tokio::test]
async fn a_transaction_holding_an_add_whose_answer_is_lost_is_indeterminate() {
    let (table, faulty, faults) = tables("indet-transact").await;
    new_counter(&table, "t").await;
    table.create(&Player { id: "p".into(), handle: "ann".into(), score: 0 }).await.unwrap();
    // A plain transaction: a new send would carry a new token.
    faults.script(&[Fault::ServerError; 3]);
    let e = faulty
        .transact()
        .put(&Doc { id: "d".into(), body: "x".into(), version: 0 })
        .update(Counter::update(Counter::key("t")).add(Counter::fields().hits, 1))
        .send()
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "TransactWriteItems"), "{e:?}");
    assert!(e.to_string().contains("COUNTER#t"), "{e}");
    assert_eq!(counter(&table, "t").await.hits, 1);
    // A guarded one (a unique value changes in it) too.
    faults.script(&[Fault::ServerError; 3]);
    let e = faulty
        .transact()
        .update(Player::update(Player::key("p")).set(Player::fields().handle, "bea"))
        .update(Counter::update(Counter::key("t")).add(Counter::fields().hits, 1))
        .send()
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "TransactWriteItems"), "{e:?}");
    assert_eq!(counter(&table, "t").await.hits, 2);
    assert_eq!(player(&table, "p").await.handle, "bea");
    // With a token, the table sends it again: applied once, answered.
    faults.script(&[Fault::ServerError; 3]);
    faulty
        .transact()
        .update(Counter::update(Counter::key("t")).add(Counter::fields().hits, 1))
        .idempotency_token("add-t-3")
        .send()
        .await
        .unwrap();
    assert_eq!(counter(&table, "t").await.hits, 3);
    // A transaction without such an update is idempotent: its failure is the SDK's.
    faults.script(&[Fault::ServerError; 3]);
    let e = faulty.transact().put(&Doc { id: "e".into(), body: "x".into(), version: 0 }).send().await.unwrap_err();
    assert!(matches!(e, Error::Sdk(_)), "{e:?}");
}

#[tokio::test]
async fn a_transaction_still_in_progress_is_an_unknown_outcome() {
    let (table, faulty, faults) = tables("indet-in-progress").await;
    new_counter(&table, "i").await;
    // The first attempt is applied but its answer lost; the SDK's next ones meet it in progress.
    // The outcome is unknown: the table sends it again under its token, and it counts once.
    faults.script(&[Fault::ServerError, Fault::InProgress, Fault::InProgress]);
    let c =
        faulty.update(Counter::update(Counter::key("i")).add(Counter::fields().hits, 1).idempotent()).await.unwrap();
    assert_eq!(c.hits, 1);
    assert_eq!(faults.seen().len(), 4, "{:?}", faults.seen());
    // Without a token of the library's: Indeterminate, never a failure that reads as safe to
    // send again.
    faults.script(&[Fault::ServerError, Fault::InProgress, Fault::InProgress]);
    let e = faulty
        .transact()
        .update(Counter::update(Counter::key("i")).add(Counter::fields().hits, 1))
        .send()
        .await
        .unwrap_err();
    assert!(is_indeterminate(&e, "TransactWriteItems"), "{e:?}");
    assert_eq!(counter(&table, "i").await.hits, 2);
}
