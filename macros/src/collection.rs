//! `#[derive(Collection)]`: an enum with one variant per member entity reads a partition's items
//! of several entity types in one request.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use crate::ctxt::Ctxt;

struct Member<'a> {
    variant: &'a Ident,
    ty: &'a Type,
}

/// `#[collection(crate = "path")]`, the only attribute.
fn krate(cx: &Ctxt, input: &DeriveInput) -> TokenStream {
    let mut krate = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("collection")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = Some(lit.parse::<Path>()?);
                Ok(())
            } else {
                Err(meta.error("unknown collection attribute; expected `crate = \"..\"`"))
            }
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::dynamo_entity),
    }
}

fn members<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Vec<Member<'a>> {
    let Data::Enum(data) = &input.data else {
        cx.error_spanned_by(&input.ident, "`Collection` is derived on an enum with one variant per member entity");
        return Vec::new();
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "a collection cannot be generic");
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(&input.ident, "a collection needs at least one member: a variant `Name(Entity)`");
    }
    let mut out: Vec<Member<'a>> = Vec::new();
    for v in &data.variants {
        let ty = match &v.fields {
            Fields::Unnamed(f) if f.unnamed.len() == 1 => &f.unnamed[0].ty,
            _ => {
                cx.error_spanned_by(
                    v,
                    format!("each variant of a collection holds one entity, as `{}(Entity)`", v.ident),
                );
                continue;
            }
        };
        let text = quote!(#ty).to_string();
        if let Some(first) = out.iter().find(|m| {
            let t = m.ty;
            quote!(#t).to_string() == text
        }) {
            cx.error_spanned_by(
                ty,
                format!(
                    "`{text}` is already the member of variant `{}`: each entity is one variant, so that an item decodes into exactly one",
                    first.variant
                ),
            );
            continue;
        }
        out.push(Member { variant: &v.ident, ty });
    }
    out
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let krate = krate(&cx, input);
    let members = members(&cx, input);
    if let Some(errors) = cx.finish() {
        return errors.to_compile_error();
    }
    expand(input, &krate, &members)
}

fn expand(input: &DeriveInput, krate: &TokenStream, members: &[Member<'_>]) -> TokenStream {
    let p = crate::expand::private_path(krate);
    let ident = &input.ident;
    let vis = &input.vis;
    let name = ident.to_string();
    let key = format_ident!("{}Key", ident);
    let variants: Vec<&Ident> = members.iter().map(|m| m.variant).collect();
    // Every use of a member's type and of the key enum is spanned at the collection's name, and
    // each member type is named through `IsEntity`: a type that is not an entity fails the same
    // bound at the same place everywhere (the key enum's fields, its auto traits, the signatures
    // that take it by value), which rustc reports once.
    let at = ident.span();
    let tys: Vec<TokenStream> = members
        .iter()
        .map(|m| {
            let ty = m.ty;
            spanned_at(quote!(<#ty as #p::IsEntity>::Me), at)
        })
        .collect();
    let indexes: Vec<usize> = (0..members.len()).collect();
    let spanned = |f: &dyn Fn(&TokenStream) -> TokenStream| -> Vec<TokenStream> {
        tys.iter().map(|ty| spanned_at(f(ty), at)).collect()
    };
    let belongs = spanned(&|ty| quote!(#p::belongs::<#ty>));
    let from_item = spanned(&|ty| quote!(<#ty as #p::Entity>::from_item));
    let schemas = spanned(&|ty| quote!(&<#ty as #p::Entity>::SCHEMA));
    let primary_key = spanned(&|ty| quote!(<#ty as #p::Entity>::primary_key));
    let key_tys = spanned(&|ty| quote!(<#ty as #p::Entity>::Key));
    // On the type as written, so that messages about members name it.
    let member_impls = members.iter().map(|m| {
        let ty = m.ty;
        quote_spanned! {ty.span()=>
            #[automatically_derived]
            impl #p::Member<#ident> for #ty {}

            #[automatically_derived]
            impl #p::Filters<#ident> for #ty {}
        }
    });

    let entity_checks = tys.iter().map(|ty| quote!(#p::collection_member::<#ty>();));
    let first = &tys[0];
    let first_ty = members[0].ty;
    let same_table = members.iter().zip(&tys).skip(1).map(|(m, ty)| {
        let user_ty = m.ty;
        let msg = format!(
            "the members of `{name}` must live in one table, but `{}` has other key attribute names than `{}`",
            quote!(#user_ty),
            quote!(#first_ty)
        );
        let first = spanned_at(quote!(&<#first as #p::Entity>::SCHEMA), at);
        let this = spanned_at(quote!(&<#ty as #p::Entity>::SCHEMA), at);
        quote_spanned! {m.ty.span()=>
            const _: () = ::core::assert!(#p::same_table(#first, #this), #msg);
        }
    });
    // Each member's key wraps through `MemberKey`, implemented for the member's type: one generic
    // `From` impl for the key enum, whose coherence never needs a member's key type.
    let member_keys = members.iter().zip(&key_tys).zip(&variants).map(|((m, key_ty), variant)| {
        let ty = m.ty;
        quote! {
            #[automatically_derived]
            impl #p::MemberKey<#key> for #ty {
                type Key = #key_ty;
                #[inline]
                fn member_key(key: #key_ty) -> #key {
                    #key::#variant(key)
                }
            }
        }
    });
    let key_doc = format!("The key of an item of [`{ident}`]: the key of one of its members.");
    let query_doc = format!(
        "A query of every `{ident}` item in a partition of one of its members (`<Member>::partition(..)`, or a \
         partition of an index): one request per page, items in sort-key order, items of other entities stepped over."
    );
    let expanded = quote! {
        const _: () = {
            #[allow(dead_code)]
            #[inline] fn __check() {
                #(#entity_checks)*
            }
        };
        #[automatically_derived]
        impl #p::Readable for #ident {
            const NAME: &'static str = #name;
            const __SCHEMAS: &'static [&'static #p::EntitySchema] = <Self as #p::Collection>::MEMBERS;

            #[inline] fn schema(index: ::core::option::Option<&str>) -> ::core::option::Option<&'static #p::EntitySchema> {
                #p::member_schema(<Self as #p::Collection>::MEMBERS, index)
            }

            #[inline]
            fn read(item: #p::Item) -> ::core::option::Option<::core::result::Result<Self, #p::Error>> {
                match #p::member_of(
                    &item,
                    <Self as #p::Collection>::MEMBERS,
                    &[#(#belongs),*],
                ) {
                    #(
                        ::core::option::Option::Some(#indexes) => ::core::option::Option::Some(
                            #from_item(item).map(#ident::#variants),
                        ),
                    )*
                    _ => ::core::option::Option::None,
                }
            }
        }

        #[automatically_derived]
        impl #p::Collection for #ident {
            const MEMBERS: &'static [&'static #p::EntitySchema] = &[#(#schemas),*];
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #query_doc]
            #[inline] #vis fn query<__E: #p::Member<#ident>>(partition: #p::Partition<__E>) -> #p::Query<#ident> {
                partition.__query()
            }

            /// The key of this item.
            #[inline] #vis fn key(&self) -> #key {
                match self {
                    #(#ident::#variants(__m) => #key::#variants(#primary_key(__m)),)*
                }
            }
        }

        #[doc = #key_doc]
        #vis enum #key {
            #(
                #[allow(missing_docs)]
                #variants(#key_tys),
            )*
        }

        // Written out rather than derived: the derives' bounds would each report a member that is
        // not an entity again.
        #[automatically_derived]
        impl ::core::fmt::Debug for #key {
            #[inline] fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#key::#variants(__k) => __f.debug_tuple(::core::stringify!(#variants)).field(__k).finish(),)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #key {
            #[inline] fn clone(&self) -> Self {
                match self {
                    #(#key::#variants(__k) => #key::#variants(::core::clone::Clone::clone(__k)),)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::cmp::PartialEq for #key {
            #[inline] fn eq(&self, __other: &Self) -> bool {
                #[allow(unreachable_patterns)]
                match (self, __other) {
                    #((#key::#variants(__a), #key::#variants(__b)) => __a == __b,)*
                    _ => false,
                }
            }
        }

        #(#member_keys)*

        #[automatically_derived]
        impl<__K: #p::EntityKey> ::core::convert::From<__K> for #key
        where
            <__K as #p::EntityKey>::Entity: #p::MemberKey<#key, Key = __K>,
        {
            #[inline]
            fn from(key: __K) -> Self {
                <<__K as #p::EntityKey>::Entity as #p::MemberKey<#key>>::member_key(key)
            }
        }

        #[automatically_derived]
        impl #p::ReadKey for #key {
            type Output = #ident;

            #[inline] fn to_key_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                match self {
                    #(#key::#variants(__k) => #p::EntityKey::to_key_item(__k),)*
                }
            }

            #[inline] fn decode(&self, item: #p::Item) -> ::core::result::Result<#ident, #p::Error> {
                match self {
                    #(#key::#variants(_) => #from_item(item).map(#ident::#variants),)*
                }
            }

            #[inline] fn __schema(&self) -> &'static #p::EntitySchema {
                match self {
                    #(#key::#variants(__k) => #p::key_schema_of(__k),)*
                }
            }
        }
    };
    // A shared member whose keys could be a tenant member's (they share the partition): one
    // assertion over every member, the pair named by `TableDefinition::from_entities`.
    let apart = format!(
        "a `tenant_shared` member of `{name}` has a partition key that can be a tenant member's key (a tenant \
         handle lets shared items through, and the IAM policy grants their prefix to every tenant): give it a \
         literal prefix no tenant key starts with; `TableDefinition::from_entities` names both templates"
    );
    let expanded = spanned_at(expanded, at);
    let shared_apart = spanned_at(
        quote!(
            const _: () = ::core::assert!(#p::shared_apart(<#ident as #p::Collection>::MEMBERS), #apart);
        ),
        at,
    );
    quote! {
        #expanded
        #shared_apart
        #(#same_table)*
        #(#member_impls)*
    }
}

/// `tokens` with every token placed at `at`, resolved and linted as the derive's own (call site): errors about an expression
/// built on a member's type point at that type, where rustc reports each once.
fn spanned_at(tokens: TokenStream, at: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), spanned_at(g.stream(), at));
                group.set_span(Span::call_site().located_at(at));
                tree = group.into();
            } else {
                tree.set_span(Span::call_site().located_at(at));
            }
            tree
        })
        .collect()
}
