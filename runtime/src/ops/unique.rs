//! Unique values (`#[unique]` fields): each value owns a guard item in the same table, written
//! and removed in the same transaction as the item that holds it.
//!
//! A guard's partition key is `UNIQUE#<entity type>#<attribute>#<value>` (the value as stored: a
//! string's text, a number's digits), led by the owner's tenant for an entity with one
//! (`TENANT#t1#UNIQUE#..`: unique within the tenant, inside its `dynamodb:LeadingKeys`), its sort key `UNIQUE` (when the table has one); it holds
//! the type attribute `UNIQUE#<entity type>#<attribute>` (so no entity reads it as its own) and
//! its owner's key texts (`owner_pk`, `owner_sk`). A guard is claimed only if it is free or
//! already the owner's, and freed only if it is the owner's.
//!
//! Every write of an entity with unique fields is one `TransactWriteItems`: the item's own action
//! and the guards that change, by one rule: the guards of the item as read (as the entity it is
//! read as) against those of the item as written, by guard key (type name, attribute, value,
//! tenant); a key and a type name of their own are a create and a delete of two items, or a put
//! in place read as another entity. Which guards change depends on the stored item, so
//! it is read first (strongly consistent, except for a create) and the item's action is
//! conditioned on the unique attributes still holding what was read. A writer that changed them
//! meanwhile cancels the transaction, and it is read and built again ([`MAX_ATTEMPTS`] times at
//! most): of N writers claiming one value, exactly one wins and the others see
//! [`Error::UniqueViolation`].

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, Put, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

use crate::error::{CancelCode, CancelReason, Error, build_error};
use crate::model::Item;
use crate::model::entity::{Entity, EntitySchema, UniqueField};
use crate::ops::write::{Change, Failure, Guarded, NewValue, PutMode, PutParts, read_consistent, value_of};
use crate::send::{Call, send};
use crate::table::Table;

/// The sort key of every guard item.
pub const GUARD_SK: &str = "UNIQUE";
/// The attribute of a guard holding its owner's partition-key text.
pub const OWNER_PK: &str = "owner_pk";
/// The attribute of a guard holding its owner's sort-key text.
pub const OWNER_SK: &str = "owner_sk";
/// How many times a write whose item changed since it was read (or whose transaction met
/// another) is read and sent again.
pub(crate) const MAX_ATTEMPTS: u32 = 10;

/// Whether the table's keys can hold guard items: string keys.
pub(crate) fn check_table(schema: &EntitySchema) -> Result<(), Error> {
    use crate::key::attr::AttributeType;
    let string = schema.pk.ty == AttributeType::S && schema.sk.is_none_or(|k| k.ty == AttributeType::S);
    if string {
        Ok(())
    } else {
        Err(Error::Validation(format!(
            "{}'s `#[unique]` values need guard items, whose keys are strings; this table's keys are not",
            schema.entity_type
        )))
    }
}

/// The tenant part of the partition keys of `schema`'s items: the template up to the end of its
/// first placeholder (the tenant's), for an entity with `#[entity(tenant = ..)]`.
fn tenant_template(schema: &EntitySchema) -> Option<&'static str> {
    if !matches!(schema.tenant, crate::model::tenant::Tenancy::Field(_)) {
        return None;
    }
    let end = schema.pk.template.find('>')?;
    schema.pk.template.get(..=end)
}

/// The tenant part of `owner`'s partition key (its template's literal prefix and the tenant's
/// key text), for an entity with a tenant; `""` for another.
fn tenant_text<'o>(schema: &EntitySchema, owner: &'o Item) -> Result<&'o str, Error> {
    let Some(template) = tenant_template(schema) else { return Ok("") };
    let pk = match owner.get(schema.pk.attr) {
        Some(AttributeValue::S(pk)) => pk.as_str(),
        _ => "",
    };
    let prefix = crate::model::tenant::leading_literal(schema.pk.template);
    match crate::model::tenant::tenant_component(&schema.pk, pk).filter(|t| !t.is_empty()) {
        Some(t) => Ok(pk.get(..prefix.len() + t.len()).unwrap_or(pk)),
        None => Err(Error::Validation(format!(
            "{}: the partition key {pk:?} does not start with its tenant (`{template}`)",
            schema.entity_type
        ))),
    }
}

/// The partition-key template of the guards of `field`, as the access-pattern document shows it.
pub fn guard_template(schema: &EntitySchema, field: &UniqueField) -> String {
    let tenant = tenant_template(schema).map(|t| format!("{t}#")).unwrap_or_default();
    format!("{tenant}UNIQUE#{}#{}#<{}>", schema.entity_type, field.attr, field.field)
}

/// The partition-key text of the guard of `value` of `field`, held by the item with key `owner`.
/// For an entity with a tenant it leads with the owner's tenant (`TENANT#t1#UNIQUE#..`): the
/// value is unique within the tenant, and the guard lies within the tenant's
/// `dynamodb:LeadingKeys`.
pub fn guard_pk(
    schema: &EntitySchema,
    field: &UniqueField,
    value: &AttributeValue,
    owner: &Item,
) -> Result<String, Error> {
    let text = match value {
        AttributeValue::S(s) => s.as_str(),
        AttributeValue::N(n) => n.as_str(),
        AttributeValue::Bool(true) => "true",
        AttributeValue::Bool(false) => "false",
        _ => {
            return Err(Error::Validation(format!(
                "{}: the `#[unique]` `{}` is stored as neither a string, a number nor a boolean",
                schema.entity_type, field.field
            )));
        }
    };
    let tenant = tenant_text(schema, owner)?;
    let sep = if tenant.is_empty() { "" } else { "#" };
    let pk = format!("{tenant}{sep}UNIQUE#{}#{}#{text}", schema.entity_type, field.attr);
    if pk.len() > crate::model::MAX_PARTITION_KEY_BYTES {
        return Err(Error::Validation(format!(
            "{}: the `{}` value is {} bytes, too long for its guard's key ({} bytes at most, with the prefix)",
            schema.entity_type,
            field.field,
            text.len(),
            crate::model::MAX_PARTITION_KEY_BYTES
        )));
    }
    Ok(pk)
}

/// The type attribute's value of the guards of `field`.
pub fn guard_type(schema: &EntitySchema, field: &UniqueField) -> String {
    format!("UNIQUE#{}#{}", schema.entity_type, field.attr)
}

/// The key of a guard whose partition-key text is `pk`.
pub(crate) fn guard_key(schema: &EntitySchema, pk: String) -> Item {
    let mut key = Item::with_capacity(2);
    key.insert(schema.pk.attr.to_owned(), AttributeValue::S(pk));
    if let Some(sk) = schema.sk {
        key.insert(sk.attr.to_owned(), AttributeValue::S(GUARD_SK.to_owned()));
    }
    key
}

/// The guard item of `field`'s value `value`, owned by the item with key `owner`.
pub(crate) fn guard_item(
    schema: &EntitySchema,
    field: &UniqueField,
    value: &AttributeValue,
    owner: &Item,
) -> Result<Item, Error> {
    let mut item = guard_key(schema, guard_pk(schema, field, value, owner)?);
    if !schema.type_attr.is_empty() {
        item.insert(schema.type_attr.to_owned(), AttributeValue::S(guard_type(schema, field)));
    }
    for (attr, owner_attr) in [(Some(schema.pk.attr), OWNER_PK), (schema.sk.map(|k| k.attr), OWNER_SK)] {
        if let Some(v) = attr.and_then(|a| owner.get(a)) {
            item.insert(owner_attr.to_owned(), v.clone());
        }
    }
    Ok(item)
}

/// The condition "the guard is free, or owned by one of `owners`", names `#g*`, values `:g*`.
fn owner_condition(
    schema: &EntitySchema,
    owners: &[&Item],
) -> (String, HashMap<String, String>, HashMap<String, AttributeValue>) {
    let mut names = HashMap::from([("#gpk".to_owned(), schema.pk.attr.to_owned())]);
    let mut values = HashMap::new();
    let mut any = vec!["attribute_not_exists(#gpk)".to_owned()];
    for (o, owner) in owners.iter().enumerate() {
        let mut mine = Vec::new();
        for (n, (attr, owner_attr)) in
            [(Some(schema.pk.attr), OWNER_PK), (schema.sk.map(|k| k.attr), OWNER_SK)].into_iter().enumerate()
        {
            if let Some(v) = attr.and_then(|a| owner.get(a)) {
                names.insert(format!("#go{n}"), owner_attr.to_owned());
                values.insert(format!(":go{o}x{n}"), v.clone());
                mine.push(format!("#go{n} = :go{o}x{n}"));
            }
        }
        any.push(format!("({})", mine.join(" AND ")));
    }
    (any.join(" OR "), names, values)
}

/// The claim of a guard: written if free or already owned by one of `owners` (the new owner
/// first: the guard's owner is `owners[0]`).
pub(crate) fn claim(
    schema: &EntitySchema,
    guard: Item,
    owners: &[&Item],
    table: &str,
) -> Result<TransactWriteItem, Error> {
    let (condition, names, values) = owner_condition(schema, owners);
    let put = Put::builder()
        .table_name(table)
        .set_item(Some(guard))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values(Some(values))
        .build()
        .map_err(build_error)?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// The release of a guard: deleted if the owner's (nothing if there is none).
fn release(schema: &EntitySchema, key: Item, owner: &Item, table: &str) -> Result<TransactWriteItem, Error> {
    let (condition, names, values) = owner_condition(schema, &[owner]);
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(key))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values(Some(values))
        .build()
        .map_err(build_error)?;
    Ok(TransactWriteItem::builder().delete(delete).build())
}

/// Whether `c` is one parenthesized group, `(..)` as a whole.
fn enclosed(c: &str) -> bool {
    if !c.starts_with('(') {
        return false;
    }
    let mut depth = 0usize;
    for (i, ch) in c.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1 == c.len();
                }
            }
            _ => {}
        }
    }
    false
}

/// Adds `condition` (with its names and values) to a write action's own, and asks for the item
/// as it was when a condition fails.
fn and_condition(
    action: &mut TransactWriteItem,
    condition: &str,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
) {
    let (own, own_names, own_values, old) = if let Some(p) = action.put.as_mut() {
        (
            &mut p.condition_expression,
            &mut p.expression_attribute_names,
            &mut p.expression_attribute_values,
            &mut p.return_values_on_condition_check_failure,
        )
    } else if let Some(u) = action.update.as_mut() {
        (
            &mut u.condition_expression,
            &mut u.expression_attribute_names,
            &mut u.expression_attribute_values,
            &mut u.return_values_on_condition_check_failure,
        )
    } else if let Some(d) = action.delete.as_mut() {
        (
            &mut d.condition_expression,
            &mut d.expression_attribute_names,
            &mut d.expression_attribute_values,
            &mut d.return_values_on_condition_check_failure,
        )
    } else {
        return;
    };
    *own = Some(match own.take() {
        // DynamoDB refuses redundant parentheses: an enclosed condition is not wrapped again.
        Some(c) if enclosed(&c) => format!("{c} AND {condition}"),
        Some(c) => format!("({c}) AND {condition}"),
        None => condition.to_owned(),
    });
    own_names.get_or_insert_with(HashMap::new).extend(names);
    if !values.is_empty() {
        own_values.get_or_insert_with(HashMap::new).extend(values);
    }
    *old = Some(ReturnValuesOnConditionCheckFailure::AllOld);
}

/// The condition that the item's existence and unique values are still as read (`old`):
/// names `#q<tag>*`, values `:q<tag>*` (`tag` keeps two such conditions on one action apart).
fn as_read(
    schema: &EntitySchema,
    old: Option<&Item>,
    tag: usize,
) -> (String, HashMap<String, String>, HashMap<String, AttributeValue>) {
    let pk = format!("#q{tag}pk");
    let mut names = HashMap::from([(pk.clone(), schema.pk.attr.to_owned())]);
    let mut values = HashMap::new();
    let Some(old) = old else {
        return (format!("attribute_not_exists({pk})"), names, values);
    };
    let mut parts = vec![format!("attribute_exists({pk})")];
    // The type attribute as read: an item turned into another entity since (a migration to a
    // new type name under the same key) holds that entity's guards, not these.
    if !schema.type_attr.is_empty() {
        let name = format!("#q{tag}t");
        names.insert(name.clone(), schema.type_attr.to_owned());
        match old.get(schema.type_attr) {
            Some(t) => {
                let value = format!(":q{tag}t");
                values.insert(value.clone(), t.clone());
                parts.push(format!("{name} = {value}"));
            }
            None => parts.push(format!("attribute_not_exists({name})")),
        }
    }
    for (n, u) in schema.unique.iter().enumerate() {
        let (name, value) = (format!("#q{tag}x{n}"), format!(":q{tag}x{n}"));
        names.insert(name.clone(), u.attr.to_owned());
        match value_of(old, u.attr) {
            Some(v) => {
                values.insert(value.clone(), v.clone());
                parts.push(format!("{name} = {value}"));
            }
            None => {
                // Absent, or NULL (which holds no value either).
                values.insert(value.clone(), AttributeValue::S("NULL".to_owned()));
                parts.push(format!("(attribute_not_exists({name}) OR attribute_type({name}, {value}))"));
            }
        }
    }
    (parts.join(" AND "), names, values)
}

/// Whether `now` (the item as a failed condition saw it) holds what `read` held: existence, the
/// type attribute and unique values. If not, the write was built on a stale read.
fn same_as_read(schema: &EntitySchema, read: Option<&Item>, now: Option<&Item>) -> bool {
    match (read, now) {
        (None, None) => true,
        (Some(read), Some(now)) => {
            (schema.type_attr.is_empty() || read.get(schema.type_attr) == now.get(schema.type_attr))
                && schema.unique.iter().all(|u| value_of(read, u.attr) == value_of(now, u.attr))
        }
        _ => false,
    }
}

/// One guard's write in a transaction being built.
struct GuardOp<'a> {
    pk: String,
    schema: &'static EntitySchema,
    field: &'static UniqueField,
    /// The item that holds the value after the transaction (a claim), or held it (a release).
    owner: &'a Item,
    /// The value claimed; `None` for a release.
    value: Option<&'a AttributeValue>,
    /// For a claim, the item of the transaction that frees the value.
    freed_by: Option<&'a Item>,
}

/// A value an item holds, with the key text of its guard.
struct Held<'a> {
    pk: String,
    field: &'static UniqueField,
    value: &'a AttributeValue,
}

/// The values the item of `g` holds as read (`old`, an item of `g.read_as`) and as written (of
/// `g.schema`), each with its guard's key text.
fn held<'a>(g: &'a Guarded, old: Option<&'a Item>) -> Result<(Vec<Held<'a>>, Vec<Held<'a>>), Error> {
    let mut before = Vec::new();
    for field in g.read_as.unique {
        if let Some(value) = old.and_then(|o| value_of(o, field.attr)) {
            before.push(Held { pk: guard_pk(g.read_as, field, value, &g.key)?, field, value });
        }
    }
    let mut after = Vec::new();
    for (n, field) in g.schema.unique.iter().enumerate() {
        let stored = || old.and_then(|o| value_of(o, field.attr));
        let value = match &g.change {
            Change::Put { values, .. } => values.get(n).and_then(Option::as_ref),
            Change::Delete => None,
            Change::Update(changes) => match changes.iter().find(|(i, _)| *i == n) {
                None => stored(),
                Some((_, NewValue::Set(v))) => Some(v),
                Some((_, NewValue::Remove)) => None,
                Some((_, NewValue::IfAbsent(v))) => stored().or(Some(v)),
            },
        };
        if let Some(value) = value {
            after.push(Held { pk: guard_pk(g.schema, field, value, &g.key)?, field, value });
        }
    }
    Ok((before, after))
}

/// What a guard action in a transaction does.
#[derive(Debug)]
enum GuardAction {
    Claim { entity: &'static str, field: &'static str },
    Release { pk: String },
}

/// A transaction that DynamoDB refused for a reason of the caller's own actions: one reason per
/// action of the caller (the guards' are left out), and the items as they were where a condition
/// failed.
#[derive(Debug)]
pub(crate) struct Refused {
    pub reasons: Vec<CancelReason>,
    pub old: Vec<Option<Item>>,
}

/// What [`send_guarded`] came to, if not success.
#[derive(Debug)]
pub(crate) enum Failed {
    /// Cancelled for the caller's actions.
    Refused(Refused),
    /// Any other error (a taken value is [`Error::UniqueViolation`]).
    Error(Error),
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        Failed::Error(e)
    }
}

impl Failed {
    /// The error of a transaction: [`Error::TransactionCanceled`] for a refusal.
    pub(crate) fn into_error(self) -> Error {
        match self {
            Failed::Refused(r) => Error::TransactionCanceled { reasons: r.reasons },
            Failed::Error(e) => e,
        }
    }
}

/// A transaction with guarded writes, ready to send.
pub(crate) struct Plan<'a> {
    pub table: &'a Table,
    /// The caller's actions, in order.
    pub items: &'a [TransactWriteItem],
    /// The writes among them of entities with unique fields.
    pub guarded: &'a [Guarded],
    /// What the caller's actions weigh towards the 4 MB.
    pub bytes: usize,
    /// The caller's token, sent with every attempt (a rebuilt one too: DynamoDB keeps a token
    /// for a transaction it applied, never for one it cancelled).
    pub token: Option<&'a str>,
    /// Without the caller's token: a token of the library's, new for each attempt (built from a
    /// new read after a cancellation, which applied nothing), that the send path sends again
    /// unchanged after a failure that leaves the outcome unknown.
    pub own_token: bool,
    /// The first action that is not idempotent (an `ADD`, an append, a `#[version]`): its entity
    /// and key. A failure that leaves the outcome unknown is then [`Error::Indeterminate`].
    pub adds_up: Option<(&'a EntitySchema, &'a Item)>,
    /// How many times a cancellation by conflicts alone is sent again.
    pub conflict_retries: u32,
    pub call: &'a Call<'a>,
    /// The paths into documents the caller's updates write (entity, path): what a missing
    /// parent names.
    pub nested: &'a [(&'static str, String)],
}

/// Sends the caller's actions with the guards their writes need, in one transaction (see the
/// module documentation).
pub(crate) async fn send_guarded(plan: Plan<'_>) -> Result<(), Failed> {
    let table = plan.table;
    // Guards found owned by another item when this write freed its old value: never deleted.
    let mut not_ours: Vec<String> = Vec::new();
    let mut conflicts = 0;
    let mut last = None;
    for g in plan.guarded {
        check_table(g.schema)?;
    }
    // A create's values are all claimed (there is no stored item to hold them already): a
    // transaction they take past DynamoDB's limit is refused before anything is read.
    let certain = plan.guarded.iter().map(|g| match &g.change {
        Change::Put { values, create: true } => values.iter().flatten().count(),
        _ => 0,
    });
    check_limits(plan.items.len() + certain.sum::<usize>(), plan.bytes)?;
    for _ in 0..MAX_ATTEMPTS {
        // The stored items, read together: one round trip whatever the number of writes.
        let reads = plan.guarded.iter().map(|g| async move {
            match g.creates() {
                true => Ok(None),
                false => read_consistent(table, g.read_as, &g.key).await,
            }
        });
        let read: Vec<Option<Item>> = futures_util::future::try_join_all(reads).await?;
        // An item of another entity under the key (a `Ticket` where a `TicketV1` is deleted, after a
        // migration to the new type name) holds that entity's guards: writing it as this one would
        // release guards it does not hold and leave its own behind. Refused, nothing sent.
        for (g, old) in plan.guarded.iter().zip(&read) {
            if let Some(old) = old {
                crate::codec::check_type(g.read_as.entity_type, g.read_as.type_attr, old)?;
            }
        }
        let mut items = plan.items.to_vec();
        let mut guards: Vec<GuardAction> = Vec::new();
        let mut bytes = plan.bytes;
        // The guard writes, by guard: a value freed by one write and taken by another of the same
        // transaction is one claim that the freeing owner's guard also satisfies.
        let mut ops: Vec<GuardOp<'_>> = Vec::new();
        for (k, (g, old)) in plan.guarded.iter().zip(&read).enumerate() {
            if !g.creates() {
                let (c, names, values) = as_read(g.read_as, old.as_ref(), k);
                if let Some(action) = items.get_mut(g.action) {
                    and_condition(action, &c, names, values);
                }
            }
            // The guards the item holds as read and those it holds as written, by guard key (which
            // names the type, the field, the value and the owner's tenant): a guard in both is
            // left as it is, one only read is released, one only written is claimed.
            let (before, after) = held(g, old.as_ref())?;
            for held in before.iter().filter(|b| !after.iter().any(|a| a.pk == b.pk)) {
                if not_ours.contains(&held.pk) {
                    continue;
                }
                match ops.iter_mut().find(|o| o.pk == held.pk) {
                    Some(o) => o.freed_by = Some(&g.key),
                    None => ops.push(GuardOp {
                        pk: held.pk.clone(),
                        schema: g.read_as,
                        field: held.field,
                        owner: &g.key,
                        value: None,
                        freed_by: None,
                    }),
                }
            }
            for held in after.into_iter().filter(|a| !before.iter().any(|b| b.pk == a.pk)) {
                match ops.iter_mut().find(|o| o.pk == held.pk) {
                    Some(o) if o.value.is_some() => {
                        // Two writes of this transaction take the same value.
                        return Err(
                            Error::UniqueViolation { entity: g.schema.entity_type, field: held.field.field }.into()
                        );
                    }
                    Some(o) => {
                        o.freed_by = Some(o.owner);
                        o.owner = &g.key;
                        o.value = Some(held.value);
                        (o.schema, o.field) = (g.schema, held.field);
                    }
                    None => ops.push(GuardOp {
                        pk: held.pk,
                        schema: g.schema,
                        field: held.field,
                        owner: &g.key,
                        value: Some(held.value),
                        freed_by: None,
                    }),
                }
            }
        }
        for op in ops {
            match op.value {
                Some(value) => {
                    let guard = guard_item(op.schema, op.field, value, op.owner)?;
                    bytes += crate::size::item_size(&guard);
                    let owners: Vec<&Item> = std::iter::once(op.owner).chain(op.freed_by).collect();
                    items.push(claim(op.schema, guard, &owners, table.name())?);
                    guards.push(GuardAction::Claim { entity: op.schema.entity_type, field: op.field.field });
                }
                None => {
                    let key = guard_key(op.schema, op.pk.clone());
                    bytes += crate::size::item_size(&key);
                    items.push(release(op.schema, key, op.owner, table.name())?);
                    guards.push(GuardAction::Release { pk: op.pk });
                }
            }
        }
        check_limits(items.len(), bytes)?;
        let token = plan.token.map(str::to_owned).or_else(|| plan.own_token.then(crate::send::replay::token));
        let request = table
            .client()
            .transact_write_items()
            .set_transact_items(Some(items))
            .set_client_request_token(token)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let raw = match send(&table.meter, plan.call, request).await {
            Ok(_) => return Ok(()),
            Err(e) => match e.as_service_error() {
                Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) => {
                    if let Some(e) = crate::ops::write::refused_action(c.cancellation_reasons(), plan.nested) {
                        return Err(e.into());
                    }
                    c.cancellation_reasons().to_vec()
                }
                _ => {
                    let unknown = crate::send::replay::unknown_outcome(&e);
                    let refused = crate::ops::write::refused(e, plan.nested);
                    return Err(match plan.adds_up {
                        Some((schema, key)) => {
                            crate::ops::update::indeterminate_if(unknown, "TransactWriteItems", schema, key, refused)
                        }
                        None => refused,
                    }
                    .into());
                }
            },
        };
        let code = |i: usize| CancelCode::from_code(raw.get(i).and_then(|r| r.code()).unwrap_or("None"));
        let mut again = false;
        for (i, guard) in guards.iter().enumerate() {
            if code(plan.items.len() + i) != CancelCode::ConditionalCheckFailed {
                continue;
            }
            match guard {
                GuardAction::Claim { entity, field } => {
                    return Err(Error::UniqueViolation { entity, field }.into());
                }
                GuardAction::Release { pk } => {
                    not_ours.push(pk.clone());
                    again = true;
                }
            }
        }
        let old: Vec<Option<Item>> = (0..plan.items.len()).map(|i| raw.get(i).and_then(|r| r.item.clone())).collect();
        let mut own_failure = false;
        for (i, was) in old.iter().enumerate() {
            if code(i) != CancelCode::ConditionalCheckFailed {
                continue;
            }
            // A create read nothing: its failed condition is the item being there, never a stale
            // read (ALL_OLD returns the item it met).
            let g = plan.guarded.iter().position(|g| g.action == i).filter(|&k| !plan.guarded[k].creates());
            match g {
                Some(k) if !same_as_read(plan.guarded[k].read_as, read[k].as_ref(), was.as_ref()) => again = true,
                _ => own_failure = true,
            }
        }
        let reasons: Vec<CancelReason> = raw
            .iter()
            .take(plan.items.len())
            .enumerate()
            .map(|(index, r)| CancelReason {
                index,
                code: CancelCode::from_code(r.code().unwrap_or("None")),
                message: r.message().map(str::to_owned),
            })
            .collect();
        let refused = Refused { reasons, old };
        if own_failure {
            return Err(Failed::Refused(refused));
        }
        let codes: Vec<CancelCode> = (0..raw.len()).map(code).collect();
        let conflict = codes.contains(&CancelCode::TransactionConflict)
            && codes.iter().all(|c| matches!(c, CancelCode::TransactionConflict | CancelCode::None));
        if conflict && !again {
            if conflicts >= plan.conflict_retries {
                return Err(Failed::Refused(refused));
            }
            conflicts += 1;
            tokio::time::sleep(crate::ops::transact::conflict_backoff(conflicts)).await;
        } else if !again {
            return Err(Failed::Refused(refused));
        }
        last = Some(refused);
    }
    Err(match last {
        Some(r) => Failed::Refused(r),
        None => Error::Validation(format!("unique values changed by other writers on each of {MAX_ATTEMPTS} attempts"))
            .into(),
    })
}

/// Refuses a transaction whose actions with their guards (`n`, weighing `bytes`) DynamoDB would
/// refuse.
fn check_limits(n: usize, bytes: usize) -> Result<(), Error> {
    use crate::ops::transact::{MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES};
    if n > MAX_TRANSACTION_ACTIONS {
        return Err(Error::Validation(format!(
            "a transaction of {n} actions with the guards of its unique values: DynamoDB allows at most \
             {MAX_TRANSACTION_ACTIONS}"
        )));
    }
    if bytes > MAX_TRANSACTION_BYTES {
        return Err(Error::Validation(format!(
            "a transaction of {bytes} bytes with the guards of its unique values: DynamoDB allows at most \
             {MAX_TRANSACTION_BYTES}"
        )));
    }
    Ok(())
}

/// One guarded write, besides its action: how it reads as the plain write it stands for.
struct Single<'a> {
    /// What the action weighs towards the 4 MB.
    bytes: usize,
    /// What a failed condition of its own means (as the plain write's).
    failure: Failure,
    return_old: bool,
    /// The paths into documents the update writes (entity, path).
    nested: &'a [(&'static str, String)],
    /// Sent with a token of the library's (`Update::idempotent`): the table sends it again after
    /// a failure that leaves its outcome unknown, applied at most once.
    idempotent: bool,
    /// Not idempotent (an `ADD`, a list append, a `#[version]`): such a failure is
    /// [`Error::Indeterminate`].
    adds_up: bool,
}

/// Sends one guarded write (action 0) and reads a failed condition of its own as the plain
/// write's error (`failure`), as `PutItem`/`DeleteItem`/`UpdateItem` would.
async fn single(table: &Table, action: TransactWriteItem, guarded: Guarded, one: Single<'_>) -> Result<(), Error> {
    let schema = guarded.schema;
    let key = guarded.key.clone();
    // A transaction spans the guards' partitions: not attributed to the item's (hot partitions).
    let call = crate::send::call("TransactWriteItems", table.name(), schema.entity_type, None).of(schema);
    let plan = Plan {
        table,
        items: std::slice::from_ref(&action),
        guarded: std::slice::from_ref(&guarded),
        bytes: one.bytes,
        token: None,
        own_token: one.idempotent,
        adds_up: one.adds_up.then_some((schema, &key)),
        // Racing claims of one value conflict until one wins: more room than a plain transaction's.
        conflict_retries: MAX_ATTEMPTS,
        call: &call,
        nested: one.nested,
    };
    match send_guarded(plan).await {
        Ok(()) => Ok(()),
        Err(Failed::Error(e)) => Err(e),
        Err(Failed::Refused(mut r)) => {
            if r.reasons.first().is_some_and(|c| c.code == CancelCode::ConditionalCheckFailed) {
                let old = r.old.swap_remove(0);
                crate::ops::item::failed(one.failure, schema, &key, old, one.return_old)
            } else {
                Err(Error::TransactionCanceled { reasons: r.reasons })
            }
        }
    }
}

/// `table.put(&x)` / `table.create(&x)` of an entity with unique fields.
pub(crate) async fn put<E: Entity>(
    table: &Table,
    parts: PutParts,
    mode: PutMode,
    return_old: bool,
) -> Result<(), Error> {
    let schema = &E::SCHEMA;
    let key = parts.key_item(schema);
    let guarded = Guarded::put(0, schema, key, &parts.item, mode == PutMode::Create);
    let bytes = crate::size::item_size(&parts.item);
    let put = Put::builder()
        .table_name(table.name())
        .set_item(Some(parts.item))
        .set_condition_expression(parts.condition)
        .set_expression_attribute_names(parts.names)
        .set_expression_attribute_values(parts.values)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .build()
        .map_err(build_error)?;
    let one = Single { bytes, failure: parts.failure, return_old, nested: &[], idempotent: false, adds_up: false };
    single(table, TransactWriteItem::builder().put(put).build(), guarded, one).await
}

/// `table.delete(key)` of an entity with unique fields.
pub(crate) async fn delete(
    table: &Table,
    schema: &'static EntitySchema,
    key: Item,
    condition: crate::ops::write::UserCondition,
    return_old: bool,
) -> Result<(), Error> {
    let bytes = crate::size::item_size(&key);
    let delete = Delete::builder()
        .table_name(table.name())
        .set_key(Some(key.clone()))
        .set_condition_expression(condition.text)
        .set_expression_attribute_names(condition.names)
        .set_expression_attribute_values(condition.values)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .build()
        .map_err(build_error)?;
    let guarded = Guarded::delete(0, schema, key);
    let failure = Failure { must_not_exist: false, must_exist: false, version: None, version_below: None };
    let one = Single { bytes, failure, return_old, nested: &[], idempotent: false, adds_up: false };
    single(table, TransactWriteItem::builder().delete(delete).build(), guarded, one).await
}

/// `table.update(u)` of an update that sets or removes unique fields: the item as written is
/// read back (strongly consistent), as a transaction returns no item. Sent with a token of the
/// library's when `idempotent` ([`crate::ops::update::Update::idempotent`]); one that is not
/// idempotent (an `ADD`, an append, a `#[version]`) whose outcome a failure left unknown is
/// [`Error::Indeterminate`], as the plain update is.
pub(crate) async fn update<E: Entity>(
    table: &Table,
    r: crate::ops::update::UpdateRequest,
    changes: Vec<(usize, NewValue)>,
    idempotent: bool,
) -> Result<E, Error> {
    let schema = &E::SCHEMA;
    let bytes = crate::size::item_size(&r.key)
        + r.update_expression.len()
        + r.condition_expression.as_ref().map_or(0, String::len);
    let update = aws_sdk_dynamodb::types::Update::builder()
        .table_name(table.name())
        .set_key(Some(r.key.clone()))
        .update_expression(r.update_expression)
        .set_condition_expression(r.condition_expression)
        .set_expression_attribute_names(Some(r.expression_attribute_names))
        .set_expression_attribute_values(r.expression_attribute_values)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .build()
        .map_err(build_error)?;
    let guarded = Guarded::update(0, schema, r.key.clone(), changes);
    let nested: Vec<(&'static str, String)> = r.nested.into_iter().map(|p| (schema.entity_type, p)).collect();
    let action = TransactWriteItem::builder().update(update).build();
    let adds_up = r.replay == crate::send::replay::Replay::Never;
    let one = Single { bytes, failure: r.failure, return_old: r.return_old, nested: &nested, idempotent, adds_up };
    single(table, action, guarded, one).await?;
    match read_consistent(table, schema, &r.key).await? {
        Some(item) => E::from_item(item),
        // Deleted by another writer as soon as it was written.
        None => Err(Error::for_item(crate::error::ItemErrorKind::NotFound, schema, &r.key)),
    }
}

/// Whether `guard` (a stored guard item) is owned by the item with key `owner`.
fn owned_by(schema: &EntitySchema, guard: &Item, owner: &Item) -> bool {
    [(Some(schema.pk.attr), OWNER_PK), (schema.sk.map(|k| k.attr), OWNER_SK)]
        .into_iter()
        .all(|(attr, owner_attr)| attr.and_then(|a| owner.get(a)) == guard.get(owner_attr))
}

/// Where the guard of a value stands, as read (strongly consistent).
pub(crate) enum GuardState {
    /// The guard is the owner's.
    Owned,
    /// Another item's: the value is a duplicate.
    Taken,
    /// No guard: this one (the owner's) is to be claimed.
    Free(Item),
}

/// Reads the guard of `field`'s `value` held by the item with key `owner`.
pub(crate) async fn guard_state(
    table: &Table,
    schema: &'static EntitySchema,
    field: &UniqueField,
    value: &AttributeValue,
    owner: &Item,
) -> Result<GuardState, Error> {
    let key = guard_key(schema, guard_pk(schema, field, value, owner)?);
    Ok(match read_consistent(table, schema, &key).await? {
        Some(guard) if owned_by(schema, &guard, owner) => GuardState::Owned,
        Some(_) => GuardState::Taken,
        None => GuardState::Free(guard_item(schema, field, value, owner)?),
    })
}

/// The unique field of `schema` whose guard `item` is (`None` for any other item): by its type
/// attribute, or without one, by its key (`[<tenant>#]UNIQUE#<entity type>#<attribute>#..`,
/// sort key `UNIQUE`) and its owner attribute.
pub(crate) fn guard_field(schema: &'static EntitySchema, item: &Item) -> Option<&'static UniqueField> {
    let text = |attr: &str| match item.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.as_str()),
        _ => None,
    };
    if !schema.type_attr.is_empty() {
        let ty = text(schema.type_attr)?;
        return schema.unique.iter().find(|u| guard_type(schema, u) == ty);
    }
    if schema.sk.is_some_and(|k| text(k.attr) != Some(GUARD_SK)) || !item.contains_key(OWNER_PK) {
        return None;
    }
    let pk = text(schema.pk.attr)?;
    schema.unique.iter().find(|u| {
        let prefix = format!("UNIQUE#{}#{}#", schema.entity_type, u.attr);
        pk.starts_with(&prefix) || (tenant_template(schema).is_some() && pk.contains(&format!("#{prefix}")))
    })
}

/// The key of the item a guard names as its owner (`None` if it names none).
pub(crate) fn owner_key(schema: &EntitySchema, guard: &Item) -> Option<Item> {
    let mut key = Item::with_capacity(2);
    key.insert(schema.pk.attr.to_owned(), guard.get(OWNER_PK)?.clone());
    if let Some(sk) = schema.sk {
        key.insert(sk.attr.to_owned(), guard.get(OWNER_SK)?.clone());
    }
    Some(key)
}

/// Whether the item `owner` (an item of `schema`'s entity, as stored at key `key`) holds the
/// value whose guard has the partition-key text `guard`.
pub(crate) fn holds(schema: &EntitySchema, field: &UniqueField, owner: &Item, key: &Item, guard: &str) -> bool {
    value_of(owner, field.attr).is_some_and(|v| guard_pk(schema, field, v, key).is_ok_and(|pk| pk == guard))
}

/// The delete of the guard with key `key` if it still names `owner` as its owner.
pub(crate) fn release_if_owned(
    schema: &EntitySchema,
    key: Item,
    owner: &Item,
    table: &str,
) -> Result<TransactWriteItem, Error> {
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    let mut parts = Vec::new();
    for (n, (attr, owner_attr)) in
        [(Some(schema.pk.attr), OWNER_PK), (schema.sk.map(|k| k.attr), OWNER_SK)].into_iter().enumerate()
    {
        if let Some(v) = attr.and_then(|a| owner.get(a)) {
            names.insert(format!("#go{n}"), owner_attr.to_owned());
            values.insert(format!(":go{n}"), v.clone());
            parts.push(format!("#go{n} = :go{n}"));
        }
    }
    let condition = parts.join(" AND ");
    let delete = Delete::builder()
        .table_name(table)
        .set_key(Some(key))
        .condition_expression(condition)
        .set_expression_attribute_names(Some(names))
        .set_expression_attribute_values(Some(values))
        .build()
        .map_err(build_error)?;
    Ok(TransactWriteItem::builder().delete(delete).build())
}
