//! `#[derive(KeyPart)]`: unit-only enums as fixed words, single-field tuple structs by delegation.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

const KEY: &str = "key";

struct KeyAttrs {
    rename: Option<LitStr>,
    rename_all: Option<RenameRule>,
    krate: Option<syn::Path>,
}

fn parse_key_attrs(cx: &Ctxt, attrs: &[syn::Attribute], on_enum: bool) -> KeyAttrs {
    let mut out = KeyAttrs { rename: None, rename_all: None, krate: None };
    for attr in attrs.iter().filter(|a| a.path().is_ident(KEY)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") && !on_enum {
                let lit: LitStr = meta.value()?.parse()?;
                if out.rename.replace(lit).is_some() {
                    cx.error_spanned_by(&meta.path, "duplicate `rename`");
                }
            } else if meta.path.is_ident("rename_all") && on_enum {
                let lit: LitStr = meta.value()?.parse()?;
                match RenameRule::from_str(&lit.value()) {
                    Some(rule) => out.rename_all = Some(rule),
                    None => cx.error_spanned_by(
                        &lit,
                        format!("unknown `rename_all` rule `{}`: expected one of {}", lit.value(), RenameRule::names()),
                    ),
                }
            } else if meta.path.is_ident("crate") && on_enum {
                let lit: LitStr = meta.value()?.parse()?;
                match lit.parse::<syn::Path>() {
                    Ok(p) => out.krate = Some(p),
                    Err(_) => cx.error_spanned_by(&lit, "`crate` must be a path, such as \"::dynamo_entity\""),
                }
            } else {
                let expected = if on_enum { "`rename_all` or `crate`" } else { "`rename`" };
                cx.error_spanned_by(&meta.path, format!("unknown key in `#[key(..)]` here: expected {expected}"));
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let attrs = parse_key_attrs(&cx, &input.attrs, true);
    let krate = attrs.krate.as_ref().map_or_else(|| quote!(::dynamo_entity), |p| quote!(#p));
    let p = crate::expand::private_path(&krate);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body = match &input.data {
        Data::Enum(e) => {
            let mut words: Vec<(String, proc_macro2::Span)> = Vec::new();
            let mut arms_write = Vec::new();
            let mut arms_word = Vec::new();
            let mut arms_parse = Vec::new();
            for v in &e.variants {
                if !matches!(v.fields, Fields::Unit) {
                    cx.error_spanned_by(v, "`#[derive(KeyPart)]` needs unit variants only: a key word has no data");
                    continue;
                }
                let vattrs = parse_key_attrs(&cx, &v.attrs, false);
                let (word, span) = match (&vattrs.rename, attrs.rename_all) {
                    (Some(lit), _) => (lit.value(), lit.span()),
                    (None, Some(rule)) => (rule.apply_to_variant(&v.ident.to_string()), v.ident.span()),
                    (None, None) => (v.ident.to_string(), v.ident.span()),
                };
                if word.is_empty() || word.bytes().any(|b| b <= b'$') {
                    cx.error_at(
                        span,
                        format!(
                            "the key word `{word}` must be non-empty and hold no control character, space, `!`, `\"`, \
                             `#` or `$`: they would break key structure or order"
                        ),
                    );
                } else if word.contains('%') {
                    cx.error_at(
                        span,
                        format!("the key word `{word}` cannot hold `%`, which marks escapes in key text"),
                    );
                }
                if let Some((_, first)) = words.iter().find(|(w, _)| *w == word) {
                    cx.error_at(span, format!("two variants are written as `{word}` in keys"));
                    cx.error_at(*first, format!("note: `{word}` is first used here"));
                }
                words.push((word.clone(), span));
                let vi = &v.ident;
                arms_write.push(quote!(#ident::#vi => #word));
                // A constant: the runtime checks the word while compiling (the check above
                // already did, so this never fails), and writing it costs nothing more.
                arms_word.push(quote! {
                    #ident::#vi => {
                        const __W: #p::key::KeyWord = match #p::key::KeyWord::new(#word) {
                            ::core::option::Option::Some(__w) => __w,
                            ::core::option::Option::None => ::core::panic!("not a key word"),
                        };
                        __W
                    }
                });
                arms_parse.push(quote!(#word => ::core::result::Result::Ok(#ident::#vi)));
            }
            if e.variants.is_empty() {
                cx.error_at(ident.span(), "`#[derive(KeyPart)]` needs at least one variant");
            }
            let expected =
                format!("one of {}", words.iter().map(|(w, _)| format!("`{w}`")).collect::<Vec<_>>().join(", "));
            quote! {
                #[inline] fn write_key(&self, out: &mut ::std::string::String) -> ::core::result::Result<(), #p::KeyPartError> {
                    out.push_str(match self { #(#arms_write,)* });
                    ::core::result::Result::Ok(())
                }

                #[inline]
                fn __write_part(&self, __w: #p::key::KeyWriter<'_>) -> ::core::result::Result<(), #p::KeyPartError> {
                    __w.word(match self { #(#arms_word,)* })
                }

                #[inline] fn parse_key(text: &str) -> ::core::result::Result<Self, #p::KeyPartError> {
                    match text {
                        #(#arms_parse,)*
                        _ => ::core::result::Result::Err(#p::KeyPartError::Invalid {
                            expected: #expected,
                            text: ::std::borrow::ToOwned::to_owned(text),
                        }),
                    }
                }
            }
        }
        Data::Struct(s) if matches!(&s.fields, Fields::Unnamed(f) if f.unnamed.len() == 1) => {
            let inner = s.fields.iter().next().map(|f| &f.ty);
            quote! {
                #[inline] fn write_key(&self, out: &mut ::std::string::String) -> ::core::result::Result<(), #p::KeyPartError> {
                    <#inner as #p::KeyPart>::write_key(&self.0, out)
                }

                #[inline]
                fn __write_part(&self, __w: #p::key::KeyWriter<'_>) -> ::core::result::Result<(), #p::KeyPartError> {
                    __w.delegate::<#inner>(&self.0)
                }

                #[inline] fn parse_key(text: &str) -> ::core::result::Result<Self, #p::KeyPartError> {
                    ::core::result::Result::map(<#inner as #p::KeyPart>::parse_key(text), #ident)
                }
            }
        }
        Data::Struct(s) => {
            cx.error_at(
                s.struct_token.span(),
                "`#[derive(KeyPart)]` works on unit-only enums and single-field tuple structs (`struct UserId(String);`)",
            );
            quote!()
        }
        Data::Union(u) => {
            cx.error_at(
                u.union_token.span(),
                "`#[derive(KeyPart)]` works on unit-only enums and single-field tuple structs",
            );
            quote!()
        }
    };
    if let Some(errors) = cx.finish() {
        return errors.to_compile_error();
    }
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::KeyPart for #ident #ty_generics #where_clause {
            #body
        }

        // Stored as its key text: a string attribute, which can key an index as it is.
        #[automatically_derived]
        impl #impl_generics #p::KeyAttribute for #ident #ty_generics #where_clause {
            const TYPE: #p::AttributeType = #p::AttributeType::S;
        }
    }
}
