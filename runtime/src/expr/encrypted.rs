//! The path of an `#[encrypt]` field: named by views, compared by nothing (DynamoDB holds only
//! its ciphertext, so no condition or filter on it could match).

use super::{Condition, Decoder, Path, Size};

/// An `#[encrypt]` field of entity `E`, holding values of type `T`: what `<Name>::fields()`
/// gives for it. It offers no comparison: DynamoDB sees only ciphertext.
pub struct Encrypted<E, T>(Path<E, T>);

path_wrapper!(Encrypted);

impl<E, T> Encrypted<E, T> {
    /// The path of an encrypted field. Called by the generated `fields()`.
    #[doc(hidden)]
    pub const fn __new(path: Path<E, T>) -> Self {
        Encrypted(path)
    }

    /// The attribute name.
    pub fn attribute(&self) -> &'static str {
        self.0.attribute()
    }

    /// How the entity reads the field (see [`Path::__decoder_as`]). Called by generated views.
    #[doc(hidden)]
    pub fn __decoder_as<U: 'static>(&self) -> Option<Decoder<U>>
    where
        T: 'static,
    {
        self.0.__decoder_as()
    }
}

/// What an `#[encrypt]` field lacks: no type implements it (it is sealed), so each comparison
/// below is a compile error that says why, rather than "no method named `eq`".
#[diagnostic::on_unimplemented(
    message = "`{Self}` is an `#[encrypt]` field: no condition or filter can compare it",
    label = "encrypted: DynamoDB holds only its ciphertext",
    note = "DynamoDB compares stored values, and an encrypted field's stored value is ciphertext (AWS's Database \
            Encryption SDK also forbids conditions on it); compare another field, or sign this one only (no `#[encrypt]`)"
)]
pub trait Comparable: sealed::Sealed {
    #[doc(hidden)]
    fn __condition(&self) -> Condition<Self::Entity>;
    #[doc(hidden)]
    fn __size(&self) -> Size<Self::Entity>;
    #[doc(hidden)]
    type Entity;
}

mod sealed {
    /// Implemented by nothing: [`super::Comparable`] cannot be.
    pub trait Sealed {}
}

/// Every comparison a [`Path`] offers, each needing [`Comparable`], which no encrypted field is:
/// calling one is a compile error naming the field's type and the reason.
impl<E, T> Encrypted<E, T> {
    /// Not available: the field is encrypted.
    pub fn eq<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn ne<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn lt<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn lte<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn gt<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn gte<V>(&self, _value: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn between<V>(&self, _low: V, _high: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn begins_with<V>(&self, _prefix: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn contains<V>(&self, _part: V) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn exists(&self) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn not_exists(&self) -> Condition<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__condition()
    }

    /// Not available: the field is encrypted.
    pub fn size(&self) -> Size<E>
    where
        Self: Comparable<Entity = E>,
    {
        self.__size()
    }
}

/// A field's path as a view reads it: a [`Path`] or an [`Encrypted`] one. Called by generated
/// views.
#[doc(hidden)]
pub trait ViewPath {
    /// The entity.
    type Entity;
    /// The field's type.
    type Value;
    /// The path.
    fn __view_path(&self) -> &Path<Self::Entity, Self::Value>;
}

impl<E, T> ViewPath for Path<E, T> {
    type Entity = E;
    type Value = T;
    fn __view_path(&self) -> &Path<E, T> {
        self
    }
}

impl<E, T> ViewPath for Encrypted<E, T> {
    type Entity = E;
    type Value = T;
    fn __view_path(&self) -> &Path<E, T> {
        &self.0
    }
}
