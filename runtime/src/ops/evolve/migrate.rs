//! [`Table::migrate`]: every item of one form moved to another, one transaction each.

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, ReturnConsumedCapacity, TransactWriteItem};

use super::backfill::{Attempt, Expr, with_retries};
use super::run::{Evolution, Job, Outcome};
use crate::error::{CancelCode, Error, build_error, sdk_error};
use crate::model::Item;
use crate::model::collection::Readable;
use crate::model::entity::{Entity, EntitySchema};
use crate::ops::write::key_item;
use crate::send::{call, send};
use crate::table::Table;

/// The migration of `Old` items to `New` by `F` (see [`Table::migrate`]).
#[doc(hidden)]
pub struct MigrateJob<Old, New, F> {
    f: F,
    _types: PhantomData<fn(Old) -> New>,
}

impl<Old, New, F> core::fmt::Debug for MigrateJob<Old, New, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MigrateJob")
            .field("from", &core::any::type_name::<Old>())
            .field("to", &core::any::type_name::<New>())
            .finish_non_exhaustive()
    }
}

impl<Old: Entity, New: Entity, F: Fn(Old) -> New + Send + Sync + 'static> Job for MigrateJob<Old, New, F> {
    fn name(&self) -> &'static str {
        Old::SCHEMA.entity_type
    }

    fn schema(&self) -> &'static EntitySchema {
        &Old::SCHEMA
    }

    async fn handle(&self, table: &Table, item: Item, dry_run: bool) -> (Outcome, u64) {
        let schema = &Old::SCHEMA;
        let f = &self.f;
        with_retries(table, schema, item, move |current| async move {
            let old = match Old::read(current.clone()) {
                None => return Ok(Attempt::Done(Outcome::SteppedOver)),
                // An item already in the new form (the same type name, another key) is done.
                Some(Err(_)) if matches!(New::read(current.clone()), Some(Ok(_))) => {
                    return Ok(Attempt::Done(Outcome::Current));
                }
                Some(result) => result?,
            };
            // Validated, and its `#[updated_at]` stamped; its `#[created_at]` is what `f` gave.
            let new = crate::model::filled::item_to_write(
                &f(old),
                false,
                &mut crate::model::filled::Reading::default(),
                &table.clock,
            )?;
            // Through an encrypting handle the item is written as ciphertext, which the item as
            // read (decrypted, or plaintext it adopts) cannot show: always written.
            if !table.encrypts(&New::SCHEMA) && as_written(schema, &New::SCHEMA, &current, &new) {
                return Ok(Attempt::Done(Outcome::Current));
            }
            if dry_run {
                return Ok(Attempt::Done(Outcome::Written));
            }
            if schema.unique.is_empty() && New::SCHEMA.unique.is_empty() {
                move_item(table, schema, &New::SCHEMA, &current, new).await
            } else {
                move_guarded(table, schema, &New::SCHEMA, &current, new).await
            }
        })
        .await
    }
}

/// Whether `current` (the item as read) is already `new` (the item the migration would write in
/// its place): the same key and every attribute the same, the `#[updated_at]` stamp aside (a
/// rewrite would only give it a new time). Such an item is already current: an in-place
/// migration to the same type name settles, and a second run writes nothing.
fn as_written(schema: &EntitySchema, to: &EntitySchema, current: &Item, new: &Item) -> bool {
    if key_item(schema, current) != key_item(to, new) || current.len() != new.len() {
        return false;
    }
    current.iter().all(|(attr, value)| match new.get(attr) {
        // The stamp is compared only for being there: its time is the write's own.
        Some(_) if Some(attr.as_str()) == to.updated_at => true,
        Some(n) => same_value(value, n),
        None => false,
    })
}

/// Two attribute values hold the same: sets compared as sets (DynamoDB does not keep the order
/// in which a set's elements were written), maps and lists element by element.
fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
    fn same_set<T: Ord + Clone>(a: &[T], b: &[T]) -> bool {
        let (mut a, mut b) = (a.to_vec(), b.to_vec());
        a.sort();
        b.sort();
        a == b
    }
    match (a, b) {
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => same_set(a, b),
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => same_set(
            &a.iter().map(|b| b.as_ref()).collect::<Vec<_>>(),
            &b.iter().map(|b| b.as_ref()).collect::<Vec<_>>(),
        ),
        // Numbers as DynamoDB holds them: the same text once stored.
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => same_set(a, b),
        (AttributeValue::L(a), AttributeValue::L(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (AttributeValue::M(a), AttributeValue::M(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
        }
        (a, b) => a == b,
    }
}

/// The actions that move `old` to `new`: a put of `new` (never over an existing item) and a
/// delete of `old` (only as read); or, when both have the same key, one put that replaces `old`
/// in place (only as read). The flag says which.
fn move_actions(
    table: &Table,
    schema: &EntitySchema,
    to: &EntitySchema,
    old: &Item,
    new: Item,
) -> Result<(Vec<TransactWriteItem>, bool), Error> {
    let old_key = key_item(schema, old);
    let in_place = old_key == key_item(to, &new);
    let mut e = Expr::default();
    // Through an encrypting handle, the condition that the item is as read names its signed
    // attributes only (DB-ESDK forbids conditions on encrypted ones); its `#[version]` among them.
    let comparable = table.comparable(schema, old);
    let condition = e.as_read(schema, &comparable, &[])?;
    let put = Put::builder().table_name(&*table.name).set_item(Some(new));
    let put = if in_place {
        put.condition_expression(condition.clone())
            .set_expression_attribute_names(Some(e.names.clone()))
            .set_expression_attribute_values(Some(e.values.clone()))
    } else {
        put.condition_expression("attribute_not_exists(#pk)").expression_attribute_names("#pk", to.pk.attr)
    };
    let mut items = vec![TransactWriteItem::builder().put(put.build().map_err(build_error)?).build()];
    if !in_place {
        let delete = Delete::builder()
            .table_name(&*table.name)
            .set_key(Some(old_key))
            .condition_expression(condition)
            .set_expression_attribute_names(Some(e.names))
            .set_expression_attribute_values(Some(e.values))
            .build()
            .map_err(build_error)?;
        items.push(TransactWriteItem::builder().delete(delete).build());
    }
    Ok((items, in_place))
}

/// Moves `old` to `new` with [`move_actions`]: in place, one conditional `PutItem`; otherwise
/// one transaction.
async fn move_item(
    table: &Table,
    schema: &EntitySchema,
    to: &EntitySchema,
    old: &Item,
    new: Item,
) -> Result<Attempt, Error> {
    let (items, in_place) = move_actions(table, schema, to, old, new)?;
    if in_place {
        let Some(put) = items.into_iter().next().and_then(|a| a.put) else {
            return Err(Error::Validation("a move in place without its put".into()));
        };
        let partition = crate::send::partition_of(&put.item, schema.pk.attr).map(str::to_owned);
        let request = table
            .client
            .put_item()
            .table_name(&*table.name)
            .set_item(Some(put.item))
            .set_condition_expression(put.condition_expression)
            .set_expression_attribute_names(put.expression_attribute_names)
            .set_expression_attribute_values(put.expression_attribute_values)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let call = call("PutItem", &table.name, to.entity_type, None).on(partition.as_deref()).of(to);
        return match send(&table.meter, &call, request).await {
            Ok(_) => Ok(Attempt::Done(Outcome::Written)),
            Err(err) => match err.as_service_error() {
                Some(aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(_)) => {
                    Ok(Attempt::Changed)
                }
                _ => Err(sdk_error(err)),
            },
        };
    }
    let request = table
        .client
        .transact_write_items()
        .set_transact_items(Some(items))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
    let entities = format!("{},{}", schema.entity_type, to.entity_type);
    let call = call("TransactWriteItems", &table.name, &entities, None).of(to);
    match send(&table.meter, &call, request).await {
        Ok(_) => Ok(Attempt::Done(Outcome::Written)),
        Err(err) => {
            let reasons: Vec<CancelCode> = match err.as_service_error() {
                Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) => {
                    c.cancellation_reasons().iter().map(|r| CancelCode::from_code(r.code().unwrap_or("None"))).collect()
                }
                _ => return Err(sdk_error(err)),
            };
            match reasons.as_slice() {
                [CancelCode::ConditionalCheckFailed, _] => Err(Error::Validation(format!(
                    "the new {} item exists already: the old item is kept",
                    to.entity_type
                ))),
                [_, CancelCode::ConditionalCheckFailed] => Ok(Attempt::Changed),
                // A conflict with another transaction: as if changed, read again.
                codes if codes.contains(&CancelCode::TransactionConflict) => Ok(Attempt::Changed),
                _ => Err(Error::TransactionCanceled {
                    reasons: reasons
                        .into_iter()
                        .enumerate()
                        .map(|(index, code)| crate::error::CancelReason { index, code, message: None })
                        .collect(),
                }),
            }
        }
    }
}

impl Table {
    /// Moves every `Old` item to its `New` form, `f(old)`: a new key template, a new type name,
    /// changed fields. Per item one transaction puts the new item (never over an existing one)
    /// and deletes the old one (only if it is still as read: an item changed meanwhile is read
    /// again and moved again). When the new item has the old one's key, it replaces it in place
    /// (again only as read), unless it is already exactly as `f` would write it (its
    /// `#[updated_at]` aside): then it is `already_current`, not written, and keeps its stamp
    /// (not through an encrypting handle, whose ciphertext no item as read shows: there every
    /// item is rewritten, as a table adopting encryption needs).
    /// Running it again changes nothing: the old items are gone (an item already in the new
    /// form under the old type name counts as `already_current`). `f` keeps
    /// what must carry over (a `#[version]`, say). For entities with `#[unique]` fields the same
    /// transaction claims the new item's guards and frees the old one's (the item as read is an
    /// `Old`, as written a `New`: a new type name claims new guards, a new key under the same
    /// type name passes each guard to the new owner); a value already held by another item of
    /// the new type fails that item ([`Error::UniqueViolation`] in `failed`), which stays as it
    /// was. Scanning, segments, cursors, progress and
    /// the rate limit as for [`Table::backfill`].
    ///
    /// ```no_run
    /// # use dynamo_entity_runtime::{Entity, Table};
    /// # async fn demo<OrderV1: Entity, Order: Entity + From<OrderV1>>(table: Table) -> Result<(), dynamo_entity_runtime::Error> {
    /// let report = table.migrate(|old: OrderV1| -> Order { old.into() }).segments(4).run().await?;
    /// # Ok(()) }
    /// ```
    pub fn migrate<Old, New, F>(&self, f: F) -> Evolution<MigrateJob<Old, New, F>>
    where
        Old: Entity,
        New: Entity,
        F: Fn(Old) -> New + Send + Sync + 'static,
    {
        Evolution::new(self, MigrateJob { f, _types: PhantomData })
    }
}

/// [`move_item`] of entities with `#[unique]` fields: the same transaction also claims the
/// guards of the new item's values and frees the old item's, as the guarded write path does.
async fn move_guarded(
    table: &Table,
    schema: &'static EntitySchema,
    to: &'static EntitySchema,
    old: &Item,
    new: Item,
) -> Result<Attempt, Error> {
    use crate::ops::unique::{Failed, Plan, send_guarded};
    use crate::ops::write::Guarded;
    let (old_key, new_key) = (key_item(schema, old), key_item(to, &new));
    let in_place = old_key == new_key;
    // The guards follow the item from its form as read to its form as written: a put in place
    // reads it as an `Old` (whose guards it holds) and writes it as a `New`; a move creates the
    // `New` item and deletes the `Old` one, and a guard both name (the same type name and
    // value) passes from one owner to the other in one claim.
    let mut guarded = Vec::new();
    if in_place {
        guarded.push(Guarded { read_as: schema, ..Guarded::put(0, to, new_key, &new, false) });
    } else {
        if !to.unique.is_empty() {
            guarded.push(Guarded::put(0, to, new_key, &new, true));
        }
        if !schema.unique.is_empty() {
            guarded.push(Guarded::delete(1, schema, old_key.clone()));
        }
    }
    let (items, _) = move_actions(table, schema, to, old, new)?;
    let bytes = items.iter().filter_map(|a| a.put.as_ref()).map(|p| crate::size::item_size(&p.item)).sum::<usize>()
        + crate::size::item_size(&old_key);
    let entities = format!("{},{}", schema.entity_type, to.entity_type);
    let call = call("TransactWriteItems", &table.name, &entities, None).of(to);
    let plan = Plan {
        table,
        items: &items,
        guarded: &guarded,
        bytes,
        token: None,
        own_token: false,
        adds_up: None,
        conflict_retries: crate::ops::unique::MAX_ATTEMPTS,
        call: &call,
        nested: &[],
    };
    match send_guarded(plan).await {
        Ok(()) => Ok(Attempt::Done(Outcome::Written)),
        Err(Failed::Error(e)) => Err(e),
        Err(Failed::Refused(r)) => {
            let failed = |i: usize| r.reasons.get(i).is_some_and(|c| c.code == CancelCode::ConditionalCheckFailed);
            if !in_place && failed(0) {
                Err(Error::Validation(format!("the new {} item exists already: the old item is kept", to.entity_type)))
            } else if failed(0) || failed(1) {
                Ok(Attempt::Changed)
            } else {
                Err(Error::TransactionCanceled { reasons: r.reasons })
            }
        }
    }
}
