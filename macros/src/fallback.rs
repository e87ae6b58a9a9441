//! Output on error: the errors, plus stub impls so that the rest of the crate does not drown
//! the real mistake in follow-on errors ("`Message` is not an `Entity`", "no `MessageKey`").

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields};

fn krate(input: &DeriveInput) -> TokenStream {
    // Honour `#[entity(crate = "..")]` when it parses; otherwise the default path.
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(crate::attr::ENTITY)) {
        let mut path = None;
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(crate::attr::CRATE) {
                path = meta.value()?.parse::<syn::LitStr>()?.parse::<syn::Path>().ok();
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        });
        if let Some(path) = path {
            return quote!(#path);
        }
    }
    quote!(::dynamo_entity)
}

/// `asserts` are the field types' trait-bound checks (see `expand::assert`): rustc reports
/// those mistakes in the same build as the macro's own errors.
pub fn entity(input: &DeriveInput, errors: syn::Error, asserts: &TokenStream) -> TokenStream {
    let errors = errors.to_compile_error();
    let is_named_struct = matches!(&input.data, Data::Struct(s) if matches!(s.fields, Fields::Named(_)));
    if !is_named_struct || !input.generics.params.is_empty() {
        return errors;
    }
    let krate = krate(input);
    let header = crate::expand::block_header(&krate);
    let p = quote!(__de);
    let ident = &input.ident;
    let vis = &input.vis;
    let key = format_ident!("{}Key", ident);
    quote! {
        #errors

        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #vis struct #key;

        #[doc(hidden)]
        const _: () = {
        #header
        #asserts

        #[automatically_derived]
        impl #p::EntityKey for #key {
            type Entity = #ident;
            fn try_pk(&self) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                ::core::unreachable!()
            }
            fn try_sk(&self) -> ::core::result::Result<::core::option::Option<::std::string::String>, #p::KeyError> {
                ::core::unreachable!()
            }
            fn parse_keys(
                _: &str,
                _: ::core::option::Option<&str>,
            ) -> ::core::result::Result<Self, #p::KeyError> {
                ::core::unreachable!()
            }
        }

        #[automatically_derived]
        impl #p::Entity for #ident {
            type Key = #key;
            const SCHEMA: #p::EntitySchema =
                #p::EntitySchema::new("", "", #p::KeySchema::of("", "", #p::AttributeType::S), ::core::option::Option::None, &[]);
            fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                ::core::unreachable!()
            }
            fn from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                ::core::unreachable!()
            }
            fn primary_key(&self) -> #key {
                ::core::unreachable!()
            }
        }
        };
    }
}
