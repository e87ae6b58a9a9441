//! The history: every operation a client ran, when (a global logical clock: an operation whose
//! `complete` is below another's `invoke` finished before the other began), how it ended, and
//! what it did to which item.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use dynamo_entity::{CancelCode, Error};

use super::faults::OpFaults;
use super::model::{Account, Doc, Member};

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Succeeded: its effects happened.
    Acked,
    /// Refused with a typed error and no fault met: its effects did not happen.
    Failed,
    /// Any other error, or an error after a fault or after the SDK sent a request again: its
    /// effects may or may not have happened.
    Unknown,
}

/// One operation.
#[derive(Debug, Clone)]
pub struct Op {
    pub client: usize,
    pub name: &'static str,
    pub invoke: u64,
    pub complete: u64,
    pub outcome: Outcome,
    /// Answers lost after the write was applied (injected).
    pub drops: u64,
    /// Requests the SDK sent again: each earlier attempt may have been applied.
    pub resent: u64,
    /// Wall time the operation took, in microseconds.
    pub micros: u64,
    pub error: Option<String>,
    /// Ended in a transaction cancelled for throttling (which the library should retry).
    pub throttled_cancel: bool,
    pub effects: Vec<Effect>,
}

/// What an operation did (if it happened) to one item, or what it read.
#[derive(Debug, Clone)]
pub enum Effect {
    /// A write of an account: `after` is the state written (when known: always for an
    /// acknowledged write, for others when the whole item is known in advance).
    Account { id: String, delete: bool, after: Option<Account> },
    /// A consistent read of an account: the version seen (`None`: absent).
    AccountRead { id: String, version: Option<u64> },
    /// An event created (sort-key text).
    Event { feed: String, sk: String },
    /// A note created (sort-key text).
    Note { feed: String, sk: String },
    /// `ADD n` to a feed head's counter.
    HeadAdd { feed: String, n: i64 },
    /// A write of a member (only its creator writes it).
    Member { tenant: String, id: String, delete: bool, after: Option<Member> },
    /// A write of a ticket (only its creator writes it; migrate may change its type).
    Ticket { id: String, delete: bool },
    /// A query read page by page.
    Pages(PageSeq),
    /// A tenant handle given another tenant's key or item: `refused` if it answered
    /// `OutsideTenant`.
    CrossTenant { what: String, refused: bool },
    /// A nested update of `prefs.slots[slot]` (only the slot's client writes it) to `value`;
    /// `version`: the version the answer says (acknowledged), `answered`: the answer's slot.
    Nested { id: String, slot: String, value: u64, version: Option<u64>, answered: Option<u64> },
    /// Any other write of a profile that was acknowledged at `version`.
    ProfileVersion { id: String, version: u64 },
    /// A write DynamoDB refuses for a reason the library names (a nested update under a missing
    /// parent): `error` is the answer when it was not that typed error (and no fault was met).
    Refusal { what: String, error: Option<String> },
    /// An order of `user` (ids are fresh): `sk` is its key when known (`create ... returning`,
    /// `put`), `upsert` how it was written.
    Order { user: String, id: String, sk: Option<String>, upsert: bool },
    /// A post of `user` (ids are fresh), its time in the index key only.
    Post { user: String, id: String },
    /// A query of a user's feed (index GSI3): the ids it returned, or its error.
    Feed { user: String, ids: Vec<String>, error: Option<String> },
    /// A write of a doc (only its creator writes it) through its tenant's handle.
    Doc { org: u32, id: String, delete: bool, after: Option<Doc> },
    /// A query of a multi-attribute index through the tenant handle of `handle`, for the
    /// items of `org`: `own` if `handle` is `org`'s key text; the tenants (key text) of the
    /// items it returned; `error` if it returned an error.
    TenantQuery { handle: String, org: u32, own: bool, returned: Vec<String>, error: Option<String> },
    /// A mark put or deleted by `write_batch`.
    Mark { owner: u32, n: u64, delete: bool },
}

/// A query read page by page, with writes between the pages.
#[derive(Debug, Clone)]
pub struct PageSeq {
    /// `events` (the sharded partition), `notes` (unsharded), `log` (the collection).
    pub what: &'static str,
    pub feed: String,
    pub descending: bool,
    pub pages: Vec<PageRec>,
    /// Read to the end (the last page had no cursor).
    pub complete: bool,
}

/// One page: when it was asked for and the sort keys it returned, in order.
#[derive(Debug, Clone)]
pub struct PageRec {
    pub invoke: u64,
    pub complete: u64,
    pub keys: Vec<String>,
}

/// An error that says the write did not happen (when no fault was injected into it).
pub fn definite(e: &Error) -> bool {
    matches!(
        e,
        Error::AlreadyExists { .. }
            | Error::NotFound { .. }
            | Error::ConditionFailed { .. }
            | Error::VersionConflict { .. }
            | Error::UniqueViolation { .. }
            | Error::TransactionCanceled { .. }
            | Error::Validation(_)
            | Error::OutsideTenant { .. }
            | Error::MissingParent { .. }
    )
}

/// A transaction cancelled because DynamoDB throttled it.
pub fn throttled_cancel(e: &Error) -> bool {
    matches!(e, Error::TransactionCanceled { reasons } if reasons.iter().any(|r| matches!(r.code, CancelCode::ThrottlingError | CancelCode::ProvisionedThroughputExceeded)))
}

/// The outcome of a result, given the faults the operation met.
pub fn classify<T>(result: &Result<T, Error>, faults: &Arc<OpFaults>) -> Outcome {
    match result {
        Ok(_) => Outcome::Acked,
        Err(e)
            if faults.injected.load(Ordering::Relaxed) == 0
                && faults.resent.load(Ordering::Relaxed) == 0
                && definite(e) =>
        {
            Outcome::Failed
        }
        Err(_) => Outcome::Unknown,
    }
}
