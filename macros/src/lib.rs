//! Derive macros of `dynamo-entity`. An implementation detail: depend on `dynamo-entity`,
//! which re-exports them, and see its documentation for the attributes.

mod ast;
mod attr;
mod case;
mod collection;
mod ctxt;
mod document;
mod expand;
mod fallback;
mod inline;
mod keypart;
mod multi;
mod projection;
mod template;
mod tenant;
mod valid;
mod vector;
mod view;

use proc_macro::TokenStream;

/// Derives `dynamo_entity::Entity`, the `<Name>Key` type, `<Name>::key(..)`, the field paths
/// `<Name>::fields()`, `<Name>::update(..)` and the typed queries from `#[pk]`, `#[sk]`,
/// `#[gsiN(..)]`, `#[lsiN(..)]` and `#[entity(..)]`.
#[proc_macro_derive(
    Entity,
    attributes(
        pk, sk, entity, ttl, version, unique, created_at, updated_at, encrypt, gsi1, gsi2, gsi3, gsi4, gsi5, gsi6,
        gsi7, vector, gsi8, gsi9, gsi10, gsi11, gsi12, gsi13, gsi14, gsi15, gsi16, gsi17, gsi18, gsi19, gsi20, lsi1,
        lsi2, lsi3, lsi4, lsi5
    )
)]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::entity(&input).into()
}

/// Derives `dynamo_entity::KeyPart` for a unit-only enum (the variant name, or
/// `#[key(rename = "..")]` / `#[key(rename_all = "..")]`) or a single-field tuple struct.
#[proc_macro_derive(KeyPart, attributes(key))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    keypart::derive(&input).into()
}

/// Derives `dynamo_entity::Collection` for an enum with one variant per member entity
/// (`Room(ChatRoom)`): `<Enum>::query(<Member>::partition(..))`, the `<Enum>Key` enum, and
/// decoding that dispatches on the type attribute (or the sort-key templates).
#[proc_macro_derive(Collection, attributes(collection))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    collection::derive(&input).into()
}

/// Derives `dynamo_entity::View` for a struct holding a subset of an entity's fields
/// (`#[view(entity = "Order")]`): queries (`.view::<V>()`) and gets (`Table::get_view`) read
/// exactly its attributes.
#[proc_macro_derive(View, attributes(view))]
pub fn derive_view(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    view::derive(&input).into()
}

/// Derives `dynamo_entity::Document` for a struct stored inside an item as a map (serde's way):
/// paths reach into it from any entity field of its type (`Customer::fields().address.city`),
/// by the stored names (serde's `rename`, `rename_all`).
#[proc_macro_derive(Document, attributes(document))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    document::derive(&input).into()
}
