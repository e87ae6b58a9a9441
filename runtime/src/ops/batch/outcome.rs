//! What a batch call did, entry by entry: positions, key texts, the outcome of each chunk and
//! of the whole call, and the errors built from them.

use aws_sdk_dynamodb::types::WriteRequest;

use crate::error::Error;
use crate::model::Item;
use crate::model::entity::EntitySchema;

/// Partition-key and sort-key text: the identity of an item.
pub(super) type KeyText = (String, Option<String>);

/// One item or key of a call: its position, its key, and what is sent for it.
pub(super) struct Entry<R> {
    pub(super) index: usize,
    pub(super) key: KeyText,
    pub(super) request: R,
}

/// Positions of a call's entries, each with its key text (moved out of its entry, not copied).
pub(super) type Keyed = Vec<(usize, KeyText)>;

/// What one chunk (or, summed, a whole call) did, by position of the entries.
#[derive(Default)]
pub(super) struct Outcome {
    /// Entries DynamoDB processed (written, or read).
    pub(super) done: Keyed,
    /// Entries never processed: not sent, refused, or still unprocessed when the budget was spent.
    pub(super) unprocessed: Keyed,
    /// Entries of a request whose outcome is unknown (a timeout, a broken connection, a 5xx).
    pub(super) unknown: Keyed,
    /// Items read, with the position of their key.
    pub(super) found: Vec<(usize, Item)>,
    /// The error that stopped the chunk.
    pub(super) error: Option<Error>,
    pub(super) retries: u32,
    pub(super) capacity: f64,
}

impl Outcome {
    pub(super) fn merge(&mut self, mut other: Outcome) {
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
/// [`Table::batch_put`](crate::table::Table::batch_put), or among the distinct keys given to [`Table::batch_delete`](crate::table::Table::batch_delete)).
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

pub(super) fn key_text_of(schema: &EntitySchema, item: &Item) -> Result<KeyText, Error> {
    crate::error::item_key(schema, item).ok_or_else(|| {
        Error::Validation(format!("{} item or key lacks its key attributes as strings", schema.entity_type))
    })
}

pub(super) fn describe_key(schema: &EntitySchema, (pk, sk): &KeyText) -> String {
    match (schema.sk, sk) {
        (Some(sk_schema), Some(sk)) => format!("{} `{pk}`, {} `{sk}`", schema.pk.attr, sk_schema.attr),
        _ => format!("{} `{pk}`", schema.pk.attr),
    }
}

pub(super) fn write_request_key(schema: &EntitySchema, request: &WriteRequest) -> Option<KeyText> {
    match (request.put_request(), request.delete_request()) {
        (Some(put), _) => crate::error::item_key(schema, &put.item),
        (None, Some(delete)) => crate::error::item_key(schema, &delete.key),
        (None, None) => None,
    }
}

/// Records the call's totals.
pub(super) fn record_totals(span: &tracing::Span, outcome: &Outcome) {
    span.record("retries", outcome.retries);
    span.record("unprocessed", outcome.unprocessed.len() + outcome.unknown.len());
    span.record("consumed_capacity", outcome.capacity);
}

/// The key texts, in the order given.
pub(super) fn key_texts(mut keyed: Keyed) -> Vec<KeyText> {
    keyed.sort_unstable_by_key(|(index, _)| *index);
    keyed.into_iter().map(|(_, key)| key).collect()
}

/// The call's result: `Ok` if every entry was processed; [`Error::Unprocessed`] if the only
/// trouble is entries still unprocessed after the retries (exactly those were not written);
/// else [`Error::BatchWrite`] with every key's fate and the error.
pub(super) fn write_result(operation: &'static str, outcome: Outcome) -> Result<(), Error> {
    if outcome.error.is_none() && outcome.unknown.is_empty() {
        if outcome.unprocessed.is_empty() {
            return Ok(());
        }
        return Err(Error::Unprocessed { operation, keys: key_texts(outcome.unprocessed) });
    }
    let listed = |mut keyed: Keyed| -> Vec<BatchKey> {
        keyed.sort_unstable_by_key(|(index, _)| *index);
        keyed.into_iter().map(|(index, (pk, sk))| BatchKey { index, pk, sk }).collect()
    };
    let source = match outcome.error {
        Some(e) => e,
        // Only retries spent, but some of what is left may have been written by an attempt
        // whose outcome is unknown.
        None => {
            let left = outcome.unprocessed.iter().chain(&outcome.unknown).cloned().collect();
            Error::Unprocessed { operation, keys: key_texts(left) }
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
