//! The one path every request to DynamoDB (and DynamoDB Streams) takes: operations build a
//! request (an SDK fluent builder) and hand it here with their [`Call`] (span and what the
//! request is for). [`send`] waits for the table's rate limit, runs the request inside the span,
//! records the capacity DynamoDB reports (per entity, operation, index and partition) and
//! debits it from the rate limit. Nothing else in the runtime calls an SDK `send()`;
//! `tests/send_path.rs` checks both.

pub(crate) mod capacity;
pub(crate) mod limit;
pub(crate) mod timeouts;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::Instrument;
use tracing::field::Empty;

use capacity::{CapacityReport, Kind, Record};
use limit::{Limiter, RateLimit};

/// What a table's requests add up to and the rate they may take, shared by the table's clones
/// and the readers built from it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meter {
    requests: Arc<AtomicU64>,
    record: Arc<Record>,
    limit: Option<Arc<Limiter>>,
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

    pub(crate) fn rate_limit(&self) -> Option<RateLimit> {
        self.limit.as_ref().map(|l| l.current())
    }
}

/// One request's span and what its capacity is attributed to.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(crate) span: tracing::Span,
    pub(crate) entity: &'a str,
    pub(crate) index: Option<&'a str>,
    pub(crate) partition: Option<&'a str>,
}

impl<'a> Call<'a> {
    /// A call with its own span (more fields than [`call`]'s).
    pub(crate) fn new(span: tracing::Span, entity: &'a str, index: Option<&'a str>) -> Call<'a> {
        Call { span, entity, index, partition: None }
    }

    /// The partition the request reads or writes (its partition-key text), for the hot
    /// partitions of [`CapacityReport::hot_partitions`].
    pub(crate) fn on(mut self, partition: Option<&'a str>) -> Call<'a> {
        self.partition = partition;
        self
    }
}

/// The partition-key text of a key item (`None` if it has no such string attribute).
pub(crate) fn partition_of<'k>(key: &'k crate::model::Item, attr: &str) -> Option<&'k str> {
    match key.get(attr) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(pk)) => Some(pk),
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
    type Error;
    /// Sends it: called by [`send`] only.
    fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;
    /// The capacity the answer reports (one entry per table or index for batches and
    /// transactions, none where DynamoDB reports none).
    fn consumed(output: &Self::Output) -> &[ConsumedCapacity];
}

/// Sends `request` for `call`, within the table's rate limit; records what it consumed.
pub(crate) async fn send<R: Request>(meter: &Meter, call: &Call<'_>, request: R) -> Result<R::Output, R::Error> {
    meter.requests.fetch_add(1, Ordering::Relaxed);
    if let Some(limit) = &meter.limit {
        limit.acquire(R::KIND).instrument(call.span.clone()).await;
    }
    let result = request.dispatch().instrument(call.span.clone()).await;
    let consumed = match &result {
        Ok(out) => R::consumed(out),
        Err(_) => &[],
    };
    // One pass over the answer's capacity: the record's rows, the span, the rate limit.
    let total = meter.record.add(R::KIND, R::OPERATION, call.entity, call.index, call.partition, consumed);
    if !consumed.is_empty() {
        call.span.record("consumed_capacity", total.units());
    }
    if let Some(limit) = &meter.limit {
        limit.debit(R::KIND, total.units());
    }
    result
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

/// One `Request` impl: the SDK crate (`$sdk`), the request type, its operation module.
macro_rules! request {
    ($sdk:ident, $request:ty, $op:literal $kind:ident $module:ident $output:ident $error:ident, |$o:ident| $consumed:expr) => {
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
        }
    };
}

/// The DynamoDB requests: fluent builders, and the batches' customized operations (with an
/// interceptor of their own: the batch retry loop counts the SDK's attempts).
macro_rules! requests {
    ($($op:literal $kind:ident $module:ident $builder:ident $output:ident $error:ident $consumed:ident;)*) => {$(
        request!(
            aws_sdk_dynamodb, aws_sdk_dynamodb::operation::$module::builders::$builder,
            $op $kind $module $output $error, |o| requests!(@consumed $consumed o)
        );
    )*};
    (@consumed one $o:ident) => { $o.consumed_capacity().map(std::slice::from_ref).unwrap_or_default() };
    (@consumed many $o:ident) => { $o.consumed_capacity() };
    (@consumed none $o:ident) => {{ let _ = $o; &[] }};
}

requests! {
    "PutItem" Write put_item PutItemFluentBuilder PutItemOutput PutItemError one;
    "DeleteItem" Write delete_item DeleteItemFluentBuilder DeleteItemOutput DeleteItemError one;
    "GetItem" Read get_item GetItemFluentBuilder GetItemOutput GetItemError one;
    "UpdateItem" Write update_item UpdateItemFluentBuilder UpdateItemOutput UpdateItemError one;
    "Query" Read query QueryFluentBuilder QueryOutput QueryError one;
    "Scan" Read scan ScanFluentBuilder ScanOutput ScanError one;
    "BatchWriteItem" Write batch_write_item BatchWriteItemFluentBuilder BatchWriteItemOutput BatchWriteItemError many;
    "BatchGetItem" Read batch_get_item BatchGetItemFluentBuilder BatchGetItemOutput BatchGetItemError many;
    "TransactWriteItems" Write transact_write_items TransactWriteItemsFluentBuilder TransactWriteItemsOutput TransactWriteItemsError many;
    "TransactGetItems" Read transact_get_items TransactGetItemsFluentBuilder TransactGetItemsOutput TransactGetItemsError many;
    "DescribeTable" Other describe_table DescribeTableFluentBuilder DescribeTableOutput DescribeTableError none;
    "CreateTable" Other create_table CreateTableFluentBuilder CreateTableOutput CreateTableError none;
    "UpdateTimeToLive" Other update_time_to_live UpdateTimeToLiveFluentBuilder UpdateTimeToLiveOutput UpdateTimeToLiveError none;
    "UpdateContinuousBackups" Other update_continuous_backups UpdateContinuousBackupsFluentBuilder UpdateContinuousBackupsOutput UpdateContinuousBackupsError none;
}

request!(
    aws_sdk_dynamodb,
    aws_sdk_dynamodb::client::customize::CustomizableOperation<
        aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput,
        aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError,
        aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemFluentBuilder,
    >,
    "BatchWriteItem" Write batch_write_item BatchWriteItemOutput BatchWriteItemError,
    |o| o.consumed_capacity()
);

request!(
    aws_sdk_dynamodb,
    aws_sdk_dynamodb::client::customize::CustomizableOperation<
        aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput,
        aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError,
        aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemFluentBuilder,
    >,
    "BatchGetItem" Read batch_get_item BatchGetItemOutput BatchGetItemError,
    |o| o.consumed_capacity()
);

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
