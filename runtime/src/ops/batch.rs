//! Batch operations on [`Table`]: `BatchWriteItem` and `BatchGetItem` for any number of items.
//! Behaviour: see [`Batch`].

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextRef, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{BoxError, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest};
use futures_util::StreamExt;
use tracing::Instrument;
use tracing::field::Empty;

use crate::error::Error;
use crate::error::{build_error, sdk_error};
use crate::model::Item;
use crate::model::collection::{ReadKey, Readable};
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::entity::EntitySchema;
use crate::send::{Meter, send, units};
use crate::size::check_item;
use crate::table::Table;

/// DynamoDB's largest `BatchWriteItem`: 25 put or delete requests.
const WRITE_CHUNK: usize = 25;
/// DynamoDB's largest `BatchGetItem`: 100 keys.
const GET_CHUNK: usize = 100;
/// Error codes that mean "too fast, try again later".
const THROTTLING: [&str; 3] = ["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"];

/// How batch operations split, pace and retry their requests. See [`Table::batch`].
///
/// ```
/// use std::time::Duration;
/// use dynamo_entity_runtime::BatchOptions;
///
/// let options = BatchOptions::default()
///     .with_concurrency(8)
///     .with_max_attempts(12)
///     .with_backoff(Duration::from_millis(25), Duration::from_secs(5));
/// assert_eq!(options.concurrency(), 8);
/// assert_eq!(BatchOptions::default().max_attempts(), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    concurrency: usize,
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for BatchOptions {
    /// 4 chunks in flight, 8 requests per chunk, backoff from 50 ms up to 2 s.
    fn default() -> Self {
        BatchOptions {
            concurrency: Self::DEFAULT_CONCURRENCY,
            max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
            base_delay: Self::DEFAULT_BASE_DELAY,
            max_delay: Self::DEFAULT_MAX_DELAY,
        }
    }
}

impl BatchOptions {
    /// Chunks in flight at once by default.
    pub const DEFAULT_CONCURRENCY: usize = 4;
    /// Requests per chunk by default: the first one and up to 7 retries.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 8;
    /// The backoff's base delay by default.
    pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(50);
    /// The backoff's largest delay by default.
    pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(2);

    /// The defaults (same as [`Default::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `n` chunks in flight at once (0 counts as 1).
    #[must_use]
    pub fn with_concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// At most `n` requests per chunk, the first one included (0 counts as 1: no retry).
    #[must_use]
    pub fn with_max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    /// Before the `n`-th retry of a chunk, wait a random delay between zero and
    /// `min(max, base × 2ⁿ⁻¹)` ("full jitter").
    #[must_use]
    pub fn with_backoff(mut self, base: Duration, max: Duration) -> Self {
        self.base_delay = base;
        self.max_delay = max;
        self
    }

    /// Chunks in flight at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Requests per chunk, the first one included.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The backoff's base delay.
    pub fn base_delay(&self) -> Duration {
        self.base_delay
    }

    /// The backoff's largest delay.
    pub fn max_delay(&self) -> Duration {
        self.max_delay
    }

    /// The delay before the `retry`-th retry (1 for the first).
    fn delay(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry.saturating_sub(1)).unwrap_or(u32::MAX);
        let ceiling = self.base_delay.saturating_mul(factor).min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// Batch operations with chosen [`BatchOptions`]; [`Table::batch_put`], [`Table::batch_delete`]
/// and [`Table::batch_get`] are the same with the default options.
///
/// ```no_run
/// # use dynamo_entity_runtime::{BatchOptions, Entity, EntityKey, Error, Table};
/// # async fn demo<E: Entity + Clone>(table: Table, items: Vec<E>) -> Result<(), Error> {
/// table.batch_put(&items).await?;                                  // any number of items
/// let keys: Vec<E::Key> = items.iter().map(Entity::primary_key).collect();
/// let read: Vec<E> = table.batch_get(keys.clone()).await?;        // in the order of the keys
/// match table.batch(BatchOptions::default().with_max_attempts(3)).delete(keys).await {
///     Err(Error::Unprocessed { keys, .. }) => { /* exactly these were not deleted */ }
///     other => other?,
/// }
/// # Ok(()) }
/// ```
///
/// - **Any number of items.** The call is split into chunks of 25 items (`BatchWriteItem`) or
///   100 keys (`BatchGetItem`), DynamoDB's limits; at most [`BatchOptions::concurrency`] chunks
///   (4 by default) are in flight at once.
/// - **Validated before anything is sent.** Every item goes through [`Entity::to_item`], the
///   400 KB size check and the number check (finite, 38 digits, DynamoDB's range), every key
///   through [`EntityKey::to_key_item`]; the first failure is the call's error and no request is
///   made.
/// - **Duplicate keys.** DynamoDB rejects a batch that names the same key twice. Two items with
///   the same primary key in one [`Table::batch_put`] are an [`Error::Validation`] naming the key
///   (which of the two should win is ambiguous), and nothing is written. [`Table::batch_delete`]
///   and [`Table::batch_get`] drop repeated keys silently (the result is the same).
/// - **Retries.** Items DynamoDB returns as `UnprocessedItems` / `UnprocessedKeys`, and whole
///   chunks refused with a throttling error (`ProvisionedThroughputExceededException`,
///   `ThrottlingException`, `RequestLimitExceeded`, once the SDK's own retries gave up), are
///   sent again after a delay with exponential backoff and full jitter: before the `n`-th retry,
///   a random delay between zero and `min(max_delay, base_delay × 2ⁿ⁻¹)` (50 ms and 2 s by
///   default). Each chunk makes at most [`BatchOptions::max_attempts`] requests (8 by default:
///   the first and 7 retries), each carrying only what is still unprocessed.
/// - **Nothing dropped silently.** If items are still unprocessed when a chunk's budget is
///   spent, the other chunks still run to completion and the call returns
///   [`Error::Unprocessed`] listing the keys of exactly the items that were not written (or not
///   read), in the order they were given: every other item of the call was written (read).
/// - **Not atomic, but accounted for.** Any other error (a missing table, a validation error of
///   DynamoDB, a timeout, a broken connection, a network failure the SDK's retries did not
///   overcome) stops the call: no further chunk is started, chunks in flight stop retrying, and
///   once none is in flight a write returns [`Error::BatchWrite`]. It holds the error and a
///   [`BatchWriteOutcome`] that puts every key of the call in exactly one list: **written**
///   (DynamoDB confirmed it), **not written** (never sent, refused as a whole with a 4xx answer,
///   or still unprocessed), or **unknown** (sent in a request whose outcome is unknown: a
///   timeout, a lost connection, a 5xx answer). The outcome of a request is judged over all of
///   its HTTP attempts (the SDK's retries included): it counts as not applied only if every
///   attempt that was sent was refused. To complete the call, write the keys of
///   [`BatchWriteOutcome::to_replay`] again (not written and unknown; puts and deletes are
///   idempotent, so replaying one that was written is harmless). A read simply returns the
///   error. For all-or-nothing writes use a transaction (`TransactWriteItems`, up to 100
///   items). Dropping the returned future leaves requests in flight undetermined.
/// - **Reads** are eventually consistent. [`Table::batch_get`] returns the items found, in the
///   order of the keys given (first occurrence of a repeated key); keys without item are simply
///   absent. Items are decoded with [`Entity::from_item`]: a malformed item is an
///   [`Error::Decode`] or [`Error::Key`], never a panic.
/// - **Tracing.** A `dynamodb_batch` span per call (operation, table, entity, `sent`: items or
///   distinct keys of the call, chunks, `items` returned, retries, unprocessed, total consumed
///   capacity) holds a `dynamodb` span per request (operation, table, entity, `index` (empty),
///   attempt, `sent`, `items` returned, unprocessed, throttled, consumed capacity). Never item
///   values or keys.
#[derive(Debug, Clone)]
pub struct Batch {
    table: Table,
    options: BatchOptions,
}

/// Partition-key and sort-key text: the identity of an item.
type KeyText = (String, Option<String>);

/// One item or key of a call: its position, its key, and what is sent for it.
struct Entry<R> {
    index: usize,
    key: KeyText,
    request: R,
}

/// What one chunk (or, summed, a whole call) did, by position of the entries.
#[derive(Default)]
struct Outcome {
    /// Entries DynamoDB processed (written, or read).
    done: Vec<usize>,
    /// Entries never processed: not sent, refused, or still unprocessed when the budget was spent.
    unprocessed: Vec<usize>,
    /// Entries of a request whose outcome is unknown (a timeout, a broken connection, a 5xx).
    unknown: Vec<usize>,
    /// Items read, with the position of their key.
    found: Vec<(usize, Item)>,
    /// The error that stopped the chunk.
    error: Option<Error>,
    retries: u32,
    capacity: f64,
}

impl Outcome {
    fn merge(&mut self, mut other: Outcome) {
        self.done.append(&mut other.done);
        self.unprocessed.append(&mut other.unprocessed);
        self.unknown.append(&mut other.unknown);
        self.found.append(&mut other.found);
        if self.error.is_none() {
            self.error = other.error;
        }
        self.retries += other.retries;
        self.capacity += other.capacity;
    }
}

/// One key of a batch write, and its position in the call (in the items given to
/// [`Table::batch_put`], or among the distinct keys given to [`Table::batch_delete`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BatchKey {
    /// Position in the call.
    pub index: usize,
    /// Partition-key text.
    pub pk: String,
    /// Sort-key text, for a table with a sort key.
    pub sk: Option<String>,
}

/// What a batch write that stopped part way did, key by key: each key of the call is in exactly
/// one of the three lists, each in the order given. See [`Error::BatchWrite`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BatchWriteOutcome {
    /// Written (put or deleted): DynamoDB confirmed them.
    pub written: Vec<BatchKey>,
    /// Not written: never sent, refused as a whole by DynamoDB (a 4xx answer), or still
    /// unprocessed when the call stopped.
    pub not_written: Vec<BatchKey>,
    /// Sent in a request whose outcome is unknown (a timeout, a broken connection, a 5xx
    /// answer): each may or may not have been written.
    pub unknown: Vec<BatchKey>,
}

impl BatchWriteOutcome {
    /// The keys to send again to complete the call: not written and unknown, in the order given.
    /// Puts and deletes are idempotent, so replaying an unknown one that was written is harmless.
    pub fn to_replay(&self) -> Vec<&BatchKey> {
        let mut keys: Vec<&BatchKey> = self.not_written.iter().chain(&self.unknown).collect();
        keys.sort_unstable_by_key(|k| k.index);
        keys
    }

    /// "N written, N not written, N unknown".
    pub fn summary(&self) -> String {
        format!(
            "{} written, {} not written, {} unknown",
            self.written.len(),
            self.not_written.len(),
            self.unknown.len()
        )
    }
}

fn key_text_of(schema: &EntitySchema, item: &Item) -> Result<KeyText, Error> {
    crate::error::item_key(schema, item).ok_or_else(|| {
        Error::Validation(format!("{} item or key lacks its key attributes as strings", schema.entity_type))
    })
}

fn describe_key(schema: &EntitySchema, (pk, sk): &KeyText) -> String {
    match (schema.sk, sk) {
        (Some(sk_schema), Some(sk)) => format!("{} `{pk}`, {} `{sk}`", schema.pk.attr, sk_schema.attr),
        _ => format!("{} `{pk}`", schema.pk.attr),
    }
}

fn write_request_key(schema: &EntitySchema, request: &WriteRequest) -> Option<KeyText> {
    match (request.put_request(), request.delete_request()) {
        (Some(put), _) => crate::error::item_key(schema, &put.item),
        (None, Some(delete)) => crate::error::item_key(schema, &delete.key),
        (None, None) => None,
    }
}

/// Rebuilds the write request of entry `i` for a retry.
type Rebuild<'a> = dyn Fn(usize) -> Result<WriteRequest, Error> + Sync + 'a;

fn put_request(item: Item) -> Result<WriteRequest, Error> {
    let put = PutRequest::builder().set_item(Some(item)).build().map_err(build_error)?;
    Ok(WriteRequest::builder().put_request(put).build())
}

fn delete_request(key: Item) -> Result<WriteRequest, Error> {
    let delete = DeleteRequest::builder().set_key(Some(key)).build().map_err(build_error)?;
    Ok(WriteRequest::builder().delete_request(delete).build())
}

fn is_throttling<E: ProvideErrorMetadata, R>(e: &SdkError<E, R>) -> bool {
    e.as_service_error().and_then(ProvideErrorMetadata::code).is_some_and(|code| THROTTLING.contains(&code))
}

fn call_span(operation: &'static str, table: &str, schema: &EntitySchema, sent: usize, chunks: usize) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb_batch",
        operation,
        table,
        entity = schema.entity_type,
        sent,
        chunks,
        items = Empty,
        retries = Empty,
        unprocessed = Empty,
        consumed_capacity = Empty,
    )
}

fn request_span(
    operation: &'static str,
    table: &str,
    schema: &EntitySchema,
    attempt: u32,
    sent: usize,
) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb",
        operation,
        table,
        entity = schema.entity_type,
        index = "",
        attempt,
        sent,
        items = Empty,
        unprocessed = Empty,
        throttled = Empty,
        consumed_capacity = Empty,
    )
}

/// Keeps the entries whose key DynamoDB reported unprocessed. If a reported entry cannot be
/// matched to a key (DynamoDB never does that), every entry is kept: sending an item twice is
/// harmless, dropping one is not.
fn keep_unprocessed<R>(entries: &mut Vec<Entry<R>>, reported: usize, left: &HashSet<KeyText>) {
    if left.len() == reported {
        entries.retain(|e| left.contains(&e.key));
    }
}

/// Runs the chunk futures, at most `concurrency` at once. On the first error, raises `abort`
/// (chunks not yet started return at once, running ones stop retrying); every chunk returns,
/// and the call's outcome holds the first error.
async fn drive<F>(chunks: impl Iterator<Item = F>, concurrency: usize, abort: &AtomicBool) -> Outcome
where
    F: Future<Output = Outcome>,
{
    let mut running = futures_util::stream::iter(chunks).buffer_unordered(concurrency);
    let mut total = Outcome::default();
    while let Some(outcome) = running.next().await {
        if outcome.error.is_some() {
            abort.store(true, Ordering::Relaxed);
        }
        total.merge(outcome);
    }
    total
}

/// Counts the HTTP attempts of one request, and those DynamoDB refused with a 4xx answer
/// (which it did not apply).
#[derive(Debug, Default, Clone)]
struct Attempts(Arc<(AtomicU32, AtomicU32)>);

impl Attempts {
    /// Whether nothing of the request can have been applied: every attempt sent was refused.
    fn none_applied(&self) -> bool {
        self.0.0.load(Ordering::Relaxed) == self.0.1.load(Ordering::Relaxed)
    }
}

impl Intercept for Attempts {
    fn name(&self) -> &'static str {
        "dynamo_entity::batch::Attempts"
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

    fn read_before_deserialization(
        &self,
        context: &BeforeDeserializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if context.response().status().is_client_error() {
            self.0.1.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// What one request of a chunk came back with.
#[derive(Default)]
struct Answer {
    /// Capacity units, if the response reported any.
    capacity: Option<f64>,
    /// Items read (`BatchGetItem`).
    found: Vec<Item>,
    /// How many entries DynamoDB reported unprocessed, and their keys.
    reported: usize,
    left: HashSet<KeyText>,
}

/// Why a request of a chunk failed.
struct Failure {
    /// Throttled as a whole: nothing was processed, try again later.
    throttled: bool,
    /// Nothing of it can have been applied (never sent, or refused with a 4xx answer).
    none_applied: bool,
    error: Error,
}

fn failure<E, R>(e: SdkError<E, R>, attempts: &Attempts) -> Failure
where
    E: ProvideErrorMetadata,
    aws_sdk_dynamodb::Error: From<SdkError<E, R>>,
{
    let throttled = is_throttling(&e);
    let none_applied = matches!(e, SdkError::ConstructionFailure(_)) || attempts.none_applied();
    Failure { throttled, none_applied, error: sdk_error(e) }
}

impl Table {
    /// Batch operations with other [`BatchOptions`] (concurrency, retry budget, backoff).
    pub fn batch(&self, options: BatchOptions) -> Batch {
        Batch { table: self.clone(), options }
    }

    /// Writes every item (`BatchWriteItem`, 25 per request), replacing items with the same
    /// keys, with the default [`BatchOptions`].
    ///
    /// Every item is converted and size-checked first; two items with the same primary key are
    /// an [`Error::Validation`] naming it. Nothing is sent then. Unprocessed items and throttled
    /// requests are retried; items still unprocessed after the budget are listed in
    /// [`Error::Unprocessed`] (all others were written). Not atomic: any other error is
    /// [`Error::BatchWrite`], which says for every key whether it was written, not written, or
    /// is unknown. See [`Batch`] for the details.
    pub async fn batch_put<E: Entity>(&self, items: &[E]) -> Result<(), Error> {
        self.batch(BatchOptions::default()).put(items).await
    }

    /// Deletes the items with these keys (`BatchWriteItem`, 25 per request), with the default
    /// [`BatchOptions`]. Deleting a key without item does nothing; a repeated key is deleted once.
    ///
    /// Retries and errors as [`Table::batch_put`].
    pub async fn batch_delete<K: EntityKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<(), Error> {
        self.batch(BatchOptions::default()).delete(keys).await
    }

    /// Reads the items with these keys (`BatchGetItem`, 100 per request, eventually consistent),
    /// with the default [`BatchOptions`].
    ///
    /// The items found, in the order of the keys given; a key without item is absent from the
    /// result, a repeated key gives its item once. Unprocessed keys and throttled requests are
    /// retried; keys still unprocessed after the budget are listed in [`Error::Unprocessed`]
    /// (the items that were read are not returned then: call again). Items that cannot be
    /// decoded are [`Error::BadItems`], which holds every good item (a `Page` without cursor:
    /// `partial.into_page::<T>()`) beside one [`Error::Decode`] per bad item, as a query's.
    ///
    /// Keys of an entity give the entity; keys of a collection (`<Collection>Key`, of several
    /// member types) give the collection enum.
    pub async fn batch_get<K: ReadKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<Vec<K::Output>, Error> {
        self.batch(BatchOptions::default()).get(keys).await
    }
}

/// Whether `schema`'s items may be written by a batch (`op`; `single` is the one-item write
/// that can do it instead). `BatchWriteItem` carries no condition: a `#[version]` could not be
/// checked, so a stale writer would overwrite or delete a newer item silently.
fn batch_writable(schema: &crate::model::entity::EntitySchema, op: &str, single: &str) -> Result<(), Error> {
    match schema.version_attr {
        Some(attr) => Err(Error::Validation(format!(
            "{op} of {}: its `#[version]` (`{attr}`) cannot be checked in a batch; use {single} or a transaction",
            schema.entity_type
        ))),
        None => Ok(()),
    }
}

impl Batch {
    /// The options in use.
    pub fn options(&self) -> &BatchOptions {
        &self.options
    }

    /// [`Table::batch_put`] with these options.
    pub async fn put<E: Entity>(&self, items: &[E]) -> Result<(), Error> {
        let schema = &E::SCHEMA;
        batch_writable(schema, "batch_put", "put")?;
        let mut first_of: HashMap<KeyText, usize> = HashMap::with_capacity(items.len());
        let mut entries = Vec::with_capacity(items.len());
        for (index, entity) in items.iter().enumerate() {
            let item = entity.to_item()?;
            check_item(schema.entity_type, &item)?;
            let key = key_text_of(schema, &item)?;
            if let Some(first) = first_of.insert(key.clone(), index) {
                return Err(Error::Validation(format!(
                    "batch_put: items {first} and {index} have the same key ({}); DynamoDB refuses a key twice \
                     in one batch, and which of them should be written is ambiguous",
                    describe_key(schema, &key)
                )));
            }
            entries.push(Entry { index, key, request: Some(put_request(item)?) });
        }
        // A retry re-encodes the few unprocessed items rather than keeping a copy of every item.
        let rebuild = |i: usize| match items.get(i) {
            Some(entity) => put_request(entity.to_item()?),
            None => Err(Error::Validation(format!("batch_put: no item {i}"))),
        };
        self.write(schema, entries, &rebuild).await
    }

    /// [`Table::batch_delete`] with these options.
    pub async fn delete<K: EntityKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<(), Error> {
        let schema = &<K::Entity as Entity>::SCHEMA;
        batch_writable(schema, "batch_delete", "delete")?;
        let mut entries = Vec::new();
        let mut key_items = Vec::new();
        for (key_item, key, _) in unique_keys(schema, keys)? {
            let index = entries.len();
            entries.push(Entry { index, key, request: Some(delete_request(key_item.clone())?) });
            key_items.push(key_item);
        }
        let rebuild = |i: usize| match key_items.get(i) {
            Some(k) => delete_request(k.clone()),
            None => Err(Error::Validation(format!("batch_delete: no key {i}"))),
        };
        self.write(schema, entries, &rebuild).await
    }

    /// [`Table::batch_get`] with these options.
    pub async fn get<K: ReadKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<Vec<K::Output>, Error> {
        let schema = <K::Output as Readable>::schema(None)
            .ok_or_else(|| Error::Validation(format!("{} has no member to read", <K::Output as Readable>::NAME)))?;
        let unique = unique_keys(schema, keys)?;
        let mut read_keys = Vec::with_capacity(unique.len());
        let entries: Vec<Entry<Item>> = unique
            .into_iter()
            .enumerate()
            .map(|(index, (request, key, read_key))| {
                read_keys.push(read_key);
                Entry { index, key, request }
            })
            .collect();
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<KeyText> = entries.iter().map(|e| e.key.clone()).collect();
        let chunks = into_chunks(entries, GET_CHUNK);
        let span = call_span("BatchGetItem", self.table.name(), schema, keys.len(), chunks.len());
        let abort = AtomicBool::new(false);
        let (client, meter, table) = (self.table.client(), &self.table.meter, self.table.name());
        let outcome = drive(
            chunks.into_iter().map(|chunk| {
                self.run_chunk("BatchGetItem", schema, chunk, &abort, build_gets, move |keys, span, attempts| {
                    send_gets(client, meter, span, table, schema, keys, attempts)
                })
            }),
            self.options.concurrency,
            &abort,
        )
        .instrument(span.clone())
        .await;
        record_totals(&span, &outcome);
        if let Some(e) = outcome.error {
            return Err(e);
        }
        if !outcome.unprocessed.is_empty() {
            return Err(Error::Unprocessed { operation: "BatchGetItem", keys: key_texts(&keys, outcome.unprocessed) });
        }
        let mut found = outcome.found;
        span.record("items", found.len());
        found.sort_unstable_by_key(|(index, _)| *index);
        // A bad item does not hide the good ones: as a query, `Error::BadItems` holds them.
        let decoded: Vec<_> = found.into_iter().map(|(index, item)| read_keys[index].decode(item)).collect();
        let (mut items, mut errors) = (Vec::with_capacity(decoded.len()), Vec::new());
        crate::table::sort_out(decoded, &mut items, &mut errors);
        crate::table::finish(items, errors, None, 0).map(|page| page.items)
    }

    async fn write(
        &self,
        schema: &'static EntitySchema,
        entries: Vec<Entry<Option<WriteRequest>>>,
        rebuild: &Rebuild<'_>,
    ) -> Result<(), Error> {
        if entries.is_empty() {
            return Ok(());
        }
        let keys: Vec<KeyText> = entries.iter().map(|e| e.key.clone()).collect();
        let chunks = into_chunks(entries, WRITE_CHUNK);
        let span = call_span("BatchWriteItem", self.table.name(), schema, keys.len(), chunks.len());
        let abort = AtomicBool::new(false);
        let (client, meter, table) = (self.table.client(), &self.table.meter, self.table.name());
        let outcome = drive(
            chunks.into_iter().map(|chunk| {
                let build = |entries: &mut [Entry<Option<WriteRequest>>]| build_writes(entries, rebuild);
                self.run_chunk("BatchWriteItem", schema, chunk, &abort, build, move |requests, span, attempts| {
                    send_writes(client, meter, span, table, schema, requests, attempts)
                })
            }),
            self.options.concurrency,
            &abort,
        )
        .instrument(span.clone())
        .await;
        record_totals(&span, &outcome);
        write_result("BatchWriteItem", &keys, outcome)
    }

    /// The retry loop of one chunk, for writes and reads alike: sends what is still
    /// unprocessed (built by `build`, sent by `send`) with backoff, until everything is
    /// processed, the budget is spent, a request fails, or another chunk failed (`abort`).
    async fn run_chunk<R, Req, Fut>(
        &self,
        operation: &'static str,
        schema: &'static EntitySchema,
        mut entries: Vec<Entry<R>>,
        abort: &AtomicBool,
        mut build: impl FnMut(&mut [Entry<R>]) -> Result<Req, Error>,
        send: impl Fn(Req, tracing::Span, Attempts) -> Fut,
    ) -> Outcome
    where
        Fut: Future<Output = Result<Answer, Failure>>,
    {
        let table = self.table.name();
        let mut outcome = Outcome::default();
        // Entries of a request throttled in the end, after an attempt whose outcome is unknown.
        let mut maybe_applied: HashSet<usize> = HashSet::new();
        let mut received: HashSet<usize> = HashSet::new();
        for attempt in 1..=self.options.max_attempts {
            if attempt > 1 {
                outcome.retries += 1;
                tokio::time::sleep(self.options.delay(attempt - 1)).await;
            }
            if abort.load(Ordering::Relaxed) {
                break;
            }
            let span = request_span(operation, table, schema, attempt, entries.len());
            let request = match build(&mut entries) {
                Ok(request) => request,
                Err(e) => {
                    outcome.error = Some(e);
                    break;
                }
            };
            let attempts = Attempts::default();
            match send(request, span.clone(), attempts).await {
                Ok(answer) => {
                    if let Some(units) = answer.capacity {
                        outcome.capacity += units;
                    }
                    if !answer.found.is_empty() {
                        span.record("items", answer.found.len());
                        let index_of: HashMap<&KeyText, usize> = entries.iter().map(|e| (&e.key, e.index)).collect();
                        for item in answer.found {
                            let index = crate::error::item_key(schema, &item).and_then(|k| index_of.get(&k).copied());
                            if let Some(index) = index.filter(|i| received.insert(*i)) {
                                outcome.found.push((index, item));
                            }
                        }
                    }
                    let before: Vec<usize> = entries.iter().map(|e| e.index).collect();
                    keep_unprocessed(&mut entries, answer.reported, &answer.left);
                    entries.retain(|e| !received.contains(&e.index));
                    let left: HashSet<usize> = entries.iter().map(|e| e.index).collect();
                    outcome.done.extend(before.into_iter().filter(|i| !left.contains(i)));
                    span.record("unprocessed", entries.len());
                }
                Err(f) if f.throttled => {
                    if !f.none_applied {
                        maybe_applied.extend(entries.iter().map(|e| e.index));
                    }
                    span.record("throttled", true);
                    span.record("unprocessed", entries.len());
                }
                Err(f) => {
                    if !f.none_applied {
                        outcome.unknown.extend(entries.drain(..).map(|e| e.index));
                    }
                    outcome.error = Some(f.error);
                    break;
                }
            }
            if entries.is_empty() {
                return outcome;
            }
        }
        for e in entries {
            if maybe_applied.contains(&e.index) { &mut outcome.unknown } else { &mut outcome.unprocessed }
                .push(e.index);
        }
        outcome
    }
}

/// The write requests of the entries: those built during validation (moved, not copied) on
/// the first attempt, rebuilt for a retry.
fn build_writes(
    entries: &mut [Entry<Option<WriteRequest>>],
    rebuild: &Rebuild<'_>,
) -> Result<Vec<WriteRequest>, Error> {
    entries
        .iter_mut()
        .map(|e| match e.request.take() {
            Some(r) => Ok(r),
            None => rebuild(e.index),
        })
        .collect()
}

async fn send_writes(
    client: &Client,
    meter: &Meter,
    span: tracing::Span,
    table: &str,
    schema: &EntitySchema,
    requests: Vec<WriteRequest>,
    attempts: Attempts,
) -> Result<Answer, Failure> {
    let request = client
        .batch_write_item()
        .request_items(table, requests)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(attempts.clone());
    let out = send(meter, &span, request).await.map_err(|e| failure(e, &attempts))?;
    let capacity = units(out.consumed_capacity());
    let reported = out.unprocessed_items.and_then(|mut m| m.remove(table)).unwrap_or_default();
    Ok(Answer {
        capacity,
        found: Vec::new(),
        reported: reported.len(),
        left: reported.iter().filter_map(|r| write_request_key(schema, r)).collect(),
    })
}

fn build_gets(entries: &mut [Entry<Item>]) -> Result<KeysAndAttributes, Error> {
    KeysAndAttributes::builder()
        .set_keys(Some(entries.iter().map(|e| e.request.clone()).collect()))
        .build()
        .map_err(build_error)
}

async fn send_gets(
    client: &Client,
    meter: &Meter,
    span: tracing::Span,
    table: &str,
    schema: &EntitySchema,
    keys: KeysAndAttributes,
    attempts: Attempts,
) -> Result<Answer, Failure> {
    let request = client
        .batch_get_item()
        .request_items(table, keys)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(attempts.clone());
    let out = send(meter, &span, request).await.map_err(|e| failure(e, &attempts))?;
    let capacity = units(out.consumed_capacity());
    let reported = out.unprocessed_keys.and_then(|mut m| m.remove(table)).map(|k| k.keys).unwrap_or_default();
    Ok(Answer {
        capacity,
        found: out.responses.and_then(|mut m| m.remove(table)).unwrap_or_default(),
        reported: reported.len(),
        left: reported.iter().filter_map(|k| crate::error::item_key(schema, k)).collect(),
    })
}

/// The key items and key texts of `keys`, each key once, in the order of first occurrence.
fn unique_keys<K: ReadKey>(
    schema: &EntitySchema,
    keys: impl IntoIterator<Item = K>,
) -> Result<Vec<(Item, KeyText, K)>, Error> {
    let mut seen = HashSet::new();
    let mut unique = Vec::new();
    for key in keys {
        let item = key.to_key_item()?;
        let text = key_text_of(schema, &item)?;
        if seen.insert(text.clone()) {
            unique.push((item, text, key));
        }
    }
    Ok(unique)
}

fn into_chunks<T>(entries: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut chunks = Vec::with_capacity(entries.len().div_ceil(size));
    let mut entries = entries.into_iter().peekable();
    while entries.peek().is_some() {
        chunks.push(entries.by_ref().take(size).collect());
    }
    chunks
}

/// Records the call's totals.
fn record_totals(span: &tracing::Span, outcome: &Outcome) {
    span.record("retries", outcome.retries);
    span.record("unprocessed", outcome.unprocessed.len() + outcome.unknown.len());
    span.record("consumed_capacity", outcome.capacity);
}

/// The key texts at these positions, in the order given.
fn key_texts(keys: &[KeyText], mut positions: Vec<usize>) -> Vec<KeyText> {
    positions.sort_unstable();
    positions.into_iter().filter_map(|i| keys.get(i).cloned()).collect()
}

/// The call's result: `Ok` if every entry was processed; [`Error::Unprocessed`] if the only
/// trouble is entries still unprocessed after the retries (exactly those were not written);
/// else [`Error::BatchWrite`] with every key's fate and the error.
fn write_result(operation: &'static str, keys: &[KeyText], outcome: Outcome) -> Result<(), Error> {
    if outcome.error.is_none() && outcome.unknown.is_empty() {
        if outcome.unprocessed.is_empty() {
            return Ok(());
        }
        return Err(Error::Unprocessed { operation, keys: key_texts(keys, outcome.unprocessed) });
    }
    let listed = |positions: Vec<usize>| -> Vec<BatchKey> {
        let mut positions = positions;
        positions.sort_unstable();
        positions
            .into_iter()
            .filter_map(|index| keys.get(index).map(|(pk, sk)| BatchKey { index, pk: pk.clone(), sk: sk.clone() }))
            .collect()
    };
    let source = match outcome.error {
        Some(e) => e,
        // Only retries spent, but some of what is left may have been written by an attempt
        // whose outcome is unknown.
        None => {
            let left = outcome.unprocessed.iter().chain(&outcome.unknown).copied().collect();
            Error::Unprocessed { operation, keys: key_texts(keys, left) }
        }
    };
    Err(Error::BatchWrite {
        operation,
        outcome: Box::new(BatchWriteOutcome {
            written: listed(outcome.done),
            not_written: listed(outcome.unprocessed),
            unknown: listed(outcome.unknown),
        }),
        source: Box::new(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_stays_within_full_jitter_bounds() {
        let options = BatchOptions::default();
        for retry in 1..=40 {
            let ceiling =
                Duration::from_millis(50).saturating_mul(1 << (retry - 1).min(20)).min(Duration::from_secs(2));
            for _ in 0..50 {
                assert!(options.delay(retry) <= ceiling, "retry {retry}");
            }
        }
        let zero = BatchOptions::default().with_backoff(Duration::ZERO, Duration::ZERO);
        assert_eq!(zero.delay(1), Duration::ZERO);
        let huge = BatchOptions::default().with_backoff(Duration::MAX, Duration::MAX);
        assert!(huge.delay(u32::MAX) <= Duration::MAX);
        assert_eq!(BatchOptions::default().with_concurrency(0).with_max_attempts(0).concurrency(), 1);
        assert_eq!(BatchOptions::default().with_max_attempts(0).max_attempts(), 1);
    }

    #[test]
    fn chunks_keep_order_and_size() {
        let chunks = into_chunks((0..251).collect(), 100);
        assert_eq!(chunks.iter().map(Vec::len).collect::<Vec<_>>(), vec![100, 100, 51]);
        assert_eq!(chunks.concat(), (0..251).collect::<Vec<_>>());
        assert!(into_chunks(Vec::<u8>::new(), 25).is_empty());
    }
}
