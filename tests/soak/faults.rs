//! Faults injected by an SDK interceptor, by seed: what DynamoDB Local never does on its own.
//!
//! - `throttle`: the request never reaches DynamoDB (it is turned into a harmless `ListTables`)
//!   and is answered `ProvisionedThroughputExceededException`; the SDK and the library retry.
//! - `drop_after_apply`: a write reaches DynamoDB and is applied, then its answer is replaced by
//!   a 500: the client sees an error (the SDK may send it again) for a write that happened.
//! - `tx_conflict` / `tx_throttled`: a `TransactWriteItems` never reaches DynamoDB and is
//!   answered `TransactionCanceledException` with `TransactionConflict` (or `ThrottlingError`)
//!   for its first action and `None` for the others, as DynamoDB does.
//! - `unprocessed`: a `BatchWriteItem` of several items is sent without some of them, and
//!   those are added to the answer's `UnprocessedItems`: really not written, reported as such.
//!
//! Each injection is counted globally and, through a task-local, against the operation the
//! client is running: an operation that met a fault is never classified "failed" (definitely
//! not applied), only acknowledged or indeterminate.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeSerializationInterceptorContextMut,
    BeforeTransmitInterceptorContextMut, FinalizerInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemInput, BatchWriteItemOutput};
use aws_sdk_dynamodb::types::{ConsumedCapacity, WriteRequest};

use super::rng::{Rng, mix};

/// The probability of each fault, per request attempt.
#[derive(Debug, Clone, Copy)]
pub struct FaultRates {
    pub throttle: f64,
    pub drop_after_apply: f64,
    pub tx_conflict: f64,
    pub tx_throttled: f64,
    pub unprocessed: f64,
}

impl FaultRates {
    /// No faults.
    pub const NONE: FaultRates =
        FaultRates { throttle: 0.0, drop_after_apply: 0.0, tx_conflict: 0.0, tx_throttled: 0.0, unprocessed: 0.0 };
    /// The soak's default mix.
    pub const DEFAULT: FaultRates =
        FaultRates { throttle: 0.03, drop_after_apply: 0.03, tx_conflict: 0.06, tx_throttled: 0.03, unprocessed: 0.25 };
}

/// How many faults of each kind were injected.
#[derive(Debug, Default)]
pub struct FaultCounts {
    pub throttled: AtomicU64,
    pub dropped: AtomicU64,
    pub tx_conflicts: AtomicU64,
    pub tx_throttled: AtomicU64,
    pub unprocessed_items: AtomicU64,
}

impl FaultCounts {
    pub fn total(&self) -> u64 {
        self.throttled.load(Ordering::Relaxed)
            + self.dropped.load(Ordering::Relaxed)
            + self.tx_conflicts.load(Ordering::Relaxed)
            + self.tx_throttled.load(Ordering::Relaxed)
            + self.unprocessed_items.load(Ordering::Relaxed)
    }

    pub fn summary(&self) -> String {
        format!(
            "{} throttled, {} answers dropped after apply, {} transaction conflicts, {} throttled transactions, {} unprocessed batch items",
            self.throttled.load(Ordering::Relaxed),
            self.dropped.load(Ordering::Relaxed),
            self.tx_conflicts.load(Ordering::Relaxed),
            self.tx_throttled.load(Ordering::Relaxed),
            self.unprocessed_items.load(Ordering::Relaxed),
        )
    }
}

/// The faults met by the operation a client is running.
#[derive(Debug, Default)]
pub struct OpFaults {
    pub injected: AtomicU64,
    pub dropped: AtomicU64,
    /// Requests the SDK sent again (after an injected fault, or a real timeout or lost
    /// connection): an earlier attempt may have been applied.
    pub resent: AtomicU64,
}

tokio::task_local! {
    /// The running operation's fault record (absent outside the clients' operations).
    pub static OP: Arc<OpFaults>;
}

fn resent() {
    let _ = OP.try_with(|op| op.resent.fetch_add(1, Ordering::Relaxed));
}

fn note(dropped: bool) {
    let _ = OP.try_with(|op| {
        op.injected.fetch_add(1, Ordering::Relaxed);
        if dropped {
            op.dropped.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// What happens to one attempt (kept in the attempt's config bag as an `AppName`, the one
/// storable free-text type the SDK re-exports: `soak-<kind>-<n>-<token>`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Set before the first attempt.
    Fresh,
    Pass,
    Throttle,
    Drop,
    Conflict(usize),
    TxThrottled(usize),
}

fn marker(kind: Kind, token: u64) -> String {
    match kind {
        Kind::Fresh => format!("soak-fresh-0-{token}"),
        Kind::Pass => format!("soak-pass-0-{token}"),
        Kind::Throttle => format!("soak-throttle-0-{token}"),
        Kind::Drop => format!("soak-drop-0-{token}"),
        Kind::Conflict(n) => format!("soak-conflict-{n}-{token}"),
        Kind::TxThrottled(n) => format!("soak-txthrottled-{n}-{token}"),
    }
}

fn parse(cfg: &ConfigBag) -> (Kind, u64) {
    let Some(name) = cfg.load::<AppName>() else { return (Kind::Pass, 0) };
    let mut parts = name.as_ref().split('-').skip(1);
    let (kind, n, token) = (parts.next(), parts.next(), parts.next());
    let n: usize = n.and_then(|n| n.parse().ok()).unwrap_or(0);
    let token = token.and_then(|t| t.parse().ok()).unwrap_or(0);
    let kind = match kind {
        Some("fresh") => Kind::Fresh,
        Some("throttle") => Kind::Throttle,
        Some("drop") => Kind::Drop,
        Some("conflict") => Kind::Conflict(n),
        Some("txthrottled") => Kind::TxThrottled(n),
        _ => Kind::Pass,
    };
    (kind, token)
}

/// The interceptor.
#[derive(Debug)]
pub struct Faults {
    seed: u64,
    rates: FaultRates,
    table: String,
    n: AtomicU64,
    pub counts: Arc<FaultCounts>,
    /// Batch items withheld from a request, by token, until its answer.
    withheld: Mutex<HashMap<u64, Vec<WriteRequest>>>,
}

impl Faults {
    pub fn new(seed: u64, rates: FaultRates, table: &str, counts: Arc<FaultCounts>) -> Self {
        Faults { seed, rates, table: table.to_owned(), n: AtomicU64::new(1), counts, withheld: Mutex::default() }
    }

    /// The generator of the next decision. Decisions are drawn in the order requests are made,
    /// which depends on the interleaving of the clients: a seed fixes the fault mix, not which
    /// request meets which fault.
    fn rng(&self) -> Rng {
        Rng::new(mix(self.seed ^ mix(self.n.fetch_add(1, Ordering::Relaxed))))
    }
}

const WRITES: &[&str] = &["PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"];

fn transact_items(body: Option<&[u8]>) -> usize {
    body.and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .and_then(|v| v.get("TransactItems").and_then(|t| t.as_array()).map(Vec::len))
        .unwrap_or(1)
        .max(1)
}

/// Replaces the answer about to be deserialized with `status` and `body`.
pub fn answer(
    ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
    status: u16,
    body: String,
) -> Result<(), BoxError> {
    let response = ctx.response_mut();
    *response.status_mut() = status.try_into()?;
    response.headers_mut().remove("x-amz-crc32");
    response.headers_mut().insert("content-length", body.len().to_string());
    *response.body_mut() = body.into();
    Ok(())
}

fn cancelled(n: usize, first: &str) -> String {
    let mut reasons = vec![format!(r#"{{"Code":"{first}"}}"#)];
    reasons.extend((1..n).map(|_| r#"{"Code":"None"}"#.to_owned()));
    format!(
        r#"{{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"injected","CancellationReasons":[{}]}}"#,
        reasons.join(",")
    )
}

impl Intercept for Faults {
    fn name(&self) -> &'static str {
        "SoakFaults"
    }

    fn modify_before_serialization(
        &self,
        ctx: &mut BeforeSerializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(input) = ctx.input_mut().downcast_mut::<BatchWriteItemInput>() else { return Ok(()) };
        let Some(requests) = input.request_items.as_mut().and_then(|m| m.get_mut(&self.table)) else {
            return Ok(());
        };
        let mut rng = self.rng();
        if requests.len() < 2 || !rng.chance(self.rates.unprocessed) {
            return Ok(());
        }
        // Withhold 1..len-1 items (never all: the request stays valid).
        let lost = 1 + rng.below(requests.len() as u64 - 1) as usize;
        let at = rng.below((requests.len() - lost + 1) as u64) as usize;
        let withheld: Vec<WriteRequest> = requests.drain(at..at + lost).collect();
        self.counts.unprocessed_items.fetch_add(withheld.len() as u64, Ordering::Relaxed);
        note(false);
        let token = self.n.fetch_add(1, Ordering::Relaxed);
        self.withheld.lock().unwrap().insert(token, withheld);
        cfg.interceptor_state().store_put(AppName::new(marker(Kind::Fresh, token))?);
        Ok(())
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        // A marker left by an earlier attempt of this operation: the SDK is sending it again.
        if cfg
            .load::<AppName>()
            .is_some_and(|a| a.as_ref().starts_with("soak-") && !a.as_ref().starts_with("soak-fresh"))
        {
            resent();
        }
        let (_, token) = parse(cfg);
        let request = ctx.request_mut();
        let target = request.headers().get("x-amz-target").unwrap_or("").rsplit('.').next().unwrap_or("").to_owned();
        let mut rng = self.rng();
        let tx = target == "TransactWriteItems";
        let kind = if rng.chance(self.rates.throttle) {
            Kind::Throttle
        } else if tx && rng.chance(self.rates.tx_conflict) {
            Kind::Conflict(transact_items(request.body().bytes()))
        } else if tx && rng.chance(self.rates.tx_throttled) {
            Kind::TxThrottled(transact_items(request.body().bytes()))
        } else if WRITES.contains(&target.as_str()) && rng.chance(self.rates.drop_after_apply) {
            Kind::Drop
        } else {
            Kind::Pass
        };
        if matches!(kind, Kind::Throttle | Kind::Conflict(_) | Kind::TxThrottled(_)) {
            // Nothing reaches DynamoDB: it answers a harmless ListTables instead.
            request.headers_mut().insert("x-amz-target", "DynamoDB_20120810.ListTables");
            request.headers_mut().insert("content-length", "2");
            *request.body_mut() = "{}".into();
        }
        cfg.interceptor_state().store_put(AppName::new(marker(kind, token))?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let (kind, _) = parse(cfg);
        let (status, body) = match kind {
            Kind::Fresh | Kind::Pass => return Ok(()),
            Kind::Throttle => {
                self.counts.throttled.fetch_add(1, Ordering::Relaxed);
                note(false);
                (
                    400,
                    r#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"injected"}"#
                        .to_owned(),
                )
            }
            Kind::Drop => {
                self.counts.dropped.fetch_add(1, Ordering::Relaxed);
                note(true);
                (
                    500,
                    r#"{"__type":"com.amazon.coral.service#InternalFailure","message":"injected: answer lost"}"#
                        .to_owned(),
                )
            }
            Kind::Conflict(n) => {
                self.counts.tx_conflicts.fetch_add(1, Ordering::Relaxed);
                note(false);
                (400, cancelled(n, "TransactionConflict"))
            }
            Kind::TxThrottled(n) => {
                self.counts.tx_throttled.fetch_add(1, Ordering::Relaxed);
                note(false);
                (400, cancelled(n, "ThrottlingError"))
            }
        };
        answer(ctx, status, body)
    }

    fn modify_before_completion(
        &self,
        ctx: &mut FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let (_, token) = parse(cfg);
        if token == 0 {
            return Ok(());
        }
        let Some(lost) = self.withheld.lock().unwrap().remove(&token) else { return Ok(()) };
        // Reported unprocessed only when the request itself succeeded (otherwise the error says
        // the whole batch may not be written).
        if let Some(Ok(output)) = ctx.output_or_error_mut()
            && let Some(out) = output.downcast_mut::<BatchWriteItemOutput>()
        {
            out.unprocessed_items.get_or_insert_default().entry(self.table.clone()).or_default().extend(lost);
        }
        Ok(())
    }
}

/// Watches every request a tenant handle sends: each key text that starts with `TENANT#`
/// must be the handle's tenant's, and each request must name at least one such key, or (a
/// query of a multi-attribute index led by an integer tenant, issue 45 item 20) the tenant's
/// own number among its values.
#[derive(Debug)]
pub struct TenantWatch {
    pub tenant: String,
    /// The number whose key text is the tenant (`7` for `0000000007`), for an integer tenant.
    pub number: Option<String>,
    pub requests: Arc<AtomicU64>,
    pub violations: Arc<Mutex<Vec<String>>>,
}

fn strings<'a>(v: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match v {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

impl Intercept for TenantWatch {
    fn name(&self) -> &'static str {
        "SoakTenantWatch"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let target = request.headers().get("x-amz-target").unwrap_or("").to_owned();
        let Some(body) = request.body().bytes().and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        else {
            return Ok(());
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut all = Vec::new();
        strings(&body, &mut all);
        let own = format!("TENANT#{}#", self.tenant);
        let mut keys = 0;
        let mut violations = Vec::new();
        for s in all {
            if s.starts_with("TENANT#") {
                keys += 1;
                if !s.starts_with(&own) {
                    violations.push(format!("tenant handle {} sent {s} in {target}", self.tenant));
                }
            }
        }
        let numbers: Vec<&str> = body
            .get("ExpressionAttributeValues")
            .and_then(|v| v.as_object())
            .map(|o| o.values().filter_map(|v| v.get("N").and_then(|n| n.as_str())).collect())
            .unwrap_or_default();
        let by_number = body.get("IndexName").is_some() && numbers.iter().any(|n| Some(*n) == self.number.as_deref());
        if keys == 0 && !by_number {
            violations.push(format!("tenant handle {} sent {target} naming no tenant key: {body}", self.tenant));
        }
        self.violations.lock().unwrap().extend(violations);
        Ok(())
    }
}

/// Records the units DynamoDB reports consuming in each answer (read and write apart), with
/// the time it arrived: the rate limit's windows are checked against these.
#[derive(Debug, Default)]
pub struct Meter {
    pub started: Option<std::time::Instant>,
    /// (seconds since the start, read units, write units)
    pub answers: Mutex<Vec<(f64, f64, f64)>>,
}

fn units(c: &ConsumedCapacity) -> f64 {
    let parts: Vec<Option<f64>> = c
        .table()
        .map(|t| t.capacity_units())
        .into_iter()
        .chain(c.global_secondary_indexes().into_iter().flatten().map(|(_, i)| i.capacity_units()))
        .chain(c.local_secondary_indexes().into_iter().flatten().map(|(_, i)| i.capacity_units()))
        .collect();
    if parts.is_empty() { c.capacity_units().unwrap_or(0.0) } else { parts.into_iter().flatten().sum() }
}

impl Intercept for Meter {
    fn name(&self) -> &'static str {
        "SoakMeter"
    }

    fn read_after_deserialization(
        &self,
        ctx: &aws_sdk_dynamodb::config::interceptors::AfterDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::{
            batch_get_item::BatchGetItemOutput, delete_item::DeleteItemOutput, get_item::GetItemOutput,
            put_item::PutItemOutput, query::QueryOutput, scan::ScanOutput, transact_get_items::TransactGetItemsOutput,
            transact_write_items::TransactWriteItemsOutput, update_item::UpdateItemOutput,
        };
        let Ok(output) = ctx.output_or_error() else { return Ok(()) };
        let one = |c: Option<&ConsumedCapacity>| c.map_or(0.0, units);
        let all = |c: &[ConsumedCapacity]| c.iter().map(units).sum::<f64>();
        let (read, write) = if let Some(o) = output.downcast_ref::<GetItemOutput>() {
            (one(o.consumed_capacity()), 0.0)
        } else if let Some(o) = output.downcast_ref::<QueryOutput>() {
            (one(o.consumed_capacity()), 0.0)
        } else if let Some(o) = output.downcast_ref::<ScanOutput>() {
            (one(o.consumed_capacity()), 0.0)
        } else if let Some(o) = output.downcast_ref::<BatchGetItemOutput>() {
            (all(o.consumed_capacity()), 0.0)
        } else if let Some(o) = output.downcast_ref::<TransactGetItemsOutput>() {
            (all(o.consumed_capacity()), 0.0)
        } else if let Some(o) = output.downcast_ref::<PutItemOutput>() {
            (0.0, one(o.consumed_capacity()))
        } else if let Some(o) = output.downcast_ref::<UpdateItemOutput>() {
            (0.0, one(o.consumed_capacity()))
        } else if let Some(o) = output.downcast_ref::<DeleteItemOutput>() {
            (0.0, one(o.consumed_capacity()))
        } else if let Some(o) = output.downcast_ref::<BatchWriteItemOutput>() {
            (0.0, all(o.consumed_capacity()))
        } else if let Some(o) = output.downcast_ref::<TransactWriteItemsOutput>() {
            (0.0, all(o.consumed_capacity()))
        } else {
            (0.0, 0.0)
        };
        if read + write > 0.0 {
            let at = self.started.map_or(0.0, |s| s.elapsed().as_secs_f64());
            self.answers.lock().unwrap().push((at, read, write));
        }
        Ok(())
    }
}

/// The meter, shared with the run that reads it.
#[derive(Debug)]
pub struct MeterRef(pub Arc<Meter>);

impl Intercept for MeterRef {
    fn name(&self) -> &'static str {
        "SoakMeter"
    }

    fn read_after_deserialization(
        &self,
        ctx: &aws_sdk_dynamodb::config::interceptors::AfterDeserializationInterceptorContextRef<'_>,
        rc: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.read_after_deserialization(ctx, rc, cfg)
    }
}
