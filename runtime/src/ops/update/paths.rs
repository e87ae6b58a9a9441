//! Update actions on paths: `.set(f.name, "x")`, `.add(f.quantity, -1)`, `.append(f.tags, ..)`,
//! `.remove(f.nickname)`, `.set_if_not_exists(..)`.
//!
//! They take a path of `<Name>::fields()` of any depth: a top-level field
//! (`Customer::fields().email`), or a path into a document (`f.address.city`, `f.lines.at(2)`,
//! `f.prefs.key("theme")`). An action on a top-level field does what the field asks of an
//! update: the index keys made of it are kept in step (rewritten, or removed when a sparse index
//! no longer holds the item; an index key needing a field the update does not know is
//! [`Error::Validation`]), its validator runs, a field that keys an index on its own attribute
//! is checked as a key, and a `#[unique]` field's guard moves in the same transaction. What an
//! update must not write is refused before sending: the primary-key fields (the item's
//! identity), the `#[version]`, `#[created_at]` and `#[updated_at]` (the library writes them),
//! `remove` of a field that is not an `Option` nor defaulted (the item could not be read), and
//! `add` or `append` on a field of an index key (the key could not follow). Two actions on
//! overlapping paths (one is the other or lies under it) are refused before sending, naming
//! both, as DynamoDB would refuse the request; the last action on one path wins.

use std::collections::HashMap;

use super::upkeep::Updatable;
use super::{Action, Update, record};
use crate::error::Error;
use crate::expr::{FieldPath, List, Name, Path, Value};
use crate::model::entity::{Entity, EntitySchema};

impl<E: Updatable> Update<E> {
    /// `SET path = value` (`REMOVE` for a `None`): an `Option` field takes the value inside it or
    /// `None`, as a condition does (`.set(f.nickname, "x")`, `.set(f.nickname, None)`).
    pub fn set<P: FieldPath<E>>(mut self, path: P, value: impl Value<P::Value>) -> Self
    where
        P::Value: Send + Sync + 'static,
    {
        let path = path.__path();
        let value = value.into_value();
        let v = path.encoded_for_update(&value);
        if path.name().is_nested() {
            self.nested_action(path, v.map(|v| v.map_or(Action::Remove, Action::Set)));
        } else {
            self.field_action(path, Some(value), v.map(|v| v.map_or(Action::Remove, Action::Set)));
        }
        self
    }

    /// `SET path = if_not_exists(path, value)`: sets it only where the item has none (creates
    /// a missing parent map, in an update of its own, before setting under it). Of a path into a
    /// document, or of a field that keys no index.
    pub fn set_if_not_exists<P: FieldPath<E>>(mut self, path: P, value: impl Value<P::Value>) -> Self {
        let path = path.__path();
        let value = value.into_value();
        if let Some(check) = path.role.check
            && let Err(e) = check(Some(&value))
        {
            self.__fail(e);
            return self;
        }
        let v = path.encoded_for_update(&value);
        let action = v.map(|v| v.map_or(Action::Remove, Action::SetIfAbsent));
        if path.name().is_nested() {
            self.nested_action(path, action);
        } else if self.refuse_field(&path, "sets if absent", true) {
            // The value is checked as a set's: a key on the field's own attribute, a vector's
            // dimensions.
            if let Ok(Action::SetIfAbsent(v)) = &action {
                let attr = path.attribute();
                let checked = check_index_attr(&E::SCHEMA, attr, v)
                    .and_then(|()| crate::model::vector::check_attribute(&E::SCHEMA, attr, v));
                if let Err(e) = checked {
                    self.__fail(e);
                    return self;
                }
            }
            self.top_action(path.attribute(), action);
        }
        self
    }

    /// `REMOVE path`: an `Option` field (`None`: an index it keys no longer holds the item), a
    /// defaulted one, a document's field, a map's entry, a list's element (later elements move
    /// down).
    pub fn remove<P: FieldPath<E>>(mut self, path: P) -> Self
    where
        P::Value: Send + Sync + 'static,
    {
        let path = path.__path();
        if path.name().is_nested() {
            self.nested_action(path, Ok(Action::Remove));
        } else if let Some((_, name)) = E::__REQUIRED.iter().find(|(a, _)| *a == path.attribute()) {
            self.__fail(Error::Validation(format!(
                "an update of {} removes `{name}`, which is not an `Option` and has no default: the item could not \
                 be read back; set it instead",
                E::SCHEMA.entity_type
            )));
        } else {
            self.field_action(path, None, Ok(Action::Remove));
        }
        self
    }

    /// `SET path = list_append(if_not_exists(path, []), values)`: appends to a list, creating
    /// it if absent (its parent must exist).
    pub fn append<P: FieldPath<E>>(
        mut self,
        path: P,
        values: impl IntoIterator<Item = <P::Value as List>::Elem>,
    ) -> Self
    where
        P::Value: List,
    {
        let path = path.__path();
        let values: Vec<<P::Value as List>::Elem> = values.into_iter().collect();
        if path.name().is_nested() {
            // Inside a document, serde stores the list (as the document's map holds it).
            let v = serde_dynamo::to_attribute_value::<_, aws_sdk_dynamodb::types::AttributeValue>(&values)
                .map_err(|e| format!("cannot encode a value of `{}`: {e}", path.path_text()));
            self.nested_action(path, v.map(Action::Append));
        } else if self.refuse_field(&path, "appends to", true) {
            if E::SCHEMA.vectors.iter().any(|x| x.attr == path.attribute()) {
                self.__fail(Error::Validation(format!(
                    "appending to `{}`, the vector of a vector index, would change its dimensions",
                    path.attribute()
                )));
            } else {
                // A top-level field: its elements encoded as the item codec writes the field (a
                // list of times in the field's format, not serde's).
                let v = path
                    .encode_operand(&<P::Value as List>::__from_elems(values))
                    .map_err(|m| format!("cannot encode a value of `{}`: {m}", path.path_text()))
                    .and_then(|v| v.ok_or_else(|| "an absent list".to_owned()));
                self.top_action(path.attribute(), v.map(Action::Append));
            }
        }
        self
    }

    /// `ADD path n`: adds to a number atomically (concurrent additions all count); a missing
    /// number starts at 0.
    pub fn add<P: FieldPath<E>>(mut self, path: P, n: <P::Value as Number>::Of) -> Self
    where
        P::Value: Number,
    {
        let path = path.__path();
        let v = path
            .encode_operand(&<P::Value as Number>::from_number(n))
            .map_err(|m| format!("cannot encode a value of `{}`: {m}", path.path_text()))
            .and_then(|v| v.map(Action::Add).ok_or_else(|| "an absent number".to_owned()));
        if path.name().is_nested() {
            self.nested_action(path, v);
        } else if self.refuse_field(&path, "adds to", true) {
            self.top_action(path.attribute(), v);
        }
        self
    }

    /// Whether an action on top-level field `path` may be written; records why not otherwise.
    /// `value_only`: the action does not give the field's new value (an `ADD`, an append, a
    /// set if absent), which an index key made of it would need.
    fn refuse_field<T>(&mut self, path: &Path<E, T>, what: &str, value_only: bool) -> bool {
        let schema = &E::SCHEMA;
        let attr = path.attribute();
        let why = if <E as crate::model::view::HasFields>::__key_field_attributes(None).contains(&attr)
            || schema.pk.attr == attr
            || schema.sk.as_ref().is_some_and(|k| k.attr == attr)
        {
            Some("a field of the primary key, the item's identity: delete the item and create another")
        } else if schema.version_attr == Some(attr) {
            Some("the `#[version]`, which every update increments")
        } else if schema.created_at == Some(attr) || schema.updated_at == Some(attr) {
            Some("filled by the library (`#[created_at]`, `#[updated_at]`)")
        } else if value_only && path.role.slot.is_some() {
            Some("part of an index key, which needs its new value: set it instead")
        } else {
            None
        };
        match why {
            Some(why) => {
                let e = Error::Validation(format!("an update of {} {what} `{attr}`: it is {why}", schema.entity_type));
                self.__fail(e);
                false
            }
            None => true,
        }
    }

    /// A set or remove of top-level field `path` (`value`: the value set, `None` for a remove).
    fn field_action<T: Send + Sync + 'static>(
        &mut self,
        path: Path<E, T>,
        value: Option<T>,
        action: Result<Action, String>,
    ) {
        if !self.refuse_field(&path, if value.is_some() { "sets" } else { "removes" }, false) {
            return;
        }
        if let Some(check) = path.role.check
            && let Err(e) = check(value.as_ref())
        {
            return self.__fail(e);
        }
        let attr = path.attribute();
        if let Some(slot) = path.role.slot {
            self.values.retain(|(n, _)| *n != slot);
            self.values.push((slot, value.map(|v| Box::new(v) as super::upkeep::Boxed)));
        }
        if path.role.key_only {
            return;
        }
        match action {
            Ok(Action::Set(v)) => {
                if let Err(e) = check_index_attr(&E::SCHEMA, attr, &v) {
                    return self.__fail(e);
                }
                self.__set(attr, Some(v));
            }
            Ok(Action::Remove) => self.__set(attr, None),
            Ok(other) => self.top_action(attr, Ok(other)),
            Err(m) => self.__fail(crate::codec::encode_error(E::SCHEMA.entity_type, attr, m)),
        }
    }

    /// An action on a top-level attribute, or the reason it cannot be encoded.
    fn top_action(&mut self, attr: &'static str, action: Result<Action, String>) {
        match action {
            Ok(action) => self.push(attr, action),
            Err(m) => self.__fail(crate::codec::encode_error(E::SCHEMA.entity_type, attr, m)),
        }
    }
}

/// Every key attribute of the entity's indexes: the index's name, the key, and whether it is a
/// sort key.
fn index_keys(schema: &EntitySchema) -> impl Iterator<Item = (&'static str, crate::key::attr::KeySchema, bool)> + '_ {
    schema.indexes.iter().flat_map(|i| {
        let multi = i.multi.map(|m| (m.pk, m.sk)).unwrap_or((&[], &[]));
        let pk = i.pk.into_iter().chain(multi.0.iter().copied()).map(move |k| (i.name, k, false));
        let sk = i.sk.into_iter().chain(multi.1.iter().copied()).map(move |k| (i.name, k, true));
        pk.chain(sk)
    })
}

/// A value set on a field that keys an index on its own attribute, checked as that key: of its
/// type, not empty, within the key size limit (DynamoDB would refuse the write).
fn check_index_attr(
    schema: &EntitySchema,
    attr: &'static str,
    value: &aws_sdk_dynamodb::types::AttributeValue,
) -> Result<(), Error> {
    for (index, key, sort) in index_keys(schema).filter(|(_, k, _)| k.attr == attr) {
        let max = if sort { crate::model::MAX_SORT_KEY_BYTES } else { crate::model::MAX_PARTITION_KEY_BYTES };
        crate::key::attr::check_attr_value(value, schema.entity_type, index, attr, key.ty, max)?;
    }
    Ok(())
}

/// Numbers `add` applies to (and `Option`s of them).
pub trait Number {
    /// The number added.
    type Of;
    /// As the path's type.
    fn from_number(n: Self::Of) -> Self;
}

macro_rules! numbers {
    ($($t:ty)*) => {$(
        impl Number for $t {
            type Of = $t;
            fn from_number(n: $t) -> $t {
                n
            }
        }
        impl Number for Option<$t> {
            type Of = $t;
            fn from_number(n: $t) -> Option<$t> {
                Some(n)
            }
        }
    )*};
}

numbers!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64);

impl<E, T> Path<E, T> {
    /// The value as written by an update, or why it cannot be.
    fn encoded_for_update(&self, value: &T) -> Result<Option<aws_sdk_dynamodb::types::AttributeValue>, String> {
        self.encode_value(value).map_err(|m| format!("cannot encode a value of `{}`: {m}", self.name()))
    }
}

impl<E: Entity> Update<E> {
    /// Adds a document action (the last on one path wins, as for fields), or records why it
    /// cannot be sent.
    fn nested_action<T>(&mut self, path: Path<E, T>, action: Result<Action, String>) {
        let name = path.name();
        match action {
            Ok(action) => {
                self.nested.retain(|(n, _)| *n != name);
                self.nested.push((name, action));
            }
            Err(m) => {
                record(&mut self.error, Error::Validation(format!("an update of {}: {m}", E::SCHEMA.entity_type)))
            }
        }
    }
}

/// Refuses document actions DynamoDB would refuse, before sending: two on overlapping paths
/// (one the other, or under it, or under a top-level field the update also writes); any under a
/// `#[unique]` field (its guard is taken for whole values); and any under the vector of a vector
/// index but setting one of its elements to a finite number (the rest would change its length,
/// see `crate::model::vector::check_element`).
pub(super) fn check_nested(
    schema: &EntitySchema,
    actions: &[(&'static str, Action)],
    nested: &[(Name, Action)],
) -> Result<(), Error> {
    for (i, (a, action)) in nested.iter().enumerate() {
        if schema.vectors.iter().any(|v| v.attr == a.attr) {
            let element = match a.rest {
                [crate::expr::Segment::Index(i)] => Some(*i),
                _ => None,
            };
            let value = match action {
                Action::Set(v) | Action::SetIfAbsent(v) => Some(v),
                Action::Remove | Action::Add(_) | Action::Append(_) => None,
            };
            crate::model::vector::check_element(schema, a.attr, &a.to_string(), element, value)?;
        }
        if let Some(u) = schema.unique.iter().find(|u| u.attr == a.attr) {
            return Err(Error::Validation(format!(
                "an update of {} writes `{a}`, inside the `#[unique]` `{}`: set the whole field instead, so that \
                 its guard follows",
                schema.entity_type, u.field
            )));
        }
        if let Some((top, _)) = actions.iter().find(|(t, _)| *t == a.attr) {
            return Err(overlap(schema, &a.to_string(), top));
        }
        if let Some((b, _)) = nested[..i].iter().find(|(b, _)| b.overlaps(a)) {
            return Err(overlap(schema, &b.to_string(), &a.to_string()));
        }
    }
    Ok(())
}

fn overlap(schema: &EntitySchema, a: &str, b: &str) -> Error {
    Error::Validation(format!(
        "an update of {} writes both `{a}` and `{b}`: one path is the other or lies under it, which DynamoDB \
         refuses in one update; write them in two updates, or set the enclosing value whole",
        schema.entity_type
    ))
}

/// Each document action's attribute text, path (every name a placeholder `#d<i>_<j>`, list
/// indexes as numbers), value placeholder and action, for [`super::request_of`].
pub(super) fn render_nested<'a>(
    nested: &'a [(Name, Action)],
    names: &mut HashMap<String, String>,
) -> Vec<(String, String, String, &'a Action)> {
    let mut out = Vec::new();
    for (i, (n, action)) in nested.iter().enumerate() {
        let mut path = format!("#d{i}_0");
        names.insert(path.clone(), n.attr.to_owned());
        for (j, s) in n.rest.iter().enumerate() {
            match s {
                crate::expr::Segment::Field(k) | crate::expr::Segment::Key(k) => {
                    let p = format!("#d{i}_{}", j + 1);
                    names.insert(p.clone(), (*k).to_owned());
                    path.push('.');
                    path.push_str(&p);
                }
                crate::expr::Segment::Index(x) => path.push_str(&format!("[{x}]")),
            }
        }
        out.push((n.to_string(), path, format!(":d{i}"), action));
    }
    out
}
