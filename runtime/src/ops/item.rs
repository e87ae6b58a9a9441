//! Single-item writes with conditions: `table.put(&x)`, `table.create(&x)` and
//! `table.delete(key)` return a request that a plain `.await` sends, or that takes a
//! `.condition(..)` first ("delete only if not shipped").

use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};

use crate::error::Error;
use crate::error::sdk_error;
use crate::expr::Condition;
use crate::model::Item;
use crate::model::collection::{ReadKey, Readable};
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::ops::policy::Promises;
use crate::ops::write::{Failure, PutMode, PutParts, UserCondition, classify, put_parts_if};
use crate::send::replay::{Replay, Watch};
use crate::send::{Watched, call, send};
use crate::table::Table;

/// A PutItem (`table.put(&x)`, `table.create(&x)`): `.await` sends it.
#[must_use = "a put does nothing until it is awaited"]
pub struct PutItem<'a, E> {
    pub(crate) table: &'a Table,
    entity: &'a E,
    pub(crate) mode: PutMode,
    condition: Option<Condition<()>>,
    pub(crate) return_old: bool,
}

impl<E> core::fmt::Debug for PutItem<'_, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PutItem")
            .field("table", &self.table.name())
            .field("mode", &self.mode)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

/// A put or create that resolves to the item as written (`table.create(&x).returning()`).
#[must_use = "a put does nothing until it is awaited"]
pub struct PutReturning<'a, E>(pub(crate) PutItem<'a, E>);

impl<E> core::fmt::Debug for PutReturning<'_, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("PutReturning").field(&self.0).finish()
    }
}

/// A DeleteItem (`table.delete(key)`): `.await` sends it.
#[must_use = "a delete does nothing until it is awaited"]
pub struct DeleteItem<'a, K> {
    pub(crate) table: &'a Table,
    key: K,
    condition: Option<Condition<()>>,
    pub(crate) return_old: bool,
}

impl<K: core::fmt::Debug> core::fmt::Debug for DeleteItem<'_, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeleteItem")
            .field("table", &self.table.name())
            .field("key", &self.key)
            .field("condition", &self.condition)
            .finish_non_exhaustive()
    }
}

impl<'a, E: Entity> PutItem<'a, E> {
    pub(crate) fn new(table: &'a Table, entity: &'a E, mode: PutMode) -> Self {
        PutItem { table, entity, mode, condition: None, return_old: false }
    }

    /// Writes only if `condition` holds on the stored item, besides the version and existence
    /// checks, which it never replaces: else [`Error::ConditionFailed`].
    pub fn condition(mut self, condition: Condition<E>) -> Self {
        Condition::and_into(&mut self.condition, condition.cast());
        self
    }

    /// On a failed condition, [`Error::ConditionFailed`] holds the item as it was.
    pub fn return_old_on_failure(mut self) -> Self {
        self.return_old = true;
        self
    }

    /// Resolves to the item as written (`Result<E, Error>`): the struct with the values the
    /// library filled (`#[created_at]`, `#[updated_at]`) and the `#[version]` it stored, read
    /// from the item sent, so the caller never reads it back.
    pub fn returning(self) -> PutReturning<'a, E> {
        PutReturning(self)
    }

    /// The item and its condition, checked against the handle's tenant: before either way of
    /// sending it (plain, or with the guards of unique values; the entry point decides).
    pub(crate) fn parts(&self) -> Result<PutParts, Error> {
        let promises = Promises::put(&E::SCHEMA, self.mode == PutMode::Create, self.condition.is_some());
        self.table.check_promises(E::SCHEMA.entity_type, promises)?;
        let mut reading = crate::model::filled::Reading::default();
        let parts = put_parts_if(self.entity, self.mode, self.condition.as_ref(), &mut reading, &self.table.clock)?;
        self.table.check_tenant_item(&E::SCHEMA, &parts.item)?;
        Ok(parts)
    }

    /// Sends `parts` as one PutItem.
    pub(crate) async fn send_plain(self, parts: PutParts) -> Result<(), Error> {
        let schema = &E::SCHEMA;
        // The key's values are kept for the error naming the item (built only then); the item
        // itself moves into the request.
        let key = parts.key;
        let call = call("PutItem", self.table.name(), schema.entity_type, None).on(key.partition()).of(schema);
        let conditional = parts.condition.is_some();
        let mut request = self
            .table
            .client()
            .put_item()
            .table_name(self.table.name())
            .set_item(Some(parts.item))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        // A plain put sets nothing more: each setter moves the whole builder (over a kilobyte),
        // four copies a put without a condition does not need (issue 51).
        if conditional {
            request = request
                .set_condition_expression(parts.condition)
                .set_expression_attribute_names(parts.names)
                .set_expression_attribute_values(parts.values)
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let watch = Watch::new(if conditional { Replay::Checked } else { Replay::Safe });
        match send(&self.table.meter, &call, Watched(request, watch.clone())).await {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(c)) => {
                    let old = c.item().cloned();
                    let key = key.item(schema);
                    unknown_first(
                        &watch,
                        "PutItem",
                        schema,
                        &key,
                        failed(parts.failure, schema, &key, old, self.return_old),
                    )
                }
                _ => Err(sdk_error(e)),
            },
        }
    }
}

/// `refused`, the error of a refused condition, unless an earlier attempt of the write failed
/// without an answer: that attempt may have been applied and be what the condition refused, so
/// the outcome is [`Error::Indeterminate`].
pub(crate) fn unknown_first<T>(
    watch: &Watch,
    operation: &'static str,
    schema: &crate::model::entity::EntitySchema,
    key: &Item,
    refused: Result<T, Error>,
) -> Result<T, Error> {
    match refused {
        Err(e) if watch.unknown() => Err(Error::indeterminate(operation, schema, key, e)),
        other => other,
    }
}

/// The error of a failed condition, told apart with the item as it was.
pub(crate) fn failed<T>(
    failure: Failure,
    schema: &crate::model::entity::EntitySchema,
    key: &Item,
    old: Option<Item>,
    return_old: bool,
) -> Result<T, Error> {
    let kind = classify(failure, schema.entity_type, old.as_ref())?;
    Err(kind.error(schema, key, if return_old { old } else { None }))
}

impl<'a, K: EntityKey> DeleteItem<'a, K> {
    pub(crate) fn new(table: &'a Table, key: K) -> Self {
        DeleteItem { table, key, condition: None, return_old: false }
    }

    /// Deletes only if `condition` holds on the stored item ("only if not shipped"): else
    /// [`Error::ConditionFailed`]. Without a condition, deleting a missing item does nothing.
    pub fn condition(mut self, condition: Condition<K::Entity>) -> Self {
        Condition::and_into(&mut self.condition, condition.cast());
        self
    }

    /// On a failed condition, [`Error::ConditionFailed`] holds the item as it was.
    pub fn return_old_on_failure(mut self) -> Self {
        self.return_old = true;
        self
    }

    /// The key and the condition, checked against the handle's tenant (before either way of
    /// sending it).
    pub(crate) fn parts(&self) -> Result<(Item, UserCondition), Error> {
        let schema = &<K::Entity as Entity>::SCHEMA;
        self.table.check_promises(schema.entity_type, Promises::delete(schema, self.condition.is_some()))?;
        let key = self.key.to_key_item()?;
        self.table.check_tenant_item(&<K::Entity as Entity>::SCHEMA, &key)?;
        Ok((key, crate::ops::write::user_condition(self.condition.as_ref())?))
    }

    /// Sends the delete of `key` as one DeleteItem.
    pub(crate) async fn send_plain(self, key: Item, condition: UserCondition) -> Result<(), Error> {
        let schema = &<K::Entity as Entity>::SCHEMA;
        let conditional = condition.text.is_some();
        let call = call("DeleteItem", self.table.name(), schema.entity_type, None)
            .on(crate::send::partition_of(&key, schema.pk.attr))
            .of(schema);
        let request = self
            .table
            .client()
            .delete_item()
            .table_name(self.table.name())
            .set_key(Some(key.clone()))
            .set_condition_expression(condition.text)
            .set_expression_attribute_names(condition.names)
            .set_expression_attribute_values(condition.values)
            .set_return_values_on_condition_check_failure(
                conditional.then_some(ReturnValuesOnConditionCheckFailure::AllOld),
            )
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let watch = Watch::new(if conditional { Replay::Checked } else { Replay::Safe });
        match send(&self.table.meter, &call, Watched(request, watch.clone())).await {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(aws_sdk_dynamodb::operation::delete_item::DeleteItemError::ConditionalCheckFailedException(c)) => {
                    let failure =
                        Failure { must_not_exist: false, must_exist: false, version: None, version_below: None };
                    let refused = failed(failure, schema, &key, c.item().cloned(), self.return_old);
                    unknown_first(&watch, "DeleteItem", schema, &key, refused)
                }
                _ => Err(sdk_error(e)),
            },
        }
    }
}

impl Table {
    /// Writes the item, replacing any item with the same key (PutItem). For an entity with a
    /// `#[version]` field, only if the stored version equals the entity's (for 0: no item, or an
    /// item without a version attribute, which reads as 0), storing version + 1; otherwise [`Error::VersionConflict`]. `.condition(c)` adds a
    /// condition on the stored item ([`Error::ConditionFailed`]); a plain `.await` sends it.
    pub fn put<'a, E: Entity>(&'a self, entity: &'a E) -> PutItem<'a, E> {
        PutItem::new(self, entity, PutMode::Put)
    }

    /// Writes the item only if no item has its key: otherwise [`Error::AlreadyExists`].
    pub fn create<'a, E: Entity>(&'a self, entity: &'a E) -> PutItem<'a, E> {
        PutItem::new(self, entity, PutMode::Create)
    }

    async fn get_item<K: ReadKey>(&self, key: K, consistent: bool) -> Result<Option<K::Output>, Error> {
        let item_key = key.to_key_item()?;
        self.check_tenant_item(key.__schema(), &item_key)?;
        // The partition's text, for the capacity record: the key item itself moves into the request.
        let partition = <K::Output as Readable>::schema(None)
            .and_then(|s| crate::send::partition_of(&item_key, s.pk.attr))
            .map(str::to_owned);
        let call = call("GetItem", &self.name, <K::Output as Readable>::NAME, None).on(partition.as_deref());
        let request = self
            .client
            .get_item()
            .table_name(&*self.name)
            .set_key(Some(item_key))
            .consistent_read(consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = send(&self.meter, &call, request).await.map_err(sdk_error)?;
        call.span.record("items", usize::from(out.item.is_some()));
        out.item.map(|item| key.decode(item)).transpose()
    }

    /// Reads one item, eventually consistent (DynamoDB's default, half the cost). The key of an
    /// entity gives the entity; a collection's key (`<Collection>Key`) gives the collection enum.
    pub async fn get<K: ReadKey>(&self, key: K) -> Result<Option<K::Output>, Error> {
        self.get_item(key, false).await
    }

    /// Reads one item with a strongly consistent read.
    pub async fn get_consistent<K: ReadKey>(&self, key: K) -> Result<Option<K::Output>, Error> {
        self.get_item(key, true).await
    }

    /// Deletes one item (nothing happens if it does not exist). `.condition(c)` deletes only if
    /// it holds ([`Error::ConditionFailed`]); a plain `.await` sends it.
    pub fn delete<K: EntityKey>(&self, key: K) -> DeleteItem<'_, K> {
        DeleteItem::new(self, key)
    }
}
