//! Batch operations on [`Table`]: `BatchWriteItem` and `BatchGetItem` for any number of items.
//! Behaviour: see [`Batch`].

mod mixed;
mod options;
mod outcome;
mod retry;

pub use mixed::WriteBatch;
pub use options::BatchOptions;
use outcome::*;
pub use outcome::{BatchKey, BatchWriteOutcome};
use retry::*;

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{DeleteRequest, KeysAndAttributes, PutRequest, ReturnConsumedCapacity, WriteRequest};
use tracing::Instrument;

use crate::error::Error;
use crate::error::build_error;
use crate::model::Item;
use crate::model::collection::{ReadKey, Readable};
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::entity::EntitySchema;
use crate::send::attempts::Attempts;
use crate::send::capacity::{Capacity, Kind, spent};
use crate::send::{Call, Counted, Meter, send};
use crate::table::Table;

/// DynamoDB's largest `BatchWriteItem`: 25 put or delete requests.
const WRITE_CHUNK: usize = 25;
/// DynamoDB's largest `BatchGetItem`: 100 keys.
const GET_CHUNK: usize = 100;
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

/// Rebuilds the write request of entry `i` for a retry.
type Rebuild<'a> = dyn Fn(usize) -> Result<WriteRequest, Error> + Sync + 'a;

fn put_request(item: Item) -> Result<WriteRequest, Error> {
    let put = PutRequest::builder().set_item(Some(item)).build().map_err(build_error)?;
    Ok(WriteRequest::builder().put_request(put).build())
}

/// [`put_request`] of `item`, added to `requests`: made where the list keeps it, not returned
/// in a `Result` and copied there (issue 51).
#[inline(always)]
fn push_put_request(requests: &mut Vec<WriteRequest>, item: Item) -> Result<(), Error> {
    let put = PutRequest::builder().set_item(Some(item)).build().map_err(build_error)?;
    requests.push(WriteRequest::builder().put_request(put).build());
    Ok(())
}

fn delete_request(key: Item) -> Result<WriteRequest, Error> {
    let delete = DeleteRequest::builder().set_key(Some(key)).build().map_err(build_error)?;
    Ok(WriteRequest::builder().delete_request(delete).build())
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
///
/// Nor can it keep the guard items of `#[unique]` fields in step: a batch could write a taken
/// value, or leave a guard behind.
fn batch_writable(schema: &crate::model::entity::EntitySchema, op: &str, single: &str) -> Result<(), Error> {
    if let Some(first) = schema.unique.first() {
        return Err(Error::Validation(format!(
            "{op} of {}: its `#[unique]` `{}` is kept by guard items that a batch cannot check or move; use {single} \
             or a transaction",
            schema.entity_type, first.field
        )));
    }
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
        let mut entries = Vec::with_capacity(items.len());
        let mut requests = Vec::with_capacity(items.len());
        let mut keys = Keys::with_capacity(items.len());
        // One reading of the clock for every item's filled fields, kept for the retries.
        let mut reading = crate::model::filled::Reading::default();
        let clock = &self.table.clock;
        for (index, entity) in items.iter().enumerate() {
            // The item checked as it is written (its size, its numbers), its key texts copied
            // to the call's buffer by the writer.
            let (item, key) = keys.put_item(entity, &mut reading, clock)?;
            self.table.check_tenant_item(schema, &item)?;
            entries.push(Entry { index, key });
            push_put_request(&mut requests, item)?;
        }
        if let Some((first, later, slot)) = keys.first_repeat(entries.iter().map(|e| (e.index, e.key))) {
            return Err(Error::Validation(format!(
                "batch_put: items {first} and {later} have the same key ({}); DynamoDB refuses a key twice \
                 in one batch, and which of them should be written is ambiguous",
                describe_key(schema, keys.get(slot))
            )));
        }
        // A retry re-encodes the few unprocessed items rather than keeping a copy of every item.
        let rebuild = |i: usize| match items.get(i) {
            Some(entity) => put_request(crate::model::filled::item_to_write(entity, false, &mut { reading }, clock)?),
            None => Err(Error::Validation(format!("batch_put: no item {i}"))),
        };
        self.write(schema.entity_type, vec![(schema, entries, requests)], &keys, &rebuild).await
    }

    /// [`Table::batch_delete`] with these options.
    pub async fn delete<K: EntityKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<(), Error> {
        let schema = &<K::Entity as Entity>::SCHEMA;
        batch_writable(schema, "batch_delete", "delete")?;
        let (mut entries, mut requests, mut key_items) = (Vec::new(), Vec::new(), Vec::new());
        let (texts, unique) = unique_keys(schema, keys)?;
        for (key_item, key, _) in unique {
            self.table.check_tenant_item(schema, &key_item)?;
            entries.push(Entry { index: entries.len(), key });
            requests.push(delete_request(key_item.clone())?);
            key_items.push(key_item);
        }
        let rebuild = |i: usize| match key_items.get(i) {
            Some(k) => delete_request(k.clone()),
            None => Err(Error::Validation(format!("batch_delete: no key {i}"))),
        };
        self.write(schema.entity_type, vec![(schema, entries, requests)], &texts, &rebuild).await
    }

    /// [`Table::batch_get`] with these options.
    pub async fn get<K: ReadKey>(&self, keys: impl IntoIterator<Item = K>) -> Result<Vec<K::Output>, Error> {
        let schema = <K::Output as Readable>::schema(None)
            .ok_or_else(|| Error::Validation(format!("{} has no member to read", <K::Output as Readable>::NAME)))?;
        let (texts, unique) = unique_keys(schema, keys)?;
        for (item, _, key) in &unique {
            self.table.check_tenant_item(key.__schema(), item)?;
        }
        let mut read_keys = Vec::with_capacity(unique.len());
        let mut key_items = Vec::with_capacity(unique.len());
        let entries: Vec<Entry> = unique
            .into_iter()
            .enumerate()
            .map(|(index, (key_item, key, read_key))| {
                read_keys.push(read_key);
                key_items.push(key_item);
                Entry { index, key }
            })
            .collect();
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let sent = entries.len();
        let chunks = into_chunks(entries, GET_CHUNK);
        let span = call_span("BatchGetItem", self.table.name(), schema.entity_type, sent, chunks.len());
        let abort = AtomicBool::new(false);
        let (client, meter, table) = (self.table.client(), &self.table.meter, self.table.name());
        let futures: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                Box::pin(self.run_chunk(
                    ("BatchGetItem", schema),
                    chunk,
                    None,
                    &texts,
                    &abort,
                    |entries: &mut [Entry]| build_gets(entries, &key_items),
                    move |keys, span, attempts| send_gets(client, meter, span, table, schema, keys, attempts),
                ))
            })
            .collect();
        let outcome = drive(futures, self.options.concurrency(), &abort).instrument(span.clone()).await;
        record_totals(&span, &outcome);
        let capacity = outcome.capacity;
        if let Some(e) = outcome.error {
            return Err(e);
        }
        if !outcome.unprocessed.is_empty() {
            return Err(Error::Unprocessed { operation: "BatchGetItem", keys: key_texts(outcome.unprocessed, &texts) });
        }
        let mut found = outcome.found;
        span.record("items", found.len());
        found.sort_unstable_by_key(|(index, _)| *index);
        // A bad item does not hide the good ones: as a query, `Error::BadItems` holds them.
        use crate::ops::query::pager::{PageSink, Sorted};
        let mut read = Sorted::new();
        read.reserve(found.len());
        for (index, item) in found {
            read.push(read_keys[index].decode(item));
        }
        let consumed = Capacity { read_units: capacity, ..Capacity::default() };
        crate::ops::query::pager::finish(read.items, read.errors, None, 0, consumed).map(|page| page.items)
    }

    /// Sends the writes of each entity (`groups`: its schema, its entries and their requests,
    /// in the same order) in chunks of its own, so that each request's span and capacity rows
    /// name the entity whose items it writes; `entity` names the call's (the entities joined
    /// by `,`). A chunk's first request sends the requests built during validation, moved
    /// whole; a retry rebuilds the few unprocessed ones (`rebuild`).
    async fn write(
        &self,
        entity: &str,
        groups: Vec<(&'static EntitySchema, Vec<Entry>, Vec<WriteRequest>)>,
        keys: &Keys,
        rebuild: &Rebuild<'_>,
    ) -> Result<(), Error> {
        let sent: usize = groups.iter().map(|(_, entries, _)| entries.len()).sum();
        if sent == 0 {
            return Ok(());
        }
        let chunks: Vec<_> = groups
            .into_iter()
            .flat_map(|(schema, entries, requests)| {
                let requests = into_chunks(requests, WRITE_CHUNK);
                into_chunks(entries, WRITE_CHUNK).into_iter().zip(requests).map(move |(c, r)| (schema, c, r))
            })
            .collect();
        let span = call_span("BatchWriteItem", self.table.name(), entity, sent, chunks.len());
        let abort = AtomicBool::new(false);
        let (client, meter, table) = (self.table.client(), &self.table.meter, self.table.name());
        // Built before they are driven (each starts when polled): a lazy iterator over the
        // chunks, held across the awaits, makes the future's `Send` unprovable to rustc.
        let mut futures = Vec::with_capacity(chunks.len());
        for (schema, chunk, requests) in chunks {
            let build = |entries: &mut [Entry]| build_writes(entries, rebuild);
            futures.push(Box::pin(self.run_chunk(
                ("BatchWriteItem", schema),
                chunk,
                Some(requests),
                keys,
                &abort,
                build,
                move |requests, span, attempts| send_writes(client, meter, span, table, schema, requests, attempts),
            )));
        }
        let outcome = drive(futures, self.options.concurrency(), &abort).instrument(span.clone()).await;
        record_totals(&span, &outcome);
        write_result("BatchWriteItem", outcome, keys)
    }
}

/// The write requests of the entries, rebuilt for a retry (the first attempt sends those built
/// during validation).
fn build_writes(entries: &mut [Entry], rebuild: &Rebuild<'_>) -> Result<Vec<WriteRequest>, Error> {
    // Sized at once: collecting `Result`s gives no lower bound (issue 51).
    let mut requests = Vec::with_capacity(entries.len());
    for e in entries {
        requests.push(rebuild(e.index)?);
    }
    Ok(requests)
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
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let request = Counted(request, attempts.clone());
    let call = Call::new(span, schema.entity_type, None).of(schema);
    let out = send(meter, &call, request).await.map_err(|e| failure(e, &attempts))?;
    let capacity = (!out.consumed_capacity().is_empty()).then(|| spent(Kind::Write, out.consumed_capacity()).units());
    let reported = out.unprocessed_items.and_then(|mut m| m.remove(table)).unwrap_or_default();
    Ok(Answer {
        capacity,
        found: Vec::new(),
        reported: reported.len(),
        left: reported.iter().filter_map(|r| write_request_key(schema, r)).collect(),
    })
}

/// The keys of the entries (`key_items`: the call's, by position).
fn build_gets(entries: &mut [Entry], key_items: &[Item]) -> Result<KeysAndAttributes, Error> {
    KeysAndAttributes::builder()
        .set_keys(Some(entries.iter().filter_map(|e| key_items.get(e.index).cloned()).collect()))
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
    let request =
        client.batch_get_item().request_items(table, keys).return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let request = Counted(request, attempts.clone());
    let call = Call::new(span, schema.entity_type, None).of(schema);
    let out = send(meter, &call, request).await.map_err(|e| failure(e, &attempts))?;
    let capacity = (!out.consumed_capacity().is_empty()).then(|| spent(Kind::Read, out.consumed_capacity()).units());
    let reported = out.unprocessed_keys.and_then(|mut m| m.remove(table)).map(|k| k.keys).unwrap_or_default();
    Ok(Answer {
        capacity,
        found: out.responses.and_then(|mut m| m.remove(table)).unwrap_or_default(),
        reported: reported.len(),
        left: reported.iter().filter_map(|k| crate::model::entity::item_key(schema, k)).collect(),
    })
}

/// A key of a call: its key item, the slot of its texts, the key.
type KeyEntry<K> = (Item, usize, K);

/// The key texts of `keys`, and each key once, in the order of first occurrence.
fn unique_keys<K: ReadKey>(
    schema: &EntitySchema,
    keys: impl IntoIterator<Item = K>,
) -> Result<(Keys, Vec<KeyEntry<K>>), Error> {
    let mut texts = Keys::default();
    let mut all = Vec::new();
    for key in keys {
        let item = key.to_key_item()?;
        let slot = texts.push_item(schema, &item)?;
        all.push((item, slot, key));
    }
    let mut seen = HashSet::with_capacity(all.len());
    let first: Vec<bool> = all.iter().map(|(_, slot, _)| seen.insert(texts.get(*slot))).collect();
    drop(seen);
    let unique = all.into_iter().zip(first).filter_map(|(entry, first)| first.then_some(entry)).collect();
    Ok((texts, unique))
}

fn into_chunks<T>(entries: Vec<T>, size: usize) -> Vec<Vec<T>> {
    // One chunk (a call of up to `size` entries): the entries as they are, not copied.
    if !entries.is_empty() && entries.len() <= size {
        return vec![entries];
    }
    let mut chunks = Vec::with_capacity(entries.len().div_ceil(size));
    let mut entries = entries.into_iter().peekable();
    while entries.peek().is_some() {
        chunks.push(entries.by_ref().take(size).collect());
    }
    chunks
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
        // One chunk: the entries themselves, whatever their count up to the size.
        for n in [1, 24, 25] {
            assert_eq!(into_chunks((0..n).collect(), 25), vec![(0..n).collect::<Vec<_>>()]);
        }
        assert_eq!(into_chunks((0..26).collect(), 25).iter().map(Vec::len).collect::<Vec<_>>(), vec![25, 1]);
    }
}
