//! Conditions of single-item writes, shared by `Table` and transactions: "create must not
//! overwrite", and optimistic locking on `#[version]` fields.

use std::collections::HashMap;

use crate::error::Error;
use crate::model::Item;
use crate::model::entity::Entity;
use crate::model::filled::Judged;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::sdk_error;
use crate::model::entity::EntitySchema;
use crate::send::{call, send};
use crate::table::Table;

/// DynamoDB's refusal of a write that is not a failed condition, as this library's error: the
/// one mapping every write path uses (`UpdateItem`, and `TransactWriteItems` plain or guarded
/// by `#[unique]` values). An update under a document's map or list that the item lacks
/// (DynamoDB's "document path provided in the update expression is invalid for update", as an
/// error or as the reason of a cancelled transaction) is [`Error::MissingParent`], naming the
/// paths the writes take into documents (`nested`: entity and path); anything else is the SDK's
/// error.
pub(crate) fn refused<E, R>(e: aws_sdk_dynamodb::error::SdkError<E, R>, nested: &[(&'static str, String)]) -> Error
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
    aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
{
    let missing = e.as_service_error().is_some_and(|s| missing_parent(s.code(), s.message()));
    match nested.first() {
        Some((entity, _)) if missing => missing_parent_error(entity, nested),
        _ => sdk_error(e),
    }
}

/// [`refused`] for the reasons of a cancelled transaction: `Some(Error::MissingParent)` if an
/// action was refused for a missing parent (`ValidationError`) and the transaction writes under
/// documents.
pub(crate) fn refused_action(
    reasons: &[aws_sdk_dynamodb::types::CancellationReason],
    nested: &[(&'static str, String)],
) -> Option<Error> {
    let (entity, _) = nested.first()?;
    reasons
        .iter()
        .any(|r| r.code() == Some("ValidationError") && missing_parent(Some("ValidationException"), r.message()))
        .then(|| missing_parent_error(entity, nested))
}

fn missing_parent_error(entity: &'static str, nested: &[(&'static str, String)]) -> Error {
    Error::MissingParent { entity, paths: nested.iter().map(|(_, p)| p.clone()).collect() }
}

/// Whether DynamoDB refused an update because a path's parent is missing (a
/// `ValidationException` "The document path provided in the update expression is invalid for
/// update").
fn missing_parent(code: Option<&str>, message: Option<&str>) -> bool {
    code == Some("ValidationException")
        && message.is_some_and(|m| m.contains("document path provided in the update expression is invalid"))
}

/// How a put treats an existing item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PutMode {
    /// Replace it (but see the version rule).
    Put,
    /// Fail if it exists.
    Create,
}

/// A put ready to send: the item and its condition.
#[derive(Debug)]
pub(crate) struct PutParts {
    pub item: Item,
    pub condition: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
    /// What a failed condition means, read with the item as it was.
    pub failure: Failure,
    /// The values of the item's key attributes, found when it was checked.
    pub key: PutKey,
}

/// The values of a put's key attributes: the partition of its capacity and, on an error, the key
/// that names the item, once the item itself has moved into the request (built into an item
/// only then).
#[derive(Debug, Clone)]
pub(crate) enum PutKey {
    /// The key's string texts, as the writer of the item copied them: the partition key's
    /// ends at `pk_end`, the sort key (if `has_sk`) is the rest.
    Texts { text: String, pk_end: usize, has_sk: bool },
    /// The values of the key attributes, found on a walk over the item (`None`: absent).
    Values { pk: Option<AttributeValue>, sk: Option<AttributeValue> },
}

impl PutKey {
    /// The partition-key text (`None` if the item has no such string or number attribute).
    pub(crate) fn partition(&self) -> Option<&str> {
        match self {
            PutKey::Texts { text, pk_end, .. } => text.get(..*pk_end),
            PutKey::Values { pk: Some(AttributeValue::S(pk) | AttributeValue::N(pk)), .. } => Some(pk),
            PutKey::Values { .. } => None,
        }
    }

    /// The key attributes as an item, as [`key_item`] takes them from the item.
    pub(crate) fn item(&self, schema: &EntitySchema) -> Item {
        let (pk, sk) = match self {
            PutKey::Texts { text, pk_end, has_sk } => {
                let (pk, sk) = text.split_at_checked(*pk_end).unwrap_or((text, ""));
                let s = |t: &str| Some(AttributeValue::S(t.to_owned()));
                (s(pk), if *has_sk { s(sk) } else { None })
            }
            PutKey::Values { pk, sk } => (pk.clone(), sk.clone()),
        };
        let mut key = Item::with_capacity(2);
        let attrs = std::iter::once((schema.pk.attr, pk)).chain(schema.sk.map(|k| (k.attr, sk)));
        for (attr, value) in attrs {
            if let Some(v) = value {
                key.insert(attr.to_owned(), v);
            }
        }
        key
    }
}

/// What the condition of a write checks, to tell from the item as it was (DynamoDB's
/// `ReturnValuesOnConditionCheckFailure = ALL_OLD`) which part of it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    /// The item must not exist (create).
    pub must_not_exist: bool,
    /// The item must exist (an update that is not an upsert).
    pub must_exist: bool,
    /// The stored version must be this (0: no item, or no version attribute).
    pub version: Option<(&'static str, u64)>,
    /// The stored version must be below this, the largest its field holds (an update that
    /// increments a version it does not know).
    pub version_below: Option<(&'static str, u64)>,
}

/// Which error a failed condition is, given the item as it was (`None`: there was none). A
/// user condition is the cause when the library's own conditions held.
pub(crate) fn classify(failure: Failure, entity: &'static str, old: Option<&Item>) -> Result<FailureKind, Error> {
    if let Some(old) = old {
        if failure.must_not_exist {
            return Ok(FailureKind::AlreadyExists);
        }
        if let Some((attr, expected)) = failure.version
            && version_of(entity, attr, old)? != expected
        {
            return Ok(FailureKind::VersionConflict);
        }
        if let Some((attr, max)) = failure.version_below {
            let stored = version_of(entity, attr, old)?;
            if stored >= max {
                return Ok(FailureKind::VersionOverflow(stored));
            }
        }
        return Ok(FailureKind::ConditionFailed);
    }
    if failure.must_exist {
        return Ok(FailureKind::NotFound);
    }
    if matches!(failure.version, Some((_, v)) if v > 0) {
        return Ok(FailureKind::VersionConflict);
    }
    Ok(FailureKind::ConditionFailed)
}

/// The error a failed condition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailureKind {
    AlreadyExists,
    NotFound,
    VersionConflict,
    /// The stored version is the largest its field holds (the version it holds).
    VersionOverflow(u64),
    ConditionFailed,
}

impl FailureKind {
    /// The error naming the entity and `key` (the key attributes); a [`Error::ConditionFailed`]
    /// holds the item as it was if `old` is given.
    pub(crate) fn error(self, schema: &crate::model::entity::EntitySchema, key: &Item, old: Option<Item>) -> Error {
        use crate::error::ItemErrorKind;
        match self {
            FailureKind::AlreadyExists => Error::for_item(ItemErrorKind::AlreadyExists, schema, key),
            FailureKind::NotFound => Error::for_item(ItemErrorKind::NotFound, schema, key),
            FailureKind::VersionConflict => Error::for_item(ItemErrorKind::VersionConflict, schema, key),
            FailureKind::VersionOverflow(version) => crate::model::version::overflow(schema, version),
            FailureKind::ConditionFailed => {
                let (pk, sk) = crate::model::entity::item_key(schema, key).unwrap_or_default();
                Error::ConditionFailed { entity: schema.entity_type, pk, sk, old: old.map(Box::new) }
            }
        }
    }
}

/// A user condition alone (a write with no check of its own), as the SDK's builders take it:
/// the expression and its names and values, each `None` when there is no condition.
#[derive(Debug, Default)]
pub(crate) struct UserCondition {
    pub text: Option<String>,
    pub names: Option<HashMap<String, String>>,
    pub values: Option<HashMap<String, AttributeValue>>,
}

/// Renders `user` (if any) as a write's whole condition.
pub(crate) fn user_condition(user: Option<&crate::expr::Condition<()>>) -> Result<UserCondition, Error> {
    let Some(user) = user else { return Ok(UserCondition::default()) };
    let mut text = None;
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    and_user_condition(&mut text, &mut names, &mut values, user)?;
    Ok(UserCondition { text, names: Some(names), values: (!values.is_empty()).then_some(values) })
}

/// Adds a user condition to a write's own: `own AND (user)`, placeholders `#c<n>`/`:c<n>`.
pub(crate) fn and_user_condition(
    condition: &mut Option<String>,
    names: &mut HashMap<String, String>,
    values: &mut HashMap<String, AttributeValue>,
    user: &crate::expr::Condition<()>,
) -> Result<(), Error> {
    *condition = Some(match condition.take() {
        Some(own) => format!("{own} AND {}", user.render_operand(names, values).map_err(Error::Validation)?),
        None => user.render(names, values).map_err(Error::Validation)?,
    });
    Ok(())
}

impl PutParts {
    /// The key attributes of the item (for an error that names it).
    pub(crate) fn key_item(&self, schema: &crate::model::entity::EntitySchema) -> Item {
        self.key.item(schema)
    }
}

/// The condition "the stored version is `version`" over `#ver` and `:ver`. Version 0 is also
/// an item without a version attribute (written before versioning, or by other code), or no
/// item at all: reading such an item gives version 0, so writing it back must be allowed.
pub(crate) fn version_condition(version: u64) -> &'static str {
    if version == 0 { "(attribute_not_exists(#ver) OR #ver = :ver)" } else { "#ver = :ver" }
}

/// Reads a version Number of an item (0 when it has none, as decoding reads it).
pub(crate) fn version_of(entity: &'static str, attr: &'static str, item: &Item) -> Result<u64, Error> {
    match item.get(attr) {
        None => Ok(0),
        Some(AttributeValue::N(n)) => n
            .parse::<u64>()
            .map_err(|_| Error::decode(entity, attr, format!("a version must be a non-negative integer, found {n}"))),
        Some(_) => Err(Error::decode(entity, attr, "a version must be a number (N)")),
    }
}

/// The item of `entity` and the condition of writing it.
///
/// - `Create`: `attribute_not_exists(PK)`.
/// - A `#[version]` entity: the stored version must equal the entity's (for 0: no item, an item
///   without a version attribute, or version 0), and the item is written with version + 1.
/// - A user condition (`user`) is added to those, never replacing them.
pub(crate) fn put_parts_if<E: Entity>(
    entity: &E,
    mode: PutMode,
    user: Option<&crate::expr::Condition<()>>,
    reading: &mut crate::model::filled::Reading,
    clock: &crate::model::filled::Clock,
) -> Result<PutParts, Error> {
    let schema = &E::SCHEMA;
    // The item checked as it is written (its size, its numbers), its key texts copied by the
    // writer: no walk over it afterwards (issue 51).
    let mut w = crate::codec::Writer::checking(schema.entity_type, schema.item_capacity(), String::new());
    crate::model::filled::write_item(entity, mode == PutMode::Create, reading, clock, &mut w)?;
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    // Only a create's condition names the partition key: a plain put builds no names at all.
    if mode == PutMode::Create {
        names.insert("#pk".to_owned(), schema.pk.attr.to_owned());
    }
    let mut condition = match mode {
        PutMode::Create => Some("attribute_not_exists(#pk)".to_owned()),
        PutMode::Put => None,
    };
    let mut failure =
        Failure { must_not_exist: mode == PutMode::Create, must_exist: false, version: None, version_below: None };
    if let Some(attr) = schema.version_attr {
        let current = version_of(schema.entity_type, attr, w.item())?;
        if current >= schema.version_max {
            return Err(crate::model::version::overflow(schema, current));
        }
        let next = current + 1;
        // Through the writer, which counts the new value in the item's size for the old one.
        w.insert(attr, AttributeValue::N(next.to_string()));
        if mode == PutMode::Put {
            failure.version = Some((attr, current));
            names.remove("#pk");
            names.insert("#ver".to_owned(), attr.to_owned());
            values.insert(":ver".to_owned(), AttributeValue::N(current.to_string()));
            condition = Some(version_condition(current).to_owned());
        }
    }
    if let Some(user) = user {
        and_user_condition(&mut condition, &mut names, &mut values, user)?;
    }
    let (item, checked) = w.into_checked();
    let key = match crate::model::filled::judge(schema, &item, &checked, 0)? {
        Judged::Texts(pk_end, _, has_sk) => PutKey::Texts { text: checked.texts, pk_end, has_sk },
        // A key on a field's own attribute: the walk that checked the item found the key.
        Judged::Walked((pk, sk)) => PutKey::Values { pk: pk.cloned(), sk: sk.cloned() },
    };
    if condition.as_deref().is_some_and(|c| !c.contains("#pk")) {
        names.remove("#pk");
    }
    let (names, values) = match condition {
        Some(_) => (Some(names), (!values.is_empty()).then_some(values)),
        None => (None, None),
    };
    Ok(PutParts { item, condition, names, values, failure, key })
}

/// The table key of a stored item.
pub(crate) fn key_item(schema: &EntitySchema, item: &Item) -> Item {
    let mut key = Item::with_capacity(2);
    for attr in std::iter::once(schema.pk.attr).chain(schema.sk.map(|k| k.attr)) {
        if let Some(v) = item.get(attr) {
            key.insert(attr.to_owned(), v.clone());
        }
    }
    key
}

/// The item with the key of `old` as it is now (a strongly consistent read), or `None` if
/// there is none.
pub(crate) async fn read_consistent(table: &Table, schema: &EntitySchema, old: &Item) -> Result<Option<Item>, Error> {
    let key = key_item(schema, old);
    let partition = crate::send::partition_of(&key, schema.pk.attr).map(str::to_owned);
    let request = table
        .client
        .get_item()
        .table_name(&*table.name)
        .set_key(Some(key))
        .consistent_read(true)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let call = call("GetItem", &table.name, schema.entity_type, None).on(partition.as_deref());
    Ok(send(&table.meter, &call, request).await.map_err(sdk_error)?.item)
}

// What a write does to an entity's `#[unique]` values: the description the plain writes
// (single items, updates, transactions) record, and the guarded path above them
// (`crate::ops::unique`) writes the guards of.

/// How one write sets a unique field.
#[derive(Debug, Clone)]
pub(crate) enum NewValue {
    /// To this value.
    Set(AttributeValue),
    /// Removed.
    Remove,
    /// To this value if the item has none (an upsert's default).
    IfAbsent(AttributeValue),
}

/// What one write does to an item's unique values.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// A put: the new item's value of each unique field (`None`: no value). A create needs no
    /// read: there is no item, or the create fails.
    Put { values: Vec<Option<AttributeValue>>, create: bool },
    /// An update: the unique fields it sets or removes (by index); the others keep their values.
    Update(Vec<(usize, NewValue)>),
    /// A delete: every value is freed.
    Delete,
}

/// A write of an entity with `#[unique]` fields, in a transaction.
#[derive(Debug, Clone)]
pub(crate) struct Guarded {
    /// The index of the item's own action in the transaction.
    pub action: usize,
    /// The entity the item is written as (whose guards it holds after the write).
    pub schema: &'static EntitySchema,
    /// The entity the stored item is read as (whose guards it holds before the write): `schema`,
    /// except for a put in place over an item of another type (a migration to a new type name).
    pub read_as: &'static EntitySchema,
    /// The item's key.
    pub key: Item,
    pub change: Change,
}

impl Guarded {
    /// A put (or create) of `item`.
    pub(crate) fn put(action: usize, schema: &'static EntitySchema, key: Item, item: &Item, create: bool) -> Self {
        let values = schema.unique.iter().map(|u| value_of(item, u.attr).cloned()).collect();
        Guarded { action, schema, read_as: schema, key, change: Change::Put { values, create } }
    }

    /// A delete of the item with key `key`.
    pub(crate) fn delete(action: usize, schema: &'static EntitySchema, key: Item) -> Self {
        Guarded { action, schema, read_as: schema, key, change: Change::Delete }
    }

    /// An update of the item with key `key` that sets or removes unique fields.
    pub(crate) fn update(
        action: usize,
        schema: &'static EntitySchema,
        key: Item,
        changes: Vec<(usize, NewValue)>,
    ) -> Self {
        Guarded { action, schema, read_as: schema, key, change: Change::Update(changes) }
    }

    /// Whether it is a create: no item is read (there is none, or the write fails).
    pub(crate) fn creates(&self) -> bool {
        matches!(self.change, Change::Put { create: true, .. })
    }
}

/// A stored value: absent and NULL hold no guard.
pub(crate) fn value_of<'i>(item: &'i Item, attr: &str) -> Option<&'i AttributeValue> {
    item.get(attr).filter(|v| !matches!(v, AttributeValue::Null(_)))
}
