//! Capacity and rate limits against DynamoDB Local, which reports consumed capacity as DynamoDB
//! does: the units follow DynamoDB's rules (writes rounded up to 1 KB per item and per index
//! holding it, reads up to 4 KB per request, eventual reads half); `table.capacity()` sums them
//! per entity, operation and index; a rate limit holds in every window under concurrent puts, a
//! batch, a parallel scan and a merged query of shards (the units DynamoDB reports for the
//! requests started in each window, recorded by an interceptor: no bound on elapsed time); an
//! injected throttling answer lowers the rate, for a transaction too; DynamoDB's throttling
//! reasons are kept in `Error::Throttled` and in the capacity rows, and name the kind of rate
//! the limiter halves.
//! DynamoDB Local never throttles: the throttling answer is injected by an SDK interceptor.

mod common;

use dynamo_entity::prelude::*;
use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use dynamo_entity::{Capacity, Entity, Error, RateLimit, Table, ThrottleReason};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DOC#<owner>"]
#[sk = "DOC#<id>"]
#[gsi1(pk = "TOPIC#<topic>", sk = "DOC#<id>", query = "by_topic")]
pub struct Doc {
    pub owner: String,
    pub id: String,
    pub topic: String,
    pub body: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<owner>"]
#[sk = "NOTE#<id>"]
pub struct Note {
    pub owner: String,
    pub id: String,
    pub body: String,
}

/// A document whose item is a little under `kb` KB by DynamoDB's size rules.
fn doc(owner: &str, id: &str, kb: usize) -> Doc {
    Doc { owner: owner.into(), id: id.into(), topic: "t".into(), body: "x".repeat(kb * 1024 - 120) }
}

fn note(owner: &str, id: usize, bytes: usize) -> Note {
    Note { owner: owner.into(), id: format!("{id:04}"), body: "x".repeat(bytes - 80) }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test]
async fn units_follow_dynamodb_s_rules_and_add_up_per_entity_operation_and_index() {
    let table = common::table("cap-units", &[Doc::SCHEMA, Note::SCHEMA]).await;
    table.reset_capacity();

    // A 3 KB put: 3 WCU on the table, 3 on the index that holds it.
    table.put(&doc("ann", "d1", 3)).await.unwrap();
    let report = table.capacity();
    let put: Vec<_> = report.rows().iter().filter(|r| r.operation == "PutItem").collect();
    assert_eq!(put.len(), 2, "{put:?}");
    assert_eq!((put[0].entity.as_str(), put[0].index.as_deref()), ("Doc", None));
    assert!(close(put[0].capacity.write_units, 3.0), "{put:?}");
    assert_eq!(put[0].capacity.requests, 1);
    assert_eq!(put[1].index.as_deref(), Some("GSI1"));
    assert!(close(put[1].capacity.write_units, 3.0), "{put:?}");
    assert_eq!(put[1].capacity.requests, 0, "a request counts once, on the index it named");
    assert_eq!(report.entity("Doc"), Capacity { read_units: 0.0, write_units: 6.0, requests: 1 });

    // Reads: 3 KB rounds up to 4 KB, one unit strongly consistent, half eventually.
    table.get(Doc::key("ann", "d1")).await.unwrap().unwrap();
    table.get_consistent(Doc::key("ann", "d1")).await.unwrap().unwrap();
    let gets = table.capacity().rows().iter().find(|r| r.operation == "GetItem").cloned().unwrap();
    assert!(close(gets.capacity.read_units, 1.5), "{gets:?}");
    assert_eq!(gets.capacity.requests, 2);

    // A query of 11 items of 3 KB (33 KB): 9 units strong, 4.5 eventual, on `Page::consumed`.
    for i in 2..=11 {
        table.put(&doc("ann", &format!("d{i:02}"), 3)).await.unwrap();
    }
    table.put(&doc("ann", "d1", 3)).await.unwrap();
    table.reset_capacity();
    let page = table.query(Doc::query_by_topic("t")).await.unwrap();
    assert_eq!(page.items.len(), 11);
    assert!(close(page.consumed.read_units, 4.5), "{:?}", page.consumed);
    assert_eq!(page.consumed.requests, 1);
    // The index query's row is the index's: no row (of no units, no request) for the table.
    let rows: Vec<_> =
        table.capacity().rows().iter().map(|r| (r.operation, r.index.clone(), r.capacity.requests)).collect();
    assert_eq!(rows, vec![("Query", Some("GSI1".to_owned()), 1)], "{:?}", table.capacity().rows());
    let strong = table.query(Doc::query_by_owner("ann").consistent_read()).await.unwrap();
    assert_eq!(strong.items.len(), 11);
    assert!(close(strong.consumed.read_units, 9.0), "{:?}", strong.consumed);
    let report = table.capacity();
    let on_index = report.rows().iter().find(|r| r.operation == "Query" && r.index.as_deref() == Some("GSI1"));
    assert!(close(on_index.unwrap().capacity.read_units, 4.5), "{:?}", report.rows());
    assert!(close(report.total().read_units, 13.5));
    assert_eq!(report.total().requests, 2);

    // A batch of 5 items of 1.5 KB: 2 WCU each.
    table.reset_capacity();
    let notes: Vec<Note> = (0..5).map(|i| note("bob", i, 1536)).collect();
    table.batch_put(&notes).await.unwrap();
    let batch = table.capacity().entity("Note");
    assert_eq!(batch, Capacity { read_units: 0.0, write_units: 10.0, requests: 1 });

    // The busiest partitions, most first.
    table.reset_capacity();
    for i in 0..4 {
        table.put(&note("hot", i, 900)).await.unwrap();
    }
    table.put(&note("cold", 0, 900)).await.unwrap();
    let report = table.capacity();
    let hot = report.hot_partitions(2);
    assert_eq!(hot.len(), 2);
    assert_eq!(hot[0].0, "NOTE#hot");
    assert_eq!(hot[0].1, Capacity { read_units: 0.0, write_units: 4.0, requests: 4 });
    assert_eq!(hot[1].0, "NOTE#cold");
    assert_eq!(report.total(), Capacity { read_units: 0.0, write_units: 5.0, requests: 5 });

    table.reset_capacity();
    assert_eq!(table.capacity().total(), Capacity::default());
}

/// The bound the rate limit guarantees for what DynamoDB reports of the requests sent in any
/// window of `seconds`, when the estimates cover what requests consume (the guide's "Capacity
/// and cost"): the burst (one second of the rate), the rate over the window, and what the largest
/// request exceeds the burst by.
fn bound(rate: f64, seconds: f64, largest: f64) -> f64 {
    rate + rate * seconds + (largest - rate).max(0.0) + 1e-9
}

#[tokio::test]
async fn fifty_concurrent_puts_keep_to_the_rate_in_every_second() {
    let table = common::table("cap-puts", &[Doc::SCHEMA]).await;
    let sent = common::Sent::default();
    // Each put: 1 WCU on the table and 1 on GSI1 (the item is a little under 1 KB).
    let limited = sent.on(&table).with_rate_limit(RateLimit::per_second(1000.0, 10.0));
    let docs: Vec<Doc> = (0..50).map(|i| doc("c", &format!("d{i:02}"), 1)).collect();
    let puts = docs.iter().map(|d| limited.put(d).into_future());
    for result in futures_util::future::join_all(puts).await {
        result.unwrap();
    }
    assert!(close(sent.total(), 100.0), "{}", sent.total());
    assert_eq!(sent.largest(), 2.0);
    // Before, all 50 went out at once: 100 WCU in the first second.
    let worst = sent.max_window(1.0);
    eprintln!("50 puts: {} WCU, at most {worst} in one second", sent.total());
    assert!(worst <= bound(10.0, 1.0, 2.0), "{worst} WCU in one second under 10 WCU/s");
    assert!(sent.max_window(3.0) <= bound(10.0, 3.0, 2.0), "{} WCU in three seconds", sent.max_window(3.0));
}

#[tokio::test]
async fn a_batch_put_keeps_to_the_rate_in_every_second() {
    let table = common::table("cap-batch", &[Note::SCHEMA]).await;
    let sent = common::Sent::default();
    let limited = sent.on(&table).with_rate_limit(RateLimit::per_second(40.0, 20.0));
    // 60 items of under 1 KB: 60 WCU, in requests of 25, 25 and 10 items.
    let notes: Vec<Note> = (0..60).map(|i| note("r", i, 900)).collect();
    limited.batch_put(&notes).await.unwrap();
    assert!(close(sent.total(), 60.0), "{}", sent.total());
    // Before, the three requests went out at once: 60 WCU in the first second.
    let worst = sent.max_window(1.0);
    eprintln!("batch_put: {} WCU, at most {worst} in one second", sent.total());
    assert!(worst <= bound(20.0, 1.0, sent.largest()), "{worst} WCU in one second under 20 WCU/s");
    assert!(close(limited.capacity().total().write_units, 60.0));
}

#[tokio::test]
async fn a_parallel_scan_keeps_to_the_rate_in_every_second() {
    let table = common::table("cap-scan", &[Note::SCHEMA]).await;
    let notes: Vec<Note> = (0..101).map(|i| note("r", i, 900)).collect();
    table.batch_put(&notes).await.unwrap();
    // A scan of 4 segments reads the 101 items (about 90 KB: over 10 RCU, eventual).
    let sent = common::Sent::default();
    let reader = sent.on(&table).with_rate_limit(RateLimit::per_second(4.0, 25.0));
    let all = reader.scan::<Note>().segments(4).all().await.unwrap();
    assert_eq!(all.len(), 101);
    let read = reader.capacity().total().read_units;
    assert!(read >= 10.0, "{read}");
    assert!(close(sent.total(), read));
    // DynamoDB Local may put every item in one segment: one request of all the units, above
    // the burst, after which the next request waits until its excess is paid.
    let worst = sent.max_window(1.0);
    eprintln!("parallel scan: {} RCU, at most {worst} in one second", sent.total());
    assert!(worst <= bound(4.0, 1.0, sent.largest()), "{worst} RCU in one second under 4 RCU/s");
    // The table it was made from is not limited, and shares nothing with it.
    assert_eq!(table.rate_limit(), None);
    assert_eq!(reader.rate_limit(), Some(RateLimit::per_second(4.0, 25.0)));
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LOG#<stream>#<shard>"]
#[sk = "LOG#<seq:10>"]
#[entity(shards = 8, shard_by = "seq")]
pub struct Log {
    pub stream: String,
    pub seq: u64,
    pub body: String,
}

#[tokio::test]
async fn a_merged_query_of_shards_keeps_to_the_read_rate_in_every_second() {
    let table = common::table("cap-shards", &[Log::SCHEMA]).await;
    // 40 items of about 2 KB over 8 shards: each shard's page, strongly consistent, costs 1 to 3 RCU.
    for seq in 0..40 {
        table.put(&Log { stream: "s".into(), seq, body: "x".repeat(2000) }).await.unwrap();
    }
    let sent = common::Sent::default();
    let reader = sent.on(&table).with_rate_limit(RateLimit::per_second(4.0, 25.0));
    let all = reader.query_all(Log::query_by_stream("s").consistent_read()).await.unwrap();
    assert_eq!(all.len(), 40);
    assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
    let read = reader.capacity().total().read_units;
    assert!(close(sent.total(), read), "{} {read}", sent.total());
    assert!(read >= 16.0, "{read}");
    // Before, the 8 shards were read at once: all of it in the first second.
    let worst = sent.max_window(1.0);
    eprintln!("merged query: {} RCU, at most {worst} in one second", sent.total());
    assert!(worst <= bound(4.0, 1.0, sent.largest()), "{worst} RCU in one second under 4 RCU/s");
}

/// Answers the first `throttle` PutItem attempts with DynamoDB's throttling error.
#[derive(Debug)]
struct Throttler {
    throttle: u32,
    seen: Arc<AtomicU32>,
}

impl Intercept for Throttler {
    fn name(&self) -> &'static str {
        "Throttler"
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if self.seen.fetch_add(1, Ordering::Relaxed) < self.throttle {
            let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Throughput exceeds the current capacity for one or more global secondary indexes"}"#;
            common::answer(ctx, 400, body.to_owned())?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_throttling_answer_lowers_the_rate_and_the_write_is_retried() {
    let table = common::table("cap-throttle", &[Note::SCHEMA]).await;
    let seen = Arc::new(AtomicU32::new(0));
    let config = table.client().config().to_builder().interceptor(Throttler { throttle: 2, seen: seen.clone() });
    let throttled = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
        .with_rate_limit(RateLimit::per_second(100.0, 80.0));
    throttled.put(&note("t", 1, 500)).await.unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 3, "two throttled attempts, then the write");
    assert!(table.get(Note::key("t", "0001")).await.unwrap().is_some());
    // Halved twice for writes (80 to 20), then recovering by 8 units per second of the SDK's
    // backoff; reads untouched.
    let now = throttled.rate_limit().unwrap();
    assert!(now.write_per_second() < 40.0, "{now:?}");
    assert!(now.read_per_second() > 99.0, "{now:?}");
}

/// Answers the first `throttle` attempts of `operation` as DynamoDB answers a throttled request
/// since August 2025: `ProvisionedThroughputExceededException` with `ThrottlingReasons`
/// (`reason`, `resource`: the shape of the SDK's `ThrottlingReason`). The request never reaches
/// DynamoDB Local (a harmless ListTables does), so nothing is applied.
#[derive(Debug)]
struct ReasonedThrottler {
    operation: &'static str,
    reasons: Vec<(&'static str, String)>,
    throttle: u32,
    seen: Arc<AtomicU32>,
}

const REASONED: &str = "reasoned-throttle";

impl ReasonedThrottler {
    /// A handle of `table` whose first `throttle` attempts of `operation` are throttled for
    /// `reasons`, and the count of those attempts.
    fn on(
        table: &Table,
        operation: &'static str,
        reasons: Vec<(&'static str, String)>,
        throttle: u32,
    ) -> (Table, Arc<AtomicU32>) {
        let seen = Arc::new(AtomicU32::new(0));
        let injected = ReasonedThrottler { operation, reasons, throttle, seen: seen.clone() };
        let config = table.client().config().to_builder().interceptor(injected);
        (Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name()), seen)
    }
}

impl Intercept for ReasonedThrottler {
    fn name(&self) -> &'static str {
        "ReasonedThrottler"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let target = format!("DynamoDB_20120810.{}", self.operation);
        if request.headers().get("x-amz-target") != Some(target.as_str()) {
            return Ok(());
        }
        // The interceptor state lasts the whole operation: each attempt says its own fate.
        let fate = if self.seen.fetch_add(1, Ordering::Relaxed) < self.throttle {
            common::divert(request);
            REASONED
        } else {
            "sent"
        };
        cfg.interceptor_state().store_put(aws_sdk_dynamodb::config::AppName::new(fate)?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<aws_sdk_dynamodb::config::AppName>().is_some_and(|n| n.as_ref() == REASONED) {
            let reasons: Vec<serde_json::Value> = self
                .reasons
                .iter()
                .map(|(reason, resource)| serde_json::json!({"reason": reason, "resource": resource}))
                .collect();
            let body = serde_json::json!({
                "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "message": "The level of configured provisioned throughput for the index was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
                "ThrottlingReasons": reasons,
            });
            common::answer(ctx, 400, body.to_string())?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_request_throttled_to_the_end_keeps_dynamodb_s_reasons_in_the_error_and_the_capacity_row() {
    let table = common::table("cap-reasons", &[Doc::SCHEMA]).await;
    let arn = format!("arn:aws:dynamodb:ddblocal:000000000000:table/{}", table.name());
    let reasons = vec![
        ("IndexReadProvisionedThroughputExceeded", format!("{arn}/index/GSI1")),
        ("TableReadKeyRangeThroughputExceeded", arn.clone()),
    ];
    let (throttled, seen) = ReasonedThrottler::on(&table, "Query", reasons, u32::MAX);
    let error = throttled.query(Doc::query_by_topic("t")).await.unwrap_err();
    let attempts = seen.load(Ordering::Relaxed);
    assert!(attempts >= 2, "the SDK's retries first: {attempts}");
    let Error::Throttled { code, reasons, .. } = &error else { panic!("{error:?}") };
    assert_eq!(code, "ProvisionedThroughputExceededException");
    let index = ThrottleReason {
        reason: "IndexReadProvisionedThroughputExceeded".into(),
        resource: format!("{arn}/index/GSI1"),
    };
    let key_range = ThrottleReason { reason: "TableReadKeyRangeThroughputExceeded".into(), resource: arn.clone() };
    assert_eq!(reasons, &[index.clone(), key_range.clone()]);
    assert_eq!(
        (index.index(), index.table(), index.reads(), index.limit()),
        (Some("GSI1"), Some(table.name()), Some(true), "ProvisionedThroughputExceeded")
    );
    assert_eq!(
        (key_range.index(), key_range.table(), key_range.limit()),
        (None, Some(table.name()), "KeyRangeThroughputExceeded")
    );
    let text = error.to_string();
    assert!(text.contains("IndexReadProvisionedThroughputExceeded on index GSI1"), "{text}");
    assert!(text.contains(&format!("TableReadKeyRangeThroughputExceeded on table {}", table.name())), "{text}");
    // The query's row: one request that ended throttled, and each reason once.
    let report = throttled.capacity();
    let row = report.rows().iter().find(|r| r.operation == "Query" && r.index.as_deref() == Some("GSI1")).unwrap();
    assert_eq!(row.throttled, 1, "{row:?}");
    assert_eq!(row.throttle_reasons, [(index.clone(), 1), (key_range.clone(), 1)]);
    // Again: counted twice.
    let _ = throttled.query(Doc::query_by_topic("t")).await.unwrap_err();
    let report = throttled.capacity();
    let row = report.rows().iter().find(|r| r.operation == "Query" && r.index.as_deref() == Some("GSI1")).unwrap();
    assert_eq!((row.throttled, row.throttle_reasons[0].1), (2, 2), "{row:?}");
    // A request that went through: no throttle on its row.
    throttled.put(&note("n", 1, 200)).await.unwrap();
    let report = throttled.capacity();
    assert!(report.rows().iter().filter(|r| r.operation == "PutItem").all(|r| r.throttled == 0));
}

#[tokio::test]
async fn the_rate_limiter_halves_the_rate_the_throttling_reasons_name() {
    let table = common::table("cap-reason-kind", &[Note::SCHEMA]).await;
    let arn = format!("arn:aws:dynamodb:ddblocal:000000000000:table/{}", table.name());
    // A write DynamoDB throttles for the table's reads: the read rate is halved, not the write rate.
    let (handle, seen) =
        ReasonedThrottler::on(&table, "PutItem", vec![("TableReadProvisionedThroughputExceeded", arn.clone())], 2);
    let limited = handle.with_rate_limit(RateLimit::per_second(100.0, 80.0));
    limited.put(&note("r", 1, 200)).await.unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 3, "two throttled attempts, then the write");
    let now = limited.rate_limit().unwrap();
    assert!(now.read_per_second() < 50.0, "{now:?}");
    assert!(now.write_per_second() > 79.0, "{now:?}");
    // Reasons that name writes: the write rate.
    let (handle, _) =
        ReasonedThrottler::on(&table, "PutItem", vec![("TableWriteProvisionedThroughputExceeded", arn)], 2);
    let limited = handle.with_rate_limit(RateLimit::per_second(100.0, 80.0));
    limited.put(&note("r", 2, 200)).await.unwrap();
    let now = limited.rate_limit().unwrap();
    assert!(now.write_per_second() < 40.0 && now.read_per_second() > 99.0, "{now:?}");
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MEMBER#<id>"]
#[sk = "MEMBER"]
pub struct Member {
    pub id: String,
    #[unique]
    pub email: String,
}

/// A limited handle of `table` whose first `throttle` transactions are cancelled for throttling.
fn throttling_transactions(table: &Table, throttle: u32) -> (Table, Arc<AtomicU32>) {
    let (handle, seen) = common::TransactionThrottler::on(table, throttle);
    (handle.with_rate_limit(RateLimit::per_second(100.0, 80.0)), seen)
}

#[tokio::test]
async fn a_transaction_cancelled_for_throttling_is_retried_and_halves_the_rate() {
    let table = common::table("cap-tx-throttle", &[Member::SCHEMA, Note::SCHEMA]).await;
    // A guarded write (a put of a unique value: the item and its guard in one transaction).
    let (throttled, seen) = throttling_transactions(&table, 2);
    throttled.put(&Member { id: "m1".into(), email: "a@example.com".into() }).await.unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 3, "two throttled attempts, then the write");
    assert!(table.get(Member::key("m1")).await.unwrap().is_some());
    // Halved twice for writes (80 to 20), then recovering by 8 units per second; reads untouched.
    let now = throttled.rate_limit().unwrap();
    assert!(now.write_per_second() < 40.0, "{now:?}");
    assert!(now.read_per_second() > 99.0, "{now:?}");
    // The guard holds: another member cannot take the value.
    let taken = table.put(&Member { id: "m2".into(), email: "a@example.com".into() }).await;
    assert!(matches!(taken, Err(dynamo_entity::Error::UniqueViolation { .. })), "{taken:?}");

    // A plain transaction, once.
    let (throttled, seen) = throttling_transactions(&table, 1);
    throttled.transact().put(&note("tx", 1, 200)).put(&note("tx", 2, 200)).send().await.unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 2);
    assert!(table.get(Note::key("tx", "0002")).await.unwrap().is_some());
    assert!(throttled.rate_limit().unwrap().write_per_second() < 80.0);
}

#[tokio::test]
async fn a_transaction_throttled_on_every_attempt_fails_typed_after_four() {
    let table = common::table("cap-tx-persistent", &[Member::SCHEMA, Note::SCHEMA]).await;
    let (throttled, seen) = throttling_transactions(&table, u32::MAX);
    let error = throttled.transact().put(&note("tx", 1, 200)).put(&note("tx", 2, 200)).send().await.unwrap_err();
    match &error {
        dynamo_entity::Error::TransactionCanceled { reasons } => {
            assert_eq!(reasons[0].code, dynamo_entity::CancelCode::ThrottlingError, "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(seen.load(Ordering::Relaxed), 4, "four attempts in all");
    assert!(table.get(Note::key("tx", "0001")).await.unwrap().is_none());
    // A guarded write: the same bound, the same typed error.
    seen.store(0, Ordering::Relaxed);
    let error = throttled.put(&Member { id: "m1".into(), email: "b@example.com".into() }).await.unwrap_err();
    assert!(matches!(&error, dynamo_entity::Error::TransactionCanceled { .. }), "{error:?}");
    assert_eq!(seen.load(Ordering::Relaxed), 4);
    assert!(table.get(Member::key("m1")).await.unwrap().is_none());
    // Halved on each attempt, down to a tenth of the rate set.
    assert!(throttled.rate_limit().unwrap().write_per_second() < 20.0);
}

#[tokio::test]
async fn the_exported_cost_estimates_match_what_dynamodb_local_reports() {
    let sample = doc("est", "d00", 3);
    let sizes = dynamo_entity::ItemSizes::new().sample(&sample).unwrap().query_items(11);
    let definition = dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA]).unwrap();
    let markdown = definition.to_markdown_with_costs("docs", &sizes);
    let row = |call: &str, index: &str| -> Vec<String> {
        let line = markdown
            .lines()
            .find(|l| l.starts_with("| Doc |") && l.contains(&format!("| {call} | {index} |")))
            .unwrap_or_else(|| panic!("no row for {call} on {index}:\n{markdown}"));
        line.split('|').map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()).collect()
    };
    assert_eq!(row("put", "(table)")[4..], ["—", "—", "6"]);
    assert_eq!(row("get", "(table)")[4..], ["0.5", "1", "—"]);
    assert_eq!(row("query of 11", "(table)")[4..], ["4.5", "9", "—"]);
    assert_eq!(row("query of 11", "GSI1")[4..], ["4.5", "—", "—"]);

    // Measured: the same calls on DynamoDB Local.
    let table = common::table("cap-estimates", &[Doc::SCHEMA]).await;
    table.put(&sample).await.unwrap();
    assert_eq!(table.capacity().total().write_units, 6.0);
    for i in 1..11 {
        table.put(&doc("est", &format!("d{i:02}"), 3)).await.unwrap();
    }
    table.reset_capacity();
    table.get(Doc::key("est", "d00")).await.unwrap().unwrap();
    assert_eq!(table.capacity().total().read_units, 0.5);
    assert_eq!(table.query(Doc::query_by_owner("est")).await.unwrap().consumed.read_units, 4.5);
    assert_eq!(table.query(Doc::query_by_owner("est").consistent_read()).await.unwrap().consumed.read_units, 9.0);
    assert_eq!(table.query(Doc::query_by_topic("t")).await.unwrap().consumed.read_units, 4.5);
}
