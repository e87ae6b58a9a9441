//! The SDK's attempts of one request, counted: how many were sent, and how many DynamoDB refused
//! with a 4xx answer (which it did not apply). A batch's retry loop needs both to say, of a request
//! that failed, whether any of it may have been written.
//!
//! One interceptor ([`Counter`]) is part of every table's client (added once, by [`counting`]),
//! and it counts into the [`Attempts`] of the request being polled ([`counted`]: a task-local
//! value set while the request's future runs). An interceptor of the request's own, added with
//! `.customize()`, copied the request's builder into a boxed operation and built a configuration
//! layer and the runtime's plugins again for every batch request: about 6k instructions a
//! request (issue 51). On the client, the counter costs every other request two calls that find
//! no count to add to: it tells the SDK which two hooks it overrides (the SDK skips the
//! others), and it is never disabled (the SDK asks no configuration whether it is).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// The counts of one request's attempts: sent, and refused with a 4xx answer.
#[derive(Debug, Default, Clone)]
pub(crate) struct Attempts(Arc<(AtomicU32, AtomicU32)>);

impl Attempts {
    /// Whether nothing of the request can have been applied: every attempt sent was refused.
    pub(crate) fn none_applied(&self) -> bool {
        self.0.0.load(Ordering::Relaxed) == self.0.1.load(Ordering::Relaxed)
    }
}

tokio::task_local! {
    /// The counts of the request whose future is being polled, if it is counted.
    static CURRENT: Attempts;
}

/// `request` (an SDK request's future), with its attempts counted into `attempts`. The client it
/// was sent with must be one [`counting`] returned; else nothing is counted.
pub(crate) fn counted<F: Future>(attempts: Attempts, request: F) -> impl Future<Output = F::Output> {
    CURRENT.scope(attempts, request)
}

/// The interceptor that counts the attempts of a [`counted`] request (and does nothing for the
/// others: a single-item request, a query).
#[derive(Debug, Clone, Copy)]
struct Counter;

const NAME: &str = "dynamo_entity::Attempts";

#[aws_smithy_runtime_api::client::interceptors::dyn_dispatch_hint]
impl Intercept for Counter {
    fn name(&self) -> &'static str {
        NAME
    }

    fn read_before_transmit(
        &self,
        _: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let _ = CURRENT.try_with(|a| a.0.0.fetch_add(1, Ordering::Relaxed));
        Ok(())
    }

    fn read_before_deserialization(
        &self,
        context: &BeforeDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if context.response().status().is_client_error() {
            let _ = CURRENT.try_with(|a| a.0.1.fetch_add(1, Ordering::Relaxed));
        }
        Ok(())
    }
}

/// `client` with the attempt counter among its interceptors (itself if it has it already: a
/// table's client given to another table).
pub(crate) fn counting(client: Client) -> Client {
    if client.config().interceptors().any(|i| i.name() == NAME) {
        return client;
    }
    super::with_interceptor(&client, Counter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"));
        Client::from_conf(config.build())
    }

    #[test]
    fn the_counter_is_added_once() {
        let once = counting(client());
        let named = |c: &Client| c.config().interceptors().filter(|i| i.name() == NAME).count();
        assert_eq!(named(&once), 1);
        assert_eq!(named(&counting(once)), 1);
    }
}
