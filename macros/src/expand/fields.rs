//! `<Name>::fields()`: one typed path per stored field, for conditions and filters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::assert::ttl_value;
use super::private;
use crate::valid::Model;

pub fn expand(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let fields_ty = format_ident!("{}Fields", ident);
    let stored: Vec<(usize, &crate::ast::Field<'_>)> =
        m.input.fields.iter().enumerate().filter(|(_, f)| f.attrs.skip.is_none()).collect();
    let decls = stored.iter().map(|(_, f)| {
        let n = f.ident;
        let ty = f.ty;
        let doc = format!("The attribute `{}`.", f.attr_name);
        quote!(#[doc = #doc] pub #n: #p::Path<#ident, #ty>)
    });
    let key_fields = m.all_key_fields();
    let inits = stored.iter().map(|(i, f)| {
        let n = f.ident;
        let ty = f.ty;
        let attr = &f.attr_name;
        // The value is encoded by the code that encodes the field in an item.
        // Through the same paths as the item codec: a wrong field type stays one error.
        let encode = if m.ttl == Some(*i) {
            let ttl = ttl_value(&p, f.key_ty());
            if f.option_inner.is_some() {
                quote!(|__v: &#ty| ::core::result::Result::Ok(
                    ::core::option::Option::map(::core::option::Option::as_ref(__v), |__t| #p::codec::ttl_number(#ttl::to_epoch_seconds(__t)))
                ))
            } else {
                quote!(|__v: &#ty| ::core::result::Result::Ok(
                    ::core::option::Option::Some(#p::codec::ttl_number(#ttl::to_epoch_seconds(__v)))
                ))
            }
        } else if key_fields.contains(i) {
            quote_spanned!(ty.span()=> |__v: &#ty| {
                #[allow(unused_imports)]
                use #p::codec::{EncodeDirect as _, EncodeKey as _, EncodeNotKey as _, EncodeSerde as _};
                (&&&&#p::codec::KeyEncode(__v)).__encode()
            })
        } else {
            quote_spanned!(ty.span()=> |__v: &#ty| {
                #[allow(unused_imports)]
                use #p::codec::{EncodeDirect as _, EncodeKey as _, EncodeSerde as _};
                (&&&#p::codec::Encode(__v)).__encode()
            })
        };
        quote!(#n: #p::Path::__new(#attr, #encode))
    });
    let restore = restore_key_fields(m);
    let doc = format!("The stored fields of [`{ident}`], for conditions and filters: `{ident}::fields()`.");
    let fn_doc = format!(
        "One typed path per stored field of `{ident}`: `{ident}::fields().<field>.gt(..)` builds a condition for writes, \
         filters and scans, with values encoded as the field's attribute is."
    );
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #fields_ty {
            #(#decls,)*
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #fn_doc]
            #vis fn fields() -> #fields_ty {
                #fields_ty { #(#inits,)* }
            }
        }

        #[automatically_derived]
        impl #p::HasFields for #ident {
            type Fields = #fields_ty;

            fn fields() -> #fields_ty {
                #ident::fields()
            }

            #restore
        }
    }
}

/// `HasFields::__KEY_FIELD_ATTRIBUTES` and `__restore_key_fields`: a view read through an index
/// that does not hold a primary-key field's own attribute reads it back from the keys.
fn restore_key_fields(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let key = super::keys::key_ident(m);
    let entity_type = m.input.entity_type();
    let fields: Vec<&crate::ast::Field<'_>> = m.key_fields().into_iter().map(|i| &m.input.fields[i]).collect();
    let attrs: Vec<&String> = fields.iter().map(|f| &f.attr_name).collect();
    let names = fields.iter().map(|f| f.ident);
    let pk_attr = &m.pk.attr;
    let sk_text = match &m.sk {
        Some(sk) => {
            let sk_attr = &sk.attr;
            quote!(::core::option::Option::Some(#p::codec::key_text(__item, #sk_attr)?))
        }
        None => quote!(::core::option::Option::None),
    };
    let restores = attrs.iter().zip(names).map(|(attr, n)| {
        quote! {
            if !__item.contains_key(#attr) {
                match (&&&&#p::codec::KeyEncode(&__k.#n)).__encode() {
                    ::core::result::Result::Ok(::core::option::Option::Some(__v)) => {
                        __item.insert(::std::borrow::ToOwned::to_owned(#attr), __v);
                    }
                    ::core::result::Result::Ok(::core::option::Option::None) => {}
                    ::core::result::Result::Err(__m) => {
                        return ::core::result::Result::Err(#p::Error::decode(#entity_type, #attr, __m));
                    }
                }
            }
        }
    });
    let body = if attrs.is_empty() {
        quote!(::core::result::Result::Ok(()))
    } else {
        quote! {
            if [#(#attrs),*].iter().all(|__a| __item.contains_key(*__a)) {
                return ::core::result::Result::Ok(());
            }
            #[allow(unused_imports)]
            use #p::codec::{EncodeDirect as _, EncodeKey as _, EncodeNotKey as _, EncodeSerde as _};
            let __k = <#key as #p::EntityKey>::parse_keys(#p::codec::key_text(__item, #pk_attr)?, #sk_text)?;
            #(#restores)*
            ::core::result::Result::Ok(())
        }
    };
    quote! {
        const __KEY_FIELD_ATTRIBUTES: &'static [&'static str] = &[#(#attrs),*];

        fn __restore_key_fields(__item: &mut #p::Item) -> ::core::result::Result<(), #p::Error> {
            #body
        }
    }
}
