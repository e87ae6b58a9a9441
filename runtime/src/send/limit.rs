//! Rate limits: [`RateLimit`] keeps a table handle's consumed units within a rate (a token bucket
//! per kind: each request reserves its estimated units before it is sent, settled with the units
//! DynamoDB reports), and slows down when DynamoDB throttles.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use super::capacity::Kind;
use super::estimate::{ITEM_BYTES, PAGE_BYTES, Shape};
use crate::model::entity::{EntitySchema, IndexSchema};

/// Error codes that mean "too fast, try again later".
pub(crate) const THROTTLING: [&str; 3] =
    ["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"];

/// The rate a table handle (and all its clones) may consume: read and write capacity units per
/// second, set with [`Table::with_rate_limit`](crate::table::Table::with_rate_limit).
///
/// Each kind is a token bucket holding at most one second of units (the burst). A request
/// reserves its estimated units before it is sent: requests wait in turn (first come, first
/// served) until the bucket holds their units (a request estimated above the burst: until the
/// bucket is full and nothing else is in flight). When DynamoDB answers, the difference between
/// the estimate and the units it reports is given back or taken (the bucket may go below zero;
/// the next requests wait until it refills); a failed request keeps its estimate. Units reserved
/// by requests in flight count against the burst.
///
/// So, for the requests sent in any window of `T` seconds, the units DynamoDB reports are at most
/// `burst + rate × T`, plus what a request estimated above the burst exceeds it by, plus what
/// estimates fell short of the units reported (see the guide, `dynamo_entity::guide::capacity`,
/// "Capacity and cost", for the estimates: a put of a new item is estimated exactly).
///
/// A throttling answer (`ProvisionedThroughputExceededException`, `ThrottlingException`,
/// `RequestLimitExceeded`, seen on any attempt, or a transaction cancelled for throttling) halves
/// the rate of that kind (of the kind DynamoDB's throttling reasons name, when the answer
/// carries them: `TableReadProvisionedThroughputExceeded` halves the read rate), down to a
/// tenth of the one set; it then recovers by a tenth of the set
/// rate per second without throttling. The SDK retries throttled attempts with its backoff; the
/// send path retries transactions cancelled for throttling; batches also retry their
/// unprocessed items.
///
/// ```
/// use dynamo_entity_runtime::RateLimit;
///
/// let limit = RateLimit::per_second(100.0, 25.0);
/// assert_eq!((limit.read_per_second(), limit.write_per_second()), (100.0, 25.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    read: f64,
    write: f64,
}

impl RateLimit {
    /// At most `read_units` read and `write_units` write capacity units per second (each at
    /// least 0.1; a value that is not a finite positive number is taken as 0.1).
    pub fn per_second(read_units: f64, write_units: f64) -> RateLimit {
        let clean = |v: f64| if v.is_finite() && v >= 0.1 { v } else { 0.1 };
        RateLimit { read: clean(read_units), write: clean(write_units) }
    }

    /// Read capacity units per second.
    pub fn read_per_second(&self) -> f64 {
        self.read
    }

    /// Write capacity units per second.
    pub fn write_per_second(&self) -> f64 {
        self.write
    }
}

#[derive(Debug)]
struct Bucket {
    /// The rate set.
    limit: f64,
    /// The rate now (lowered by throttling).
    rate: f64,
    /// Units available (negative: owed).
    balance: f64,
    /// Units reserved by requests not answered yet.
    held: f64,
    refilled: Instant,
}

impl Bucket {
    fn new(limit: f64) -> Bucket {
        Bucket { limit, rate: limit, balance: limit, held: 0.0, refilled: Instant::now() }
    }

    fn refill(&mut self, now: Instant) {
        let seconds = now.saturating_duration_since(self.refilled).as_secs_f64();
        self.refilled = now;
        // Recovery after throttling: a tenth of the set rate per second.
        self.rate = (self.rate + self.limit * 0.1 * seconds).min(self.limit);
        // At most one second of units saved up, counting those reserved by requests in flight
        // (so that a reservation given back when answered cannot raise it past the burst).
        let room = self.rate - self.held;
        if self.balance < room {
            self.balance = (self.balance + self.rate * seconds).min(room);
        }
    }
}

/// One kind's bucket, the queue of requests waiting for it, and the signal of a settlement.
#[derive(Debug)]
struct Gauge {
    bucket: Mutex<Bucket>,
    /// Requests wait in turn (first come, first served): a large reservation is not starved
    /// by small ones.
    turn: tokio::sync::Mutex<()>,
    settled: tokio::sync::Notify,
}

impl Gauge {
    fn new(limit: f64) -> Gauge {
        Gauge { bucket: Mutex::new(Bucket::new(limit)), turn: tokio::sync::Mutex::new(()), settled: Default::default() }
    }

    fn bucket(&self) -> std::sync::MutexGuard<'_, Bucket> {
        self.bucket.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What the estimates of requests know of the table (see [`super::estimate`]).
#[derive(Debug)]
struct Known {
    entities: Vec<&'static str>,
    indexes: Vec<&'static IndexSchema>,
    item_bytes: usize,
}

impl Known {
    /// Learns the indexes of `schema`'s entity.
    fn add(&mut self, schema: &EntitySchema) {
        if self.entities.contains(&schema.entity_type) {
            return;
        }
        self.entities.push(schema.entity_type);
        for i in schema.indexes {
            if !self.indexes.iter().any(|k| k.name == i.name) {
                self.indexes.push(i);
            }
        }
    }
}

/// The buckets of a table handle, shared by its clones.
#[derive(Debug)]
pub(crate) struct Limiter {
    read: Gauge,
    write: Gauge,
    known: Mutex<Known>,
}

/// Units reserved for one request: settled with what DynamoDB reports, or, if dropped
/// unsettled (the request failed, or its future was dropped), kept as consumed.
#[derive(Debug)]
pub(crate) struct Reservation<'l> {
    gauge: &'l Gauge,
    units: f64,
    settled: bool,
}

impl Reservation<'_> {
    /// DynamoDB reported `consumed` units for the request: gives back what the reservation
    /// held beyond them, or takes what they exceed it by.
    pub(crate) fn settle(mut self, consumed: f64) {
        self.close(consumed);
    }

    fn close(&mut self, consumed: f64) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        {
            let mut b = self.gauge.bucket();
            b.refill(Instant::now());
            b.held = (b.held - self.units).max(0.0);
            b.balance += self.units - consumed;
        }
        self.gauge.settled.notify_waiters();
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.close(self.units);
    }
}

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Arc<Limiter> {
        Arc::new(Limiter {
            read: Gauge::new(limit.read),
            write: Gauge::new(limit.write),
            known: Mutex::new(Known { entities: Vec::new(), indexes: Vec::new(), item_bytes: ITEM_BYTES }),
        })
    }

    fn gauge(&self, kind: Kind) -> Option<&Gauge> {
        match kind {
            Kind::Read => Some(&self.read),
            Kind::Write => Some(&self.write),
            Kind::Other => None,
        }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Learns the indexes of `schema`'s entity, for the estimates of the writes of any entity
    /// (an item holding an index's key attributes is in that index).
    pub(crate) fn know(&self, schema: &EntitySchema) {
        self.known().add(schema);
    }

    /// The estimate `of` a request of `schema`'s entity (if the call names one): the lock on
    /// what is known taken once per request (it was taken twice, to learn the entity and to read).
    pub(crate) fn estimate<T>(&self, schema: Option<&EntitySchema>, of: impl FnOnce(&Shape<'_>) -> T) -> T {
        let mut known = self.known();
        if let Some(schema) = schema {
            known.add(schema);
        }
        let shape = Shape { own: schema.map(|s| s.indexes), known: &known.indexes, item_bytes: known.item_bytes };
        of(&shape)
    }

    /// A read of `items` items reported `units` read units (`consistent`ly): raises the item
    /// size of the read estimates to what they weighed on average, if larger.
    pub(crate) fn learn(&self, units: f64, items: u64, consistent: bool) {
        if items == 0 || !units.is_finite() {
            return;
        }
        let strong = if consistent { units } else { units * 2.0 };
        let bytes = (strong * 4096.0 / items as f64).ceil();
        let bytes = if bytes >= PAGE_BYTES as f64 { PAGE_BYTES } else { bytes as usize };
        let mut known = self.known();
        known.item_bytes = known.item_bytes.max(bytes);
    }

    /// Waits for `units` of `kind` and reserves them: requests are served in turn; one is
    /// served when its bucket holds its units (a request of more units than the burst: when the
    /// bucket is full, nothing else in flight). `None` for a kind without units.
    pub(crate) async fn reserve(&self, kind: Kind, units: f64) -> Option<Reservation<'_>> {
        let gauge = self.gauge(kind)?;
        let units = if units.is_finite() { units.max(0.0) } else { 0.0 };
        let _turn = gauge.turn.lock().await;
        loop {
            let settled = gauge.settled.notified();
            let mut settled = std::pin::pin!(settled);
            settled.as_mut().enable();
            let wait = {
                let mut b = gauge.bucket();
                b.refill(Instant::now());
                let need = units.min(b.rate);
                if b.balance >= need - 1e-9 {
                    b.balance -= units;
                    b.held += units;
                    return Some(Reservation { gauge, units, settled: false });
                }
                // The refill, or a settlement (which gives back, or makes room), whichever
                // comes first.
                Duration::from_secs_f64(((need - b.balance) / b.rate).clamp(0.001, 10.0))
            };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = settled => {}
            }
        }
    }

    /// A throttling answer: halves `kind`'s rate (down to a tenth of the set rate) and empties
    /// its bucket.
    pub(crate) fn throttled(&self, kind: Kind) {
        if let Some(gauge) = self.gauge(kind) {
            let mut b = gauge.bucket();
            b.refill(Instant::now());
            b.rate = (b.rate / 2.0).max(b.limit / 10.0);
            b.balance = b.balance.min(0.0);
        }
    }

    /// The rates now.
    pub(crate) fn current(&self) -> RateLimit {
        let rate = |g: &Gauge| {
            let mut b = g.bucket();
            b.refill(Instant::now());
            b.rate
        };
        RateLimit { read: rate(&self.read), write: rate(&self.write) }
    }
}

/// Sees every attempt's answer: a throttling one lowers the limiter's rate, whether or not the
/// SDK then retries it.
#[derive(Debug, Clone)]
pub(crate) struct ThrottleWatch(pub(crate) Arc<Limiter>);

// Only the hooks this overrides are called (see `send::attempts`).
#[aws_smithy_runtime_api::client::interceptors::dyn_dispatch_hint]
impl Intercept for ThrottleWatch {
    fn name(&self) -> &'static str {
        "dynamo_entity::ThrottleWatch"
    }

    fn read_after_attempt(
        &self,
        ctx: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(Err(error)) = ctx.output_or_error() else { return Ok(()) };
        let Some(error) = error.as_operation_error() else { return Ok(()) };
        // The operation's typed error gives both the code and whether it read or wrote.
        macro_rules! code_of {
            ($($kind:ident: $($error:ty),*;)*) => {$($(
                if let Some(e) = error.downcast_ref::<$error>() {
                    return Ok(self.seen(Kind::$kind, e));
                }
            )*)*};
        }
        use aws_sdk_dynamodb::operation as op;
        code_of! {
            Write: op::put_item::PutItemError, op::update_item::UpdateItemError, op::delete_item::DeleteItemError,
                op::batch_write_item::BatchWriteItemError, op::transact_write_items::TransactWriteItemsError;
            Read: op::get_item::GetItemError, op::query::QueryError, op::scan::ScanError,
                op::batch_get_item::BatchGetItemError, op::transact_get_items::TransactGetItemsError;
        }
        Ok(())
    }
}

impl ThrottleWatch {
    /// An attempt of a `kind` operation answered with `error`: a throttling answer halves the
    /// rate of the kind its reasons name (`TableReadProvisionedThroughputExceeded`: reads),
    /// else of the operation's kind.
    fn seen(&self, kind: Kind, error: &(dyn std::error::Error + 'static)) {
        let Some((_, reasons)) = crate::error::throttling_of(error) else { return };
        for kind in throttled_kinds(kind, &reasons) {
            self.0.throttled(kind);
        }
    }
}

/// The kinds a throttling answer to a `kind` operation with `reasons` halves: those the reasons
/// name, or `kind` when they name none.
pub(crate) fn throttled_kinds(kind: Kind, reasons: &[crate::error::ThrottleReason]) -> Vec<Kind> {
    let named = |reads: bool| reasons.iter().any(|r| r.reads() == Some(reads));
    let mut kinds = Vec::with_capacity(2);
    if named(true) {
        kinds.push(Kind::Read);
    }
    if named(false) {
        kinds.push(Kind::Write);
    }
    if kinds.is_empty() {
        kinds.push(kind);
    }
    kinds
}
