//! Code generation: the item codec, the key type and the query builders.
//!
//! Everything but the `<Name>Key` struct is emitted inside `const _: () = { .. };` (serde's
//! habit): the query and update builders, helper functions and imports stay out of the user's
//! namespace, and the runtime is named once, by a versioned import at the top of that block.

mod assert;
mod codec;
mod fields;
mod keys;
mod multi;
mod partition;
mod plain;
mod query;
pub(crate) mod update;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::Input;
use crate::ctxt::Ctxt;
use crate::valid::{self, Model};

/// The version of the interface between this crate and the facade's hidden module
/// (`__private01`); the facade's `__private_check!` refuses any other.
const INTERFACE: &str = "01";

pub fn entity(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let parsed = Input::from_ast(&cx, input);
    // Trait-bound checks of the field types, emitted in both outcomes: with macro errors, rustc
    // still reports a field type that is not `KeyPart`, or a `#[ttl]` that is not a time, in the
    // same build.
    let asserts = parsed.as_ref().map(assert::expand).unwrap_or_default();
    let mut model = parsed.and_then(|parsed| valid::check(&cx, parsed));
    if let Some(m) = model.as_mut() {
        m.vectors = crate::vector::parse(&cx, &input.attrs, m);
    }
    match (cx.finish(), model) {
        (None, Some(model)) => expand(&model, &asserts),
        (Some(errors), _) => crate::fallback::entity(input, errors, &asserts),
        (None, None) => {
            crate::fallback::entity(input, syn::Error::new_spanned(&input.ident, "invalid entity"), &asserts)
        }
    }
}

fn expand(m: &Model<'_>, asserts: &TokenStream) -> TokenStream {
    let (key_struct, keys) = keys::expand(m);
    let codec = codec::expand(m);
    let queries = query::expand(m);
    let update = update::expand(m);
    let partitions = partition::expand(m);
    let fields = fields::expand(m);
    let key_attrs = fields::key_attrs(m);
    let with_types = plain::with_types(m);
    let tenant_check = plain::tenant_check(m);
    let search = crate::vector::expand(m, &private(m));
    let header = block_header(&m.input.krate());
    quote! {
        #key_struct

        #[doc(hidden)]
        // One argument per key field (`key`, the key formatters, the queries' partition keys):
        // a template of more than seven is the user's design, not a mistake to warn of.
        #[allow(clippy::too_many_arguments)]
        const _: () = {
            #header
            #asserts
            #keys
            #codec
            #queries
            #update
            #partitions
            #fields
            #key_attrs
            #with_types
            #tenant_check
            #search
        };
    }
}

/// The first items of the generated block: the interface check and the runtime import.
pub fn block_header(krate: &TokenStream) -> TokenStream {
    let version: TokenStream = INTERFACE.parse().unwrap_or_default();
    let module = quote::format_ident!("__private{}", INTERFACE);
    quote! {
        #krate::__private_check!(#version);
        #[allow(unused_imports)]
        use #krate::#module as __de;
        // The codec's dispatch traits (autoref specialization), for every encode and decode below.
        #[allow(unused_imports)]
        use __de::codec::{
            DecodeDirect as _, DecodeKey as _, DecodeNotKey as _, DecodeSerde as _, EncodeDirect as _, EncodeKey as _,
            EncodeNotKey as _, EncodeSerde as _, EncoderDirect as _, EncoderKey as _, EncoderNotKey as _,
            EncoderSerde as _, TimeWithNotTime as _, TimeWithValue as _,
        };
        // The dispatch selectors, by short names no user type has.
        #[allow(unused_imports)]
        use __de::codec::{KeyDecode as __KD, KeyEncode as __KE};
    }
}

/// The facade's hidden module, for code outside a generated block (`#[derive(KeyPart)]`).
pub fn private_path(krate: &TokenStream) -> TokenStream {
    let module = quote::format_ident!("__private{}", INTERFACE);
    quote!(#krate::#module)
}

/// The runtime, as generated code inside the block names it.
pub fn private(_: &Model<'_>) -> TokenStream {
    quote!(__de)
}
