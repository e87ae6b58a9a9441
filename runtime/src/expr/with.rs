//! The path of a field stored `with` a module (`#[entity(with = "..")]`, serde's `with` or
//! `serialize_with` on a document's field): the module decides the stored shape, so the path
//! compares the value (encoded by the module) and reaches into nothing below it.

use super::{Condition, Contains, Decoder, Path, Size, Text, Value, ViewPath};

/// A field of entity `E` stored `with` a module, holding values of type `T`: what
/// `<Name>::fields()` (or a document's fields) gives for it. It compares the value as the module
/// stores it; no path reaches into it (`.<field>`, `.at(i)`, `.key(k)`): the stored shape is
/// the module's, which a path below it cannot know (a compile error that says so).
pub struct StoredWith<E, T>(Path<E, T>);

path_wrapper!(StoredWith);

/// What a field stored `with` a module lacks: no type implements it (it is sealed), so reaching
/// into such a field is a compile error that says why, rather than "no method named `at`".
/// (A document's field, `.<field>`, is not offered at all: "no field on `StoredWith`".)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is stored `with` a module: no path reaches into it",
    label = "stored with a module, whose stored shape the path cannot know",
    note = "the module (`with = ..`, `serialize_with = ..`) decides how the value is stored, so a path below it \
            (`.<field>`, `.at(i)`, `.key(k)`) could name what the item does not hold; compare the whole value \
            (`eq`, `ne`, .., encoded by the module), or store the field without a module"
)]
pub trait Reachable: sealed::Sealed {
    #[doc(hidden)]
    fn __unreachable(&self) -> !;
}

mod sealed {
    /// Implemented by nothing: [`super::Reachable`] cannot be.
    pub trait Sealed {}
}

impl<E, T> StoredWith<E, T> {
    /// The path of a field stored with a module (its encoder the module's). Called by generated
    /// code.
    #[doc(hidden)]
    pub const fn __new(path: Path<E, T>) -> Self {
        StoredWith(path)
    }

    /// The attribute name (for a field of a document, the top-level attribute that holds it).
    pub fn attribute(&self) -> &'static str {
        self.0.attribute()
    }

    /// The path as DynamoDB names it, for messages.
    pub fn path_text(&self) -> String {
        self.0.path_text()
    }

    /// How the entity reads the field (see [`Path::__decoder_as`]). Called by generated views.
    #[doc(hidden)]
    pub fn __decoder_as<U: 'static>(&self) -> Option<Decoder<U>>
    where
        T: 'static,
    {
        self.0.__decoder_as()
    }

    /// The value equals `value`, as the module stores it (`None` of an `Option`: absent).
    pub fn eq(&self, value: impl Value<T>) -> Condition<E> {
        self.0.eq(value)
    }

    /// The value differs from `value` (or is absent).
    pub fn ne(&self, value: impl Value<T>) -> Condition<E> {
        self.0.ne(value)
    }

    /// The stored value is less than `value`'s, as the module stores it.
    pub fn lt(&self, value: impl Value<T>) -> Condition<E> {
        self.0.lt(value)
    }

    /// The stored value is at most `value`'s.
    pub fn lte(&self, value: impl Value<T>) -> Condition<E> {
        self.0.lte(value)
    }

    /// The stored value is greater than `value`'s.
    pub fn gt(&self, value: impl Value<T>) -> Condition<E> {
        self.0.gt(value)
    }

    /// The stored value is at least `value`'s.
    pub fn gte(&self, value: impl Value<T>) -> Condition<E> {
        self.0.gte(value)
    }

    /// The stored value is between `low`'s and `high`'s, both included.
    pub fn between(&self, low: impl Value<T>, high: impl Value<T>) -> Condition<E> {
        self.0.between(low, high)
    }

    /// The item has the attribute.
    pub fn exists(&self) -> Condition<E> {
        self.0.exists()
    }

    /// The item does not have the attribute.
    pub fn not_exists(&self) -> Condition<E> {
        self.0.not_exists()
    }

    /// Not available: the field is stored with a module.
    pub fn at<X>(&self, _index: u32) -> X
    where
        Self: Reachable,
    {
        self.__unreachable()
    }

    /// Not available: the field is stored with a module.
    pub fn key<X>(&self, _key: &'static str) -> X
    where
        Self: Reachable,
    {
        self.__unreachable()
    }

    /// The stored string starts with `prefix` (the module's text: see [`Path::begins_with`]).
    pub fn begins_with(&self, prefix: impl Into<String>) -> Condition<E>
    where
        T: Text,
    {
        self.0.begins_with(prefix)
    }

    /// The stored value contains `part` (a set stored by `dynamo_entity::sets`, say: see
    /// [`Path::contains`]).
    pub fn contains(&self, part: impl Into<T::Part>) -> Condition<E>
    where
        T: Contains,
    {
        self.0.contains(part)
    }

    /// The stored value's size (see [`Path::size`]).
    pub fn size(&self) -> Size<E> {
        self.0.size()
    }
}

impl<E, T> ViewPath for StoredWith<E, T> {
    type Entity = E;
    type Value = T;
    fn __view_path(&self) -> &Path<E, T> {
        &self.0
    }
}
