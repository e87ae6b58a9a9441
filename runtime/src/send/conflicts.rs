//! Writes refused for a replicated write conflict (DynamoDB's `ReplicatedWriteConflictException`:
//! another Region of a global table with multi-Region strong consistency wrote the same item at
//! the same time). DynamoDB's model marks the error retryable, and the SDK sends such a write again
//! within its own retry settings. A handle that knows its table is MRSC (`Table::on_global_table`)
//! retries it as transactions cancelled by a conflict are retried instead: [`send`](super::send)
//! sends it again after [`conflict_backoff`](super::conflict_backoff), up to
//! [`DEFAULT_CONFLICT_RETRIES`](super::DEFAULT_CONFLICT_RETRIES) times; [`NoSdkRetry`] keeps the
//! SDK from sending it again inside each of those attempts.

use aws_sdk_dynamodb::config::interceptors::InterceptorContext;
use aws_sdk_dynamodb::config::retry::{ClassifyRetry, RetryAction};
use aws_sdk_dynamodb::operation::{delete_item::DeleteItemError, put_item::PutItemError, update_item::UpdateItemError};

/// The retry classifier of an MRSC handle's client: no SDK retry of a single-item write refused
/// for a replicated write conflict (the send path retries it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoSdkRetry;

impl ClassifyRetry for NoSdkRetry {
    fn classify_retry(&self, ctx: &InterceptorContext) -> RetryAction {
        let Some(Err(e)) = ctx.output_or_error() else { return RetryAction::NoActionIndicated };
        let Some(e) = e.as_operation_error() else { return RetryAction::NoActionIndicated };
        let conflict = e
            .downcast_ref::<PutItemError>()
            .is_some_and(PutItemError::is_replicated_write_conflict_exception)
            || e.downcast_ref::<UpdateItemError>().is_some_and(UpdateItemError::is_replicated_write_conflict_exception)
            || e.downcast_ref::<DeleteItemError>().is_some_and(DeleteItemError::is_replicated_write_conflict_exception);
        if conflict { RetryAction::RetryForbidden } else { RetryAction::NoActionIndicated }
    }

    fn name(&self) -> &'static str {
        "dynamo-entity: replicated write conflicts retried by the send path"
    }
}

/// `client` with [`NoSdkRetry`] among its retry classifiers.
pub(crate) fn retried_by_send(client: &aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
    let config = client.config().to_builder().retry_classifier(NoSdkRetry);
    aws_sdk_dynamodb::Client::from_conf(config.build())
}
