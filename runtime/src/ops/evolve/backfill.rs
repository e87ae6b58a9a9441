//! [`Table::backfill`]: what the current code derives, written into the items that lack it.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use super::report::FailedItem;
use super::run::{Evolution, Job, Outcome, key_texts};
use crate::error::{CancelCode, Error, build_error, sdk_error};
use crate::model::Item;
use crate::model::collection::Readable;
use crate::model::entity::{Entity, EntitySchema, UniqueField};
use crate::ops::unique::{self, GuardState};
use crate::ops::write::{key_item, read_consistent};
use crate::send::{call, send};
use crate::table::Table;

/// How many times an item changed by other writers is read and written again.
pub(crate) const MAX_ATTEMPTS: u32 = 10;

/// DynamoDB's limit on one expression's length.
const MAX_EXPRESSION_BYTES: usize = 4096;

/// The backfill of entity `E` (see [`Table::backfill`]).
#[doc(hidden)]
pub struct BackfillJob<E>(PhantomData<fn() -> E>);

impl<E> core::fmt::Debug for BackfillJob<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("BackfillJob").field(&core::any::type_name::<E>()).finish()
    }
}

impl<E: Entity> Job for BackfillJob<E> {
    fn name(&self) -> &'static str {
        E::SCHEMA.entity_type
    }

    fn schema(&self) -> &'static EntitySchema {
        &E::SCHEMA
    }

    fn updates_in_place(&self) -> bool {
        true
    }

    async fn handle(&self, table: &Table, item: Item, dry_run: bool) -> (Outcome, u64) {
        let schema = &E::SCHEMA;
        if let Some(field) = unique::guard_field(schema, &item) {
            return free_orphan::<E>(table, schema, field, item, dry_run).await;
        }
        with_retries(table, schema, item, move |current| async move {
            let entity = match E::read(current.clone()) {
                None => return Ok(Attempt::Done(Outcome::SteppedOver)),
                Some(result) => result?,
            };
            let mut changes = changes(schema, &current, &entity.to_item()?);
            // A vector the item lacks whose default its index refuses (`#[entity(default)]` gives
            // `[]`) is not written, as a put refuses it: reported, and the rest written.
            let vector = unwritable_vector(schema, &mut changes)
                .map(|error| FailedItem { key: key_texts(schema, &current), error });
            // An item the backfill writes gets its `#[updated_at]` (the struct's
            // `#[created_at]` is the item's own, written as read).
            if !changes.is_empty()
                && schema.updated_at.is_some()
                && let Some((attr, value)) = E::__stamps(table.clock.now())?.updated
            {
                changes.retain(|(a, _)| *a != attr);
                changes.push((attr, Some(value)));
            }
            let (claims, duplicate) = guards(table, schema, &current, &mut changes).await?;
            let duplicate = duplicate
                .map(|field| FailedItem {
                    key: key_texts(schema, &current),
                    error: Error::UniqueViolation { entity: schema.entity_type, field: field.field },
                })
                .or(vector);
            let written = |d: Option<FailedItem>| match d {
                Some(f) => Outcome::WrittenInPart(f),
                None => Outcome::Written,
            };
            if changes.is_empty() && claims.is_empty() {
                return Ok(Attempt::Done(duplicate.map_or(Outcome::Current, Outcome::Failed)));
            }
            // Validated only when written: an item already current that a newer validator
            // would refuse is current, not failed (the backfill writes none of its fields).
            entity.__validate()?;
            if dry_run {
                return Ok(Attempt::Done(written(duplicate)));
            }
            Ok(match write(table, schema, &current, &changes, claims).await? {
                true => Attempt::Done(written(duplicate)),
                false => Attempt::Changed,
            })
        })
        .await
    }
}

/// Takes out of `changes` the vectors of vector indexes that the index would refuse (another
/// length than its dimensions: a defaulted `Vec<f32>` is empty), and returns the first refusal.
fn unwritable_vector(
    schema: &EntitySchema,
    changes: &mut Vec<(&'static str, Option<AttributeValue>)>,
) -> Option<Error> {
    if schema.vectors.is_empty() {
        return None;
    }
    let mut refused = None;
    changes.retain(|(attr, value)| {
        let Some(value) = value else { return true };
        match crate::model::vector::check_attribute(schema, attr, value) {
            Ok(()) => true,
            Err(e) => {
                refused.get_or_insert(e);
                false
            }
        }
    });
    refused
}

/// The guards the item holds as written (`old` with `changes`) lacks: the claims to send with
/// the write, and the first field whose value another item holds (a duplicate). A duplicate the
/// item already holds is reported and the rest written; a duplicate the write would introduce
/// (a defaulted `#[unique]` field) is left out of `changes`, with the index keys made of it.
async fn guards(
    table: &Table,
    schema: &'static EntitySchema,
    old: &Item,
    changes: &mut Vec<(&'static str, Option<AttributeValue>)>,
) -> Result<(Vec<Item>, Option<&'static UniqueField>), Error> {
    let mut claims = Vec::new();
    let mut duplicate = None;
    if schema.unique.is_empty() {
        return Ok((claims, duplicate));
    }
    unique::check_table(schema)?;
    let owner = key_item(schema, old);
    for field in schema.unique {
        let written = changes.iter().find(|(a, _)| *a == field.attr).map(|(_, v)| v.as_ref());
        let value = match written {
            Some(v) => v.filter(|v| !matches!(v, AttributeValue::Null(_))),
            None => crate::ops::write::value_of(old, field.attr),
        };
        let Some(value) = value else { continue };
        match unique::guard_state(table, schema, field, value, &owner).await? {
            GuardState::Owned => {}
            GuardState::Free(guard) => claims.push(guard),
            GuardState::Taken => {
                duplicate = duplicate.or(Some(field));
                if written.is_some() {
                    let made_of = |attr: &str| {
                        let placeholder = |t: &str| {
                            t.contains(&format!("<{}>", field.field)) || t.contains(&format!("<{}:", field.field))
                        };
                        schema
                            .indexes
                            .iter()
                            .flat_map(|i| i.pk.iter().chain(i.sk.iter()))
                            .any(|k| k.attr == attr && placeholder(k.template))
                    };
                    changes.retain(|(a, _)| *a != field.attr && !made_of(a));
                }
            }
        }
    }
    Ok((claims, duplicate))
}

/// What one attempt at an item, as read, came to.
pub(crate) enum Attempt {
    /// Handled.
    Done(Outcome),
    /// The item changed (or went) after it was read: read it again and try again.
    Changed,
}

/// Runs `attempt` on `item` until it is handled: after a change by another writer, on the item
/// as it is now (read strongly consistent), at most [`MAX_ATTEMPTS`] times. The outcome, and how
/// many times it was tried again; an error of an attempt fails the item (by key).
pub(crate) async fn with_retries<F, Fut>(
    table: &Table,
    schema: &EntitySchema,
    item: Item,
    mut attempt: F,
) -> (Outcome, u64)
where
    F: FnMut(Item) -> Fut,
    Fut: std::future::Future<Output = Result<Attempt, Error>>,
{
    let key = key_texts(schema, &item);
    let failed = |error: Error| Outcome::Failed(FailedItem { key: key.clone(), error });
    let mut current = item;
    let mut retried = 0;
    for _ in 0..MAX_ATTEMPTS {
        match attempt(current.clone()).await {
            Ok(Attempt::Done(outcome)) => return (outcome, retried),
            Ok(Attempt::Changed) => {
                retried += 1;
                match read_consistent(table, schema, &current).await {
                    Ok(Some(item)) => current = item,
                    // Deleted meanwhile: nothing left to do.
                    Ok(None) => return (Outcome::Current, retried),
                    Err(e) => return (failed(e), retried),
                }
            }
            Err(e) => return (failed(e), retried),
        }
    }
    let e = Error::Validation(format!("changed by other writers on each of {MAX_ATTEMPTS} attempts"));
    (failed(e), retried)
}

/// What `new` (the item the current code writes) has that `old` (the stored item) lacks or
/// holds stale: the type attribute and field attributes that are missing (defaulted fields,
/// key fields kept in the keys only), and the index keys, set when missing or stale and
/// removed when the item no longer belongs in a sparse index. Nothing else is touched: fields
/// the item holds stay as they are.
pub(crate) fn changes(schema: &EntitySchema, old: &Item, new: &Item) -> Vec<(&'static str, Option<AttributeValue>)> {
    let mut out: Vec<(&'static str, Option<AttributeValue>)> = Vec::new();
    let table_keys = [Some(schema.pk.attr), schema.sk.map(|k| k.attr)];
    for attr in std::iter::once(schema.type_attr).chain(schema.attributes.iter().copied()) {
        if table_keys.contains(&Some(attr)) || old.contains_key(attr) {
            continue;
        }
        if let Some(v) = new.get(attr) {
            out.push((attr, Some(v.clone())));
        }
    }
    for index in schema.indexes {
        for key in index.pk.iter().chain(index.sk.iter()) {
            let attr = key.attr;
            // An index on the table's keys or a field's own attribute: written by those.
            if table_keys.contains(&Some(attr))
                || schema.attributes.contains(&attr)
                || out.iter().any(|(a, _)| *a == attr)
            {
                continue;
            }
            match (old.get(attr), new.get(attr)) {
                (Some(AttributeValue::S(o)), Some(AttributeValue::S(n)))
                    if key.random_shard && key.same_but_shard(o, n) => {}
                (o, Some(n)) if o != Some(n) => out.push((attr, Some(n.clone()))),
                (Some(_), None) => out.push((attr, None)),
                _ => {}
            }
        }
    }
    out
}

/// Expression names and values being built: one placeholder per attribute name.
#[derive(Default)]
pub(crate) struct Expr {
    pub(crate) names: HashMap<String, String>,
    pub(crate) values: HashMap<String, AttributeValue>,
}

impl Expr {
    pub(crate) fn name(&mut self, attr: &str) -> String {
        if let Some((k, _)) = self.names.iter().find(|(_, v)| v.as_str() == attr) {
            return k.clone();
        }
        let k = format!("#n{}", self.names.len());
        self.names.insert(k.clone(), attr.to_owned());
        k
    }

    pub(crate) fn value(&mut self, v: AttributeValue) -> String {
        let k = format!(":v{}", self.values.len());
        self.values.insert(k.clone(), v);
        k
    }

    /// The condition that the item is still `old`, as read: every attribute equal, and each of
    /// `absent` still missing. If that is longer than DynamoDB takes, the item's version (when
    /// the entity has one) stands for the rest.
    pub(crate) fn as_read(&mut self, schema: &EntitySchema, old: &Item, absent: &[&str]) -> Result<String, Error> {
        let mut attrs: Vec<&String> = old.keys().collect();
        attrs.sort();
        let mut parts = Vec::with_capacity(attrs.len() + absent.len());
        let saved = (self.names.clone(), self.values.clone());
        for a in attrs {
            let (n, v) = (self.name(a), self.value(old[a].clone()));
            parts.push(format!("{n} = {v}"));
        }
        for a in absent {
            let n = self.name(a);
            parts.push(format!("attribute_not_exists({n})"));
        }
        let condition = parts.join(" AND ");
        if condition.len() <= MAX_EXPRESSION_BYTES {
            return Ok(condition);
        }
        (self.names, self.values) = saved;
        match schema.version_attr.filter(|v| old.contains_key(*v)) {
            Some(version) => {
                let (n, v) = (self.name(version), self.value(old[version].clone()));
                let mut parts = vec![format!("{n} = {v}")];
                for a in absent {
                    let n = self.name(a);
                    parts.push(format!("attribute_not_exists({n})"));
                }
                Ok(parts.join(" AND "))
            }
            None => Err(Error::Validation(format!(
                "the item has {} attributes: a condition that it is unchanged would pass DynamoDB's {MAX_EXPRESSION_BYTES}-byte \
                 expression limit, and {} has no #[version] to stand for them",
                old.len(),
                schema.entity_type
            ))),
        }
    }
}

/// Writes `changes` into the item if it is still `old`, with the `claims` of the guards it lacks
/// (each only if free) in the same transaction: `Ok(false)` if the item changed meanwhile or a
/// value was taken (read again: the value is then a duplicate).
async fn write(
    table: &Table,
    schema: &EntitySchema,
    old: &Item,
    changes: &[(&'static str, Option<AttributeValue>)],
    claims: Vec<Item>,
) -> Result<bool, Error> {
    let mut e = Expr::default();
    let mut sets = Vec::new();
    let mut removes = Vec::new();
    for (attr, value) in changes {
        let n = e.name(attr);
        match value {
            Some(v) => {
                let v = e.value(v.clone());
                sets.push(format!("{n} = {v}"));
            }
            None => removes.push(n),
        }
    }
    let mut update = String::new();
    if !sets.is_empty() {
        update = format!("SET {}", sets.join(", "));
    }
    if !removes.is_empty() {
        update = format!("{update} REMOVE {}", removes.join(", ")).trim().to_owned();
    }
    let absent: Vec<&str> = changes.iter().map(|(a, _)| *a).filter(|a| !old.contains_key(*a)).collect();
    let condition = e.as_read(schema, old, &absent)?;
    let key = key_item(schema, old);
    if !claims.is_empty() {
        return write_guarded(table, schema, key, update, condition, e, claims).await;
    }
    let partition = crate::send::partition_of(&key, schema.pk.attr).map(str::to_owned);
    let request = table
        .client
        .update_item()
        .table_name(&*table.name)
        .set_key(Some(key))
        .update_expression(update)
        .condition_expression(condition)
        .set_expression_attribute_names(Some(e.names))
        .set_expression_attribute_values(Some(e.values))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let call = call("UpdateItem", &table.name, schema.entity_type, None).on(partition.as_deref()).of(schema);
    match send(&table.meter, &call, request).await {
        Ok(_) => Ok(true),
        Err(err) => match err.as_service_error() {
            Some(aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(_)) => {
                Ok(false)
            }
            _ => Err(sdk_error(err)),
        },
    }
}

/// A transaction's check that the item at `key` still meets `condition` (`e` its names and values).
fn still_as_read(
    table: &Table,
    key: Item,
    condition: String,
    e: Expr,
) -> Result<aws_sdk_dynamodb::types::TransactWriteItem, Error> {
    let check = aws_sdk_dynamodb::types::ConditionCheck::builder()
        .table_name(&*table.name)
        .set_key(Some(key))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(e.names))
        .set_expression_attribute_values((!e.values.is_empty()).then_some(e.values))
        .build()
        .map_err(build_error)?;
    Ok(aws_sdk_dynamodb::types::TransactWriteItem::builder().condition_check(check).build())
}

/// [`write`] with guards: one transaction of the item's update (or, with nothing to update, a
/// check that it is still as read) and the claims.
async fn write_guarded(
    table: &Table,
    schema: &EntitySchema,
    key: Item,
    update: String,
    condition: String,
    e: Expr,
    claims: Vec<Item>,
) -> Result<bool, Error> {
    use aws_sdk_dynamodb::types::{TransactWriteItem, Update};
    let own = if update.is_empty() {
        still_as_read(table, key.clone(), condition, e)?
    } else {
        let update = Update::builder()
            .table_name(&*table.name)
            .set_key(Some(key.clone()))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(Some(e.names))
            .set_expression_attribute_values(Some(e.values))
            .build()
            .map_err(build_error)?;
        TransactWriteItem::builder().update(update).build()
    };
    let mut items = vec![own];
    for guard in claims {
        items.push(unique::claim(schema, guard, &[&key], &table.name)?);
    }
    // A transaction spans the guards' partitions: not attributed to the item's (hot partitions).
    let call = call("TransactWriteItems", &table.name, schema.entity_type, None).of(schema);
    let request = table
        .client
        .transact_write_items()
        .set_transact_items(Some(items))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    match send(&table.meter, &call, request).await {
        Ok(_) => Ok(true),
        Err(err) => match cancel_codes(&err) {
            // The item changed, a value was taken, or another transaction met this one: read
            // the item (and its guards) again.
            Some(codes)
                if codes
                    .iter()
                    .any(|c| matches!(c, CancelCode::ConditionalCheckFailed | CancelCode::TransactionConflict))
                    && codes.iter().all(|c| {
                        matches!(
                            c,
                            CancelCode::ConditionalCheckFailed | CancelCode::TransactionConflict | CancelCode::None
                        )
                    }) =>
            {
                Ok(false)
            }
            Some(codes) => Err(Error::TransactionCanceled {
                reasons: codes
                    .into_iter()
                    .enumerate()
                    .map(|(index, code)| crate::error::CancelReason { index, code, message: None })
                    .collect(),
            }),
            None => Err(sdk_error(err)),
        },
    }
}

/// The cancellation reasons of a cancelled transaction (`None` for another error).
fn cancel_codes<R>(
    err: &aws_sdk_dynamodb::error::SdkError<
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError,
        R,
    >,
) -> Option<Vec<CancelCode>> {
    match err.as_service_error() {
        Some(
            aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c),
        ) => Some(c.cancellation_reasons().iter().map(|r| CancelCode::from_code(r.code().unwrap_or("None"))).collect()),
        _ => None,
    }
}

/// A guard of `E`'s `field` found by the scan: freed if it is an orphan, one whose owner no
/// longer holds its value (gone, another value, another entity's item; a guard left by code
/// that wrote the value without it, or by a write from before the field was unique). Freed in
/// one transaction, only if the guard still names that owner and the owner is still exactly as
/// read. A guard in use is stepped over (it is not an item of `E`).
async fn free_orphan<E: Entity>(
    table: &Table,
    schema: &'static EntitySchema,
    field: &'static UniqueField,
    guard: Item,
    dry_run: bool,
) -> (Outcome, u64) {
    let key = key_texts(schema, &guard);
    let failed = |error: Error| Outcome::Failed(FailedItem { key: key.clone(), error });
    let (Some(owner_key), Some(AttributeValue::S(pk))) = (unique::owner_key(schema, &guard), guard.get(schema.pk.attr))
    else {
        return (Outcome::SteppedOver, 0);
    };
    let mut retried = 0;
    for _ in 0..MAX_ATTEMPTS {
        let owner = match read_consistent(table, schema, &owner_key).await {
            Ok(o) => o,
            Err(e) => return (failed(e), retried),
        };
        let held = owner
            .as_ref()
            .is_some_and(|o| E::read(o.clone()).is_some() && unique::holds(schema, field, o, &owner_key, pk));
        if held {
            return (Outcome::SteppedOver, retried);
        }
        if dry_run {
            return (Outcome::Written, retried);
        }
        match free(table, schema, &guard, &owner_key, owner.as_ref()).await {
            Ok(Some(outcome)) => return (outcome, retried),
            Ok(None) => retried += 1,
            Err(e) => return (failed(e), retried),
        }
    }
    let e = Error::Validation(format!("changed by other writers on each of {MAX_ATTEMPTS} attempts"));
    (failed(e), retried)
}

/// Deletes `guard` if it still names `owner_key`, and the owner is still `owner` as read: the
/// outcome, or `None` if the owner changed (read it again).
async fn free(
    table: &Table,
    schema: &EntitySchema,
    guard: &Item,
    owner_key: &Item,
    owner: Option<&Item>,
) -> Result<Option<Outcome>, Error> {
    let mut e = Expr::default();
    let condition = match owner {
        Some(owner) => e.as_read(schema, owner, &[])?,
        None => format!("attribute_not_exists({})", e.name(schema.pk.attr)),
    };
    let items = vec![
        unique::release_if_owned(schema, key_item(schema, guard), owner_key, &table.name)?,
        still_as_read(table, owner_key.clone(), condition, e)?,
    ];
    let call = call("TransactWriteItems", &table.name, schema.entity_type, None).of(schema);
    let request = table
        .client
        .transact_write_items()
        .set_transact_items(Some(items))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    match send(&table.meter, &call, request).await {
        Ok(_) => Ok(Some(Outcome::Written)),
        Err(err) => match cancel_codes(&err).as_deref() {
            // The guard is another owner's now (or gone): nothing to free.
            Some([CancelCode::ConditionalCheckFailed, _]) => Ok(Some(Outcome::SteppedOver)),
            Some([_, CancelCode::ConditionalCheckFailed]) => Ok(None),
            Some(codes) if codes.contains(&CancelCode::TransactionConflict) => Ok(None),
            Some(codes) => Err(Error::TransactionCanceled {
                reasons: codes
                    .iter()
                    .enumerate()
                    .map(|(index, code)| crate::error::CancelReason { index, code: code.clone(), message: None })
                    .collect(),
            }),
            None => Err(sdk_error(err)),
        },
    }
}

impl Table {
    /// Writes into every item of `E` what the current code derives and the item lacks or
    /// holds stale: index keys (a new index, a changed template, a sparse index the item left),
    /// the type attribute, defaulted fields, key-field attributes. Fields the item holds are
    /// never rewritten, and an item already current is not written (a second run writes
    /// nothing).
    ///
    /// It scans the table (`segments(n)` in parallel, or `segment(k, n)` for one worker of
    /// several), steps over other entities' items, and writes each item with an `UpdateItem`
    /// conditioned on the item being exactly as read: a writer that changed it meanwhile is
    /// never overwritten; the item is read again (strongly consistent) and handled again
    /// (`retried` counts those). An item that does not decode is reported by key in `failed`
    /// and the run goes on. The entity's validators run on the items it writes only (one a
    /// newer validator refuses is in `failed`; one already current is not). For an entity with `#[unique]` fields, the guards of the item as
    /// written are claimed in the same transaction as its write; a value another item holds is
    /// reported in `failed` ([`Error::UniqueViolation`]) and the rest written (a default it would
    /// add is not); guards whose owner no longer holds their value are freed. Requests go through the table's send path: its rate limit holds,
    /// and `table.capacity()` counts them.
    ///
    /// ```no_run
    /// # use dynamo_entity_runtime::{Entity, Table};
    /// # async fn demo<Order: Entity>(table: Table) -> Result<(), dynamo_entity_runtime::Error> {
    /// let report = table.backfill::<Order>().segments(4).on_progress(|p| eprintln!("{p}")).run().await?;
    /// println!("{report}");
    /// # Ok(()) }
    /// ```
    pub fn backfill<E: Entity>(&self) -> Evolution<BackfillJob<E>> {
        Evolution::new(self, BackfillJob(PhantomData))
    }
}
