//! Typed updates: what the generated `<Name>::update(key)` and `update_from(&entity)` give,
//! whose actions name fields through `<Name>::fields()` paths (`paths`).
//!
//! An update is one UpdateItem: `SET` for the fields set (and for every index key they are part
//! of, so index keys never go stale), `REMOVE` for `None`s (and for index keys that become
//! sparse), `ADD` for atomic counters, `list_append` for lists. It only updates an existing
//! item (`attribute_exists(PK)`, else [`Error::NotFound`]) unless `.upsert()`; a `#[version]`
//! is incremented, and checked with `.if_version(n)` ([`Error::VersionConflict`]).
//!
//! An upsert may create the item, so it must create a readable one: it is refused before sending
//! ([`Error::Validation`]) unless it sets every field that has no default (every field but the
//! key fields, the `Option`s, the `#[version]` and skipped ones), and it also writes the key
//! fields as their own attributes, the type attribute, and the index keys made of key fields
//! only (the update's other index keys follow the fields it sets, as for any update). Those
//! rules live in `upkeep`.
//!
//! An update that is not idempotent (an `ADD`, a list append, the increment of a `#[version]`) is
//! never sent again after a failure that leaves its outcome unknown ([`Error::Indeterminate`]);
//! `.idempotent()` sends it as a one-action TransactWriteItems with a `ClientRequestToken`, which
//! may be sent again safely (see `crate::send::replay`).

mod paths;
mod upkeep;

pub use paths::Number;

#[doc(hidden)]
pub use upkeep::{Created, CreatedFn, Glue, Slot, Updatable, Upkeep, UpkeepField, UpkeepIndex, Values};

use std::collections::HashMap;
use std::fmt::Write as _;
use std::marker::PhantomData;

use crate::error::Error;
use crate::error::sdk_error;
use crate::model::Item;
use crate::model::entity::Entity;
use crate::send::replay::{Replay, Watch};
use crate::send::{Watched, call, send};
use crate::table::Table;
use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use std::convert::Infallible;

#[derive(Debug, Clone)]
enum Action {
    Set(AttributeValue),
    Remove,
    Add(AttributeValue),
    Append(AttributeValue),
    /// `SET a = if_not_exists(a, v)`: an upsert's default.
    SetIfAbsent(AttributeValue),
}

/// An update of one item of entity `E`.
pub struct Update<E: Entity> {
    pub(crate) key: Result<Item, Error>,
    actions: Vec<(&'static str, Action)>,
    /// Actions on paths into documents (`address.city`), in the order given.
    nested: Vec<(crate::expr::Name, Action)>,
    upsert: bool,
    /// Attributes an upsert also writes: key fields, index keys made of key fields only.
    upsert_sets: Vec<(&'static str, AttributeValue)>,
    /// Attributes an upsert writes only where the item has none (`if_not_exists`): defaulted
    /// fields that key an index, and those index keys.
    upsert_defaults: Vec<(&'static str, AttributeValue)>,
    /// Fields an upsert must set (attribute, field name): the fields without a default.
    upsert_requires: &'static [(&'static str, &'static str)],
    /// Where the entity keys something on its `#[created_at]`: the value an upsert writes for it
    /// and the index keys made of it, from the clock's reading (generated; see [`Created`]).
    created: Option<CreatedFn>,
    /// The entity's index keys, as the derive describes them ([`Update::__upkeep`]).
    upkeep: &'static Upkeep,
    /// The indexes (numbered as in [`Upkeep`]) whose keys the update rewrites because it sets
    /// one of their fields: an upsert's keys made of `#[created_at]` leave them to that.
    touched: Vec<usize>,
    if_version: Option<u64>,
    /// Attributes that must still hold these values (`None`: be absent), because an index key
    /// the update rebuilds was made from them without setting them (`update_from`).
    unchanged: Vec<(&'static str, Option<AttributeValue>)>,
    condition: Option<crate::expr::Condition<()>>,
    return_old: bool,
    /// Sent as a one-action TransactWriteItems with a token ([`Update::idempotent`]).
    pub(crate) idempotent: bool,
    error: Option<Error>,
    /// The typed key, for the index keys and the key fields' attributes an upsert writes.
    key_value: Option<E::Key>,
    /// The values set of the fields of index keys, by their slot (`None`: removed).
    values: Vec<(u8, Option<upkeep::Boxed>)>,
    /// The values `update_from` gave of the fields of index keys, by their slot.
    given: Vec<(u8, upkeep::Boxed)>,
    /// Whether the index keys were put in step ([`Updatable::__upkeep`]): done once, when the
    /// update is sent or its request is built.
    kept: bool,
    _entity: PhantomData<fn() -> E>,
}

impl<E: Entity> core::fmt::Debug for Update<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Update")
            .field("entity", &core::any::type_name::<E>())
            .field("attributes", &self.actions.iter().map(|(a, _)| *a).collect::<Vec<_>>())
            .field("upsert", &self.upsert)
            .field("if_version", &self.if_version)
            .finish_non_exhaustive()
    }
}

/// An update as DynamoDB's UpdateItem takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRequest {
    /// The primary key.
    pub key: Item,
    /// `UpdateExpression`.
    pub update_expression: String,
    /// `ConditionExpression`, if any.
    pub condition_expression: Option<String>,
    /// `ExpressionAttributeNames`.
    pub expression_attribute_names: HashMap<String, String>,
    /// `ExpressionAttributeValues` (absent when empty, as DynamoDB requires).
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    /// Whether the update checks a version (`if_version`): how `Table` reads a failed condition.
    pub(crate) versioned: bool,
    /// Whether a missing item is created (`upsert`).
    pub(crate) upsert: bool,
    /// What a failed condition means, read with the item as it was.
    pub(crate) failure: crate::ops::write::Failure,
    /// Whether a [`Error::ConditionFailed`] holds the item as it was.
    pub(crate) return_old: bool,
    /// The paths into documents the update writes (`address.city`): what a missing parent
    /// names.
    pub(crate) nested: Vec<String>,
    /// Whether the SDK may send it again after a failure that leaves its outcome unknown: never
    /// for an `ADD`, a list append or a `#[version]` (not idempotent).
    pub(crate) replay: Replay,
}

impl<E: Updatable> Update<E> {
    /// Starts an update of the item with `key`. Called by generated code (`<Name>::update`).
    #[doc(hidden)]
    pub fn __new(key: E::Key) -> Self {
        Update {
            key: crate::model::entity::EntityKey::to_key_item(&key),
            key_value: Some(key),
            values: Vec::new(),
            given: Vec::new(),
            kept: false,
            actions: Vec::new(),
            nested: Vec::new(),
            upsert: false,
            upsert_sets: Vec::new(),
            upsert_defaults: Vec::new(),
            upsert_requires: &[],
            created: None,
            upkeep: &Upkeep::NONE,
            touched: Vec::new(),
            condition: None,
            return_old: false,
            idempotent: false,
            if_version: None,
            unchanged: Vec::new(),
            error: None,
            _entity: PhantomData,
        }
    }

    fn push(&mut self, attr: &'static str, action: Action) {
        push(&mut self.actions, attr, action);
    }

    /// `SET attr = value`, or `REMOVE attr` for `None`. Called by generated code.
    #[doc(hidden)]
    pub fn __set(&mut self, attr: &'static str, value: Option<AttributeValue>) {
        // A vector index's attribute keeps its dimensions: checked here, before sending.
        if !E::SCHEMA.vectors.is_empty()
            && let Some(v) = &value
            && let Err(e) = crate::model::vector::check_attribute(&E::SCHEMA, attr, v)
        {
            self.__fail(e);
            return;
        }
        self.push(attr, value.map_or(Action::Remove, Action::Set));
    }

    /// `ADD attr value` (atomic). Called by generated code.
    #[doc(hidden)]
    pub fn __add(&mut self, attr: &'static str, value: AttributeValue) {
        self.push(attr, Action::Add(value));
    }

    /// `SET attr = list_append(if_not_exists(attr, []), value)`. Called by generated code.
    #[doc(hidden)]
    pub fn __append(&mut self, attr: &'static str, value: Option<AttributeValue>) {
        if E::SCHEMA.vectors.iter().any(|v| v.attr == attr) {
            self.__fail(Error::Validation(format!(
                "appending to `{attr}`, the vector of a vector index, would change its dimensions"
            )));
            return;
        }
        if let Some(value) = value {
            self.push(attr, Action::Append(value));
        }
    }

    /// [`Update::__set`] of a field's encoding (`Encode`'s result): an encoding error is recorded
    /// and reported when the update is sent. Called by generated code.
    #[doc(hidden)]
    pub fn __set_encoded(&mut self, attr: &'static str, value: Result<Option<AttributeValue>, String>) {
        match value {
            Ok(value) => self.__set(attr, value),
            Err(m) => self.__fail(crate::codec::encode_error(E::SCHEMA.entity_type, attr, m)),
        }
    }

    /// [`Update::__append`] of a list's encoding (see [`Update::__set_encoded`]). Called by
    /// generated code.
    #[doc(hidden)]
    pub fn __append_encoded(&mut self, attr: &'static str, value: Result<Option<AttributeValue>, String>) {
        match value {
            Ok(value) => self.__append(attr, value),
            Err(m) => self.__fail(crate::codec::encode_error(E::SCHEMA.entity_type, attr, m)),
        }
    }

    /// Records an error, reported when the update is sent. Called by generated code.
    #[doc(hidden)]
    pub fn __fail(&mut self, error: Error) {
        record(&mut self.error, error);
    }

    /// Applies the update only if `condition` holds on the stored item ("only while stock is
    /// positive"), besides the existence and version checks, which it never replaces. Otherwise
    /// [`Error::ConditionFailed`] (or `NotFound`/`VersionConflict` when those checks failed).
    pub fn condition(mut self, condition: crate::expr::Condition<E>) -> Self {
        crate::expr::Condition::and_into(&mut self.condition, condition.cast());
        self
    }

    /// On a failed condition, [`Error::ConditionFailed`] holds the item as it was.
    pub fn return_old_on_failure(mut self) -> Self {
        self.return_old = true;
        self
    }

    /// Creates the item if it does not exist (by default, updating a missing item is
    /// [`Error::NotFound`] and creates nothing). The update must then set every field without a
    /// default (not an `Option`, a key field or the `#[version]`), or it is refused before sending
    /// with [`Error::Validation`]: the item it may create must be readable.
    pub fn upsert(mut self) -> Self {
        self.upsert = true;
        self
    }

    /// Sends the update so that it may be retried safely: as a one-action `TransactWriteItems`
    /// with a `ClientRequestToken` of its own, which DynamoDB applies at most once within 10
    /// minutes, however many times it is sent. The SDK's retries (and the table's, after a
    /// failure that leaves the outcome unknown: a timeout, a lost answer, a 5xx) send it again
    /// with the same token, so an `ADD` or a list append counts once.
    ///
    /// Without it, an update that is not idempotent (an `ADD`, a list append, the increment of a
    /// `#[version]`) is retried only after an answer that says nothing was applied (throttling);
    /// after any other failure it is [`Error::Indeterminate`]: the write may or may not have
    /// happened.
    ///
    /// What it costs: a transactional write consumes twice the write units of an UpdateItem, and
    /// DynamoDB's TransactWriteItems returns no item, so `table.update` then reads the updated
    /// item (a strongly consistent GetItem) to return it: the item as stored right after (another
    /// writer's change in between included). The token holds for 10 minutes; a transaction
    /// writing the same item at the same time cancels it (`TransactionConflict`, retried as
    /// for any transaction). In a transaction (`table.transact().update(..)`) it has no effect:
    /// give the transaction an `idempotency_token`. An update of a `#[unique]` value is a
    /// transaction already (with its guards): `.idempotent()` gives it a token of the library's,
    /// sent again the same way; without it, such an update that is not idempotent and whose
    /// outcome a failure left unknown is [`Error::Indeterminate`], as any other.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Applies only if the stored `#[version]` is `version` (no item, or no version, for 0);
    /// otherwise [`Error::VersionConflict`].
    pub fn if_version(mut self, version: u64) -> Self {
        self.if_version = Some(version);
        self
    }

    /// What the update promises beyond writing (see `Table::check_promises`); `unique`: whether it
    /// changes a `#[unique]` value ([`Update::unique_changes`] is not empty).
    pub(crate) fn promises(&self, unique: bool) -> crate::ops::policy::Promises {
        crate::ops::policy::Promises {
            unique,
            version: E::SCHEMA.version_attr.is_some(),
            create: false,
            idempotent: self.idempotent,
            condition: self.condition.is_some() || self.if_version.is_some(),
        }
    }

    /// The `#[unique]` fields this update sets or removes (by their index in the schema's
    /// list), or why their new values cannot be known (an `ADD` to one).
    pub(crate) fn unique_changes(&self) -> Result<Vec<(usize, crate::ops::write::NewValue)>, Error> {
        use crate::ops::write::NewValue;
        let schema = &E::SCHEMA;
        let mut out = Vec::new();
        for (n, u) in schema.unique.iter().enumerate() {
            let action = self.actions.iter().find(|(a, _)| *a == u.attr).map(|(_, action)| action);
            let default = self.upsert.then(|| self.upsert_defaults.iter().find(|(a, _)| *a == u.attr)).flatten();
            let new = match (action, default) {
                (Some(Action::Set(v)), _) => NewValue::Set(v.clone()),
                (Some(Action::Remove), _) => NewValue::Remove,
                (Some(Action::SetIfAbsent(v)), _) | (None, Some((_, v))) => NewValue::IfAbsent(v.clone()),
                (Some(Action::Add(_) | Action::Append(_)), _) => {
                    return Err(Error::Validation(format!(
                        "an update of {} adds to the `#[unique]` `{}`: its new value, whose guard the update \
                         must take, is unknown before it is written; set it instead",
                        schema.entity_type, u.field
                    )));
                }
                (None, None) => continue,
            };
            out.push((n, new));
        }
        Ok(out)
    }

    /// The request this update sends, or why it cannot be sent. An entity's `#[updated_at]`
    /// (and an upsert's `#[created_at]`) take the system's time here: a request for a table
    /// whose clock is another ([`Table::with_clock`]) is [`Table::update_request`]'s.
    pub fn request(self) -> Result<UpdateRequest, Error> {
        self.request_at(&mut crate::model::filled::Reading::default(), &crate::model::filled::Clock::default())
    }

    /// [`Update::request`] with the filled fields stamped from `reading` of `clock`.
    pub(crate) fn request_at(
        mut self,
        reading: &mut crate::model::filled::Reading,
        clock: &crate::model::filled::Clock,
    ) -> Result<UpdateRequest, Error> {
        self.keep();
        if let Some(e) = self.error {
            return Err(e);
        }
        let fills = crate::model::filled::fills(&E::SCHEMA);
        let stamps = match fills {
            true => E::__stamps(reading.get(clock))?,
            false => crate::model::filled::Stamps::default(),
        };
        // An upsert's `#[created_at]` where keys are made of it: the value the keys hold.
        let created = match (&self.created, self.upsert) {
            (Some(created), true) => Some(created(reading.get(clock))?),
            _ => None,
        };
        // The work is in a function that does not depend on `E`: compiled once in this crate,
        // not once per entity in the crate that defines it.
        request_of(
            UpdateParts {
                key: self.key?,
                actions: &self.actions,
                nested: &self.nested,
                upsert: self.upsert,
                upsert_sets: &self.upsert_sets,
                upsert_defaults: &self.upsert_defaults,
                upsert_requires: self.upsert_requires,
                created,
                upkeep: self.upkeep,
                touched: &self.touched,
                if_version: self.if_version,
                unchanged: &self.unchanged,
                condition: self.condition.as_ref(),
                return_old: self.return_old,
            },
            &E::SCHEMA,
            stamps,
        )
    }
}

impl Table {
    /// The request [`Table::update`] sends for `update`, without sending it: as
    /// [`Update::request`], with the filled fields (`#[updated_at]`, an upsert's `#[created_at]`)
    /// stamped from this table's clock ([`Table::with_clock`]), and the table's checks of the
    /// key (a tenant handle's) made.
    pub fn update_request<E: Updatable>(&self, update: impl Into<Update<E>>) -> Result<UpdateRequest, Error> {
        let mut update: Update<E> = update.into();
        update.keep();
        if let Ok(key) = &update.key {
            self.check_tenant_item(&E::SCHEMA, key)?;
        }
        self.check_update(&E::SCHEMA)?;
        update.request_at(&mut crate::model::filled::Reading::default(), &self.clock)
    }
}

/// Adds `action` on `attr`: the last action on an attribute wins (DynamoDB rejects two on one
/// path).
fn push(actions: &mut Vec<(&'static str, Action)>, attr: &'static str, action: Action) {
    actions.retain(|(a, _)| *a != attr);
    actions.push((attr, action));
}

/// Records `error` as the update's, unless it already has one: the first is reported when the
/// update is sent.
fn record(slot: &mut Option<Error>, error: Error) {
    if slot.is_none() {
        *slot = Some(error);
    }
}

/// The fields of an [`Update`] that its request is built from (borrowed, but the key).
struct UpdateParts<'a> {
    key: Item,
    actions: &'a [(&'static str, Action)],
    nested: &'a [(crate::expr::Name, Action)],
    upsert: bool,
    upsert_sets: &'a [(&'static str, AttributeValue)],
    upsert_defaults: &'a [(&'static str, AttributeValue)],
    upsert_requires: &'static [(&'static str, &'static str)],
    created: Option<Created>,
    upkeep: &'static Upkeep,
    touched: &'a [usize],
    if_version: Option<u64>,
    unchanged: &'a [(&'static str, Option<AttributeValue>)],
    condition: Option<&'a crate::expr::Condition<()>>,
    return_old: bool,
}

/// [`Update::request`], for every entity.
fn request_of(
    u: UpdateParts<'_>,
    schema: &crate::model::entity::EntitySchema,
    mut stamps: crate::model::filled::Stamps,
) -> Result<UpdateRequest, Error> {
    let key = u.key;
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    let (mut sets, mut removes, mut adds) = (Vec::new(), Vec::new(), Vec::new());
    let mut actions = u.actions.to_vec();
    if u.upsert {
        let missing: Vec<String> = u
            .upsert_requires
            .iter()
            .filter(|(attr, _)| !actions.iter().any(|(a, action)| a == attr && !matches!(action, Action::Remove)))
            .map(|(_, field)| format!("`{field}`"))
            .collect();
        if !missing.is_empty() {
            return Err(Error::Validation(format!(
                "an upsert of {} may create the item, so it must set every field without a default; not set: {}",
                schema.entity_type,
                missing.join(", ")
            )));
        }
        // A created item carries its type, its key fields and the index keys they make.
        if !schema.type_attr.is_empty() {
            actions.push((schema.type_attr, Action::Set(AttributeValue::S(schema.entity_type.to_owned()))));
        }
        for (attr, value) in u.upsert_sets {
            if !actions.iter().any(|(a, _)| a == attr) {
                actions.push((attr, Action::Set(value.clone())));
            }
        }
        for (attr, value) in u.upsert_defaults {
            if !actions.iter().any(|(a, _)| a == attr) {
                actions.push((attr, Action::SetIfAbsent(value.clone())));
            }
        }
        // `#[created_at]` where keys are made of it: the value those keys hold, and the index
        // keys made of it that no action of the update rewrites, each where the item has none.
        if let Some(created) = u.created {
            stamps.created = upkeep::created_writes(schema, created, u.upkeep, u.touched, &mut actions)?;
        }
    }
    if let Some(attr) = schema.version_attr {
        if actions.iter().any(|(a, _)| *a == attr) {
            return Err(Error::Validation(format!("`{attr}` is the version: it is managed, not set")));
        }
        actions.push((attr, Action::Add(AttributeValue::N("1".into()))));
        if let Some(v) = u.if_version
            && v >= schema.version_max
        {
            return Err(crate::model::version::overflow(schema, v));
        }
    }
    if actions.is_empty() && u.nested.is_empty() {
        return Err(Error::Validation("an update that changes nothing".into()));
    }
    // Every update sets `#[updated_at]`, whatever else it does (an `ADD` alone too); an upsert
    // writes `#[created_at]` only where the item has none. No action writes either (their paths
    // are `ReadOnly`).
    if let Some((attr, value)) = stamps.updated {
        push(&mut actions, attr, Action::Set(value));
    }
    if let Some((attr, value)) = stamps.created
        && u.upsert
    {
        push(&mut actions, attr, Action::SetIfAbsent(value));
    }
    paths::check_nested(schema, &actions, u.nested)?;
    let rendered = actions
        .iter()
        .enumerate()
        .map(|(i, (attr, action))| {
            let name = format!("#a{i}");
            names.insert(name.clone(), (*attr).to_owned());
            ((*attr).to_owned(), name, format!(":v{i}"), action)
        })
        .collect::<Vec<_>>();
    let rendered = rendered.into_iter().chain(paths::render_nested(u.nested, &mut names));
    for (attr, name, value, action) in rendered {
        if let Action::Set(v) | Action::Append(v) | Action::Add(v) | Action::SetIfAbsent(v) = action {
            crate::size::check_value(schema.entity_type, &attr, v)?;
        }
        match action {
            Action::Set(v) => {
                sets.push(format!("{name} = {value}"));
                values.insert(value, v.clone());
            }
            Action::SetIfAbsent(v) => {
                sets.push(format!("{name} = if_not_exists({name}, {value})"));
                values.insert(value, v.clone());
            }
            Action::Append(v) => {
                sets.push(format!("{name} = list_append(if_not_exists({name}, :empty), {value})"));
                values.insert(":empty".to_owned(), AttributeValue::L(Vec::new()));
                values.insert(value, v.clone());
            }
            Action::Add(v) => {
                adds.push(format!("{name} {value}"));
                values.insert(value, v.clone());
            }
            Action::Remove => removes.push(name),
        }
    }
    let mut expr = String::new();
    for (keyword, parts) in [("SET", &sets), ("REMOVE", &removes), ("ADD", &adds)] {
        if !parts.is_empty() {
            if !expr.is_empty() {
                expr.push(' ');
            }
            let _ = write!(expr, "{keyword} {}", parts.join(", "));
        }
    }
    let mut conditions = Vec::new();
    names.insert("#pk".to_owned(), schema.pk.attr.to_owned());
    if !u.upsert {
        conditions.push("attribute_exists(#pk)".to_owned());
    }
    for (i, (attr, value)) in u.unchanged.iter().enumerate() {
        let name = format!("#u{i}");
        let check = match value {
            Some(v) => {
                values.insert(format!(":u{i}"), v.clone());
                format!("{name} = :u{i}")
            }
            None => format!("attribute_not_exists({name})"),
        };
        names.insert(name, (*attr).to_owned());
        // An upsert may create the item: there is nothing stale to refuse then.
        conditions.push(if u.upsert { format!("(attribute_not_exists(#pk) OR {check})") } else { check });
    }
    if !conditions.iter().any(|c| c.contains("#pk")) {
        names.remove("#pk");
    }
    let versioned = match (schema.version_attr, u.if_version) {
        (Some(attr), Some(v)) => {
            names.insert("#ver".to_owned(), attr.to_owned());
            values.insert(":ver".to_owned(), AttributeValue::N(v.to_string()));
            conditions.push(crate::ops::write::version_condition(v).to_owned());
            true
        }
        (None, Some(_)) => {
            return Err(Error::Validation(format!("if_version: {} has no #[version] field", schema.entity_type)));
        }
        _ => false,
    };
    // Without `if_version` the version written is unknown here: DynamoDB checks that it can grow.
    let version_below = match schema.version_attr {
        Some(attr) if u.if_version.is_none() && schema.version_max < u64::MAX => {
            names.insert("#ver".to_owned(), attr.to_owned());
            values.insert(":vmax".to_owned(), AttributeValue::N(schema.version_max.to_string()));
            conditions.push("(attribute_not_exists(#ver) OR #ver < :vmax)".to_owned());
            Some((attr, schema.version_max))
        }
        _ => None,
    };
    let failure = crate::ops::write::Failure {
        version_below,
        must_not_exist: false,
        must_exist: !u.upsert,
        version: match (schema.version_attr, u.if_version) {
            (Some(attr), Some(v)) => Some((attr, v)),
            _ => None,
        },
    };
    if let Some(user) = u.condition {
        conditions.push(user.render_operand(&mut names, &mut values).map_err(Error::Validation)?);
    }
    // Sent twice, an `ADD` (the version's too) or an append counts twice; a conditional update's
    // second attempt may be refused by what its first did.
    let adds_up = |a: &Action| matches!(a, Action::Add(_) | Action::Append(_));
    let replay = if actions.iter().any(|(_, a)| adds_up(a)) || u.nested.iter().any(|(_, a)| adds_up(a)) {
        Replay::Never
    } else if conditions.is_empty() {
        Replay::Safe
    } else {
        Replay::Checked
    };
    Ok(UpdateRequest {
        key,
        update_expression: expr,
        condition_expression: (!conditions.is_empty()).then(|| conditions.join(" AND ")),
        expression_attribute_names: names,
        expression_attribute_values: (!values.is_empty()).then_some(values),
        versioned,
        upsert: u.upsert,
        failure,
        return_old: u.return_old,
        nested: u.nested.iter().map(|(n, _)| n.to_string()).collect(),
        replay,
    })
}

impl Table {
    /// Sends the update `r` as one UpdateItem and returns the updated entity.
    pub(crate) async fn update_plain<E: Entity>(&self, r: UpdateRequest) -> Result<E, Error> {
        use aws_sdk_dynamodb::types::{ReturnValue, ReturnValuesOnConditionCheckFailure};
        let call = call("UpdateItem", &self.name, E::SCHEMA.entity_type, None)
            .on(crate::send::partition_of(&r.key, E::SCHEMA.pk.attr))
            .of(&E::SCHEMA);
        let request = self
            .client
            .update_item()
            .table_name(&*self.name)
            .set_key(Some(r.key.clone()))
            .update_expression(r.update_expression)
            .set_condition_expression(r.condition_expression)
            .set_expression_attribute_names(Some(r.expression_attribute_names))
            .set_expression_attribute_values(r.expression_attribute_values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let watch = Watch::new(r.replay);
        match send(&self.meter, &call, Watched(request, watch.clone())).await {
            Ok(out) => {
                let item = out
                    .attributes
                    .ok_or_else(|| Error::Validation("UpdateItem returned no attributes for ALL_NEW".to_owned()))?;
                E::from_item(item)
            }
            Err(e) => match e.as_service_error() {
                Some(aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c)) => {
                    // The item as it was tells which check failed: existence, version, or the
                    // user's condition (unless an earlier attempt may have been applied).
                    let old = c.item().cloned();
                    let refused = crate::ops::item::failed(r.failure, &E::SCHEMA, &r.key, old, r.return_old);
                    crate::ops::item::unknown_first(&watch, "UpdateItem", &E::SCHEMA, &r.key, refused)
                }
                _ => {
                    let unknown = r.replay == Replay::Never && watch.may_have_applied(&e);
                    let nested: Vec<(&'static str, String)> =
                        r.nested.into_iter().map(|p| (E::SCHEMA.entity_type, p)).collect();
                    Err(indeterminate_if(
                        unknown,
                        "UpdateItem",
                        &E::SCHEMA,
                        &r.key,
                        crate::ops::write::refused(e, &nested),
                    ))
                }
            },
        }
    }

    /// Sends the update `r` as a one-action TransactWriteItems with a token of its own
    /// ([`Update::idempotent`]), then reads the item to return it.
    pub(crate) async fn update_idempotent<E: Entity>(&self, r: UpdateRequest) -> Result<E, Error> {
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
        use aws_sdk_dynamodb::types::{ReturnValuesOnConditionCheckFailure, TransactWriteItem};
        let schema = &E::SCHEMA;
        let partition = crate::send::partition_of(&r.key, schema.pk.attr);
        let update = aws_sdk_dynamodb::types::Update::builder()
            .table_name(&*self.name)
            .set_key(Some(r.key.clone()))
            .update_expression(r.update_expression)
            .set_condition_expression(r.condition_expression)
            .set_expression_attribute_names(Some(r.expression_attribute_names))
            .set_expression_attribute_values(r.expression_attribute_values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(crate::error::build_error)?;
        let write = call("TransactWriteItems", &self.name, schema.entity_type, None).on(partition).of(schema);
        let mut attempt = 0;
        // One token for every send of this update: an earlier send whose answer was lost may have
        // applied it, and DynamoDB answers a token it applied with success, never applying it
        // twice.
        let token = crate::send::replay::token();
        let sent = loop {
            let request = self
                .client
                .transact_write_items()
                .transact_items(TransactWriteItem::builder().update(update.clone()).build())
                .client_request_token(token.clone())
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
            let e = match send(&self.meter, &write, request).await {
                Ok(_) => break Ok(()),
                Err(e) => e,
            };
            // Cancelled by a conflict with another transaction, as a transaction is: this send
            // applied nothing, so it is sent again (with the same token) after a backoff.
            if let Some(TransactWriteItemsError::TransactionCanceledException(c)) = e.as_service_error()
                && attempt < crate::ops::transact::DEFAULT_CONFLICT_RETRIES
                && crate::ops::transact::conflicts_only(&crate::ops::transact::cancel_reasons(c.cancellation_reasons()))
            {
                attempt += 1;
                tracing::debug!(parent: &write.span, attempt, "idempotent update cancelled by a conflict: sent again");
                tokio::time::sleep(crate::ops::transact::conflict_backoff(attempt)).await;
                continue;
            }
            break Err(e);
        };
        if let Err(e) = sent {
            let nested: Vec<(&'static str, String)> = r.nested.into_iter().map(|p| (schema.entity_type, p)).collect();
            return Err(match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(c)) => match c.cancellation_reasons() {
                    [reason] if reason.code() == Some("ConditionalCheckFailed") => {
                        let old = reason.item().cloned();
                        match crate::ops::item::failed::<Infallible>(r.failure, schema, &r.key, old, r.return_old) {
                            Err(e) => e,
                            Ok(never) => match never {},
                        }
                    }
                    reasons => crate::ops::write::refused_action(reasons, &nested).unwrap_or_else(|| {
                        Error::TransactionCanceled { reasons: crate::ops::transact::cancel_reasons(reasons) }
                    }),
                },
                _ => {
                    // The table sent it again while that was safe; it still has no answer.
                    let unknown = crate::send::replay::unknown_outcome(&e);
                    let refused = crate::ops::write::refused(e, &nested);
                    indeterminate_if(unknown, "TransactWriteItems", schema, &r.key, refused)
                }
            });
        }
        // TransactWriteItems returns no item: the item as stored now.
        let read = call("GetItem", &self.name, schema.entity_type, None).on(partition).of(schema);
        let request = self
            .client
            .get_item()
            .table_name(&*self.name)
            .set_key(Some(r.key.clone()))
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = send(&self.meter, &read, request).await.map_err(sdk_error)?;
        match out.item {
            Some(item) => E::from_item(item),
            None => Err(Error::for_item(crate::error::ItemErrorKind::NotFound, schema, &r.key)),
        }
    }
}

/// `error`, or [`Error::Indeterminate`] around it (naming the item with `key` of `schema`) when
/// `unknown` (the write may have been applied) and it is the SDK's error: an error the library
/// made of the failure (client-side encryption's refusal of the request) stays as it is.
pub(crate) fn indeterminate_if(
    unknown: bool,
    operation: &'static str,
    schema: &crate::model::entity::EntitySchema,
    key: &Item,
    error: Error,
) -> Error {
    match error {
        Error::Sdk(_) if unknown => Error::indeterminate(operation, schema, key, error),
        other => other,
    }
}
