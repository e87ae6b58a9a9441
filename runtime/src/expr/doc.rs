//! Paths into documents: `Customer::fields().address.city`, `f.lines.at(2).sku`,
//! `f.prefs.key("theme")`.
//!
//! A path is the top-level attribute and the segments below it. Every name segment is rendered
//! as an expression attribute name (so a map key holding `.`, `#`, `[` or a space is safe) and
//! every list index as a number (`#c0.#c1[2]`).
//!
//! Paths stay `Copy`: their segments are kept once per distinct path for the life of the
//! process (interned), as a `&'static str` is. Their number is bounded by the program: field
//! names come from the types, map keys are `&'static str`, and list indexes are numbers.

use std::any::{Any, TypeId};
use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::{Mutex, OnceLock};

use aws_sdk_dynamodb::types::AttributeValue;

use super::Path;
use crate::expr::document::Document;

/// One step below a top-level attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A field of a document, by its stored name.
    Field(&'static str),
    /// An element of a list.
    Index(u32),
    /// An entry of a map with string keys.
    Key(&'static str),
}

/// Where a path points: the top-level attribute and the segments below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Name {
    pub(crate) attr: &'static str,
    pub(crate) rest: &'static [Segment],
}

impl Name {
    /// Whether the path goes below its attribute.
    pub(crate) fn is_nested(&self) -> bool {
        !self.rest.is_empty()
    }

    /// Whether one path is the other or lies under it (DynamoDB refuses two actions on such
    /// paths in one update).
    pub(crate) fn overlaps(&self, other: &Name) -> bool {
        if self.attr != other.attr {
            return false;
        }
        // A document's field and a map's entry are both map keys.
        let same = |a: &Segment, b: &Segment| match (a, b) {
            (Segment::Index(x), Segment::Index(y)) => x == y,
            (Segment::Field(x) | Segment::Key(x), Segment::Field(y) | Segment::Key(y)) => x == y,
            _ => false,
        };
        self.rest.iter().zip(other.rest).all(|(a, b)| same(a, b))
    }

    fn child(&self, segment: Segment) -> Name {
        let mut rest = self.rest.to_vec();
        rest.push(segment);
        Name { attr: self.attr, rest: intern(rest) }
    }
}

/// `address.city`, `lines[2].sku`, `prefs["a.b"]`: a name segment that is not a plain
/// identifier is quoted.
impl core::fmt::Display for Name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.attr)?;
        for s in self.rest {
            match s {
                Segment::Index(i) => write!(f, "[{i}]")?,
                Segment::Field(k) | Segment::Key(k)
                    if !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
                {
                    write!(f, ".{k}")?;
                }
                Segment::Field(k) | Segment::Key(k) => write!(f, "[{k:?}]")?,
            }
        }
        Ok(())
    }
}

/// The one copy of each distinct list of segments.
fn intern(rest: Vec<Segment>) -> &'static [Segment] {
    static SEEN: OnceLock<Mutex<HashSet<&'static [Segment]>>> = OnceLock::new();
    let mut seen = SEEN.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = seen.get(rest.as_slice()) {
        return s;
    }
    let s: &'static [Segment] = Box::leak(rest.into_boxed_slice());
    seen.insert(s);
    s
}

/// A value in a document as serde stores it in the document's map (a `None` is a NULL there).
fn stored<U: serde::Serialize>(value: &U) -> Result<Option<AttributeValue>, String> {
    serde_dynamo::to_attribute_value::<_, AttributeValue>(value).map(Some).map_err(|e| e.to_string())
}

/// Where a document's fields start: what `Document::__fields` builds their paths from. Called
/// by generated code.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct DocumentAt(Name);

impl DocumentAt {
    /// The path to the document's field stored as `name`. Called by generated code.
    #[doc(hidden)]
    pub fn __field<E, U: serde::Serialize>(self, name: &'static str) -> Path<E, U> {
        Path::nested(self.0.child(Segment::Field(name)))
    }

    /// The path to the document's field stored as `name`, encoded with `encode` (a field serde
    /// stores `with` a module: the module's serializer) where given, and stored absent where
    /// `skip` holds (`#[serde(skip_serializing_if = "..")]`), as a top-level `None` is. Called by
    /// generated code.
    #[doc(hidden)]
    pub fn __field_as<E, U: serde::Serialize>(
        self,
        name: &'static str,
        encode: Option<super::Encoder<U>>,
        skip: Option<fn(&U) -> bool>,
    ) -> Path<E, U> {
        let mut path = Path::nested(self.0.child(Segment::Field(name)));
        if let Some(encode) = encode {
            path.encode = encode;
        }
        path.skip = skip;
        path
    }

    /// A value as serde stores it in a document's map. Called by generated code (the encoder of
    /// a field serde stores `with` a module).
    #[doc(hidden)]
    pub fn __stored<U: serde::Serialize>(value: &U) -> Result<Option<AttributeValue>, String> {
        stored(value)
    }
}

impl<E, T> Path<E, T> {
    fn nested(name: Name) -> Self
    where
        T: serde::Serialize,
    {
        Path {
            attr: name.attr,
            rest: name.rest,
            encode: stored::<T>,
            skip: None,
            decode: None,
            role: super::Role::NONE,
            _entity: PhantomData,
        }
    }
}

/// Fields holding lists (`Vec<X>`, or an `Option` of one): `.at(i)`, `append`.
pub trait List {
    /// The element type.
    type Elem: serde::Serialize;
    /// The list of `elems`, as the field's type (what a top-level field's encoder takes).
    #[doc(hidden)]
    fn __from_elems(elems: Vec<Self::Elem>) -> Self;
}

impl<X: serde::Serialize> List for Vec<X> {
    type Elem = X;
    fn __from_elems(elems: Vec<X>) -> Self {
        elems
    }
}

impl<X: serde::Serialize> List for Option<Vec<X>> {
    type Elem = X;
    fn __from_elems(elems: Vec<X>) -> Self {
        Some(elems)
    }
}

/// Fields holding maps with string keys (`BTreeMap<String, V>`, `HashMap<String, V>`, or an
/// `Option` of one): `.key(k)`.
pub trait Map {
    /// The value type.
    type Value: serde::Serialize;
}

impl<V: serde::Serialize> Map for std::collections::BTreeMap<String, V> {
    type Value = V;
}

impl<V: serde::Serialize, S> Map for HashMap<String, V, S> {
    type Value = V;
}

impl<V: serde::Serialize> Map for Option<std::collections::BTreeMap<String, V>> {
    type Value = V;
}

impl<V: serde::Serialize, S> Map for Option<HashMap<String, V, S>> {
    type Value = V;
}

impl<E, T: List> Path<E, T> {
    /// The element at `index` of the list (`f.lines.at(2).sku`): a number in the expression.
    pub fn at(&self, index: u32) -> Path<E, T::Elem> {
        Path::nested(self.name().child(Segment::Index(index)))
    }
}

impl<E, T: Map> Path<E, T> {
    /// The entry `key` of the map (`f.prefs.key("theme")`). Any key is safe, `.`, `#`, `[`
    /// and spaces included: it is an expression attribute name.
    pub fn key(&self, key: &'static str) -> Path<E, T::Value> {
        Path::nested(self.name().child(Segment::Key(key)))
    }
}

type Built = HashMap<(TypeId, Name), &'static (dyn Any + Send + Sync)>;

/// `f.address.city`: the paths of a document field's own fields, rooted at the field.
impl<E: 'static, T: Document + 'static> core::ops::Deref for Path<E, T> {
    type Target = T::Fields<E>;

    fn deref(&self) -> &T::Fields<E> {
        // Built once per path and kept, as the paths' segments are.
        static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
        let name = self.name();
        let key = (TypeId::of::<T::Fields<E>>(), name);
        let mut built = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        let fields: &'static (dyn Any + Send + Sync) =
            *built.entry(key).or_insert_with(|| Box::leak(Box::new(T::__fields::<E>(DocumentAt(name)))));
        match fields.downcast_ref::<T::Fields<E>>() {
            Some(f) => f,
            // The key holds the type's id: what is stored under it is of that type.
            None => unreachable!("document fields stored under another type's id"),
        }
    }
}
