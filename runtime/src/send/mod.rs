//! The one path every request to DynamoDB (and DynamoDB Streams) takes: operations build a
//! request (an SDK fluent builder) and hand it here with their [`Call`] (span and what the
//! request is for). [`send`] reserves the request's estimated units from the table's rate limit
//! (waiting for them), runs the request inside the span, records the capacity DynamoDB reports
//! (per entity, operation, index and partition) and settles the reservation with it. A
//! transaction DynamoDB cancels for throttling is sent again here, for every transaction path,
//! and so is a transaction with an idempotency token whose outcome a failure left unknown. A
//! write that is not idempotent is never sent again after such a failure (see [`replay`]).
//! Nothing else in the runtime calls an SDK `send()`; `tests/send_path.rs` checks both.

pub(crate) mod attempts;
pub(crate) mod capacity;
pub(crate) mod conflicts;
pub(crate) mod estimate;
pub(crate) mod limit;
pub(crate) mod replay;
pub(crate) mod timeouts;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::Instrument;
use tracing::field::Empty;

use capacity::{CapacityReport, Kind, Record};
use estimate::Shape;
use limit::{Limiter, RateLimit};

use crate::model::entity::EntitySchema;

/// What a table's requests add up to and the rate they may take, shared by the table's clones
/// and the readers built from it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meter {
    requests: Arc<AtomicU64>,
    record: Arc<Record>,
    limit: Option<Arc<Limiter>>,
    /// How many times a single-item write answered `ReplicatedWriteConflictException` is sent
    /// again (a handle of an MRSC global table; 0 for others, whose writes are not copied).
    conflict_retries: u32,
}

impl Meter {
    /// Requests sent so far (each once, whatever the SDK's retries).
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    pub(crate) fn report(&self) -> CapacityReport {
        self.record.snapshot()
    }

    pub(crate) fn reset(&self) {
        self.record.reset();
    }

    /// This meter, limited to `limit` from now on (its record kept).
    pub(crate) fn limited(&self, limiter: Arc<Limiter>) -> Meter {
        Meter { limit: Some(limiter), ..self.clone() }
    }

    /// How many times a single-item write answered `ReplicatedWriteConflictException` is sent again.
    pub(crate) fn conflict_retries(&self) -> u32 {
        self.conflict_retries
    }

    /// This meter, sending a single-item write answered `ReplicatedWriteConflictException` again
    /// up to `retries` times (its record and limit kept).
    pub(crate) fn with_conflict_retries(&self, retries: u32) -> Meter {
        Meter { conflict_retries: retries, ..self.clone() }
    }

    pub(crate) fn rate_limit(&self) -> Option<RateLimit> {
        self.limit.as_ref().map(|l| l.current())
    }

    /// Tells the rate limit's estimates the indexes of `schema`'s entity (a transaction's
    /// entities: its call names none).
    pub(crate) fn know(&self, schema: &EntitySchema) {
        if let Some(limit) = &self.limit {
            limit.know(schema);
        }
    }
}

/// One request's span and what its capacity is attributed to.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) span: tracing::Span,
    pub(crate) entity: &'a str,
    pub(crate) index: Option<&'a str>,
    pub(crate) partition: Option<&'a str>,
    /// The entity whose items the request writes or reads, for the rate limit's estimate.
    pub(crate) schema: Option<&'a EntitySchema>,
}

impl<'a> Call<'a> {
    /// A call with its own span (more fields than [`call`]'s).
    pub(crate) fn new(span: tracing::Span, entity: &'a str, index: Option<&'a str>) -> Call<'a> {
        Call { span, entity, index, partition: None, schema: None }
    }

    /// The partition the request reads or writes (its partition-key text), for the hot
    /// partitions of [`CapacityReport::hot_partitions`].
    pub(crate) fn on(mut self, partition: Option<&'a str>) -> Call<'a> {
        self.partition = partition;
        self
    }

    /// The entity whose items the request writes or reads (its indexes count in a write's
    /// estimate).
    pub(crate) fn of(mut self, schema: &'a EntitySchema) -> Call<'a> {
        self.schema = Some(schema);
        self
    }
}

/// `client` with `interceptor` added as the library adds its own: permanent (the SDK asks no
/// configuration whether it is disabled) and, with `#[dyn_dispatch_hint]` on its impl, called
/// only for the hooks it overrides (see [`attempts`]).
pub(crate) fn with_interceptor(
    client: &aws_sdk_dynamodb::Client,
    interceptor: impl aws_sdk_dynamodb::config::Intercept + 'static,
) -> aws_sdk_dynamodb::Client {
    let mut config = client.config().to_builder();
    config.push_interceptor(aws_sdk_dynamodb::config::SharedInterceptor::permanent(interceptor));
    aws_sdk_dynamodb::Client::from_conf(config.build())
}

/// The partition-key text of a key item (`None` if it has no such string attribute).
pub(crate) fn partition_of<'k>(key: &'k crate::model::Item, attr: &str) -> Option<&'k str> {
    match key.get(attr) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(pk) | aws_sdk_dynamodb::types::AttributeValue::N(pk)) => {
            Some(pk)
        }
        _ => None,
    }
}

/// A call of one request of an entity (or collection, or view) operation, with its span.
pub(crate) fn call<'a>(operation: &'static str, table: &str, entity: &'a str, index: Option<&'a str>) -> Call<'a> {
    Call::new(span(operation, table, entity, index), entity, index)
}

/// An SDK request the send path can send: one impl per operation the runtime uses.
pub(crate) trait Request: Sized {
    /// DynamoDB's name of the operation.
    const OPERATION: &'static str;
    /// Whether its units are read or write units.
    const KIND: Kind;
    /// The SDK's answer.
    type Output;
    /// The SDK's error.
    type Error: std::error::Error + 'static;
    /// Sends it: called by [`send`] only.
    fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;
    /// The capacity the answer reports (one entry per table or index for batches and
    /// transactions, none where DynamoDB reports none).
    fn consumed(output: &Self::Output) -> &[ConsumedCapacity];
    /// The units it may consume (see [`estimate`]), and whether it reads strongly consistent.
    fn estimate(&self, shape: &Shape<'_>) -> (f64, bool) {
        let _ = shape;
        (0.0, true)
    }
    /// The items a read's answer evaluated, for the item size of the estimates.
    fn evaluated(output: &Self::Output) -> Option<u64> {
        let _ = output;
        None
    }
    /// The vector capacity the answer reports (`SearchVectors`), apart from its units.
    fn vector_capacity(output: &Self::Output) -> Option<&aws_sdk_dynamodb::types::VectorCapacity> {
        let _ = output;
        None
    }
    /// A transaction: itself again, for a retry after a cancellation for throttling.
    fn again(&self) -> Option<Self> {
        None
    }
    /// Whether `error` is a transaction cancelled for throttling.
    fn throttled_cancellation(error: &Self::Error) -> bool {
        let _ = error;
        false
    }
    /// A single-item write: itself again, for a retry after a replicated write conflict.
    fn again_after_conflict(&self) -> Option<Self> {
        None
    }
    /// Whether `error` is DynamoDB's `ReplicatedWriteConflictException` (nothing was applied).
    fn replicated_conflict(error: &Self::Error) -> bool {
        let _ = error;
        false
    }
    /// Whether `error` leaves unknown if a request with an idempotency token was applied: sent
    /// again unchanged (the same token), it is applied at most once.
    fn unknown_with_token(&self, error: &Self::Error) -> bool {
        let _ = error;
        false
    }
}

/// How many times [`Transaction::send`](crate::Transaction::send) sends a transaction again after
/// DynamoDB cancelled it for conflicts alone (another transaction or write on one of its items),
/// by default; and how many times a handle of an MRSC global table sends a write again after
/// DynamoDB refused it for a write of the same item in another Region
/// (`ReplicatedWriteConflictException`).
pub const DEFAULT_CONFLICT_RETRIES: u32 = 3;

/// The wait before conflict retry `attempt` (1, 2, ...) of a transaction, or of a write refused
/// for a replicated write conflict: 25 ms doubling, half of it jitter, so that the writers that
/// conflicted do not meet again.
pub(crate) fn conflict_backoff(attempt: u32) -> std::time::Duration {
    let ceiling = 25u64 << attempt.min(6);
    std::time::Duration::from_millis(ceiling / 2 + fastrand::u64(0..=ceiling / 2))
}

/// How many times a transaction cancelled for throttling is sent in all.
pub(crate) const THROTTLED_TRANSACTION_ATTEMPTS: u32 = 4;

/// The wait before resending a transaction cancelled for throttling (`attempt` 2, 3, ...): 50
/// ms doubling, half of it jitter; the halved rate limit (if any) then adds its own wait.
fn throttle_backoff(attempt: u32) -> std::time::Duration {
    let ceiling = 50u64 << attempt.min(8);
    std::time::Duration::from_millis(ceiling / 2 + fastrand::u64(0..=ceiling / 2))
}

/// Whether the reasons of a cancelled transaction are throttling: some action was throttled
/// (`ThrottlingError`, `ProvisionedThroughputExceeded`), every other one was fine or met a
/// conflict. Nothing of it was applied; sent again, it may pass.
fn throttled_reasons(reasons: &[aws_sdk_dynamodb::types::CancellationReason]) -> bool {
    let throttling = |c: &str| matches!(c, "ThrottlingError" | "ProvisionedThroughputExceeded");
    let codes = || reasons.iter().map(|r| r.code().unwrap_or("None"));
    codes().any(throttling) && codes().all(|c| throttling(c) || matches!(c, "None" | "TransactionConflict"))
}

/// Sends `request` for `call`, within the table's rate limit; records what it consumed.
///
/// The rate limit: the request's estimated units are reserved before it is sent (waiting in
/// turn until the bucket holds them) and settled with the units DynamoDB reports (a failed
/// request keeps its estimate). A transaction cancelled for throttling halves the rate like any
/// throttling answer and is sent again, after a backoff and a new reservation, up to
/// [`THROTTLED_TRANSACTION_ATTEMPTS`] times in all; then its cancellation is returned. A
/// transaction with an idempotency token that failed without an answer that says whether it was
/// applied (a timeout, a lost answer, a 5xx, after the SDK's retries) is sent again the same way,
/// unchanged: DynamoDB applies one token's transaction at most once (within 10 minutes).
pub(crate) async fn send<R: Request>(meter: &Meter, call: &Call<'_>, request: R) -> Result<R::Output, R::Error> {
    meter.requests.fetch_add(1, Ordering::Relaxed);
    let mut request = request;
    let mut attempt = 1;
    let mut conflicts = 0;
    loop {
        let mut again = if attempt < THROTTLED_TRANSACTION_ATTEMPTS { request.again() } else { None };
        // Copied only on a handle of an MRSC table: other handles' writes are sent as they are. Boxed:
        // held across the send, a request inline would grow every write's future by its size.
        let mut after_conflict =
            if conflicts < meter.conflict_retries { request.again_after_conflict().map(Box::new) } else { None };
        let mut consistent = true;
        let reservation = match &meter.limit {
            Some(limit) => {
                let (units, strong) = limit.estimate(call.schema, |shape| request.estimate(shape));
                consistent = strong;
                limit.reserve(R::KIND, units).instrument(call.span.clone()).await
            }
            None => None,
        };
        let result = request.dispatch().instrument(call.span.clone()).await;
        if let Err(e) = &result
            && again.as_ref().is_some_and(|next| next.unknown_with_token(e))
            && let Some(next) = again.take()
        {
            // The SDK's retries left it unknown whether it was applied: the same request (the same
            // token) is applied at most once, so it is sent again.
            drop(reservation);
            attempt += 1;
            tracing::debug!(parent: &call.span, attempt, "idempotent request with an unknown outcome: sent again");
            tokio::time::sleep(throttle_backoff(attempt)).await;
            request = next;
            continue;
        }
        if let Err(e) = &result
            && R::replicated_conflict(e)
            && let Some(next) = after_conflict.take()
        {
            // Another Region wrote the item at the same time: nothing was applied, and sent again
            // as a transaction cancelled by a conflict is, it may pass.
            drop(reservation);
            conflicts += 1;
            tracing::debug!(parent: &call.span, conflicts, "replicated write conflict: sent again");
            tokio::time::sleep(conflict_backoff(conflicts)).await;
            request = *next;
            continue;
        }
        if let Err(e) = &result
            && R::throttled_cancellation(e)
        {
            if let Some(limit) = &meter.limit {
                limit.throttled(R::KIND);
            }
            if let Some(next) = again {
                // Nothing was applied, and DynamoDB reports no capacity: the reservation is kept
                // (the emptied bucket owes it), so the retry also waits for the halved rate.
                drop(reservation);
                attempt += 1;
                tracing::debug!(parent: &call.span, attempt, "transaction cancelled for throttling: sent again");
                tokio::time::sleep(throttle_backoff(attempt)).await;
                request = next;
                continue;
            }
        }
        let consumed = match &result {
            Ok(out) => R::consumed(out),
            Err(_) => &[],
        };
        // A request that ended throttled: its row keeps DynamoDB's reasons.
        if let Err(e) = &result
            && let Some((code, reasons)) = crate::error::throttling_of(e)
        {
            tracing::debug!(parent: &call.span, code, ?reasons, "throttled");
            meter.record.throttled(R::OPERATION, call.entity, call.index, &reasons);
        }
        // One pass over the answer's capacity: the record's rows, the span, the rate limit.
        let total = meter.record.add(R::KIND, R::OPERATION, call.entity, call.index, call.partition, consumed);
        if let Ok(out) = &result
            && let Some(vector) = R::vector_capacity(out)
        {
            meter.record.vector(R::OPERATION, call.entity, call.index, vector);
        }
        if !consumed.is_empty() {
            call.span.record("consumed_capacity", total.units());
        }
        if let (Some(limit), Ok(out)) = (&meter.limit, &result) {
            if let Some(items) = R::evaluated(out) {
                limit.learn(total.units(), items, consistent);
            }
            // An answer without capacity (DynamoDB reports none for it) keeps the estimate.
            if let Some(r) = reservation
                && !consumed.is_empty()
            {
                r.settle(total.units());
            }
        }
        return result;
    }
}

/// The span of one request of an entity (or collection, or view) operation.
/// Besides the short names, the span carries OpenTelemetry's database semantic-convention names
/// (`db.system.name`, `db.operation.name`, `aws.dynamodb.table_names`, `aws.dynamodb.index_name`).
pub(crate) fn span(operation: &'static str, table: &str, entity: &str, index: Option<&str>) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb",
        operation,
        table,
        entity,
        index = index.unwrap_or(""),
        items = Empty,
        consumed_capacity = Empty,
        db.system.name = "aws.dynamodb",
        db.operation.name = operation,
        aws.dynamodb.table_names = table,
        aws.dynamodb.index_name = index.unwrap_or(""),
    )
}

/// One `Request` impl: the SDK crate (`$sdk`), the request type, its operation module, and
/// the optional methods (estimate, evaluated, again, throttled_cancellation).
macro_rules! request {
    ($sdk:ident, $request:ty, $op:literal $kind:ident $module:ident $output:ident $error:ident, |$o:ident| $consumed:expr $(, $extra:item)*) => {
        impl Request for $request {
            const OPERATION: &'static str = $op;
            const KIND: Kind = Kind::$kind;
            type Output = $sdk::operation::$module::$output;
            type Error = $sdk::error::SdkError<$sdk::operation::$module::$error, $sdk::config::http::HttpResponse>;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                self.send()
            }
            fn consumed($o: &Self::Output) -> &[ConsumedCapacity] {
                $consumed
            }
            $($extra)*
        }
    };
}

/// The DynamoDB requests: fluent builders, with their estimates.
macro_rules! requests {
    ($($op:literal $kind:ident $module:ident $builder:ident $output:ident $error:ident $consumed:ident $(, $extra:item)*;)*) => {$(
        request!(
            aws_sdk_dynamodb, aws_sdk_dynamodb::operation::$module::builders::$builder,
            $op $kind $module $output $error, |o| requests!(@consumed $consumed o) $(, $extra)*
        );
    )*};
    (@consumed one $o:ident) => { $o.consumed_capacity().map(std::slice::from_ref).unwrap_or_default() };
    (@consumed many $o:ident) => { $o.consumed_capacity() };
    (@consumed none $o:ident) => {{ let _ = $o; &[] }};
}

requests! {
    "PutItem" Write put_item PutItemFluentBuilder PutItemOutput PutItemError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) { (s.put(self.get_item().as_ref()), true) };
    "DeleteItem" Write delete_item DeleteItemFluentBuilder DeleteItemOutput DeleteItemError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) { (s.delete(self.get_key().as_ref()), true) };
    "GetItem" Read get_item GetItemFluentBuilder GetItemOutput GetItemError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            let strong = self.get_consistent_read().unwrap_or(false);
            (s.items(1, strong), strong)
        },
        fn evaluated(o: &Self::Output) -> Option<u64> { o.item().map(|_| 1) };
    "UpdateItem" Write update_item UpdateItemFluentBuilder UpdateItemOutput UpdateItemError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            (s.update(self.get_key().as_ref(), self.get_expression_attribute_values().as_ref()), true)
        };
    "Query" Read query QueryFluentBuilder QueryOutput QueryError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            let strong = self.get_consistent_read().unwrap_or(false);
            (s.read(*self.get_limit(), strong), strong)
        },
        fn evaluated(o: &Self::Output) -> Option<u64> { u64::try_from(o.scanned_count()).ok() };
    "Scan" Read scan ScanFluentBuilder ScanOutput ScanError one,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            let strong = self.get_consistent_read().unwrap_or(false);
            (s.read(*self.get_limit(), strong), strong)
        },
        fn evaluated(o: &Self::Output) -> Option<u64> { u64::try_from(o.scanned_count()).ok() };
    "BatchWriteItem" Write batch_write_item BatchWriteItemFluentBuilder BatchWriteItemOutput BatchWriteItemError many,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) { (batch_writes(self, s), true) };
    "BatchGetItem" Read batch_get_item BatchGetItemFluentBuilder BatchGetItemOutput BatchGetItemError many,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) { (batch_gets(self, s), true) };
    "TransactWriteItems" Write transact_write_items TransactWriteItemsFluentBuilder TransactWriteItemsOutput TransactWriteItemsError many,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            (s.transact_write(self.get_transact_items().as_deref().unwrap_or_default()), true)
        },
        fn again(&self) -> Option<Self> { Some(self.clone()) },
        fn throttled_cancellation(e: &Self::Error) -> bool {
            use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError as E;
            matches!(e.as_service_error(), Some(E::TransactionCanceledException(c)) if throttled_reasons(c.cancellation_reasons()))
        },
        fn unknown_with_token(&self, e: &Self::Error) -> bool {
            self.get_client_request_token().is_some() && replay::unknown_outcome(e)
        };
    "TransactGetItems" Read transact_get_items TransactGetItemsFluentBuilder TransactGetItemsOutput TransactGetItemsError many,
        fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
            (s.transact_get(self.get_transact_items().as_deref().unwrap_or_default()), true)
        },
        fn again(&self) -> Option<Self> { Some(self.clone()) },
        fn throttled_cancellation(e: &Self::Error) -> bool {
            use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError as E;
            matches!(e.as_service_error(), Some(E::TransactionCanceledException(c)) if throttled_reasons(c.cancellation_reasons()))
        };
    "SearchVectors" Read search_vectors SearchVectorsFluentBuilder SearchVectorsOutput SearchVectorsError none,
        fn vector_capacity(o: &Self::Output) -> Option<&aws_sdk_dynamodb::types::VectorCapacity> { o.consumed_capacity() };
    "DescribeTable" Other describe_table DescribeTableFluentBuilder DescribeTableOutput DescribeTableError none;
    "CreateTable" Other create_table CreateTableFluentBuilder CreateTableOutput CreateTableError none;
    "UpdateTimeToLive" Other update_time_to_live UpdateTimeToLiveFluentBuilder UpdateTimeToLiveOutput UpdateTimeToLiveError none;
    "UpdateContinuousBackups" Other update_continuous_backups UpdateContinuousBackupsFluentBuilder UpdateContinuousBackupsOutput UpdateContinuousBackupsError none;
    "UpdateTable" Other update_table UpdateTableFluentBuilder UpdateTableOutput UpdateTableError none;
    "DescribeTimeToLive" Other describe_time_to_live DescribeTimeToLiveFluentBuilder DescribeTimeToLiveOutput DescribeTimeToLiveError none;
    "DescribeContinuousBackups" Other describe_continuous_backups DescribeContinuousBackupsFluentBuilder DescribeContinuousBackupsOutput DescribeContinuousBackupsError none;
    "DescribeContributorInsights" Other describe_contributor_insights DescribeContributorInsightsFluentBuilder DescribeContributorInsightsOutput DescribeContributorInsightsError none;
    "UpdateContributorInsights" Other update_contributor_insights UpdateContributorInsightsFluentBuilder UpdateContributorInsightsOutput UpdateContributorInsightsError none;
    "GetResourcePolicy" Other get_resource_policy GetResourcePolicyFluentBuilder GetResourcePolicyOutput GetResourcePolicyError none;
    "PutResourcePolicy" Other put_resource_policy PutResourcePolicyFluentBuilder PutResourcePolicyOutput PutResourcePolicyError none;
    "ListTagsOfResource" Other list_tags_of_resource ListTagsOfResourceFluentBuilder ListTagsOfResourceOutput ListTagsOfResourceError none;
    "TagResource" Other tag_resource TagResourceFluentBuilder TagResourceOutput TagResourceError none;
    "RestoreTableToPointInTime" Other restore_table_to_point_in_time RestoreTableToPointInTimeFluentBuilder RestoreTableToPointInTimeOutput RestoreTableToPointInTimeError none;
    "RestoreTableFromBackup" Other restore_table_from_backup RestoreTableFromBackupFluentBuilder RestoreTableFromBackupOutput RestoreTableFromBackupError none;
    "CreateBackup" Other create_backup CreateBackupFluentBuilder CreateBackupOutput CreateBackupError none;
    "ListBackups" Other list_backups ListBackupsFluentBuilder ListBackupsOutput ListBackupsError none;
}

/// A batch write: each put and delete as on its own.
fn batch_writes(
    r: &aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemFluentBuilder,
    s: &Shape<'_>,
) -> f64 {
    let writes = r.get_request_items().iter().flat_map(|m| m.values()).flatten();
    writes
        .map(|w| match (w.put_request(), w.delete_request()) {
            (Some(p), _) => s.put(Some(p.item())),
            (None, Some(d)) => s.delete(Some(d.key())),
            (None, None) => 0.0,
        })
        .sum()
}

/// A batch get: one item per key.
fn batch_gets(
    r: &aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemFluentBuilder,
    s: &Shape<'_>,
) -> f64 {
    let tables = r.get_request_items().iter().flat_map(|m| m.values());
    tables.map(|k| s.items(k.keys().len(), k.consistent_read().unwrap_or(false))).sum()
}

/// A batch request with its attempts counted (see [`attempts`]); its estimate is the request's.
pub(crate) struct Counted<B>(pub(crate) B, pub(crate) attempts::Attempts);

/// The batches, sent with their attempts counted.
macro_rules! counted {
    ($($op:literal $kind:ident $module:ident $builder:ident $output:ident $error:ident;)*) => {$(
        impl Request for Counted<aws_sdk_dynamodb::operation::$module::builders::$builder> {
            const OPERATION: &'static str = $op;
            const KIND: Kind = Kind::$kind;
            type Output = aws_sdk_dynamodb::operation::$module::$output;
            type Error = aws_sdk_dynamodb::error::SdkError<
                aws_sdk_dynamodb::operation::$module::$error,
                aws_sdk_dynamodb::config::http::HttpResponse,
            >;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                // Boxed, as a single-item write's (see `Watched`): a chunk's retry loop, the
                // batch's driver and the send path would each copy the SDK's future whole.
                Box::pin(attempts::counted(self.1, self.0.send()))
            }
            fn consumed(o: &Self::Output) -> &[ConsumedCapacity] {
                o.consumed_capacity()
            }
            fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
                self.0.estimate(s)
            }
        }
    )*};
}

counted! {
    "BatchWriteItem" Write batch_write_item BatchWriteItemFluentBuilder BatchWriteItemOutput BatchWriteItemError;
    "BatchGetItem" Read batch_get_item BatchGetItemFluentBuilder BatchGetItemOutput BatchGetItemError;
}

/// A write sent with its own retry classifier (see [`replay`]): the SDK does not send it again
/// after a failure that leaves its outcome unknown if it is not idempotent, and the watch notes
/// such failures; its estimate is the request's.
pub(crate) struct Watched<B>(pub(crate) B, pub(crate) replay::Watch);

/// The single-item writes, sent with their [`replay::Watch`].
macro_rules! watched {
    ($($op:literal $module:ident $builder:ident $output:ident $error:ident;)*) => {$(
        impl Request for Watched<aws_sdk_dynamodb::operation::$module::builders::$builder> {
            const OPERATION: &'static str = $op;
            const KIND: Kind = Kind::Write;
            type Output = aws_sdk_dynamodb::operation::$module::$output;
            type Error = aws_sdk_dynamodb::error::SdkError<
                aws_sdk_dynamodb::operation::$module::$error,
                aws_sdk_dynamodb::config::http::HttpResponse,
            >;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                let Watched(request, watch) = self;
                // Boxed: the SDK's future is several kilobytes, and held inline it was copied
                // whole at every layer above (this block, the send path, the write, the
                // `IntoFuture` box of a put): about 18 copies of 1.4 KB per put, more than the
                // one allocation (issue 51). A get, with fewer layers, gains nothing from it.
                async move {
                    match watch.replay() {
                        // Nothing to change: no per-request configuration to build.
                        replay::Replay::Safe => Box::pin(request.send()).await,
                        replay::Replay::Checked | replay::Replay::Never => {
                            let config = aws_sdk_dynamodb::config::Builder::default().retry_classifier(watch);
                            Box::pin(request.customize().config_override(config).send()).await
                        }
                    }
                }
            }
            fn consumed(o: &Self::Output) -> &[ConsumedCapacity] {
                o.consumed_capacity().map(std::slice::from_ref).unwrap_or_default()
            }
            fn estimate(&self, s: &Shape<'_>) -> (f64, bool) {
                self.0.estimate(s)
            }
            fn again_after_conflict(&self) -> Option<Self> {
                Some(Watched(self.0.clone(), self.1.clone()))
            }
            fn replicated_conflict(e: &Self::Error) -> bool {
                e.as_service_error().is_some_and(|s| s.is_replicated_write_conflict_exception())
            }
        }
    )*};
}

watched! {
    "PutItem" put_item PutItemFluentBuilder PutItemOutput PutItemError;
    "DeleteItem" delete_item DeleteItemFluentBuilder DeleteItemOutput DeleteItemError;
    "UpdateItem" update_item UpdateItemFluentBuilder UpdateItemOutput UpdateItemError;
}

/// DynamoDB Streams requests: no capacity is reported.
#[cfg(feature = "streams")]
macro_rules! streams {
    ($($op:literal $kind:ident $module:ident $builder:ident $output:ident $error:ident;)*) => {$(
        request!(
            aws_sdk_dynamodbstreams, aws_sdk_dynamodbstreams::operation::$module::builders::$builder,
            $op $kind $module $output $error, |o| { let _ = o; &[] }
        );
    )*};
}

#[cfg(feature = "streams")]
streams! {
    "DescribeStream" Other describe_stream DescribeStreamFluentBuilder DescribeStreamOutput DescribeStreamError;
    "GetShardIterator" Other get_shard_iterator GetShardIteratorFluentBuilder GetShardIteratorOutput GetShardIteratorError;
    "GetRecords" Other get_records GetRecordsFluentBuilder GetRecordsOutput GetRecordsError;
}
