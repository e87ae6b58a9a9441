//! The one error type of the library, and the error of key formatting and parsing.

use aws_sdk_dynamodb::error::DisplayErrorContext;

pub(crate) mod apply;
pub(crate) mod batch;
#[cfg(feature = "encryption")]
pub(crate) mod db_esdk;
#[cfg(feature = "analytics")]
pub(crate) mod export;
pub(crate) mod region;
pub(crate) mod stream;

/// Everything that can go wrong, as one enum. Bad input is reported before any request
/// is sent whenever it can be known in advance ([`Error::Validation`], [`Error::Key`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `create` found an item with the same key.
    #[error("{entity} item {} already exists", describe_pk_sk(pk, sk.as_deref()))]
    AlreadyExists {
        /// The entity type written.
        entity: &'static str,
        /// The partition-key text.
        pk: String,
        /// The sort-key text (`None` for a table without sort key).
        sk: Option<String>,
    },
    /// The item does not exist (an update without `upsert`, for example).
    #[error("no {entity} item {} exists", describe_pk_sk(pk, sk.as_deref()))]
    NotFound {
        /// The entity type looked for.
        entity: &'static str,
        /// The partition-key text.
        pk: String,
        /// The sort-key text (`None` for a table without sort key).
        sk: Option<String>,
    },
    /// A condition of the request did not hold.
    #[error("the condition of the request on {entity} item {} did not hold", describe_pk_sk(pk, sk.as_deref()))]
    ConditionFailed {
        /// The entity type written.
        entity: &'static str,
        /// The partition-key text.
        pk: String,
        /// The sort-key text (`None` for a table without sort key).
        sk: Option<String>,
        /// The item as it was, when the write asked for it (`return_old_on_failure()`), so
        /// that the caller can see why without a second read; `None` if there was no item.
        old: Option<Box<crate::size::Item>>,
    },
    /// The stored `#[version]` differs from the one the writer read.
    #[error("{entity} item {} was changed by another writer (version conflict)", describe_pk_sk(pk, sk.as_deref()))]
    VersionConflict {
        /// The entity type written.
        entity: &'static str,
        /// The partition-key text.
        pk: String,
        /// The sort-key text (`None` for a table without sort key).
        sk: Option<String>,
    },
    /// A `#[unique]` field's value is held by another item of the entity: nothing was written.
    #[error("{entity}: the `{field}` value is taken by another item (unique)")]
    UniqueViolation {
        /// The entity type written.
        entity: &'static str,
        /// The `#[unique]` field whose value is taken.
        field: &'static str,
    },
    /// A transaction was cancelled: nothing of it was written. One reason per action, in order.
    #[error("transaction cancelled: {}", describe_reasons(reasons))]
    TransactionCanceled {
        /// Why each action failed (`CancelCode::None` for the actions that would have succeeded).
        reasons: Vec<CancelReason>,
    },
    /// A request that DynamoDB would reject, or that would lose data, caught before sending.
    #[error("invalid request: {0}")]
    Validation(String),
    /// An update wrote under a document's map or list that the item lacks (DynamoDB's "document
    /// path provided in the update expression is invalid for update"): nothing was written.
    /// Create the parent first: `set_if_not_exists` of the parent in an update of its own, or
    /// set the whole document.
    #[error(
        "an update of {entity} writes under a map or list the item lacks (in {}): nothing was written; create \
         the parent first (`set_if_not_exists` of it in an update of its own, or set the whole document)",
        paths.join(", ")
    )]
    MissingParent {
        /// The entity type updated.
        entity: &'static str,
        /// The paths into documents the update writes (`address.city`): one of them has no
        /// parent (DynamoDB does not say which).
        paths: Vec<String>,
    },
    /// A validator of `#[entity(validate = "..")]` refused a value (`field`), or the whole item
    /// (`field: None`): nothing of the request was sent.
    #[error("invalid {entity}{}: {message}", field.map(|f| format!(" `{f}`")).unwrap_or_default())]
    Invalid {
        /// The entity type written.
        entity: &'static str,
        /// The field whose validator refused; `None` for the struct's validator.
        field: Option<&'static str>,
        /// What the validator said.
        message: String,
    },
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
    /// `Table::query` read `pages` DynamoDB pages in a row without one item of its entity (a
    /// partition flooded with other entities' items, or a filter that keeps almost nothing),
    /// and stopped there rather than read on without bound. `partial` holds the items found and
    /// the cursor to continue from ([`PartialPage::into_page`]).
    #[error(
        "a query of {entity} read {pages} DynamoDB pages in a row without one of its items ({skipped} items \
         stepped over) and stopped: continue from the cursor in `partial`, allow more pages with \
         `.max_empty_pages(n)`, or read with `query_stream` or `query_all`, which read on"
    )]
    TooManySkipped {
        /// The query's entity (or collection).
        entity: &'static str,
        /// The pages read in a row without an item of it.
        pages: u32,
        /// The items stepped over.
        skipped: u64,
        /// The items found before, and where to continue.
        partial: PartialPage,
    },
    /// A key could not be formatted or parsed.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A pagination cursor that was altered, or belongs to another query: another entity,
    /// index, partition, direction, sort-key condition or filter. It was not sent to DynamoDB; the precise reason is logged as a
    /// `tracing` event (target `dynamo_entity::cursor`).
    #[error("invalid cursor: altered, or from another query")]
    InvalidCursor,
    /// A tenant handle (`Table::for_tenant`) was given a key, item, partition, batch or
    /// transaction that names another tenant. Nothing was sent (a batch or a transaction is
    /// refused whole).
    #[error("outside tenant `{expected}`: the key names `{found}`")]
    OutsideTenant {
        /// The handle's tenant.
        expected: String,
        /// The tenant component the key holds (the whole key text if it does not follow the
        /// entity's template).
        found: String,
    },
    /// A tenant handle refuses what it cannot confine to its tenant: a scan (and so backfill and
    /// migrate), a stream of the whole table, an entity without tenant. Nothing was sent.
    #[error("the handle of tenant `{tenant}` refuses {what}")]
    TenantRefused {
        /// The handle's tenant.
        tenant: String,
        /// What was refused, and why.
        what: String,
    },
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
    /// A batch write that stopped part way (a request failed, timed out or lost its
    /// connection): every key of the call by what happened to it, and the error that stopped
    /// it. Replaying [`BatchWriteOutcome::to_replay`](crate::BatchWriteOutcome::to_replay)
    /// (puts and deletes are idempotent) completes the call.
    #[error("{operation} stopped part way ({}): {source}", outcome.summary())]
    BatchWrite {
        /// `BatchWriteItem`.
        operation: &'static str,
        /// Written, not written, and unknown keys.
        outcome: Box<batch::BatchWriteOutcome>,
        /// Why it stopped.
        #[source]
        source: Box<Error>,
    },
    /// A stream record that cannot become a typed change, or a failed DynamoDB Streams request.
    #[error(transparent)]
    Stream(Box<stream::StreamError>),
    /// A table export that cannot be read, or a Parquet file that cannot be written (feature
    /// `analytics`): each names its file and line.
    #[cfg(feature = "analytics")]
    #[error(transparent)]
    Export(Box<export::ExportError>),
    /// AWS's Database Encryption SDK refused an item (feature `encryption`, a handle made by
    /// `Table::with_encryption`): on the way in, an item it cannot verify or decrypt (another
    /// key, a signed attribute changed, an item it did not write); on the way out, one it cannot
    /// encrypt (an attribute without an action). Nothing of such a response is returned.
    #[cfg(feature = "encryption")]
    #[error("client-side encryption (AWS Database Encryption SDK) refused {}: {message}", if *.reading { "a response" } else { "a request" })]
    Encryption {
        /// Whether it refused a response (an item read) rather than a request (an item written).
        reading: bool,
        /// What DB-ESDK said.
        message: String,
    },
    /// A write whose outcome is unknown: **it may or may not have happened**. Its request reached
    /// (or may have reached) DynamoDB and no answer came back that says whether it was applied
    /// (an attempt timeout, a lost connection or answer, a 5xx answer such as
    /// `InternalServerError`). Two kinds of writes end here rather than being sent again:
    ///
    /// - a write that is not idempotent (an update with an `ADD`, a list append, the increment
    ///   of a `#[version]`): the SDK's retry would apply it twice. Such a write is retried only
    ///   after an answer that says nothing was applied (throttling); send it with
    ///   [`Update::idempotent`](crate::ops::update::Update::idempotent) to have it retried safely;
    /// - a conditional write (a `create`, a `#[version]` check, a `.condition(..)`) that the SDK
    ///   sent again after such a failure, and whose condition then failed: the first attempt may
    ///   be what made it fail, so neither `AlreadyExists`, `VersionConflict`, `NotFound` nor
    ///   `ConditionFailed` would be the truth.
    ///
    /// Read the item to find out what happened.
    #[error(
        "{operation} of {entity} item {}: the write may or may not have happened (its outcome is unknown: {source}); \
         read the item to find out",
        describe_pk_sk(pk, sk.as_deref())
    )]
    Indeterminate {
        /// DynamoDB's operation (`UpdateItem`, `PutItem`, `DeleteItem`, `TransactWriteItems`).
        operation: &'static str,
        /// The entity type written.
        entity: &'static str,
        /// The partition-key text.
        pk: String,
        /// The sort-key text (`None` for a table without sort key).
        sk: Option<String>,
        /// The failure that left the outcome unknown (the SDK's error), or the refused condition
        /// that followed it.
        #[source]
        source: Box<Error>,
    },
    /// DynamoDB throttled the request, and the SDK's retries (and the send path's, for
    /// transactions) did not get it through: `ProvisionedThroughputExceededException`,
    /// `RequestLimitExceeded` or `ThrottlingException`. Nothing of it was applied. `reasons` are
    /// DynamoDB's `ThrottlingReasons` (since August 2025): which table or index, which kind of
    /// operation, which limit; empty where DynamoDB gives none.
    #[error("DynamoDB throttled the request ({code}){}", describe_throttles(reasons))]
    Throttled {
        /// DynamoDB's error code (`ProvisionedThroughputExceededException`, ...).
        code: String,
        /// Which resource was throttled, and why.
        reasons: Vec<ThrottleReason>,
        /// The SDK's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// A write refused before sending on a handle of a global table with multi-Region eventual
    /// consistency (MREC, [`Table::on_global_table`](crate::Table::on_global_table)): it carries
    /// a promise DynamoDB keeps only within the Region that takes the write
    /// ([`RegionLocal`](region::RegionLocal):
    /// a create, a `#[version]` check, a `#[unique]` guard, an idempotent update, a condition),
    /// and the handle does not write such promises through one Region (its write mode, `why`).
    /// Nothing was sent.
    #[error(
        "{entity}: {promise} holds only within the Region that takes the write on this MREC global table, and {why}; \
         nothing was sent"
    )]
    RegionLocalWrite {
        /// The entity type written.
        entity: &'static str,
        /// The promise that would hold in one Region only.
        promise: region::RegionLocal,
        /// Why this handle may not send it (its write mode, and the Region its client names).
        why: String,
    },
    /// Another Region wrote one of the request's items at the same time, on a global table with
    /// multi-Region strong consistency (MRSC: DynamoDB's `ReplicatedWriteConflictException`),
    /// and the retries did not get it through. Nothing of it was applied: send it again, or read
    /// the item first.
    #[error(
        "another Region wrote the same item at the same time (ReplicatedWriteConflictException), and the retries \
         did not get the write through; nothing was applied"
    )]
    ReplicatedWriteConflict {
        /// The SDK's error.
        #[source]
        source: Box<aws_sdk_dynamodb::Error>,
    },
    /// An error of the AWS SDK (network, permissions, ...).
    ///
    /// It displays the SDK error's whole source chain (`DisplayErrorContext`): DynamoDB's code and
    /// message, or, for a failure that is not DynamoDB's answer (a timeout, a connection reset, a
    /// response the SDK cannot parse), what lies behind the SDK's "unhandled error".
    #[error("DynamoDB request failed: {}", DisplayErrorContext(&**.0))]
    Sdk(#[source] Box<aws_sdk_dynamodb::Error>),
    /// `create_table_if_not_exists` found a table of that name whose definition differs from the
    /// one the entities need (key schema, attribute types or indexes), or `Table::apply` refused
    /// a plan with changes DynamoDB cannot make in place, or an index to rebuild without
    /// `.rebuild_changed_indexes()` (nothing was changed).
    #[error("table `{table}` exists with another definition: {differences}")]
    TableMismatch {
        /// The table name.
        table: String,
        /// What differs, in words.
        differences: String,
    },
    /// `Table::apply` stopped part way (a request DynamoDB refused, or its time limit): the
    /// plan of what was applied and of what was not, and why ([`ApplyError`](apply::ApplyError):
    /// `applied()`, `not_applied()`, `source`).
    #[error(transparent)]
    Apply(Box<apply::ApplyError>),
    /// A read through an index that does not hold attributes it needs (an index declared with
    /// `projection = "keys_only"` or `include = ".."`), refused before sending: read a view of
    /// the fields the index holds, or query the table.
    #[error(
        "index {index} does not hold {} of {entity}, which this read needs: {}; read a view of the fields it holds",
        if missing.len() == 1 { "attribute" } else { "attributes" },
        missing.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
    )]
    NotProjected {
        /// The entity (or collection, or view) read.
        entity: &'static str,
        /// The index.
        index: &'static str,
        /// The attributes the read needs and the index does not hold.
        missing: Vec<&'static str>,
    },
}

/// One of DynamoDB's `ThrottlingReasons`: the resource throttled (a table's or an index's ARN)
/// and the reason, `ResourceType` + `OperationType` + `LimitType`, such as
/// `TableReadProvisionedThroughputExceeded` or `IndexWriteMaxOnDemandThroughputExceeded`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThrottleReason {
    /// DynamoDB's reason, as it sent it.
    pub reason: String,
    /// The ARN of the table or index throttled (empty if DynamoDB named none).
    pub resource: String,
}

impl ThrottleReason {
    /// The index throttled (its name, from the ARN's `/index/<name>`); `None` for the table.
    pub fn index(&self) -> Option<&str> {
        self.resource.split_once("/index/").map(|(_, name)| name)
    }

    /// The table throttled (its name, from the ARN's `table/<name>`).
    pub fn table(&self) -> Option<&str> {
        let after = self.resource.split_once(":table/").map(|(_, rest)| rest)?;
        Some(after.split_once("/index/").map_or(after, |(table, _)| table))
    }

    /// Whether reads (`Some(true)`) or writes (`Some(false)`) were throttled, as the reason's
    /// `OperationType` says (`None`: a reason of another form).
    pub fn reads(&self) -> Option<bool> {
        let rest = self.reason.strip_prefix("Table").or_else(|| self.reason.strip_prefix("Index"))?;
        if rest.starts_with("Read") {
            Some(true)
        } else if rest.starts_with("Write") {
            Some(false)
        } else {
            None
        }
    }

    /// The limit exceeded, the reason's `LimitType`: `ProvisionedThroughputExceeded`,
    /// `AccountLimitExceeded`, `KeyRangeThroughputExceeded`, `MaxOnDemandThroughputExceeded`
    /// (the whole reason if it has another form).
    pub fn limit(&self) -> &str {
        let rest = self.reason.strip_prefix("Table").or_else(|| self.reason.strip_prefix("Index"));
        let rest = rest.and_then(|r| r.strip_prefix("Read").or_else(|| r.strip_prefix("Write")));
        rest.unwrap_or(&self.reason)
    }
}

impl std::fmt::Display for ThrottleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.index(), self.table()) {
            (Some(index), _) => write!(f, "{} on index {index}", self.reason),
            (None, Some(table)) => write!(f, "{} on table {table}", self.reason),
            (None, None) if self.resource.is_empty() => write!(f, "{}", self.reason),
            (None, None) => write!(f, "{} on {}", self.reason, self.resource),
        }
    }
}

fn describe_throttles(reasons: &[ThrottleReason]) -> String {
    if reasons.is_empty() {
        return String::new();
    }
    let all: Vec<String> = reasons.iter().map(ToString::to_string).collect();
    format!(": {}", all.join(", "))
}

/// DynamoDB's `ThrottlingReasons` as [`ThrottleReason`]s.
fn reasons_of(reasons: &[aws_sdk_dynamodb::types::ThrottlingReason]) -> Vec<ThrottleReason> {
    reasons
        .iter()
        .map(|r| ThrottleReason {
            reason: r.reason().unwrap_or_default().to_owned(),
            resource: r.resource().unwrap_or_default().to_owned(),
        })
        .collect()
}

/// The throttling in an error of any operation (found down its source chain): DynamoDB's code
/// and reasons; `None` if it is no throttling error.
pub(crate) fn throttling_of(e: &(dyn std::error::Error + 'static)) -> Option<(&'static str, Vec<ThrottleReason>)> {
    use aws_sdk_dynamodb::types::error as t;
    let mut at = Some(e);
    while let Some(e) = at {
        if let Some(x) = e.downcast_ref::<t::ProvisionedThroughputExceededException>() {
            return Some(("ProvisionedThroughputExceededException", reasons_of(x.throttling_reasons())));
        }
        if let Some(x) = e.downcast_ref::<t::RequestLimitExceeded>() {
            return Some(("RequestLimitExceeded", reasons_of(x.throttling_reasons())));
        }
        if let Some(x) = e.downcast_ref::<t::ThrottlingException>() {
            return Some(("ThrottlingException", reasons_of(x.throttling_reasons())));
        }
        at = e.source();
    }
    None
}

/// The errors about one item, built by [`Error::for_item`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemErrorKind {
    AlreadyExists,
    NotFound,
    VersionConflict,
}

/// `(PK `A`, SK `B`)`: the key of an item in error messages.
fn describe_pk_sk(pk: &str, sk: Option<&str>) -> String {
    match sk {
        Some(sk) => format!("(PK `{pk}`, SK `{sk}`)"),
        None => format!("(PK `{pk}`)"),
    }
}

/// `item_key` (`model::entity`) of the key attributes `(pk, sk)` of string (or number) keys.
pub(crate) fn key_texts(item: &crate::size::Item, attrs: (&str, Option<&str>)) -> Option<(String, Option<String>)> {
    let text = |attr: &str| match item.get(attr) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(s) | aws_sdk_dynamodb::types::AttributeValue::N(s)) => {
            Some(s.clone())
        }
        _ => None,
    };
    let pk = text(attrs.0)?;
    let sk = match attrs.1 {
        Some(sk) => Some(text(sk)?),
        None => None,
    };
    Some((pk, sk))
}

/// Wraps an error of the SDK.
pub(crate) fn sdk_error<E, R>(e: aws_sdk_dynamodb::error::SdkError<E, R>) -> Error
where
    aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
{
    let e = aws_sdk_dynamodb::Error::from(e);
    #[cfg(feature = "encryption")]
    if let Some(refused) = db_esdk::refusal(&e) {
        return refused;
    }
    let throttled = match &e {
        aws_sdk_dynamodb::Error::ProvisionedThroughputExceededException(x) => Some(x.throttling_reasons()),
        aws_sdk_dynamodb::Error::RequestLimitExceeded(x) => Some(x.throttling_reasons()),
        aws_sdk_dynamodb::Error::ThrottlingException(x) => Some(x.throttling_reasons()),
        _ => None,
    };
    if matches!(e, aws_sdk_dynamodb::Error::ReplicatedWriteConflictException(_)) {
        return Error::ReplicatedWriteConflict { source: Box::new(e) };
    }
    if let Some(reasons) = throttled {
        use aws_sdk_dynamodb::error::ProvideErrorMetadata;
        return Error::Throttled {
            code: e.code().unwrap_or_default().to_owned(),
            reasons: reasons_of(reasons),
            source: Box::new(e),
        };
    }
    Error::Sdk(Box::new(e))
}

/// A request the SDK's builders refuse (a required field missing), as [`Error::Validation`].
#[cold]
pub(crate) fn build_error(e: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::Validation(e.to_string())
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
    pub(crate) page: Box<dyn core::any::Any + Send + Sync>,
    pub(crate) len: usize,
}

impl PartialPage {
    /// How many good items it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no good item.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl core::fmt::Debug for PartialPage {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PartialPage").field("items", &self.len).finish_non_exhaustive()
    }
}

/// Why a value could not be written as, or read from, key text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyPartError {
    /// The value has more digits than the placeholder's width.
    #[error("{value} has more than {width} digits")]
    TooWide {
        /// The width of the placeholder.
        width: usize,
        /// The value, in decimal.
        value: String,
    },
    /// The value has no key text (a negative number in a padded placeholder, a year past 9999, ...).
    #[error("{value} cannot be written as {expected}")]
    OutOfRange {
        /// What the key text can hold.
        expected: &'static str,
        /// The value.
        value: String,
    },
    /// The text is not the canonical key text of any value.
    #[error("`{text}` is not {expected}")]
    Invalid {
        /// What the text should have been.
        expected: &'static str,
        /// The text that was read.
        text: String,
    },
    /// An implementation outside this crate wrote a byte the key-text contract forbids.
    #[error("key text `{text}` contains a byte below `%` (such as `#`), which would break key structure")]
    Forbidden {
        /// The text that was written.
        text: String,
    },
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

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::error::SdkError;
    use aws_sdk_dynamodb::operation::get_item::GetItemError;

    use super::*;

    #[test]
    fn sdk_errors_show_their_source_chain() {
        // A failure that is not DynamoDB's answer: the SDK calls it "unhandled error", the cause
        // is in its source chain.
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection reset by peer (test)");
        let e: SdkError<GetItemError> = SdkError::timeout_error(io);
        let text = sdk_error(e).to_string();
        assert!(text.contains("connection reset by peer (test)"), "{text}");
    }

    #[test]
    fn item_errors_name_the_entity_and_the_key() {
        let e = Error::NotFound { entity: "Order", pk: "ORDER#1".into(), sk: None };
        assert_eq!(e.to_string(), "no Order item (PK `ORDER#1`) exists");
        let e = Error::VersionConflict { entity: "Stock", pk: "W#A".into(), sk: Some("S#b".into()) };
        assert_eq!(e.to_string(), "Stock item (PK `W#A`, SK `S#b`) was changed by another writer (version conflict)");
    }
}
