//! The one error type of the library, and the error of key formatting and parsing.

use crate::key::KeyPartError;

/// Everything that can go wrong, as one enum. Bad input is reported before any request
/// is sent whenever it can be known in advance ([`Error::Validation`], [`Error::Key`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `create` found an item with the same key.
    #[error("an item with this key already exists")]
    AlreadyExists,
    /// The item does not exist (an update without `upsert`, for example).
    #[error("no item with this key exists")]
    NotFound,
    /// A condition of the request did not hold.
    #[error("the condition of the request did not hold")]
    ConditionFailed,
    /// The stored `#[version]` differs from the one the writer read.
    #[error("the item was changed by another writer (version conflict)")]
    VersionConflict,
    /// A transaction was cancelled: nothing of it was written. One reason per action, in order.
    #[error("transaction cancelled: {}", describe_reasons(reasons))]
    TransactionCanceled {
        /// Why each action failed (`CancelCode::None` for the actions that would have succeeded).
        reasons: Vec<CancelReason>,
    },
    /// A request that DynamoDB would reject, or that would lose data, caught before sending.
    #[error("invalid request: {0}")]
    Validation(String),
    /// An item could not be decoded into the entity.
    #[error("cannot decode {entity}{} from attribute `{attribute}`: {message}", describe_key(key.as_ref()))]
    Decode {
        /// The entity type being decoded.
        entity: &'static str,
        /// The attribute that was missing or malformed.
        attribute: String,
        /// What was wrong with it.
        message: String,
        /// The item's partition-key and sort-key text, when the item has them.
        key: Option<(String, Option<String>)>,
    },
    /// Items that belong to the query's entity (their type attribute, or their key, says so) but
    /// cannot be decoded. The query did not stop at them: `partial` holds every item it did
    /// decode and the cursor past the last item it read, so nothing is hidden by a bad item.
    #[error("{} item(s) could not be decoded; first: {}", errors.len(), errors.first().map(ToString::to_string).unwrap_or_default())]
    BadItems {
        /// One [`Error::Decode`] per bad item, naming its key, in the order read.
        errors: Vec<Error>,
        /// The good items and the cursor: [`PartialPage::into_page`].
        partial: PartialPage,
    },
    /// A key could not be formatted or parsed.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A pagination cursor that was altered, or belongs to another entity, index, partition or
    /// sort-key condition. It was not sent to DynamoDB; the precise reason is logged as a
    /// `tracing` event (target `dynamo_entity::cursor`).
    #[error("invalid cursor: altered, or from another query")]
    InvalidCursor,
    /// A batch operation still had unprocessed items (DynamoDB's `UnprocessedItems` or
    /// `UnprocessedKeys`, or throttled requests) when its retries were spent. Exactly these
    /// keys were not written (or not read); every other item of the call was.
    #[error("{operation}: {} item(s) still unprocessed after the retries", keys.len())]
    Unprocessed {
        /// `BatchWriteItem` or `BatchGetItem`.
        operation: &'static str,
        /// Partition-key and sort-key text of each unprocessed item, in the order given.
        keys: Vec<(String, Option<String>)>,
    },
    /// A stream record that cannot become a typed change, or a failed DynamoDB Streams request.
    #[error(transparent)]
    Stream(Box<crate::stream::StreamError>),
    /// An error of the AWS SDK (network, throttling, permissions, ...).
    #[error("DynamoDB request failed: {}", sdk_message(.0))]
    Sdk(#[source] Box<aws_sdk_dynamodb::Error>),
}

/// "ValidationException: One or more parameter values were invalid: ...", not just the code.
fn sdk_message(e: &aws_sdk_dynamodb::Error) -> String {
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    match (e.code(), e.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        _ => e.to_string(),
    }
}

impl Error {
    /// Shorthand for a [`Error::Decode`] (without the item's key, which the item decoder adds).
    pub fn decode(entity: &'static str, attribute: impl Into<String>, message: impl ToString) -> Self {
        Error::Decode { entity, attribute: attribute.into(), message: message.to_string(), key: None }
    }
}

fn describe_key(key: Option<&(String, Option<String>)>) -> String {
    match key {
        Some((pk, Some(sk))) => format!(" (item `{pk}` / `{sk}`)"),
        Some((pk, None)) => format!(" (item `{pk}`)"),
        None => String::new(),
    }
}

/// The part of a query's result that was read despite bad items (see [`Error::BadItems`]): the
/// good items, in order, and where the next page starts. It holds a `Page<T>` of the query's
/// item type, taken out with [`PartialPage::into_page`].
pub struct PartialPage {
    page: Box<dyn core::any::Any + Send + Sync>,
    len: usize,
}

impl PartialPage {
    pub(crate) fn new<T: Send + Sync + 'static>(page: crate::Page<T>) -> Self {
        PartialPage { len: page.items.len(), page: Box::new(page) }
    }

    /// How many good items it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no good item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The page of good items and the cursor past the last item read; `None` if `T` is not the
    /// item type of the query that failed (the entity, or the collection enum).
    pub fn into_page<T: 'static>(self) -> Option<crate::Page<T>> {
        self.page.downcast::<crate::Page<T>>().ok().map(|b| *b)
    }
}

impl core::fmt::Debug for PartialPage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PartialPage").field("items", &self.len).finish_non_exhaustive()
    }
}

/// A key that cannot be written or read: which key, which component, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// A component value cannot be written into the key (too wide, out of range, ...).
    #[error("cannot write field `{field}` into {key}: {source}")]
    Format {
        /// The key attribute, such as `SK` or `GSI1PK`.
        key: &'static str,
        /// The field whose value failed.
        field: &'static str,
        /// Why.
        source: KeyPartError,
    },
    /// Key text that does not follow the template.
    #[error("{key} `{text}` does not match the template `{template}`: {reason}")]
    Mismatch {
        /// The key attribute.
        key: &'static str,
        /// The template, such as `MESSAGE#<ts:13>#<id>`.
        template: &'static str,
        /// The text that was read.
        text: String,
        /// What did not match.
        reason: String,
    },
    /// A component's text could not be parsed back into the field's type.
    #[error("cannot read field `{field}` from {key} `{text}`: {source}")]
    Parse {
        /// The key attribute.
        key: &'static str,
        /// The field being read.
        field: &'static str,
        /// The whole key text.
        text: String,
        /// Why.
        source: KeyPartError,
    },
    /// A key attribute is missing from an item or is not a string.
    #[error("key attribute `{key}` is missing or not a string")]
    Missing {
        /// The key attribute.
        key: &'static str,
    },
}

/// Why one action of a cancelled transaction failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelReason {
    /// The position of the action in the transaction.
    pub index: usize,
    /// What went wrong.
    pub code: CancelCode,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
}

/// DynamoDB's cancellation codes, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancelCode {
    /// This action was fine; another one failed.
    None,
    /// Its condition did not hold (the item exists for a create, the version differs, the item
    /// is missing for an update, a condition check failed).
    ConditionalCheckFailed,
    /// Another transaction or write was using the item.
    TransactionConflict,
    /// An item collection of a local index grew past 10 GB.
    ItemCollectionSizeLimitExceeded,
    /// Throughput exceeded.
    ProvisionedThroughputExceeded,
    /// Throttled.
    ThrottlingError,
    /// The action was invalid.
    ValidationError,
    /// A code this version does not know.
    Other(String),
}

impl CancelCode {
    /// The code of DynamoDB's text.
    pub fn from_code(code: &str) -> CancelCode {
        match code {
            "None" => CancelCode::None,
            "ConditionalCheckFailed" => CancelCode::ConditionalCheckFailed,
            "TransactionConflict" => CancelCode::TransactionConflict,
            "ItemCollectionSizeLimitExceeded" => CancelCode::ItemCollectionSizeLimitExceeded,
            "ProvisionedThroughputExceeded" => CancelCode::ProvisionedThroughputExceeded,
            "ThrottlingError" => CancelCode::ThrottlingError,
            "ValidationError" => CancelCode::ValidationError,
            other => CancelCode::Other(other.to_owned()),
        }
    }
}

fn describe_reasons(reasons: &[CancelReason]) -> String {
    let failed: Vec<String> = reasons
        .iter()
        .filter(|r| r.code != CancelCode::None)
        .map(|r| {
            format!(
                "action {}: {:?}{}",
                r.index,
                r.code,
                r.message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
            )
        })
        .collect();
    if failed.is_empty() { "no reason given".to_owned() } else { failed.join("; ") }
}
