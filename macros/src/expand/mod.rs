//! Code generation: the item codec, the key type and the query builders.
//!
//! Everything but the `<Name>Key` struct is emitted inside `const _: () = { .. };` (serde's
//! habit): the query types, the type of `fields()`, helper functions and imports stay out of the
//! user's namespace, and the runtime is named once, by a versioned import at the top of that
//! block.

mod assert;
mod codec;
mod fields;
mod keys;
mod multi;
mod partition;
pub(crate) mod plain;
mod query;
pub(crate) mod update;

pub(crate) use keys::tenant_tail;

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
    let with_types = plain::with_types(m);
    let tenant_check = plain::tenant_check(m);
    let search = crate::vector::expand(m, &private(m));
    let header = block_header(&m.input.krate());
    let items = quote! {
        #keys
        #codec
        #queries
        #update
        #partitions
        #fields
        #with_types
        #tenant_check
        #search
    };
    let items = merge_inherent(items, [m.input.ident, &keys::key_ident(m)]);
    quote! {
        #key_struct

        #[doc(hidden)]
        // One argument per key field (`key`, the key formatters, the queries' partition keys):
        // a template of more than seven is the user's design, not a mistake to warn of. The key
        // formatters take each field by reference, whatever its type (`&String` too).
        #[allow(dead_code, unused_imports, clippy::too_many_arguments, clippy::ptr_arg)]
        const _: () = {
            #header
            #asserts
            #items
        };
    }
}

/// Gathers the inherent `impl` blocks of the entity and of its key type that the generators
/// emit apart (`#[automatically_derived] impl Name { .. }` at the top level of `items`: the key
/// constructor, each query's constructor, `update`, `partition`, `fields`, ...) into one block
/// each, at the end: every `impl` block is an item rustc checks on its own. A walk over the
/// top-level tokens, whose bodies move as they are.
fn merge_inherent(items: TokenStream, names: [&syn::Ident; 2]) -> TokenStream {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = items.into_iter().collect();
    let mut out = TokenStream::new();
    let mut bodies: [TokenStream; 2] = Default::default();
    let mut at = 0;
    while at < tokens.len() {
        if let [
            TokenTree::Punct(hash),
            TokenTree::Group(attr),
            TokenTree::Ident(kw),
            TokenTree::Ident(name),
            TokenTree::Group(body),
            ..,
        ] = &tokens[at..]
            && hash.as_char() == '#'
            && attr.delimiter() == Delimiter::Bracket
            && kw == "impl"
            && body.delimiter() == Delimiter::Brace
            && attr.stream().to_string() == "automatically_derived"
            && let Some(which) = names.iter().position(|n| name == *n)
        {
            bodies[which].extend(body.stream());
            at += 5;
            continue;
        }
        out.extend([tokens[at].clone()]);
        at += 1;
    }
    for (name, body) in names.into_iter().zip(bodies) {
        if !body.is_empty() {
            out.extend(quote!(#[automatically_derived] impl #name { #body }));
        }
    }
    out
}

/// The first items of the generated block: the interface check and the runtime import.
pub fn block_header(krate: &TokenStream) -> TokenStream {
    let version: TokenStream = INTERFACE.parse().unwrap_or_default();
    let module = quote::format_ident!("__private{}", INTERFACE);
    // (The block that holds them allows `unused_imports`: not every entity uses each.)
    quote! {
        #krate::__private_check!(#version);
        use #krate::#module as __de;
        // The codec's dispatch traits (autoref specialization), for every encode and decode below.
        use __de::codec::{
            DecodeDirect as _, DecodeKey as _, DecodeNotKey as _, DecodeSerde as _, EncodeDirect as _, EncodeKey as _,
            EncodeNotKey as _, EncodeSerde as _, EncoderDirect as _, EncoderKey as _, EncoderNotKey as _,
            EncoderSerde as _, TimeWithNotTime as _, TimeWithValue as _,
        };
        // The codec, the dispatch selectors, the key traits and `Option` and `Result`, by short
        // names no user type has: the generated code names them everywhere.
        use __de::codec::{self as __dc, KeyDecode as __KD, KeyEncode as __KE, KeyField as __KF, PaddedKeyField as __PKF, RawKeyField as __RKF};
        use __de::key::{KeyBuilder as __KB, KeyReader as __KR};
        use __de::Path as __P;
        use ::core::{option::Option as __O, result::Result as __R};
        use ::std::string::String as __S;
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

#[cfg(test)]
mod tests {
    use quote::{format_ident, quote};

    #[test]
    fn the_inherent_blocks_of_the_entity_and_its_key_become_one_each() {
        let (entity, key) = (format_ident!("Order"), format_ident!("OrderKey"));
        let items = quote! {
            #[automatically_derived] impl Order { fn key() {} }
            struct Other;
            #[automatically_derived] impl OrderKey { fn pk(&self) {} }
            #[automatically_derived] impl Order { fn query_by_customer() {} }
            // Not an inherent block of the two as the generators write them: kept as they are.
            #[automatically_derived] impl<const L: usize> Order<L> { fn generic() {} }
            #[automatically_derived] impl ::core::fmt::Debug for Order {}
            #[automatically_derived] impl OrderUpdate { fn set_total() {} }
            impl Order { fn unmarked() {} }
            #[automatically_derived] impl Order { fn update() {} }
        };
        let merged = super::merge_inherent(items, [&entity, &key]).to_string();
        let expected = quote! {
            struct Other;
            #[automatically_derived] impl<const L: usize> Order<L> { fn generic() {} }
            #[automatically_derived] impl ::core::fmt::Debug for Order {}
            #[automatically_derived] impl OrderUpdate { fn set_total() {} }
            impl Order { fn unmarked() {} }
            #[automatically_derived] impl Order { fn key() {} fn query_by_customer() {} fn update() {} }
            #[automatically_derived] impl OrderKey { fn pk(&self) {} }
        };
        assert_eq!(merged, expected.to_string());
    }

    /// Every generator's inherent block of the entity and of its key is one the walk gathers:
    /// a generator that marks its block otherwise would leave a block of its own (no error,
    /// only the cost this gathering removes).
    #[test]
    fn a_derived_entity_has_one_inherent_block_and_its_key_one() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[pk = "ORDER#<order_id>"]
            #[sk = "LINE#<line:4>"]
            #[gsi1(pk = "CUSTOMER#<customer_id>", sk = "<placed_at>", query = "by_customer")]
            #[entity(rename_all = "camelCase", type_attr = "Type", query = "lines")]
            struct Order {
                order_id: String,
                line: u32,
                customer_id: String,
                placed_at: String,
                total: u64,
                tags: Vec<String>,
            }
        };
        let out = super::entity(&input);
        assert!(!out.to_string().contains("compile_error"), "the entity is valid: {out}");
        // The generated block is the last top-level group: `const _: () = { .. };`.
        let block = out
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => Some(g.stream()),
                _ => None,
            })
            .last()
            .expect("the generated block");
        let tokens: Vec<String> = block.into_iter().map(|t| t.to_string()).collect();
        let inherent =
            |name: &str| tokens.windows(3).filter(|w| w[0] == "impl" && w[1] == name && w[2].starts_with('{')).count();
        assert_eq!((inherent("Order"), inherent("OrderKey")), (1, 1));
    }
}
