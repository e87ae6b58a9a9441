//! The one path every request to DynamoDB (and DynamoDB Streams) takes: operations build a
//! request (an SDK fluent builder) and hand it here with their tracing span. `send` counts it on
//! the table's [`Meter`], runs it inside the span and records the capacity DynamoDB reports on it.
//! Nothing else in the runtime calls an SDK `send()`; `tests/send_path.rs` checks both.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::ConsumedCapacity;
use tracing::Instrument;
use tracing::field::Empty;

/// What a table's requests add up to, shared by the table's clones and the readers built from it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Meter {
    requests: Arc<AtomicU64>,
}

impl Meter {
    /// Requests sent so far (each once, whatever the SDK's retries).
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
}

/// An SDK request the send path can send: one impl per operation the runtime uses.
pub(crate) trait Request: Sized {
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

/// Sends `request` inside `span`, counted on `meter`; records the consumed capacity on the span.
pub(crate) async fn send<R: Request>(meter: &Meter, span: &tracing::Span, request: R) -> Result<R::Output, R::Error> {
    meter.requests.fetch_add(1, Ordering::Relaxed);
    let result = request.dispatch().instrument(span.clone()).await;
    if let Ok(out) = &result
        && let Some(units) = units(R::consumed(out))
    {
        span.record("consumed_capacity", units);
    }
    result
}

/// The capacity units of a response, if it reported any.
pub(crate) fn units(capacity: &[ConsumedCapacity]) -> Option<f64> {
    (!capacity.is_empty()).then(|| capacity.iter().filter_map(ConsumedCapacity::capacity_units).sum())
}

/// The span of one request of an entity (or collection, or view) operation.
pub(crate) fn span(operation: &'static str, table: &str, entity: &str, index: Option<&str>) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb",
        operation,
        table,
        entity,
        index = index.unwrap_or(""),
        items = Empty,
        consumed_capacity = Empty,
    )
}

macro_rules! requests {
    ($($module:ident $builder:ident $output:ident $error:ident $consumed:ident;)*) => {$(
        impl Request for aws_sdk_dynamodb::operation::$module::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$module::$output;
            type Error = aws_sdk_dynamodb::error::SdkError<
                aws_sdk_dynamodb::operation::$module::$error,
                aws_sdk_dynamodb::config::http::HttpResponse,
            >;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                self.send()
            }
            fn consumed(output: &Self::Output) -> &[ConsumedCapacity] {
                requests!(@consumed $consumed output)
            }
        }
    )*};
    (@consumed one $o:ident) => { $o.consumed_capacity().map(std::slice::from_ref).unwrap_or_default() };
    (@consumed many $o:ident) => { $o.consumed_capacity() };
    (@consumed none $o:ident) => {{ let _ = $o; &[] }};
}

requests! {
    put_item PutItemFluentBuilder PutItemOutput PutItemError one;
    delete_item DeleteItemFluentBuilder DeleteItemOutput DeleteItemError one;
    get_item GetItemFluentBuilder GetItemOutput GetItemError one;
    update_item UpdateItemFluentBuilder UpdateItemOutput UpdateItemError one;
    query QueryFluentBuilder QueryOutput QueryError one;
    scan ScanFluentBuilder ScanOutput ScanError one;
    batch_write_item BatchWriteItemFluentBuilder BatchWriteItemOutput BatchWriteItemError many;
    batch_get_item BatchGetItemFluentBuilder BatchGetItemOutput BatchGetItemError many;
    transact_write_items TransactWriteItemsFluentBuilder TransactWriteItemsOutput TransactWriteItemsError many;
    transact_get_items TransactGetItemsFluentBuilder TransactGetItemsOutput TransactGetItemsError many;
    describe_table DescribeTableFluentBuilder DescribeTableOutput DescribeTableError none;
    create_table CreateTableFluentBuilder CreateTableOutput CreateTableError none;
    update_time_to_live UpdateTimeToLiveFluentBuilder UpdateTimeToLiveOutput UpdateTimeToLiveError none;
    update_continuous_backups UpdateContinuousBackupsFluentBuilder UpdateContinuousBackupsOutput UpdateContinuousBackupsError none;
}

/// A batch request with an interceptor of its own (the batch retry loop counts the SDK's attempts).
macro_rules! customized {
    ($($module:ident $builder:ident $output:ident $error:ident;)*) => {$(
        impl Request
            for aws_sdk_dynamodb::client::customize::CustomizableOperation<
                aws_sdk_dynamodb::operation::$module::$output,
                aws_sdk_dynamodb::operation::$module::$error,
                aws_sdk_dynamodb::operation::$module::builders::$builder,
            >
        {
            type Output = aws_sdk_dynamodb::operation::$module::$output;
            type Error = aws_sdk_dynamodb::error::SdkError<
                aws_sdk_dynamodb::operation::$module::$error,
                aws_sdk_dynamodb::config::http::HttpResponse,
            >;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                self.send()
            }
            fn consumed(output: &Self::Output) -> &[ConsumedCapacity] {
                output.consumed_capacity()
            }
        }
    )*};
}

customized! {
    batch_write_item BatchWriteItemFluentBuilder BatchWriteItemOutput BatchWriteItemError;
    batch_get_item BatchGetItemFluentBuilder BatchGetItemOutput BatchGetItemError;
}

/// DynamoDB Streams requests: no capacity is reported.
#[cfg(feature = "streams")]
macro_rules! streams {
    ($($module:ident $builder:ident $output:ident $error:ident;)*) => {$(
        impl Request for aws_sdk_dynamodbstreams::operation::$module::builders::$builder {
            type Output = aws_sdk_dynamodbstreams::operation::$module::$output;
            type Error = aws_sdk_dynamodbstreams::error::SdkError<
                aws_sdk_dynamodbstreams::operation::$module::$error,
                aws_sdk_dynamodbstreams::config::http::HttpResponse,
            >;
            fn dispatch(self) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
                self.send()
            }
            fn consumed(_: &Self::Output) -> &[ConsumedCapacity] {
                &[]
            }
        }
    )*};
}

#[cfg(feature = "streams")]
streams! {
    describe_stream DescribeStreamFluentBuilder DescribeStreamOutput DescribeStreamError;
    get_shard_iterator GetShardIteratorFluentBuilder GetShardIteratorOutput GetShardIteratorError;
    get_records GetRecordsFluentBuilder GetRecordsOutput GetRecordsError;
}
