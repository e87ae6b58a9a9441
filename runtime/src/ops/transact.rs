//! Transactions: up to 100 actions, all or nothing. Checked before sending: the count, one action
//! per item, the 4 MB total (items of puts; keys, expressions and values of updates, deletes and
//! checks), the idempotency token's length.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Get, Put, ReturnConsumedCapacity, TransactGetItem, TransactWriteItem,
};

use crate::error::CancelCode;
use crate::error::CancelReason;
use crate::error::Error;
use crate::error::{build_error, sdk_error};
use crate::expr::Condition;
use crate::model::Item;
use crate::model::collection::{ReadKey, Readable};
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::entity::item_key;
use crate::ops::policy::Promises;
use crate::ops::update::{Update, indeterminate_if};
use crate::ops::write::{PutMode, put_parts_if};
use crate::send::{Call, send};
use crate::table::Table;
use aws_sdk_dynamodb::types::AttributeValue;

/// DynamoDB's limit of actions in one transaction.
pub const MAX_TRANSACTION_ACTIONS: usize = 100;
/// DynamoDB's limit on the total size of a transaction.
pub const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

/// A condition on an item that a transaction checks without writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// The item exists.
    Exists,
    /// The item does not exist.
    NotExists,
    /// The item's `#[version]` is this number.
    Version(u64),
}

/// A transaction being built by [`Table::transact`]; nothing is sent until [`Transaction::send`].
///
/// Its actions' `#[created_at]` and `#[updated_at]` take one reading of the table's clock, the
/// first time an action needs it. DynamoDB's TransactWriteItems returns no items, so there is no
/// `.returning()` here: a put writes its struct with those fields filled from that one reading
/// (and `#[created_at]` kept as the struct holds it, but on `create`); a caller that needs the
/// values at once gives the table a clock it controls (`Table::with_clock`).
#[derive(Debug)]
#[must_use = "a transaction does nothing until `send` is awaited"]
pub struct Transaction {
    pub(crate) table: Table,
    pub(crate) items: Vec<TransactWriteItem>,
    keys: Vec<(String, Option<String>)>,
    /// The entity types of the actions, once each (for the span).
    pub(crate) entities: Vec<&'static str>,
    /// What the actions weigh towards DynamoDB's 4 MB: items, keys, expressions and values.
    pub(crate) bytes: usize,
    pub(crate) token: Option<String>,
    /// How many times a cancellation by conflicts alone is sent again.
    pub(crate) conflict_retries: u32,
    /// The writes of entities with `#[unique]` fields, whose guards the guarded path
    /// (`crate::ops::unique`) adds when sending.
    pub(crate) guarded: Vec<crate::ops::write::Guarded>,
    error: Option<Error>,
    /// The paths into documents the updates write (entity, `address.city`): what a missing
    /// parent names.
    pub(crate) nested: Vec<(&'static str, String)>,
    /// The one reading of the clock every action's filled fields take.
    reading: crate::model::filled::Reading,
    /// The first action that is not idempotent (an update with an `ADD`, a list append or a
    /// `#[version]`): its entity and key. A transaction carrying one whose outcome a failure left
    /// unknown is [`Error::Indeterminate`] naming it, never an error that reads as safe to send
    /// again.
    pub(crate) adds_up: Option<(&'static crate::model::entity::EntitySchema, Item)>,
}

pub use crate::send::DEFAULT_CONFLICT_RETRIES;

/// The weight of an update or a condition towards the 4 MB: its key, expressions, names and values.
fn expression_bytes(
    key: &Item,
    expressions: &[Option<&str>],
    names: Option<&std::collections::HashMap<String, String>>,
    values: Option<&Item>,
) -> usize {
    crate::size::item_size(key)
        + expressions.iter().flatten().map(|e| e.len()).sum::<usize>()
        + names.map_or(0, |n| n.iter().map(|(k, v)| k.len() + v.len()).sum())
        + values.map_or(0, crate::size::item_size)
}

fn key_of(schema: &crate::model::entity::EntitySchema, item: &Item) -> (String, Option<String>) {
    item_key(schema, item).unwrap_or_default()
}

impl Table {
    /// Starts a transaction on this table.
    pub fn transact(&self) -> Transaction {
        Transaction {
            table: self.clone(),
            items: Vec::new(),
            keys: Vec::new(),
            entities: Vec::new(),
            bytes: 0,
            token: None,
            conflict_retries: DEFAULT_CONFLICT_RETRIES,
            guarded: Vec::new(),
            error: None,
            nested: Vec::new(),
            reading: crate::model::filled::Reading::default(),
            adds_up: None,
        }
    }

    /// Reads up to 100 items in one transaction (a consistent snapshot), in the order of `keys`;
    /// `None` for a missing item.
    /// Keys of an entity give the entity; keys of a collection (`<Collection>Key`, of several
    /// member types) give the collection enum.
    pub async fn transact_get<K: ReadKey>(
        &self,
        keys: impl IntoIterator<Item = K>,
    ) -> Result<Vec<Option<K::Output>>, Error> {
        let name = <K::Output as Readable>::NAME;
        let schema = <K::Output as Readable>::schema(None)
            .ok_or_else(|| Error::Validation(format!("{name} has no member to read")))?;
        let mut gets = Vec::new();
        let mut seen = HashSet::new();
        let keys: Vec<K> = keys.into_iter().collect();
        for key in &keys {
            let item = key.to_key_item()?;
            self.check_tenant_item(key.__schema(), &item)?;
            if !seen.insert(key_of(schema, &item)) {
                return Err(Error::Validation(format!(
                    "transact_get: the key {:?} is given twice; DynamoDB rejects that",
                    key_of(schema, &item)
                )));
            }
            let get = Get::builder().table_name(self.name()).set_key(Some(item)).build().map_err(build_error)?;
            gets.push(TransactGetItem::builder().get(get).build());
        }
        if gets.len() > MAX_TRANSACTION_ACTIONS {
            return Err(Error::Validation(format!(
                "transact_get of {} keys: DynamoDB allows at most {MAX_TRANSACTION_ACTIONS}",
                gets.len()
            )));
        }
        if gets.is_empty() {
            return Ok(Vec::new());
        }
        let span = tracing::debug_span!(
            "dynamodb",
            operation = "TransactGetItems",
            table = self.name(),
            entity = name,
            items = gets.len(),
            consumed_capacity = tracing::field::Empty,
        );
        let request = self
            .client()
            .transact_get_items()
            .set_transact_items(Some(gets))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = send(&self.meter, &Call::new(span, name, None), request).await.map_err(sdk_error)?;
        out.responses
            .unwrap_or_default()
            .into_iter()
            .zip(&keys)
            .map(|(r, key)| r.item.map(|item| key.decode(item)).transpose())
            .collect()
    }
}

impl Transaction {
    fn add(
        mut self,
        schema: &crate::model::entity::EntitySchema,
        key: (String, Option<String>),
        item: Result<TransactWriteItem, Error>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        // The rate limit's estimate of the transaction counts the items' indexes.
        self.table.meter.know(schema);
        match item {
            Err(e) => self.error = Some(e),
            Ok(item) => {
                if let Err(e) = self.table.check_tenant(schema, None, &key.0) {
                    self.error = Some(e);
                } else if self.keys.contains(&key) {
                    self.error = Some(Error::Validation(format!(
                        "two actions on the {} item {key:?} in one transaction: DynamoDB rejects that",
                        schema.entity_type
                    )));
                } else {
                    self.keys.push(key);
                    self.items.push(item);
                    if !self.entities.contains(&schema.entity_type) {
                        self.entities.push(schema.entity_type);
                    }
                }
            }
        }
        self
    }

    /// Refuses the transaction (as `add` does) if this handle may not send a write of `schema`
    /// making `promises` ([`Table::check_promises`]).
    fn promising(mut self, schema: &crate::model::entity::EntitySchema, promises: Promises) -> Self {
        if self.error.is_none()
            && let Err(e) = self.table.check_promises(schema.entity_type, promises)
        {
            self.error = Some(e);
        }
        self
    }

    fn put_with<E: Entity>(mut self, entity: &E, mode: PutMode, condition: Option<Condition<()>>) -> Self {
        let schema = &E::SCHEMA;
        self = self.promising(schema, Promises::put(schema, mode == PutMode::Create, condition.is_some()));
        let parts = match put_parts_if(entity, mode, condition.as_ref(), &mut self.reading, &self.table.clock) {
            Ok(p) => p,
            Err(e) => return self.add(schema, (String::new(), None), Err(e)),
        };
        let key = key_of(schema, &parts.item);
        self.bytes += crate::size::item_size(&parts.item);
        let guarded = (!schema.unique.is_empty()).then(|| {
            let key = parts.key_item(schema);
            crate::ops::write::Guarded::put(self.items.len(), schema, key, &parts.item, mode == PutMode::Create)
        });
        let put = Put::builder()
            .table_name(self.table.name())
            .set_item(Some(parts.item))
            .set_condition_expression(parts.condition)
            .set_expression_attribute_names(parts.names)
            .set_expression_attribute_values(parts.values)
            .build()
            .map_err(build_error)
            .map(|p| TransactWriteItem::builder().put(p).build());
        self.add(schema, key, put).guard(guarded)
    }

    /// Keeps the unique values of the write just added (if it was).
    fn guard(mut self, guarded: Option<crate::ops::write::Guarded>) -> Self {
        if let Some(g) = guarded
            && self.error.is_none()
            && g.action + 1 == self.items.len()
        {
            self.guarded.push(g);
        }
        self
    }

    /// Writes an item (replacing; with the version rule of [`Table::put`]).
    pub fn put<E: Entity>(self, entity: &E) -> Self {
        self.put_with(entity, PutMode::Put, None)
    }

    /// Writes an item if `condition` holds on the stored one (besides the version rule); if it
    /// does not, the transaction is cancelled with `ConditionalCheckFailed` for this action.
    pub fn put_if<E: Entity>(self, entity: &E, condition: Condition<E>) -> Self {
        self.put_with(entity, PutMode::Put, Some(condition.cast()))
    }

    /// Writes an item that must not exist yet.
    pub fn create<E: Entity>(self, entity: &E) -> Self {
        self.put_with(entity, PutMode::Create, None)
    }

    /// Deletes an item.
    pub fn delete<K: EntityKey>(self, key: K) -> Self {
        self.delete_with(key, None)
    }

    /// Deletes an item if `condition` holds on it; if not, the transaction is cancelled with
    /// `ConditionalCheckFailed` for this action.
    pub fn delete_if<K: EntityKey>(self, key: K, condition: Condition<K::Entity>) -> Self {
        self.delete_with(key, Some(condition.cast()))
    }

    /// Requires `condition` to hold on an item that the transaction does not write (a business
    /// rule read and checked in the same all-or-nothing request).
    pub fn check<K: EntityKey>(mut self, key: K, condition: Condition<K::Entity>) -> Self {
        let schema = &<K::Entity as Entity>::SCHEMA;
        self = self.promising(schema, Promises { condition: true, ..Promises::default() });
        let item = match key.to_key_item() {
            Ok(i) => i,
            Err(e) => return self.add(schema, (String::new(), None), Err(e)),
        };
        let k = key_of(schema, &item);
        let c = match crate::ops::write::user_condition(Some(&condition.cast())) {
            Ok(c) => c,
            Err(e) => return self.add(schema, k, Err(e)),
        };
        self.bytes += expression_bytes(&item, &[c.text.as_deref()], c.names.as_ref(), c.values.as_ref());
        let check = ConditionCheck::builder()
            .table_name(self.table.name())
            .set_key(Some(item))
            .set_condition_expression(c.text)
            .set_expression_attribute_names(c.names)
            .set_expression_attribute_values(c.values)
            .build()
            .map_err(build_error)
            .map(|c| TransactWriteItem::builder().condition_check(c).build());
        self.add(schema, k, check)
    }

    fn delete_with<K: EntityKey>(mut self, key: K, condition: Option<Condition<()>>) -> Self {
        let schema = &<K::Entity as Entity>::SCHEMA;
        self = self.promising(schema, Promises::delete(schema, condition.is_some()));
        let item = match key.to_key_item() {
            Ok(i) => i,
            Err(e) => return self.add(schema, (String::new(), None), Err(e)),
        };
        let k = key_of(schema, &item);
        let c = match crate::ops::write::user_condition(condition.as_ref()) {
            Ok(c) => c,
            Err(e) => return self.add(schema, k, Err(e)),
        };
        self.bytes += expression_bytes(&item, &[c.text.as_deref()], c.names.as_ref(), c.values.as_ref());
        let guarded = (!schema.unique.is_empty())
            .then(|| crate::ops::write::Guarded::delete(self.items.len(), schema, item.clone()));
        let delete = Delete::builder()
            .table_name(self.table.name())
            .set_key(Some(item))
            .set_condition_expression(c.text)
            .set_expression_attribute_names(c.names)
            .set_expression_attribute_values(c.values)
            .build()
            .map_err(build_error)
            .map(|d| TransactWriteItem::builder().delete(d).build());
        self.add(schema, k, delete).guard(guarded)
    }

    /// Applies a typed update (must exist unless `.upsert()`; versions checked).
    pub fn update<E: crate::ops::update::Updatable>(mut self, update: impl Into<Update<E>>) -> Self {
        let schema = &E::SCHEMA;
        let mut update = update.into();
        update.keep();
        if let Err(e) = self.table.check_update(schema) {
            return self.add(schema, (String::new(), None), Err(e));
        }
        let changes = update.unique_changes();
        let promises = update.promises(matches!(&changes, Ok(c) if !c.is_empty()));
        self = self.promising(schema, promises);
        let requested = update.request_at(&mut self.reading, &self.table.clock);
        let (r, changes) = match requested.and_then(|r| Ok((r, changes?))) {
            Ok(r) => r,
            Err(e) => return self.add(schema, (String::new(), None), Err(e)),
        };
        let guarded = (!changes.is_empty())
            .then(|| crate::ops::write::Guarded::update(self.items.len(), schema, r.key.clone(), changes));
        if r.replay == crate::send::replay::Replay::Never && self.adds_up.is_none() && self.error.is_none() {
            self.adds_up = Some((schema, r.key.clone()));
        }
        let k = key_of(schema, &r.key);
        self.nested.extend(r.nested.iter().map(|p| (schema.entity_type, p.clone())));
        self.bytes += expression_bytes(
            &r.key,
            &[Some(&r.update_expression), r.condition_expression.as_deref()],
            Some(&r.expression_attribute_names),
            r.expression_attribute_values.as_ref(),
        );
        let update = aws_sdk_dynamodb::types::Update::builder()
            .table_name(self.table.name())
            .set_key(Some(r.key))
            .update_expression(r.update_expression)
            .set_condition_expression(r.condition_expression)
            .set_expression_attribute_names(Some(r.expression_attribute_names))
            .set_expression_attribute_values(r.expression_attribute_values)
            .build()
            .map_err(build_error)
            .map(|u| TransactWriteItem::builder().update(u).build());
        self.add(schema, k, update).guard(guarded)
    }

    /// Requires a condition on an item that the transaction does not write.
    pub fn condition_check<K: EntityKey>(mut self, key: K, check: Check) -> Self {
        let schema = &<K::Entity as Entity>::SCHEMA;
        self = self.promising(schema, Promises { condition: true, ..Promises::default() });
        let item = match key.to_key_item() {
            Ok(i) => i,
            Err(e) => return self.add(schema, (String::new(), None), Err(e)),
        };
        let k = key_of(schema, &item);
        self.bytes += crate::size::item_size(&item);
        let mut builder = ConditionCheck::builder().table_name(self.table.name()).set_key(Some(item));
        builder = match check {
            Check::Exists => {
                builder.condition_expression("attribute_exists(#pk)").expression_attribute_names("#pk", schema.pk.attr)
            }
            Check::NotExists => builder
                .condition_expression("attribute_not_exists(#pk)")
                .expression_attribute_names("#pk", schema.pk.attr),
            Check::Version(v) => match schema.version_attr {
                Some(attr) => builder
                    .condition_expression(crate::ops::write::version_condition(v))
                    .expression_attribute_names("#ver", attr)
                    .expression_attribute_values(":ver", AttributeValue::N(v.to_string())),
                None => {
                    let e =
                        Error::Validation(format!("Check::Version: {} has no #[version] field", schema.entity_type));
                    return self.add(schema, k, Err(e));
                }
            },
        };
        let check =
            builder.build().map_err(build_error).map(|c| TransactWriteItem::builder().condition_check(c).build());
        self.add(schema, k, check)
    }

    /// Makes the transaction idempotent: sent again with the same token within 10 minutes, it
    /// is not applied twice (1 to 36 characters).
    ///
    /// A transaction that writes entities with `#[unique]` fields is built from the items as
    /// read (which guards to move depends on them): sent again after it applied, its puts,
    /// updates and deletes of such entities read the new items and build another request,
    /// which DynamoDB refuses under the same token ([`Error::Sdk`] with
    /// `IdempotentParameterMismatchException`) rather than applying it twice. Creates are built
    /// without reading: sent again, they are answered as the first time. Within one `send`, such
    /// a transaction cancelled because an item changed after it was read (or by a conflict) is
    /// read and built again under the same token: it applied nothing, and DynamoDB keeps a token
    /// only for a transaction it applied.
    ///
    /// With or without a token, a transaction holding an update that is not idempotent (an `ADD`,
    /// a list append, a `#[version]`) whose outcome a failure left unknown (after the SDK's
    /// retries, and with a token the table's sends) is [`Error::Indeterminate`] naming that
    /// update's item: it may or may not have been applied.
    pub fn idempotency_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// How many times a transaction that DynamoDB cancelled for conflicts alone (every reason
    /// `TransactionConflict` or `None`: another request was writing one of its items) is sent
    /// again, after a backoff (25 ms, doubling, with jitter); [`DEFAULT_CONFLICT_RETRIES`] unless
    /// set, 0 to never. A cancellation with any other reason (a failed condition above all) is
    /// never retried: it is [`Error::TransactionCanceled`] at once.
    pub fn retry_conflicts(mut self, retries: u32) -> Self {
        self.conflict_retries = retries;
        self
    }

    /// The number of actions so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there is no action yet.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Refuses a transaction DynamoDB would refuse ([`Error::Validation`]): no action, more
    /// than 100, two on one item, over 4 MB, a token of the wrong length.
    pub(crate) fn refuse_invalid(&mut self) -> Result<(), Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        // Applied once by its token: in the Region that took it only.
        if self.token.is_some() {
            let entity = self.entities.first().copied().unwrap_or_default();
            self.table.check_promises(entity, Promises { idempotent: true, ..Promises::default() })?;
        }
        let n = self.items.len();
        if n == 0 {
            return Err(Error::Validation("a transaction with no action".into()));
        }
        if n > MAX_TRANSACTION_ACTIONS {
            return Err(Error::Validation(format!(
                "a transaction of {n} actions: DynamoDB allows at most {MAX_TRANSACTION_ACTIONS}"
            )));
        }
        if self.bytes > MAX_TRANSACTION_BYTES {
            return Err(Error::Validation(format!(
                "a transaction of {} bytes: DynamoDB allows at most {MAX_TRANSACTION_BYTES}",
                self.bytes
            )));
        }
        if let Some(t) = &self.token
            && !(1..=36).contains(&t.chars().count())
        {
            return Err(Error::Validation(format!(
                "an idempotency token must have 1 to 36 characters, not {}",
                t.len()
            )));
        }
        Ok(())
    }

    /// The call of the transaction's request, with its span; `entities` is
    /// [`Transaction::entities`] joined.
    pub(crate) fn call<'e>(&self, entities: &'e str) -> Call<'e> {
        let span = tracing::debug_span!(
            "dynamodb",
            operation = "TransactWriteItems",
            table = self.table.name(),
            entity = entities,
            items = self.items.len(),
            consumed_capacity = tracing::field::Empty,
        );
        Call::new(span, entities, None)
    }

    /// Sends the transaction as it is (checked by [`Transaction::refuse_invalid`]), again after a
    /// cancellation by conflicts alone.
    pub(crate) async fn send_plain(self, call: &Call<'_>) -> Result<(), Error> {
        let mut attempt = 0;
        loop {
            let request = self
                .table
                .client()
                .transact_write_items()
                .set_transact_items(Some(self.items.clone()))
                .set_client_request_token(self.token.clone())
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
            let reasons = match send(&self.table.meter, call, request).await {
                Ok(_) => return Ok(()),
                Err(e) => match e.as_service_error() {
                    Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) => {
                        if let Some(e) = crate::ops::write::refused_action(c.cancellation_reasons(), &self.nested) {
                            return Err(e);
                        }
                        cancel_reasons(c.cancellation_reasons())
                    }
                    _ => {
                        let unknown = crate::send::replay::unknown_outcome(&e);
                        let refused = crate::ops::write::refused(e, &self.nested);
                        return Err(match &self.adds_up {
                            Some((schema, key)) => indeterminate_if(unknown, "TransactWriteItems", schema, key, refused),
                            None => refused,
                        });
                    }
                },
            };
            if attempt >= self.conflict_retries || !conflicts_only(&reasons) {
                return Err(Error::TransactionCanceled { reasons });
            }
            attempt += 1;
            tracing::debug!(parent: &call.span, attempt, "transaction cancelled by a conflict: sent again");
            tokio::time::sleep(conflict_backoff(attempt)).await;
        }
    }
}

/// The typed reasons of a cancellation, one per action.
pub(crate) fn cancel_reasons(reasons: &[aws_sdk_dynamodb::types::CancellationReason]) -> Vec<CancelReason> {
    reasons
        .iter()
        .enumerate()
        .map(|(index, r)| CancelReason {
            index,
            code: CancelCode::from_code(r.code().unwrap_or("None")),
            message: r.message().map(str::to_owned),
        })
        .collect()
}

/// Whether a cancellation came of conflicts alone: some action `TransactionConflict`, every
/// other one `None` (nothing wrong with it). Sending it again may succeed; any other reason
/// would fail the same way again.
pub(crate) fn conflicts_only(reasons: &[CancelReason]) -> bool {
    reasons.iter().any(|r| r.code == CancelCode::TransactionConflict)
        && reasons.iter().all(|r| matches!(r.code, CancelCode::TransactionConflict | CancelCode::None))
}

pub(crate) use crate::send::conflict_backoff;
