//! Counts the requests a client sends, so that the examples can show how many requests each
//! access pattern takes (one Query, one BatchGetItem, ...), as the designs promise.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// The number of requests (HTTP attempts) sent so far.
#[derive(Debug, Clone, Default)]
pub struct Requests(Arc<AtomicUsize>);

impl Requests {
    /// Requests sent since the last call.
    pub fn take(&self) -> usize {
        self.0.swap(0, Ordering::Relaxed)
    }
}

#[derive(Debug)]
struct Counter(Requests);

impl Intercept for Counter {
    fn name(&self) -> &'static str {
        "RequestCounter"
    }

    fn read_before_transmit(
        &self,
        _: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// `client` with a request counter.
pub fn counted(client: &Client) -> (Client, Requests) {
    let requests = Requests::default();
    let config = client.config().to_builder().interceptor(Counter(requests.clone())).build();
    (Client::from_conf(config), requests)
}
