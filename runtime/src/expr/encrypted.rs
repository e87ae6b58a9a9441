//! The path of an `#[encrypt]` field: named by views, compared by nothing (DynamoDB holds only
//! its ciphertext, so no condition or filter on it could match).

use super::{Decoder, Path};

/// An `#[encrypt]` field of entity `E`, holding values of type `T`: what `<Name>::fields()`
/// gives for it. It offers no comparison: DynamoDB sees only ciphertext.
pub struct Encrypted<E, T>(Path<E, T>);

impl<E, T> Clone for Encrypted<E, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E, T> Copy for Encrypted<E, T> {}

impl<E, T> core::fmt::Debug for Encrypted<E, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Encrypted").field(&self.0.attribute()).finish()
    }
}

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
