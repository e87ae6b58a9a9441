//! Whether a write may be sent again after a failure that leaves its outcome unknown.
//!
//! The SDK's standard retry strategy sends a request again after a throttling answer (nothing was
//! applied), but also after an attempt timeout, a lost connection or answer, and a 5xx answer
//! (`InternalServerError`, `ServiceUnavailable`): after those, the first attempt may have been
//! applied. For an idempotent request (a put, a delete, an update that only sets values, a
//! transaction, whose token the SDK sends unchanged on every attempt) that is harmless. For the
//! others it is not:
//!
//! - [`Replay::Never`]: a write that is not idempotent (an `ADD`, a list append, the increment of
//!   a `#[version]`) is sent again only after an answer that says nothing was applied (a 4xx
//!   answer: throttling above all); after any other failure the SDK does not retry it and the
//!   caller returns [`Error::Indeterminate`](crate::error::Error::Indeterminate).
//! - [`Replay::Checked`]: a conditional write is retried as usual, but [`Watch::unknown`] says
//!   whether an attempt before the last one failed without an answer: a refused condition is then
//!   no proof that the write did not happen (the first attempt may be what made it fail), and the
//!   caller returns `Indeterminate` rather than `AlreadyExists`, `VersionConflict`, `NotFound` or
//!   `ConditionFailed`.
//!
//! A [`Watch`] is the request's own retry classifier (added with `.customize().config_override`),
//! so the client's other retry settings (attempts, backoff, its own classifiers) stay as they are.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::interceptors::InterceptorContext;
use aws_sdk_dynamodb::config::retry::{ClassifyRetry, RetryAction};
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// How a write may be sent again after a failure that leaves its outcome unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replay {
    /// Idempotent and unconditional: the SDK's retries as they are.
    Safe,
    /// Idempotent but conditional: retried, and an unknown outcome before a refused condition is
    /// noted ([`Watch::unknown`]).
    Checked,
    /// Not idempotent: retried only after an answer that says nothing was applied.
    Never,
}

/// The retry classifier of one request: forbids the SDK's retry of a [`Replay::Never`] write after
/// a failure that leaves its outcome unknown, and notes every such failure.
#[derive(Debug, Clone)]
pub(crate) struct Watch {
    replay: Replay,
    unknown: Arc<AtomicBool>,
}

impl Watch {
    pub(crate) fn new(replay: Replay) -> Watch {
        Watch { replay, unknown: Arc::new(AtomicBool::new(false)) }
    }

    pub(crate) fn replay(&self) -> Replay {
        self.replay
    }

    /// Whether an attempt failed without an answer that says whether it was applied.
    pub(crate) fn unknown(&self) -> bool {
        self.unknown.load(Ordering::Relaxed)
    }

    /// Whether the failed request `error` may have been applied, as this watch saw its attempts:
    /// the last attempt's error, or (for a refused condition) an earlier attempt's.
    pub(crate) fn may_have_applied<E: ProvideErrorMetadata>(&self, error: &SdkError<E, HttpResponse>) -> bool {
        unknown_outcome(error) || self.unknown()
    }
}

impl ClassifyRetry for Watch {
    fn classify_retry(&self, ctx: &InterceptorContext) -> RetryAction {
        let Some(Err(_)) = ctx.output_or_error() else { return RetryAction::NoActionIndicated };
        // A 4xx answer is DynamoDB's refusal of the whole request: nothing of it was applied.
        // Anything else (no answer, a 5xx, an answer that could not be read) may have been.
        let refused = ctx.response().is_some_and(|r| (400..500).contains(&r.status().as_u16()));
        if refused {
            return RetryAction::NoActionIndicated;
        }
        self.unknown.store(true, Ordering::Relaxed);
        match self.replay {
            Replay::Never => RetryAction::RetryForbidden,
            Replay::Safe | Replay::Checked => RetryAction::NoActionIndicated,
        }
    }

    fn name(&self) -> &'static str {
        "dynamo-entity: no resend of a write that may have applied"
    }
}

/// Whether the failed request `error` may have been applied: anything but a request never built
/// or DynamoDB's 4xx answer (a refusal of the whole request). A timeout, a lost connection, a 5xx
/// answer, or an answer that could not be read leave it unknown; so does
/// `TransactionInProgressException`, a 4xx answer that refuses this attempt because an earlier
/// one under the same token is still being applied (it may yet apply).
pub(crate) fn unknown_outcome<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> bool {
    match error {
        SdkError::ConstructionFailure(_) => false,
        SdkError::ServiceError(e) => {
            !(400..500).contains(&e.raw().status().as_u16()) || e.err().code() == Some(IN_PROGRESS)
        }
        _ => true,
    }
}

/// DynamoDB's answer to a transaction whose token an earlier, unfinished attempt carries.
const IN_PROGRESS: &str = "TransactionInProgressException";

/// A `ClientRequestToken` of the library's (an idempotent update's, a guarded transaction's that
/// the caller gave none): 128 random bits (35 characters; DynamoDB takes 1 to 36).
pub(crate) fn token() -> String {
    format!("de-{:032x}", fastrand::u128(..))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::operation::update_item::UpdateItemError;

    fn answered(status: u16) -> SdkError<UpdateItemError, HttpResponse> {
        let raw = HttpResponse::new(status.try_into().unwrap(), "".into());
        let meta = aws_sdk_dynamodb::error::ErrorMetadata::builder().code("Any").build();
        SdkError::service_error(UpdateItemError::generic(meta), raw)
    }

    #[test]
    fn refusals_are_known_outcomes_and_the_rest_is_unknown() {
        assert!(!unknown_outcome(&answered(400)));
        let raw = HttpResponse::new(400.try_into().unwrap(), "".into());
        let meta = aws_sdk_dynamodb::error::ErrorMetadata::builder().code(IN_PROGRESS).build();
        assert!(unknown_outcome(&SdkError::service_error(UpdateItemError::generic(meta), raw)));
        assert!(unknown_outcome(&answered(500)));
        assert!(unknown_outcome(&answered(503)));
        let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "attempt timeout (test)");
        assert!(unknown_outcome::<UpdateItemError>(&SdkError::timeout_error(io)));
        let io = std::io::Error::other("not built (test)");
        assert!(!unknown_outcome::<UpdateItemError>(&SdkError::construction_failure(io)));
    }
}
