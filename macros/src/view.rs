//! `#[derive(View)]`: a struct holding a subset of an entity's fields, read through a
//! ProjectionExpression of exactly their attributes.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Path};

use crate::ctxt::Ctxt;

struct ViewAttrs {
    entity: Option<Path>,
    krate: Option<Path>,
}

fn attrs(cx: &Ctxt, input: &DeriveInput) -> ViewAttrs {
    let mut out = ViewAttrs { entity: None, krate: None };
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("view")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("entity") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                out.entity = Some(lit.parse()?);
                Ok(())
            } else if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                out.krate = Some(lit.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown view attribute; expected `entity = \"Entity\"` or `crate = \"..\"`"))
            }
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    if out.entity.is_none() {
        cx.error_spanned_by(&input.ident, "a view names its entity: `#[view(entity = \"Order\")]`");
    }
    out
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let attrs = attrs(&cx, input);
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => Some(&f.named),
            _ => None,
        },
        _ => None,
    };
    if fields.is_none() {
        cx.error_spanned_by(&input.ident, "`View` is derived on a struct with named fields, a subset of the entity's");
    }
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "a view cannot be generic");
    }
    if let Some(errors) = cx.finish() {
        return errors.to_compile_error();
    }
    let (Some(fields), Some(entity)) = (fields, attrs.entity) else { return TokenStream::new() };
    let krate = match attrs.krate {
        Some(path) => quote!(#path),
        None => quote!(::dynamo_entity),
    };
    let p = crate::expand::private_path(&krate);
    let ident = &input.ident;
    let idents: Vec<_> = fields.iter().filter_map(|f| f.ident.as_ref()).collect();
    let tys: Vec<_> = fields.iter().map(|f| &f.ty).collect();
    // Each field must be a field of the entity, of the same type: errors point at the view's
    // field. `__paths` is the one place that names the entity's fields, so each mistake is one
    // error; everything else takes the paths it returns.
    let locals: Vec<_> = (0..idents.len()).map(|i| quote::format_ident!("__p{}", i)).collect();
    let checks = fields.iter().zip(&locals).filter_map(|(f, local)| {
        let n = f.ident.as_ref()?;
        let ty = &f.ty;
        Some(quote_spanned!(f.span()=> let #local: &#p::Path<#entity, #ty> = {
            use #p::expr::ViewPath as _;
            __f.#n.__view_path()
        };))
    });
    let path_tys = tys.iter().map(|ty| quote!(&#p::Path<#entity, #ty>));
    let positions: Vec<syn::Index> = (0..idents.len()).map(syn::Index::from).collect();
    let reads = idents.iter().zip(&tys).zip(&positions).map(|((n, ty), i)| {
        quote! {
            let #n: #ty = {
                let __attr = __p.#i.attribute();
                // The entity's own way of reading the field, if it has one (`with`, `default`).
                // (The table's key attributes are left in the item: an error names its key.)
                let __value = #p::codec::take_for_view(&mut __item, &<#entity as #p::Entity>::SCHEMA, __attr);
                match __p.#i.__decoder_as::<#ty>() {
                    ::core::option::Option::Some(__d) => __d(__value),
                    ::core::option::Option::None => (&&&&#p::codec::KeyDecode::<#ty>(::core::marker::PhantomData)).__decode(__value),
                }
                .map_err(|__m| #p::Error::decode(<#entity as #p::Readable>::NAME, __attr, __m))?
            };
        }
    });
    quote! {
        const _: () = {
        #[allow(clippy::type_complexity)]
        #[inline] fn __paths(__f: &<#entity as #p::HasFields>::Fields) -> (#(#path_tys,)*) {
            #(#checks)*
            (#(#locals,)*)
        }

        #[automatically_derived]
        impl #p::View for #ident {
            type Entity = #entity;

            #[inline] fn attributes() -> ::std::vec::Vec<&'static str> {
                let __f = #entity::fields();
                let __p = __paths(&__f);
                ::std::vec![#(__p.#positions.attribute()),*]
            }
        }

        #[automatically_derived]
        impl #p::Readable for #ident {
            const NAME: &'static str = <#entity as #p::Readable>::NAME;
            const __SCHEMAS: &'static [&'static #p::EntitySchema] = <#entity as #p::Readable>::__SCHEMAS;

            #[inline] fn schema(index: ::core::option::Option<&str>) -> ::core::option::Option<&'static #p::EntitySchema> {
                <#entity as #p::Readable>::schema(index)
            }

            #[inline] fn read(mut __item: #p::Item) -> ::core::option::Option<::core::result::Result<Self, #p::Error>> {
                if !#p::belongs::<#entity>(&__item) {
                    return ::core::option::Option::None;
                }
                #[allow(unused_imports)]
                use #p::codec::{DecodeDirect as _, DecodeKey as _, DecodeSerde as _};
                let __decoded = (|| -> ::core::result::Result<Self, #p::Error> {
                    // Primary-key fields an index does not hold are read back from the keys.
                    <#entity as #p::HasFields>::__restore_key_fields(&mut __item)?;
                    let __f = #entity::fields();
                    let __p = __paths(&__f);
                    #(#reads)*
                    ::core::result::Result::Ok(#ident { #(#idents),* })
                })();
                ::core::option::Option::Some(__decoded.map_err(|__e| {
                    #p::codec::with_item_key(__e, &<#entity as #p::Entity>::SCHEMA, &__item)
                }))
            }
        }
        };
    }
}
