//! Shared by the integration tests: one DynamoDB Local per test binary, one table per test.
#![allow(dead_code)]

pub mod aws;
pub mod capacity;
pub mod sources;
pub mod spans;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use dynamo_entity::{EntitySchema, Table};

/// A fresh table for `entities` on the shared DynamoDB Local (or `AWS_ENDPOINT_URL_DYNAMODB`),
/// named after `test`, this process and a counter: no two tests (nor two runs of one binary
/// against one endpoint) share a table.
///
/// Installs the binary's span capture first ([`spans::install`]), so that it exists before
/// any request of any test.
pub async fn table(test: &str, entities: &[EntitySchema]) -> Table {
    static N: AtomicU32 = AtomicU32::new(0);
    spans::install();
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("{test}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let table = Table::new(client, name);
    table.create_table(entities).await.expect("create table");
    table
}

/// Replaces the answer an SDK interceptor is about to deserialize (`ctx.response_mut()`) with
/// `status` and `body`, as DynamoDB would have sent them: how the tests inject what DynamoDB
/// Local never answers (throttling, cancellations, unprocessed items, unknown types). The same
/// context type serves the DynamoDB and the DynamoDB Streams clients.
pub fn answer(
    ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
    status: u16,
    body: String,
) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
    let response = ctx.response_mut();
    *response.status_mut() = status.try_into()?;
    response.headers_mut().remove("x-amz-crc32");
    response.headers_mut().insert("content-length", body.len().to_string());
    *response.body_mut() = body.into();
    Ok(())
}

/// Turns the request about to be signed into a harmless `ListTables`, so that nothing of it
/// reaches DynamoDB Local: the first half of injecting an answer for a request that was never
/// applied (throttling, a cancellation); [`answer`] gives the second.
pub fn divert(request: &mut aws_sdk_dynamodb::config::http::HttpRequest) {
    request.headers_mut().insert("x-amz-target", "DynamoDB_20120810.ListTables");
    request.headers_mut().insert("content-length", "2");
    *request.body_mut() = "{}".into();
}

/// Every item of the table, as stored (a raw scan, every page).
pub async fn raw_items(table: &Table) -> Vec<dynamo_entity::Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = table.client().scan().table_name(table.name()).set_exclusive_start_key(start).send().await.unwrap();
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

/// Counts the operations the SDK executes (once per operation, whatever its retries): the
/// requests a test's table really sent, independently of the table's own count.
#[derive(Debug, Clone, Default)]
pub struct Executed(pub Arc<AtomicU64>);

impl Executed {
    /// The operations executed so far.
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl Intercept for Executed {
    fn name(&self) -> &'static str {
        "Executed"
    }

    fn read_before_serialization(
        &self,
        _: &BeforeSerializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// Records, for every operation the SDK executes, when it started (`read_before_execution`:
/// the send path reserves a request's units from the rate limit right before, with nothing
/// awaited in between) and the capacity units DynamoDB reported in its answer: the tests of
/// the rate limit check the units of every window against it, measured outside the limiter.
#[derive(Debug, Clone, Default)]
pub struct Sent(Arc<std::sync::Mutex<SentLog>>);

#[derive(Debug, Default)]
pub struct SentLog {
    next: u64,
    started: std::collections::HashMap<u64, std::time::Instant>,
    /// (start, reported units, whether write units) of every answered operation.
    pub answered: Vec<(std::time::Instant, f64, bool)>,
}

const SENT_TOKEN: &str = "sent-";

impl Sent {
    /// (start, units) of every answered operation, in start order.
    pub fn answered(&self) -> Vec<(std::time::Instant, f64)> {
        let mut all: Vec<_> = self.0.lock().unwrap().answered.iter().map(|(t, u, _)| (*t, *u)).collect();
        all.sort_by_key(|(t, _)| *t);
        all
    }

    /// The most write units of operations started within any window of `seconds` seconds.
    pub fn max_write_window(&self, seconds: f64) -> f64 {
        let all: Vec<_> = self.0.lock().unwrap().answered.iter().filter(|a| a.2).map(|(t, u, _)| (*t, *u)).collect();
        max_window(all, seconds)
    }

    /// The most units of operations started within any window of `seconds` seconds.
    pub fn max_window(&self, seconds: f64) -> f64 {
        max_window(self.answered(), seconds)
    }

    /// The most units one operation reported.
    pub fn largest(&self) -> f64 {
        self.answered().iter().map(|(_, u)| *u).fold(0.0, f64::max)
    }

    /// All units reported.
    pub fn total(&self) -> f64 {
        self.answered().iter().map(|(_, u)| *u).sum()
    }

    /// `table`'s client with this recorder, as a new (unlimited) table handle.
    pub fn on(&self, table: &Table) -> Table {
        let config = table.client().config().to_builder().interceptor(self.clone());
        Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
    }
}

/// The most units of `all` (start, units) started within any window of `seconds` seconds.
fn max_window(mut all: Vec<(std::time::Instant, f64)>, seconds: f64) -> f64 {
    all.sort_by_key(|(t, _)| *t);
    let window = std::time::Duration::from_secs_f64(seconds);
    (0..all.len())
        .map(|i| all[i..].iter().take_while(|(t, _)| *t < all[i].0 + window).map(|(_, u)| u).sum::<f64>())
        .fold(0.0, f64::max)
}

/// The capacity units an answer reports, summed over its entries, and whether they are write units.
fn reported_units(
    output: &aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef<'_>,
) -> Option<(f64, bool)> {
    use aws_sdk_dynamodb::operation as op;
    use aws_sdk_dynamodb::types::ConsumedCapacity;
    let Some(Ok(out)) = output.output_or_error() else { return None };
    let sum = |c: &[ConsumedCapacity]| c.iter().filter_map(|c| c.capacity_units()).sum::<f64>();
    macro_rules! one {
        ($write:literal: $($t:ty),*) => {$(
            if let Some(o) = out.downcast_ref::<$t>() {
                return Some((sum(o.consumed_capacity().map(std::slice::from_ref).unwrap_or_default()), $write));
            }
        )*};
    }
    macro_rules! many {
        ($write:literal: $($t:ty),*) => {$(
            if let Some(o) = out.downcast_ref::<$t>() {
                return Some((sum(o.consumed_capacity()), $write));
            }
        )*};
    }
    one!(true: op::put_item::PutItemOutput, op::delete_item::DeleteItemOutput, op::update_item::UpdateItemOutput);
    one!(false: op::get_item::GetItemOutput, op::query::QueryOutput, op::scan::ScanOutput);
    many!(true: op::batch_write_item::BatchWriteItemOutput, op::transact_write_items::TransactWriteItemsOutput);
    many!(false: op::batch_get_item::BatchGetItemOutput, op::transact_get_items::TransactGetItemsOutput);
    None
}

impl Intercept for Sent {
    fn name(&self) -> &'static str {
        "Sent"
    }

    fn read_before_execution(
        &self,
        _: &BeforeSerializationInterceptorContextRef<'_>,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut log = self.0.lock().unwrap();
        let id = log.next;
        log.next += 1;
        log.started.insert(id, std::time::Instant::now());
        let name = aws_sdk_dynamodb::config::AppName::new(format!("{SENT_TOKEN}{id}")).map_err(|e| e.to_string())?;
        cfg.interceptor_state().store_put(name);
        Ok(())
    }

    fn read_after_execution(
        &self,
        ctx: &aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let id = cfg
            .load::<aws_sdk_dynamodb::config::AppName>()
            .and_then(|n| n.as_ref().strip_prefix(SENT_TOKEN)?.parse::<u64>().ok());
        let mut log = self.0.lock().unwrap();
        let started = id.and_then(|id| log.started.remove(&id));
        if let (Some(started), Some((units, write))) = (started, reported_units(ctx)) {
            log.answered.push((started, units, write));
        }
        Ok(())
    }
}

/// Answers the first `throttle` TransactWriteItems attempts as DynamoDB answers a throttled
/// transaction: `TransactionCanceledException` with `ThrottlingError` reasons. The request never
/// reaches DynamoDB Local (it answers a harmless ListTables instead), so nothing is applied.
#[derive(Debug)]
pub struct TransactionThrottler {
    throttle: u32,
    seen: Arc<AtomicU32>,
}

const THROTTLED: &str = "throttled-transaction";

impl TransactionThrottler {
    /// A handle of `table` whose first `throttle` transactions are cancelled for throttling, and
    /// the count of the transaction attempts it sent.
    pub fn on(table: &Table, throttle: u32) -> (Table, Arc<AtomicU32>) {
        let seen = Arc::new(AtomicU32::new(0));
        let injected = TransactionThrottler { throttle, seen: seen.clone() };
        let config = table.client().config().to_builder().interceptor(injected);
        (Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name()), seen)
    }
}

impl Intercept for TransactionThrottler {
    fn name(&self) -> &'static str {
        "TransactionThrottler"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.TransactWriteItems") {
            return Ok(());
        }
        if self.seen.fetch_add(1, Ordering::Relaxed) < self.throttle {
            divert(request);
            cfg.interceptor_state().store_put(aws_sdk_dynamodb::config::AppName::new(THROTTLED)?);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<aws_sdk_dynamodb::config::AppName>().is_some_and(|n| n.as_ref() == THROTTLED) {
            let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError, None]","CancellationReasons":[{"Code":"ThrottlingError","Message":"Throughput exceeds the current capacity of your table or index."},{"Code":"None"}]}"#;
            answer(ctx, 400, body.to_owned())?;
        }
        Ok(())
    }
}
