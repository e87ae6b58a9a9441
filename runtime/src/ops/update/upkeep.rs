//! Index-key maintenance: the one place that decides which index keys an update rewrites,
//! removes or cannot build, which values it checks are unchanged, and what an upsert must set
//! and also writes.
//!
//! The derive describes the entity ([`Upkeep`]: each index's own key attributes and the fields
//! they are made of, with what the rules need to know of each field) and supplies the typed glue
//! it alone can write ([`Glue`]: where each field's value stands, encoding a value, calling the
//! generated key formatters). Everything else is decided here, once for every entity:
//!
//! - an index is touched when the update sets one of its fields; its keys are then rewritten;
//! - a field the index needs that the update neither sets nor was given (`update_from`) makes
//!   the update fail with [`Error::Validation`], naming what was set and what is missing;
//! - an `Option` component that is `None` takes the item out of the (sparse) index: its key
//!   attributes are removed, whatever the other fields;
//! - a value taken from `update_from`'s entity and not set is checked unchanged by DynamoDB,
//!   unless the entity has a `#[version]` (whose check already refuses a stale copy) or the
//!   field has no attribute of its own (`key_attributes = false`);
//! - an upsert must set every field without a default, writes the key fields' attributes and
//!   the index keys made of key fields only, and, where the item has none, the defaulted fields
//!   that key an index and those index keys (`if_not_exists`).

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Action, Update, push, record};
use crate::error::{Error, KeyError};
use crate::model::entity::{Entity, EntitySchema};
use crate::model::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

/// A field's value as the item codec encodes it (`Ok(None)`: absent), or why it cannot be.
pub type Encoded = Result<Option<AttributeValue>, String>;

/// The texts of an index's own key attributes, in [`UpkeepIndex`]'s order.
pub type KeyTexts = Vec<Result<String, KeyError>>;

/// What an upsert writes, where the item has none, for a `#[created_at]` that keys something
/// (the primary key, an index): the field's encoding, and for each index made of it, of key
/// fields and of `#[entity(default)]` fields only (numbered as in [`Upkeep`]), those defaults'
/// encodings (in [`UpkeepIndex`]'s order) and the index's key texts. The value is the primary
/// key's when the field is part of it (the key's time is the creation time), else the one
/// `update_from` gave, else the clock's reading: the item and every key made of it agree.
/// Generated.
#[doc(hidden)]
#[derive(Debug)]
pub struct Created(pub Encoded, pub Vec<(usize, Vec<Encoded>, KeyTexts)>);

/// How generated code computes [`Created`] from the clock's reading, when the update is sent.
#[doc(hidden)]
pub type CreatedFn = Box<dyn Fn(std::time::SystemTime) -> Result<Created, Error> + Send + Sync>;

/// What the derive describes for index-key maintenance: the fields of index keys that an update
/// can change (numbered as the builder's [`Slot`]s), and each index that has key attributes of
/// its own (a key on an attribute written by something else, a field or the table's keys,
/// follows it), in declaration order. Primary-key fields are left out: an update never changes
/// them, and its key always has them. Generated (positional, to keep the generated code short).
#[doc(hidden)]
#[derive(Debug)]
pub struct Upkeep(pub &'static [UpkeepField], pub &'static [UpkeepIndex]);

impl Upkeep {
    /// An entity without index keys to maintain.
    pub const NONE: Upkeep = Upkeep(&[], &[]);
}

/// A field of an index key: its name (for messages), its attribute, and its flags
/// ([`UpkeepField::OPTION`], ..), which the derive writes as their sum (the derive and this
/// crate move together: the facade pins its macros). Generated.
#[doc(hidden)]
#[derive(Debug)]
pub struct UpkeepField(pub &'static str, pub &'static str, pub u8);

impl UpkeepField {
    /// The field is an `Option`: `None` takes the item out of the index.
    pub const OPTION: u8 = 1;
    /// The field has `#[entity(default)]`.
    pub const DEFAULT: u8 = 2;
    /// The field has an attribute of its own (it is not kept in the keys only).
    pub const STORED: u8 = 4;
    /// The field is the `#[version]`.
    pub const VERSION: u8 = 8;

    fn has(&self, flag: u8) -> bool {
        self.2 & flag != 0
    }
}

/// An index with key attributes of its own: its place in the entity's schema
/// ([`EntitySchema::indexes`], which names it and its key attributes), whether its partition
/// key and its sort key are its own, and the slots of the fields they are made of besides the
/// primary-key fields (each once, in the order the templates name them). Generated.
#[doc(hidden)]
#[derive(Debug)]
pub struct UpkeepIndex(pub usize, pub bool, pub bool, pub &'static [usize]);

impl UpkeepIndex {
    /// The index's name and own key attributes (each with whether it is a sort key, for its
    /// size limit), in the order of its key texts: partition key, then sort key.
    fn keys(&self, schema: &EntitySchema) -> (&'static str, Vec<(&'static str, bool)>) {
        let UpkeepIndex(n, own_pk, own_sk, _) = *self;
        let index = &schema.indexes[n];
        let pk = index.pk.as_ref().filter(|_| own_pk).map(|k| (k.attr, false));
        let sk = index.sk.as_ref().filter(|_| own_sk).map(|k| (k.attr, true));
        (index.name, pk.into_iter().chain(sk).collect())
    }
}

/// Where the value of one field of an index key stands in an update: set by it, given by
/// `update_from`, and whether the value it will hold (the one set, else the one given) is
/// present (not `None`).
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    set: bool,
    given: bool,
    present: bool,
}

impl Slot {
    /// A field that is not an `Option`: its slot, its value (set, else given) and the value
    /// given. Called by generated code.
    pub fn of<T: 'static>(values: &Values, n: u8) -> (Slot, Option<&T>, Option<&T>) {
        let set = values.set::<T>(n).flatten();
        let given = values.given::<T>(n);
        let value = set.or(given);
        (Slot { set: set.is_some(), given: given.is_some(), present: value.is_some() }, value, given)
    }

    /// An `Option` field (of `T`): its slot, its value (set, else given) if that is not `None`,
    /// and the value given. Called by generated code.
    pub fn of_option<T: 'static>(values: &Values, n: u8) -> (Slot, Option<&T>, Option<&Option<T>>) {
        let set: Option<Option<&T>> = values.set::<Option<T>>(n).map(|v| v.and_then(Option::as_ref));
        let given = values.given::<Option<T>>(n);
        let value = match set {
            Some(set) => set,
            None => given.and_then(Option::as_ref),
        };
        (Slot { set: set.is_some(), given: given.is_some(), present: value.is_some() }, value, given)
    }

    fn known(self) -> bool {
        self.set || self.given
    }
}

/// The typed work only generated code can do, asked for by [`Update::__upkeep`] when its rules
/// need it (so nothing is encoded or formatted that the update does not use).
#[doc(hidden)]
pub struct Glue<'a> {
    /// Each field's [`Slot`], by slot.
    slots: &'a [Slot],
    /// The encoding of the value `update_from` gave slot `n`'s field, if it gave one.
    given: &'a dyn Fn(usize) -> Option<Encoded>,
    /// The key texts of index `i` from the key and the fields' values (set, else given), when
    /// each is known and present.
    texts: &'a dyn Fn(usize) -> Option<KeyTexts>,
    /// For index `i`, whose fields all have a default: the encodings of those defaults (one per
    /// field, in [`UpkeepIndex`]'s order) and the key texts made of them.
    defaults: &'a dyn Fn(usize) -> Option<(Vec<Encoded>, KeyTexts)>,
}

impl core::fmt::Debug for Glue<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Glue").field("slots", &self.slots).finish_non_exhaustive()
    }
}

impl<'a> Glue<'a> {
    /// The glue of an entity without index keys to maintain.
    pub const NONE: Glue<'static> = Glue { slots: &[], given: &|_| None, texts: &|_| None, defaults: &|_| None };

    /// The slots and key texts; no given value, no default (see [`Glue::given`],
    /// [`Glue::defaults`]). Called by generated code.
    pub fn new(slots: &'a [Slot], texts: &'a dyn Fn(usize) -> Option<KeyTexts>) -> Self {
        Glue { slots, texts, ..Glue::NONE }
    }

    /// The encodings of the values `update_from` gave. Called by generated code.
    pub fn given(self, given: &'a dyn Fn(usize) -> Option<Encoded>) -> Self {
        Glue { given, ..self }
    }

    /// The defaults of the indexes whose fields all have one. Called by generated code.
    pub fn defaults(self, defaults: &'a dyn Fn(usize) -> Option<(Vec<Encoded>, KeyTexts)>) -> Self {
        Glue { defaults, ..self }
    }
}

/// A value of a field of an index key, set by an update or given by `update_from`.
pub(crate) type Boxed = Box<dyn core::any::Any + Send + Sync>;

/// The values an update knows of the fields of index keys, by slot, and its typed key: what
/// generated code reads to write the index keys ([`Updatable::__upkeep`]).
#[doc(hidden)]
pub struct Values {
    set: Vec<(u8, Option<Boxed>)>,
    given: Vec<(u8, Boxed)>,
}

impl core::fmt::Debug for Values {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Values").finish_non_exhaustive()
    }
}

impl Values {
    /// The value set of slot `n`'s field: `None` if not set, `Some(None)` if removed.
    pub fn set<T: 'static>(&self, n: u8) -> Option<Option<&T>> {
        let (_, v) = self.set.iter().find(|(s, _)| *s == n)?;
        Some(v.as_ref().and_then(|v| v.downcast_ref::<T>()))
    }

    /// The value `update_from` gave of slot `n`'s field.
    pub fn given<T: 'static>(&self, n: u8) -> Option<&T> {
        self.given.iter().find(|(s, _)| *s == n).and_then(|(_, v)| v.downcast_ref::<T>())
    }
}

/// What the derive writes for updates of an entity: the fields an upsert must set, and where
/// the entity has index keys made of fields an update can change, how they are kept in step.
/// Implemented by the derive.
#[doc(hidden)]
pub trait Updatable: Entity + crate::model::view::HasFields {
    /// The fields (attribute, field name) an upsert must set: every stored field without a
    /// default (not a key field, an `Option`, a defaulted field, the version, a filled field).
    const __REQUIRED: &'static [(&'static str, &'static str)];

    /// Keeps the index keys in step with the fields the update sets (see [`Update::__upkeep`]):
    /// the derive writes it for entities with index keys an update can change.
    fn __upkeep(u: &mut Update<Self>) {
        let key = u.key_value.take();
        u.__upkeep(key.as_ref(), &Upkeep::NONE, Glue::NONE);
    }
}

impl<E: Updatable> Update<E> {
    /// The value `update_from` gave of slot `n`'s field. Called by generated code.
    #[doc(hidden)]
    pub fn __given<T: Send + Sync + 'static>(mut self, n: u8, value: T) -> Self {
        self.given.push((n, Box::new(value)));
        self
    }

    /// The values of the fields of index keys the update knows, and its typed key, taken out
    /// for [`Updatable::__upkeep`]. Called by generated code.
    #[doc(hidden)]
    pub fn __values(&mut self) -> (Values, Option<E::Key>) {
        let values = Values { set: std::mem::take(&mut self.values), given: std::mem::take(&mut self.given) };
        (values, self.key_value.take())
    }

    /// Puts the index keys in step, once: when the update is sent or its request is built.
    pub(crate) fn keep(&mut self) {
        if !self.kept {
            self.kept = true;
            E::__upkeep(self);
        }
    }
}

/// The size limit of a key attribute.
fn max_bytes(sort: bool) -> usize {
    if sort { MAX_SORT_KEY_BYTES } else { MAX_PARTITION_KEY_BYTES }
}

impl<E: Updatable> Update<E> {
    /// Keeps the index keys in step with the fields the update sets, and prepares what an
    /// upsert needs: the fields it must set, and the key fields' own attributes (none when the
    /// entity keeps them in its keys only, nor where a key field's attribute is the table's
    /// key). Called by generated code, from [`Updatable::__upkeep`].
    #[doc(hidden)]
    pub fn __upkeep(&mut self, key: Option<&E::Key>, upkeep: &'static Upkeep, glue: Glue<'_>) {
        self.upsert_requires = E::__REQUIRED;
        let schema = &E::SCHEMA;
        let natural = |a: &str| schema.pk.attr == a || schema.sk.as_ref().is_some_and(|k| k.attr == a);
        let key_attrs = key.map(crate::model::entity::EntityKey::__attrs).unwrap_or_default();
        let key_attrs = key_attrs.into_iter().filter(|(a, _)| schema.attributes.contains(a) && !natural(a));
        self.upkeep = upkeep;
        let mut writes = Writes {
            entity: E::SCHEMA.entity_type,
            actions: &mut self.actions,
            unchanged: &mut self.unchanged,
            upsert_sets: &mut self.upsert_sets,
            upsert_defaults: &mut self.upsert_defaults,
            touched: &mut self.touched,
            error: &mut self.error,
        };
        // The rules are in a function that does not depend on `E`: compiled once in this crate,
        // not once per entity in the crate that defines it.
        upkeep_of(&mut writes, &E::SCHEMA, &mut key_attrs.into_iter(), upkeep, &glue);
    }
}

impl<E: Entity> Update<E> {
    /// Where the entity keys something on its `#[created_at]`: how an upsert computes that
    /// field's value and the index keys made of it (see [`Created`]). Called by generated code,
    /// after [`Update::__upkeep`].
    #[doc(hidden)]
    pub fn __created(&mut self, created: CreatedFn) {
        self.created = Some(created);
    }
}

/// What [`upkeep_of`] writes into an update: its parts, borrowed.
struct Writes<'a> {
    entity: &'static str,
    actions: &'a mut Vec<(&'static str, Action)>,
    unchanged: &'a mut Vec<(&'static str, Option<AttributeValue>)>,
    upsert_sets: &'a mut Vec<(&'static str, AttributeValue)>,
    upsert_defaults: &'a mut Vec<(&'static str, AttributeValue)>,
    touched: &'a mut Vec<usize>,
    error: &'a mut Option<Error>,
}

/// [`Update::__upkeep`], for every entity.
fn upkeep_of(
    w: &mut Writes<'_>,
    schema: &EntitySchema,
    key_attrs: &mut dyn Iterator<Item = (&'static str, Encoded)>,
    upkeep: &Upkeep,
    glue: &Glue<'_>,
) {
    let Upkeep(described, indexes) = upkeep;
    let slot = |n: &usize| glue.slots[*n];
    for (i, index) in indexes.iter().enumerate() {
        let fields = index.3;
        if !fields.iter().any(|n| slot(n).set) {
            continue;
        }
        w.touched.push(i);
        let (name, keys) = index.keys(schema);
        // A known `None` component: the item leaves the (sparse) index.
        let leaves = fields.iter().any(|n| slot(n).known() && !slot(n).present);
        // A value `update_from` gave and the update does not set: DynamoDB checks the item still
        // holds it, so that a stale copy cannot write an index key that contradicts the item. A
        // versioned entity's version check already refuses a stale copy; a field kept in the keys
        // only has no attribute to check.
        if !leaves && schema.version_attr.is_none() {
            for n in fields.iter().filter(|n| described[**n].has(UpkeepField::STORED) && !slot(n).set) {
                if let Some(value) = (glue.given)(*n) {
                    w.unchanged(described[*n].1, value);
                }
            }
        }
        if leaves {
            w.index_keys(&keys, None);
            continue;
        }
        let missing: Vec<&str> = fields.iter().filter(|n| !slot(n).known()).map(|n| described[*n].0).collect();
        if !missing.is_empty() {
            let set: Vec<String> =
                fields.iter().filter(|n| slot(n).set).map(|n| format!("`{}`", described[*n].0)).collect();
            w.missing_index_fields(name, &set, &missing);
            continue;
        }
        w.index_keys(&keys, (glue.texts)(i));
    }

    for (attr, value) in key_attrs {
        w.upsert_encoded(attr, value);
    }
    // The index keys made of key fields only, which no action of an update maintains.
    for (i, index) in indexes.iter().enumerate() {
        if index.3.is_empty()
            && let Some(texts) = (glue.texts)(i)
        {
            for ((attr, sort), text) in index.keys(schema).1.into_iter().zip(texts) {
                w.upsert_index_key(attr, max_bytes(sort), text, false);
            }
        }
    }
    // The index keys made of key fields and defaulted fields that the update leaves alone: a
    // created item holds the defaults (`if_not_exists`: an existing item keeps its values and the
    // index keys made of them).
    let defaulted =
        |f: &UpkeepField| f.has(UpkeepField::DEFAULT) && !f.has(UpkeepField::OPTION) && !f.has(UpkeepField::VERSION);
    for (i, index) in indexes.iter().enumerate() {
        let fields = index.3;
        if fields.is_empty() || !fields.iter().all(|n| defaulted(&described[*n])) || fields.iter().any(|n| slot(n).set)
        {
            continue;
        }
        let Some((values, texts)) = (glue.defaults)(i) else { continue };
        for (n, value) in fields.iter().zip(values) {
            w.upsert_default(described[*n].1, value);
        }
        for ((attr, sort), text) in index.keys(schema).1.into_iter().zip(texts) {
            w.upsert_index_key(attr, max_bytes(sort), text, true);
        }
    }
}

impl Writes<'_> {
    /// `SET attr = value`, or `REMOVE attr` for `None`.
    fn set(&mut self, attr: &'static str, value: Option<AttributeValue>) {
        push(self.actions, attr, value.map_or(Action::Remove, Action::Set));
    }

    fn fail(&mut self, error: Error) {
        record(self.error, error);
    }

    /// An encoding error of `attr`, recorded as the update's.
    fn encode_failed(&mut self, attr: &'static str, message: String) {
        self.fail(crate::codec::encode_error(self.entity, attr, message));
    }

    /// An index's own key attributes (`(attribute, is a sort key)`) after an update that sets
    /// one of their fields: `texts` when every component is known and present, `None` to take
    /// the item out of the index (a component is `None`). An empty text also takes the item out
    /// of the index (DynamoDB rejects empty key values); a text that could not be formatted is
    /// recorded as the update's error.
    fn index_keys(&mut self, keys: &[(&'static str, bool)], texts: Option<KeyTexts>) {
        let Some(texts) = texts else {
            for (attr, _) in keys {
                self.set(attr, None);
            }
            return;
        };
        if texts.iter().any(Result::is_err) {
            for text in texts {
                if let Err(e) = text {
                    self.fail(Error::Key(e));
                }
            }
            return;
        }
        let leaves = texts.iter().any(|text| text.as_ref().is_ok_and(String::is_empty));
        for ((attr, sort), text) in keys.iter().zip(texts) {
            let Ok(text) = text else { continue };
            if leaves {
                self.set(attr, None);
                continue;
            }
            if let Err(e) = crate::codec::check_key_size(attr, &text, max_bytes(*sort)) {
                self.fail(e);
            }
            self.set(attr, Some(AttributeValue::S(text)));
        }
    }

    /// An index key needs fields that the update neither sets nor was given (`update_from`).
    #[cold]
    fn missing_index_fields(&mut self, index: &'static str, set: &[String], missing: &[&'static str]) {
        self.fail(Error::Validation(format!(
            "setting {} changes the key of index {index}, which also needs {}: set it in the same update, or start from `update_from(&entity)`",
            set.join(" and "),
            missing.join(", ")
        )));
    }

    /// An index key this update rebuilds was made from `attr`'s value as `update_from` was given
    /// it (`value`, the field's encoding; `None`: absent), not set by the update: the update
    /// applies only while the item still holds it, so a stale copy is refused
    /// ([`Error::ConditionFailed`]) instead of writing an index key that contradicts the item.
    fn unchanged(&mut self, attr: &'static str, value: Encoded) {
        match value {
            Ok(value) => {
                if !self.unchanged.iter().any(|(a, _)| *a == attr) {
                    self.unchanged.push((attr, value));
                }
            }
            Err(m) => self.encode_failed(attr, m),
        }
    }

    /// `SET attr = value` if the update is an upsert, of a key field's encoding.
    fn upsert_encoded(&mut self, attr: &'static str, value: Encoded) {
        match value {
            Ok(Some(value)) => self.upsert_set(attr, value),
            Ok(None) => {}
            Err(m) => self.encode_failed(attr, m),
        }
    }

    /// `SET attr = value` if the update is an upsert (a key field's attribute, an index key made
    /// of key fields only).
    fn upsert_set(&mut self, attr: &'static str, value: AttributeValue) {
        self.upsert_sets.retain(|(a, _)| *a != attr);
        self.upsert_sets.push((attr, value));
    }

    /// `SET attr = if_not_exists(attr, value)` if the update is an upsert, of a defaulted field's
    /// encoding.
    fn upsert_default(&mut self, attr: &'static str, value: Encoded) {
        match value {
            Ok(Some(value)) => self.upsert_if_absent(attr, value),
            Ok(None) => {}
            Err(m) => self.encode_failed(attr, m),
        }
    }

    /// `SET attr = if_not_exists(attr, value)` if the update is an upsert.
    fn upsert_if_absent(&mut self, attr: &'static str, value: AttributeValue) {
        self.upsert_defaults.retain(|(a, _)| *a != attr);
        self.upsert_defaults.push((attr, value));
    }

    /// An upsert's index key that no action of the update maintains: written if it is not
    /// empty, always (made of key fields only) or where the item has none (`if_absent`: made of
    /// defaults too).
    fn upsert_index_key(&mut self, attr: &'static str, max: usize, text: Result<String, KeyError>, if_absent: bool) {
        match text {
            Ok(text) if text.is_empty() => {}
            Ok(text) => match crate::codec::check_key_size(attr, &text, max) {
                Ok(()) if if_absent => self.upsert_if_absent(attr, AttributeValue::S(text)),
                Ok(()) => self.upsert_set(attr, AttributeValue::S(text)),
                Err(e) => self.fail(e),
            },
            Err(e) => self.fail(Error::Key(e)),
        }
    }
}

/// The writes of an upsert's [`Created`] (`actions` gets the index keys and defaults, each
/// `if_not_exists` and only where no other action writes the attribute), and the `#[created_at]`
/// attribute's own write (`None` for a field kept in the keys only). Indexes in `touched` are
/// left out: the update rewrites their keys from the fields it sets.
pub(super) fn created_writes(
    schema: &EntitySchema,
    Created(value, indexes): Created,
    upkeep: &Upkeep,
    touched: &[usize],
    actions: &mut Vec<(&'static str, Action)>,
) -> Result<Option<(&'static str, AttributeValue)>, Error> {
    let Some(attr) = schema.created_at else { return Ok(None) };
    let encode =
        |attr: &'static str, v: Encoded| v.map_err(|m| crate::codec::encode_error(schema.entity_type, attr, m));
    let created = encode(attr, value)?.map(|v| (attr, v));
    let mut absent = |attr: &'static str, value: AttributeValue| {
        if !actions.iter().any(|(a, _)| *a == attr) {
            actions.push((attr, Action::SetIfAbsent(value)));
        }
    };
    for (n, defaults, texts) in indexes.into_iter().filter(|(n, _, _)| !touched.contains(n)) {
        let Some(index) = upkeep.1.get(n) else { continue };
        let (_, keys) = index.keys(schema);
        let texts = texts.into_iter().map(|t| t.map_err(Error::Key)).collect::<Result<Vec<_>, _>>()?;
        // An empty text leaves the item out of the index, as in `to_item`.
        if texts.iter().any(String::is_empty) {
            continue;
        }
        for ((attr, sort), text) in keys.into_iter().zip(texts) {
            crate::codec::check_key_size(attr, &text, max_bytes(sort))?;
            absent(attr, AttributeValue::S(text));
        }
        // The defaulted fields the keys were made of: a created item holds them.
        for (n, value) in index.3.iter().zip(defaults) {
            let field = &upkeep.0[*n];
            if !field.has(UpkeepField::DEFAULT) {
                continue;
            }
            if let Some(value) = encode(field.1, value)? {
                absent(field.1, value);
            }
        }
    }
    Ok(created)
}
