//! [`WriteBatch`]: puts and deletes of any entities of the table in one batch
//! (`table.write_batch().put(&order).delete(Customer::key("c9")).send()`), sent with the same
//! chunking, retries, accounting and refusals as [`Batch::put`](super::Batch::put).

use aws_sdk_dynamodb::types::WriteRequest;

use super::outcome::{Entry, Keys, describe_key};
use super::{Batch, BatchOptions, batch_writable, delete_request, put_request};
use crate::error::Error;
use crate::model::entity::{Entity, EntityKey, EntitySchema};
use crate::model::filled::Reading;
use crate::table::Table;

/// Puts and deletes of any entities of a table, sent as `BatchWriteItem` calls: a builder taken
/// by value (`batch = batch.put(&x)` in a loop), made by [`Table::write_batch`]; nothing is sent
/// until [`WriteBatch::send`].
///
/// Each write is checked as it is added, and the first failure is the error of `send`, with
/// nothing sent (the batch is refused whole): an entity with a `#[version]` or `#[unique]`
/// field (a batch cannot check or keep them; use a single write or a transaction), a validator
/// of `#[entity(validate = "..")]` that refuses ([`Error::Invalid`]), an item over 400 KB, a key
/// outside the handle's tenant. Two writes of one key (a put and a delete, or two puts) are an
/// [`Error::Validation`] naming both positions. The puts' `#[updated_at]` (and `#[created_at]`,
/// as the struct holds it) take one reading of the table's clock for the whole batch.
///
/// Then it behaves as [`Batch`]: chunks of 25, unprocessed items and throttled chunks sent again
/// with backoff, [`Error::Unprocessed`] listing exactly the writes left after the retry budget,
/// [`Error::BatchWrite`] with the fate of every write otherwise; the positions in those are the
/// order of the writes as added. Each entity's writes go in chunks of their own, so that each
/// request's span and capacity rows name the entity whose items it writes (a batch of writes of
/// three entities sends at least three requests); the call's span names them all, joined by `,`.
#[derive(Debug)]
#[must_use = "a write batch does nothing until `send` is awaited"]
pub struct WriteBatch {
    table: Table,
    options: BatchOptions,
    writes: Vec<(&'static EntitySchema, WriteRequest)>,
    keys: Keys,
    reading: Reading,
    error: Option<Error>,
}

impl Table {
    /// Starts a batch of puts and deletes of any entities of this table; see [`WriteBatch`].
    pub fn write_batch(&self) -> WriteBatch {
        WriteBatch {
            table: self.clone(),
            options: BatchOptions::default(),
            writes: Vec::new(),
            keys: Keys::with_capacity(0),
            reading: Reading::default(),
            error: None,
        }
    }
}

impl WriteBatch {
    /// The batch with other [`BatchOptions`] (concurrency, retry budget, backoff).
    pub fn options(mut self, options: BatchOptions) -> Self {
        self.options = options;
        self
    }

    fn push(
        mut self,
        schema: &'static EntitySchema,
        write: impl FnOnce(&mut Self) -> Result<WriteRequest, Error>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        match write(&mut self) {
            Ok(request) => self.writes.push((schema, request)),
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// Adds a put of `entity` (replacing any item with its key).
    pub fn put<E: Entity>(self, entity: &E) -> Self {
        let schema = &E::SCHEMA;
        self.push(schema, |b| {
            batch_writable(schema, "write_batch", "put")?;
            let (item, _) = b.keys.put_item(entity, &mut b.reading, &b.table.clock)?;
            b.table.check_tenant_item(schema, &item)?;
            put_request(item)
        })
    }

    /// Adds a delete of the item with `key` (nothing happens if there is none).
    pub fn delete<K: EntityKey>(self, key: K) -> Self {
        let schema = &<K::Entity as Entity>::SCHEMA;
        self.push(schema, |b| {
            batch_writable(schema, "write_batch", "delete")?;
            let item = key.to_key_item()?;
            b.table.check_tenant_item(schema, &item)?;
            b.keys.push_item(schema, &item)?;
            delete_request(item)
        })
    }

    /// The number of writes added.
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// Whether no write was added.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// Sends the writes; see [`WriteBatch`] for what is refused before sending and how the
    /// outcome is reported.
    pub async fn send(self) -> Result<(), Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.writes.is_empty() {
            return Ok(());
        }
        if let Some((first, later, slot)) = self.keys.first_repeat((0..self.writes.len()).map(|i| (i, i))) {
            let schema = self.writes[later].0;
            return Err(Error::Validation(format!(
                "write_batch: writes {first} and {later} have the same key ({}); DynamoDB refuses a key twice in one \
                 batch, and which of them should be applied is ambiguous",
                describe_key(schema, self.keys.get(slot))
            )));
        }
        // Each entity's writes in chunks of their own: a request's span and capacity rows name
        // the entity whose items it writes.
        let mut groups: Vec<(&'static EntitySchema, Vec<Entry>, Vec<WriteRequest>)> = Vec::new();
        for (index, (schema, request)) in self.writes.iter().enumerate() {
            let entry = Entry { index, key: index };
            match groups.iter_mut().find(|(s, _, _)| s.entity_type == schema.entity_type) {
                Some((_, entries, requests)) => {
                    entries.push(entry);
                    requests.push(request.clone());
                }
                None => groups.push((schema, vec![entry], vec![request.clone()])),
            }
        }
        let entities = groups.iter().map(|(s, _, _)| s.entity_type).collect::<Vec<_>>().join(",");
        // A retry sends again the few unprocessed writes, as they were built.
        let rebuild = |i: usize| match self.writes.get(i) {
            Some((_, request)) => Ok(request.clone()),
            None => Err(Error::Validation(format!("write_batch: no write {i}"))),
        };
        let batch = Batch { table: self.table.clone(), options: self.options };
        batch.write(&entities, groups, &self.keys, &rebuild).await
    }
}
