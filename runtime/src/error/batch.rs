//! What a batch write that stopped part way did, key by key: the payload of
//! [`Error::BatchWrite`](super::Error::BatchWrite), re-exported where the batch calls are
//! (`BatchWriteOutcome`, `BatchKey`).

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
/// one of the three lists, each in the order given. See [`Error::BatchWrite`](super::Error::BatchWrite).
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
