//! Documents: structs stored inside an item as a map (serde's way), described by
//! `#[derive(Document)]` so that paths reach into them (`Customer::fields().address.city`).

use super::DocumentAt;

/// A struct stored as a map inside an item: `#[derive(Document)]` implements it, giving its
/// fields' paths from any entity field of its type, of an `Option` of it (`.city`), or of a
/// `Vec` of it (`.at(i).city`). Paths use the stored names (serde's `rename`/`rename_all`).
pub trait Document {
    /// The document's fields as paths from an item of entity `E`: `<Name>Fields<E>`.
    type Fields<E: 'static>: Send + Sync + 'static;

    /// The fields' paths under `at`. Called by generated code.
    #[doc(hidden)]
    fn __fields<E: 'static>(at: DocumentAt) -> Self::Fields<E>;
}

impl<D: Document> Document for Option<D> {
    type Fields<E: 'static> = D::Fields<E>;

    fn __fields<E: 'static>(at: DocumentAt) -> Self::Fields<E> {
        D::__fields::<E>(at)
    }
}

impl<D: Document> Document for Box<D> {
    type Fields<E: 'static> = D::Fields<E>;

    fn __fields<E: 'static>(at: DocumentAt) -> Self::Fields<E> {
        D::__fields::<E>(at)
    }
}
