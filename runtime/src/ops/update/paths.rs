//! Update actions on paths into documents: `.set(f.address.city, "Paris")`, `.remove(..)`,
//! `.append(..)`, `.add(..)`, `.set_if_not_exists(..)`.
//!
//! They take a path into a document (`Customer::fields().address.city`, `f.lines.at(2)`,
//! `f.prefs.key("theme")`): a top-level field is set by its own setter (`set_<field>`), which
//! keeps the index keys made of it in step. The update is the same UpdateItem as any other (its
//! existence and version checks, its `#[version]` increment, its conditions). Two actions on
//! overlapping paths (one is the other or lies under it) are refused before sending, naming
//! both, as DynamoDB would refuse the request.

use std::collections::HashMap;

use super::{Action, Update, record};
use crate::error::Error;
use crate::expr::{List, Name, Path, Value};
use crate::model::entity::{Entity, EntitySchema};

/// The document actions of an update, for `<Name>::update(key)` builders and [`Update`]s
/// (`use dynamo_entity::DocumentUpdate;`). Each converts the builder into its [`Update`] (the
/// typed setters come first) and adds the action.
pub trait DocumentUpdate<E: Entity>: Into<Update<E>> {
    /// `SET path = value`.
    fn set<T>(self, path: Path<E, T>, value: impl Value<T>) -> Update<E> {
        let mut u = self.into();
        let v = path.encoded_for_update(&value.into_value());
        u.nested_action(path, v.map(|v| v.map_or(Action::Remove, Action::Set)));
        u
    }

    /// `SET path = if_not_exists(path, value)`: sets it only where the item has none (creates
    /// a missing parent map, in an update of its own, before setting under it).
    fn set_if_not_exists<T>(self, path: Path<E, T>, value: impl Value<T>) -> Update<E> {
        let mut u = self.into();
        let v = path.encoded_for_update(&value.into_value());
        u.nested_action(path, v.map(|v| v.map_or(Action::Remove, Action::SetIfAbsent)));
        u
    }

    /// `REMOVE path`: a document's field, a map's entry, a list's element (later elements
    /// move down).
    fn remove<T>(self, path: Path<E, T>) -> Update<E> {
        let mut u = self.into();
        u.nested_action(path, Ok(Action::Remove));
        u
    }

    /// `SET path = list_append(if_not_exists(path, []), values)`: appends to a list, creating
    /// it if absent (its parent must exist).
    fn append<T: List>(self, path: Path<E, T>, values: impl IntoIterator<Item = T::Elem>) -> Update<E> {
        let mut u = self.into();
        let values: Vec<T::Elem> = values.into_iter().collect();
        let v = serde_dynamo::to_attribute_value::<_, aws_sdk_dynamodb::types::AttributeValue>(&values)
            .map_err(|e| format!("cannot encode a value of `{}`: {e}", path.path_text()));
        u.nested_action(path, v.map(Action::Append));
        u
    }

    /// `ADD path n`: adds to a number atomically (concurrent additions all count); a missing
    /// number starts at 0.
    fn add<T: Number>(self, path: Path<E, T>, n: T::Of) -> Update<E> {
        let mut u = self.into();
        let v = path
            .encode_operand(&T::from_number(n))
            .map_err(|m| format!("cannot encode a value of `{}`: {m}", path.path_text()));
        u.nested_action(path, v.and_then(|v| v.map(Action::Add).ok_or_else(|| "an absent number".to_owned())));
        u
    }
}

impl<E: Entity, B: Into<Update<E>>> DocumentUpdate<E> for B {}

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
        if !name.is_nested() {
            return record(
                &mut self.error,
                Error::Validation(format!(
                    "`{name}` is a top-level field of {}: set it with its own setter (`set_{name}`, \
                     `remove_{name}`, ..), which keeps the index keys made of it in step; the document actions \
                     take a path into a document (`fields().{name}.<field>`)",
                    E::SCHEMA.entity_type
                )),
            );
        }
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
