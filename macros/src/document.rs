//! `#[derive(Document)]`: a struct stored inside an item as a map (serde's way). It describes
//! the stored name of each field (serde's `rename`, `rename_all`); the runtime builds the paths
//! (`Customer::fields().address.city`) from it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

/// What serde's attributes say of a struct or a field, as far as its stored map goes.
#[derive(Default)]
struct Serde {
    rename: Option<String>,
    rename_all: Option<(RenameRule, proc_macro2::Span)>,
    /// `skip`, `skip_serializing`, `flatten`: no path of its own.
    no_path: bool,
    /// `with = "module"` or `serialize_with = "path"`: how the field is serialized (the module's
    /// `serialize`, or the function). Its path compares whole values, reaching into nothing.
    serialize_with: Option<syn::ExprPath>,
    /// `skip_serializing_if = "path"`: where the predicate holds, the field is stored absent.
    skip_if: Option<syn::ExprPath>,
    /// `transparent`, `untagged`, `tag`, `content`: not stored as a map of its fields.
    not_a_map: Option<&'static str>,
}

/// Consumes an attribute argument's value (`= ..` or `(..)`) that is not read.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// The serializing half of `rename = ".."` or `rename(serialize = "..", ..)`.
fn serialize_name(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<syn::LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut out = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("serialize") {
            out = Some(inner.value()?.parse()?);
        } else {
            skip_value(&inner)?;
        }
        Ok(())
    })?;
    Ok(out)
}

fn serde_attrs(cx: &Ctxt, attrs: &[syn::Attribute]) -> Serde {
    let mut out = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            let p = &meta.path;
            if p.is_ident("rename") {
                out.rename = serialize_name(&meta)?.map(|l| l.value());
            } else if p.is_ident("rename_all") {
                if let Some(lit) = serialize_name(&meta)? {
                    match RenameRule::from_str(&lit.value()) {
                        Some(rule) => out.rename_all = Some((rule, lit.span())),
                        None => cx.error_spanned_by(&lit, format!("unknown `rename_all` rule `{}`", lit.value())),
                    }
                }
            } else if p.is_ident("skip_serializing_if") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                out.skip_if = Some(lit.parse()?);
            } else if p.is_ident("with") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                let module: syn::ExprPath = lit.parse()?;
                out.serialize_with = Some(syn::parse_quote!(#module::serialize));
            } else if p.is_ident("serialize_with") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                out.serialize_with = Some(lit.parse()?);
            } else if ["skip", "skip_serializing", "flatten"].iter().any(|k| p.is_ident(k)) {
                out.no_path = true;
                skip_value(&meta)?;
            } else if let Some(k) = ["transparent", "untagged", "tag", "content", "into"].iter().find(|k| p.is_ident(k))
            {
                out.not_a_map = Some(k);
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

/// `#[document(crate = "..")]`: where `dynamo_entity` is.
fn crate_path(cx: &Ctxt, input: &DeriveInput) -> TokenStream {
    let mut krate = quote!(::dynamo_entity);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("document")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                let path: syn::Path = lit.parse()?;
                krate = quote!(#path);
                Ok(())
            } else {
                Err(meta.error("unknown document attribute; expected `crate = \"..\"`"))
            }
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    krate
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let krate = crate_path(&cx, input);
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => Some(&f.named),
            _ => None,
        },
        _ => None,
    };
    if fields.is_none() {
        cx.error_spanned_by(
            &input.ident,
            "`Document` is derived on a struct with named fields: it is stored as a map of its fields, which paths \
             reach into",
        );
    }
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "`#[derive(Document)]` does not support generic structs");
    }
    let outer = serde_attrs(&cx, &input.attrs);
    if let Some(k) = outer.not_a_map {
        cx.error_spanned_by(
            &input.ident,
            format!(
                "`#[serde({k})]`: the document is not stored as a map of its fields, so paths cannot reach into it; \
                 store it as a whole field without `#[derive(Document)]`"
            ),
        );
    }
    let Some(fields) = fields else { return cx.finish().map(|e| e.to_compile_error()).unwrap_or_default() };
    let p = crate::expand::private_path(&krate);
    let ident = &input.ident;
    let vis = &input.vis;
    let fields_ty = format_ident!("{}Fields", ident);
    let mut decls = Vec::new();
    let mut inits = Vec::new();
    for f in fields {
        let Some(n) = f.ident.as_ref() else { continue };
        let serde = serde_attrs(&cx, &f.attrs);
        if serde.no_path {
            continue;
        }
        let name = n.unraw().to_string();
        let stored = match (serde.rename, outer.rename_all) {
            (Some(r), _) => r,
            (None, Some((rule, _))) => rule.apply_to_field(&name),
            (None, None) => name,
        };
        let ty = &f.ty;
        // Stored absent where serde's predicate holds: the path's value is absent there too, so
        // `eq(None)` is `attribute_not_exists` and `set(.., None)` a `REMOVE`.
        let skip = match &serde.skip_if {
            Some(skip) => quote!(::core::option::Option::Some(|__v: &#ty| #skip(__v))),
            None => quote!(::core::option::Option::None),
        };
        match &serde.serialize_with {
            // Stored by a module: compared whole, as the module serializes it; no path reaches
            // into it (`StoredWith`), the stored shape being the module's.
            Some(serialize) => {
                let doc = format!("The field stored as `{stored}`, by a module: compared whole.");
                decls.push(quote!(#[doc = #doc] pub #n: #p::expr::StoredWith<E, #ty>));
                inits.push(
                    quote::quote_spanned!(ty.span()=> #n: #p::expr::StoredWith::__new(__at.__field_as::<E, #ty>(
                        #stored,
                        ::core::option::Option::Some(|__v: &#ty| {
                            struct __With<'__a>(&'__a #ty);
                            impl ::serde::Serialize for __With<'_> {
                                fn serialize<__S: ::serde::Serializer>(
                                    &self,
                                    __s: __S,
                                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                                    #serialize(self.0, __s)
                                }
                            }
                            #p::expr::DocumentAt::__stored(&__With(__v))
                        }),
                        #skip,
                    ))),
                );
            }
            None => {
                let doc = format!("The field stored as `{stored}`.");
                decls.push(quote!(#[doc = #doc] pub #n: #p::Path<E, #ty>));
                inits.push(quote::quote_spanned!(ty.span()=> #n: __at.__field_as::<E, #ty>(
                    #stored,
                    ::core::option::Option::None,
                    #skip,
                )));
            }
        }
    }
    if let Some(errors) = cx.finish() {
        return errors.to_compile_error();
    }
    let doc = format!(
        "The fields of the document [`{ident}`] as paths from an item of entity `E` (`Customer::fields().<field>.<its \
         field>`)."
    );
    let name = fields_ty.to_string();
    quote! {
        #[doc = #doc]
        #vis struct #fields_ty<E> {
            #(#decls,)*
            __entity: ::core::marker::PhantomData<fn() -> E>,
        }

        #[automatically_derived]
        impl<E> ::core::clone::Clone for #fields_ty<E> {
            fn clone(&self) -> Self {
                *self
            }
        }

        #[automatically_derived]
        impl<E> ::core::marker::Copy for #fields_ty<E> {}

        #[automatically_derived]
        impl<E> ::core::fmt::Debug for #fields_ty<E> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#name).finish_non_exhaustive()
            }
        }

        #[automatically_derived]
        impl #p::Document for #ident {
            type Fields<E: 'static> = #fields_ty<E>;

            fn __fields<E: 'static>(__at: #p::expr::DocumentAt) -> #fields_ty<E> {
                #fields_ty { #(#inits,)* __entity: ::core::marker::PhantomData }
            }
        }
    }
}
