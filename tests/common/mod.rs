//! Shared by the integration tests: one DynamoDB Local per test binary, one table per test.
#![allow(dead_code)]

pub mod spans;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use dynamo_entity::{EntitySchema, Table};

/// A fresh table for `entities` on the shared DynamoDB Local (or `AWS_ENDPOINT_URL_DYNAMODB`),
/// named after `test`, this process and a counter: no two tests (nor two runs of one binary
/// against one endpoint) share a table.
///
/// Installs the binary's span capture first ([`spans::install`]), so that it exists before
/// any request of any test.
pub async fn table(test: &str, entities: &[EntitySchema]) -> Table {
    static N: AtomicU32 = AtomicU32::new(0);
    spans::install();
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("{test}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let table = Table::new(client, name);
    table.create_table(entities).await.expect("create table");
    table
}

/// Replaces the answer an SDK interceptor is about to deserialize (`ctx.response_mut()`) with
/// `status` and `body`, as DynamoDB would have sent them: how the tests inject what DynamoDB
/// Local never answers (throttling, cancellations, unprocessed items, unknown types). The same
/// context type serves the DynamoDB and the DynamoDB Streams clients.
pub fn answer(
    ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
    status: u16,
    body: String,
) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
    let response = ctx.response_mut();
    *response.status_mut() = status.try_into()?;
    response.headers_mut().remove("x-amz-crc32");
    response.headers_mut().insert("content-length", body.len().to_string());
    *response.body_mut() = body.into();
    Ok(())
}

/// Every item of the table, as stored (a raw scan, every page).
pub async fn raw_items(table: &Table) -> Vec<dynamo_entity::Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = table.client().scan().table_name(table.name()).set_exclusive_start_key(start).send().await.unwrap();
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}

/// Counts the operations the SDK executes (once per operation, whatever its retries): the
/// requests a test's table really sent, independently of the table's own count.
#[derive(Debug, Clone, Default)]
pub struct Executed(pub Arc<AtomicU64>);

impl Executed {
    /// The operations executed so far.
    pub fn count(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl Intercept for Executed {
    fn name(&self) -> &'static str {
        "Executed"
    }

    fn read_before_serialization(
        &self,
        _: &BeforeSerializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}
