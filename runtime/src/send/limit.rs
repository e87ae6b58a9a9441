//! Rate limits: [`RateLimit`] keeps a table handle's consumed units within a rate (a token bucket
//! per kind, debited by the units DynamoDB reports), and slows down when DynamoDB throttles.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use super::capacity::Kind;

/// Error codes that mean "too fast, try again later".
pub(crate) const THROTTLING: [&str; 3] =
    ["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"];

/// The rate a table handle (and all its clones) may consume: read and write capacity units per
/// second, set with [`Table::with_rate_limit`](crate::table::Table::with_rate_limit).
///
/// Each kind is a token bucket holding at most one second of units: a request waits while its
/// bucket is empty, and is debited the units DynamoDB reports for it once answered (so a
/// request may take the bucket below zero; the next ones wait until it refills). A throttling
/// answer (`ProvisionedThroughputExceededException`, `ThrottlingException`,
/// `RequestLimitExceeded`, seen on any attempt) halves the rate of that kind, down to a tenth of
/// the one set; it then recovers by a tenth of the set rate per second without throttling. The
/// SDK retries throttled attempts with its backoff; batches also retry their unprocessed items.
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
    refilled: Instant,
}

impl Bucket {
    fn new(limit: f64) -> Bucket {
        Bucket { limit, rate: limit, balance: limit, refilled: Instant::now() }
    }

    fn refill(&mut self, now: Instant) {
        let seconds = now.saturating_duration_since(self.refilled).as_secs_f64();
        self.refilled = now;
        // Recovery after throttling: a tenth of the set rate per second.
        self.rate = (self.rate + self.limit * 0.1 * seconds).min(self.limit);
        // At most one second of units saved up.
        self.balance = (self.balance + self.rate * seconds).min(self.rate);
    }
}

/// The buckets of a table handle, shared by its clones.
#[derive(Debug)]
pub(crate) struct Limiter {
    read: Mutex<Bucket>,
    write: Mutex<Bucket>,
}

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Arc<Limiter> {
        Arc::new(Limiter { read: Mutex::new(Bucket::new(limit.read)), write: Mutex::new(Bucket::new(limit.write)) })
    }

    fn bucket(&self, kind: Kind) -> Option<&Mutex<Bucket>> {
        match kind {
            Kind::Read => Some(&self.read),
            Kind::Write => Some(&self.write),
            Kind::Other => None,
        }
    }

    /// Waits until `kind`'s bucket holds units.
    pub(crate) async fn acquire(&self, kind: Kind) {
        let Some(bucket) = self.bucket(kind) else { return };
        loop {
            let wait = {
                let mut b = bucket.lock().unwrap_or_else(|e| e.into_inner());
                b.refill(Instant::now());
                if b.balance > 0.0 {
                    return;
                }
                Duration::from_secs_f64((-b.balance + b.rate * 0.01) / b.rate)
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// Debits the units an answer reported.
    pub(crate) fn debit(&self, kind: Kind, units: f64) {
        if let Some(bucket) = self.bucket(kind) {
            let mut b = bucket.lock().unwrap_or_else(|e| e.into_inner());
            b.refill(Instant::now());
            b.balance -= units;
        }
    }

    /// A throttling answer: halves `kind`'s rate (down to a tenth of the set rate) and empties
    /// its bucket.
    pub(crate) fn throttled(&self, kind: Kind) {
        if let Some(bucket) = self.bucket(kind) {
            let mut b = bucket.lock().unwrap_or_else(|e| e.into_inner());
            b.refill(Instant::now());
            b.rate = (b.rate / 2.0).max(b.limit / 10.0);
            b.balance = b.balance.min(0.0);
        }
    }

    /// The rates now.
    pub(crate) fn current(&self) -> RateLimit {
        let rate = |m: &Mutex<Bucket>| {
            let mut b = m.lock().unwrap_or_else(|e| e.into_inner());
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
                    return Ok(self.seen(Kind::$kind, e.code()));
                }
            )*)*};
        }
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
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
    fn seen(&self, kind: Kind, code: Option<&str>) {
        if code.is_some_and(|c| THROTTLING.contains(&c)) {
            self.0.throttled(kind);
        }
    }
}
