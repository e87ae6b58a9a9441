//! Code generation: the item codec, the key type and the query builders.

mod codec;
mod fields;
mod keys;
mod partition;
mod query;
mod update;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::Input;
use crate::ctxt::Ctxt;
use crate::valid::{self, Model};

pub fn entity(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let model = Input::from_ast(&cx, input).and_then(|parsed| valid::check(&cx, parsed));
    match (cx.finish(), model) {
        (None, Some(model)) => expand(&model),
        (Some(errors), _) => crate::fallback::entity(input, errors),
        (None, None) => crate::fallback::entity(input, syn::Error::new_spanned(&input.ident, "invalid entity")),
    }
}

fn expand(m: &Model<'_>) -> TokenStream {
    let keys = keys::expand(m);
    let codec = codec::expand(m);
    let queries = query::expand(m);
    let update = update::expand(m);
    let partitions = partition::expand(m);
    let fields = fields::expand(m);
    quote! {
        #keys
        #codec
        #queries
        #update
        #partitions
        #fields
    }
}

/// `::dynamo_entity::__private`, or the `#[entity(crate = "..")]` path.
pub fn private(m: &Model<'_>) -> TokenStream {
    let krate = m.input.krate();
    quote!(#krate::__private)
}
