//! `<Name>::fields()`: one typed path per stored field, for conditions, filters and updates.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::assert::ttl_value;
use super::private;
use crate::valid::{Model, ReadStep};

pub fn expand(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let fields_ty = format_ident!("{}Fields", ident);
    let fields_name = fields_ty.to_string();
    let stored: Vec<(usize, &crate::ast::Field<'_>)> =
        m.input.fields.iter().enumerate().filter(|(_, f)| f.attrs.skip.is_none()).collect();
    let decls = stored.iter().map(|(i, f)| {
        let n = f.ident;
        let ty = f.ty;
        if f.attrs.encrypt.is_some() {
            // Encrypted: DynamoDB holds ciphertext, so the path offers no comparison.
            let doc = format!("The attribute `{}`, encrypted: no condition or filter compares it.", f.attr_name);
            return quote!(#[doc = #doc] pub #n: #p::expr::Encrypted<#ident, #ty>);
        }
        if f.attrs.with.is_some() {
            // Stored by its module: the whole value compares (the module encodes it); no path
            // reaches into it, the module's stored shape being unknown to the path.
            let doc = format!("The attribute `{}`, stored with a module: compared whole.", f.attr_name);
            return quote!(#[doc = #doc] pub #n: #p::expr::StoredWith<#ident, #ty>);
        }
        if read_only(m, *i) {
            let doc = format!("The attribute `{}`: compared, never written by an update.", f.attr_name);
            return quote!(#[doc = #doc] pub #n: #p::ReadOnly<#ident, #ty>);
        }
        let doc = format!("The attribute `{}`.", f.attr_name);
        quote!(#[doc = #doc] pub #n: #p::Path<#ident, #ty>)
    });
    let tracked = super::update::tracked(m);
    let primary = m.key_fields();
    let inits = stored.iter().map(|(i, f)| {
        let n = f.ident;
        let ty = f.ty;
        let attr = &f.attr_name;
        // The value is encoded by the code that encodes the field in an item.
        // Through the same paths as the item codec: a wrong field type stays one error.
        let encode = if m.ttl == Some(*i) {
            let ttl = ttl_value(&p, f.key_ty());
            if f.option_inner.is_some() {
                quote!(|__v: &#ty| __R::Ok(
                    __O::map(__O::as_ref(__v), |__t| __dc::ttl_number(#ttl::to_epoch_seconds(__t)))
                ))
            } else {
                quote!(|__v: &#ty| __R::Ok(
                    __O::Some(__dc::ttl_number(#ttl::to_epoch_seconds(__v)))
                ))
            }
        } else if m.key_only(*i) {
            // Kept in the keys only: no attribute a condition could compare.
            let message = format!(
                "`{}` is kept only in the item's keys (`key_attributes = false` or `key_attribute = false`), not as an \
                 attribute: a filter or condition on it cannot match; select it with a key condition of a query \
                 instead",
                f.name
            );
            quote_spanned!(ty.span()=> |_: &#ty| __R::Err(::std::borrow::ToOwned::to_owned(#message)))
        } else if f.attrs.with.is_some() {
            // The field's own format (`with = ".."`), as the item codec writes it.
            let encode = super::codec::field_encode(m, *i, quote!(__v));
            quote_spanned!(ty.span()=> |__v: &#ty| #encode)
        } else {
            // The encoder the item codec's dispatch chooses, as a function (no closure per field).
            quote_spanned!(ty.span()=> (&&&&__KD::<#ty>::NEW).__encoder())
        };
        // A field the entity reads its own way: views read it the same way.
        let own_way = f.attrs.with.is_some() || f.attrs.default.is_some() || m.version == Some(*i) || m.ttl == Some(*i);
        let path = if own_way {
            let decode = if m.ttl == Some(*i) {
                // Epoch seconds, as the item codec reads them.
                let ttl = ttl_value(&p, f.key_ty());
                let read = quote!(__dc::ttl_decode(__v, #ttl::from_epoch_seconds));
                if f.option_inner.is_some() { read } else { quote!(__dc::required(#read)) }
            } else {
                super::codec::field_decode(m, *i, quote!(__v))
            };
            let decode = match super::codec::field_default(m, *i) {
                Some(default) => quote! {
                    match __v {
                        __O::None => __R::Ok(#default),
                        __v => #decode,
                    }
                },
                None => decode,
            };
            quote!(__P::__new(#attr, #encode).__with_decode(|__v: __O<#p::AttributeValue>| {
                #decode
            }))
        } else {
            quote!(__P::__new(#attr, #encode))
        };
        // What an update of the field does besides writing it: the index keys made of it, no
        // attribute for a field kept in the keys only, its validator.
        let slot = tracked.iter().position(|t| t == i).map(|n| {
            let n = proc_macro2::Literal::u8_unsuffixed(n as u8);
            quote!(.__slot(#n))
        });
        let key_only = (m.key_only(*i) && !primary.contains(i)).then(|| quote!(.__key_only()));
        let check = f.attrs.validate.as_ref().map(|(_, path)| {
            let (entity, name) = (m.input.entity_type(), &f.name);
            let call = quote_spanned!(path.span()=> (#path as fn(&#ty) -> __R<(), __S>)(__v));
            // A removed `Option` is validated as `None`; another removed field has no value.
            let value = match f.option_inner {
                Some(_) => quote!(let __v = __O::unwrap_or(__v, &__O::None);),
                None => quote!(let __O::Some(__v) = __v else { return __R::Ok(()) };),
            };
            quote!(.__checked(|__v: __O<&#ty>| { #value #p::valid(#entity, __O::Some(#name), #call) }))
        });
        let path = quote!(#path #slot #key_only #check);
        if f.attrs.encrypt.is_some() {
            quote!(#n: #p::expr::Encrypted::__new(#path))
        } else if f.attrs.with.is_some() {
            quote!(#n: #p::expr::StoredWith::__new(#path))
        } else if read_only(m, *i) {
            quote!(#n: #path.__read_only())
        } else {
            quote!(#n: #path)
        }
    });
    let restore = restore_key_fields(m);
    let doc = format!("The stored fields of [`{ident}`], for conditions, filters and updates: `{ident}::fields()`.");
    let fn_doc = format!(
        "One typed path per stored field of `{ident}`: `{ident}::fields().<field>.gt(..)` builds a condition for writes, \
         filters and scans, and `{ident}::update(key).set({ident}::fields().<field>, ..)` writes the field, with \
         values encoded as the field's attribute is."
    );
    quote! {
        #[doc = #doc]
        #vis struct #fields_ty {
            #(#decls,)*
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #fields_ty {
            #[inline] fn clone(&self) -> Self {
                *self
            }
        }

        #[automatically_derived]
        impl ::core::marker::Copy for #fields_ty {}

        #[automatically_derived]
        impl ::core::fmt::Debug for #fields_ty {
            #[inline] fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(#fields_name).finish_non_exhaustive()
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #fn_doc]
            #[inline] #vis fn fields() -> #fields_ty {
                #fields_ty { #(#inits,)* }
            }
        }

        #[automatically_derived]
        impl #p::HasFields for #ident {
            type Fields = #fields_ty;

            #restore
        }
    }
}

/// Whether field `i` is one an update never writes: a primary-key field, the `#[version]`,
/// `#[created_at]`, `#[updated_at]` (its path is a `ReadOnly`). Not one stored with a module or
/// encrypted, whose paths are of their own kinds.
fn read_only(m: &Model<'_>, i: usize) -> bool {
    let f = &m.input.fields[i];
    f.attrs.with.is_none()
        && f.attrs.encrypt.is_none()
        && (m.key_fields().contains(&i) || m.version == Some(i) || m.created_at == Some(i) || m.updated_at == Some(i))
}

/// Each primary-key field's attribute and its encoding, as the item codec writes it
/// (`(&str, Result<Option<AttributeValue>, String>)`, reading `self`, the key): the body of
/// `EntityKey::__attrs`, what a view restores from the keys and an upsert writes.
pub fn key_attrs(m: &Model<'_>) -> Vec<TokenStream> {
    m.key_fields()
        .iter()
        .map(|i| {
            let f = &m.input.fields[*i];
            let attr = &f.attr_name;
            let field = f.ident;
            let encode = super::codec::field_encode(m, *i, quote!(&self.#field));
            quote!((#attr, #encode))
        })
        .collect()
}

/// An index key text as `codec::restore_index` reads it (`codec::KeyText`): the template's
/// literals, shards and fields, each field with its reader (by its placeholder: plain, zero-padded
/// or raw) and the encoder the item codec uses for it.
fn key_text(m: &Model<'_>, key: &crate::valid::Key) -> TokenStream {
    let (attr, source) = (&key.attr, &key.template.source);
    let count = key.shard.as_ref().map_or(0, |s| s.count);
    let unpadded = key.template.shard_unpadded;
    let steps = key.read_steps().into_iter().map(|step| match step {
        ReadStep::Literal(lit) => quote!(__dc::KeyStep::Literal(#lit)),
        ReadStep::Shard => quote!(__dc::KeyStep::Shard),
        ReadStep::Field { field: i, width, raw, joined, .. } => {
            let joined = match joined {
                Some(sep) => quote!(__O::Some(#sep)),
                None => quote!(__O::None),
            };
            let f = &m.input.fields[i];
            let (field, field_attr, ty) = (&f.name, &f.attr_name, f.key_ty());
            let read = match width {
                _ if raw => quote_spanned!(ty.span()=> __dc::read_raw::<#ty>),
                Some(_) => quote_spanned!(ty.span()=> __dc::read_padded::<#ty>),
                None => quote_spanned!(ty.span()=> <#ty as __dc::KeyField>::__read_component),
            };
            let w = width.unwrap_or(0);
            let encode = if super::codec::time_format(m, i).is_some() || f.attrs.with.is_some() {
                // The field's own format, as the item codec writes it.
                let encode = super::codec::field_encode(m, i, quote!(__v));
                quote!(|__v: &#ty| #encode)
            } else {
                quote_spanned!(ty.span()=> (&&&&__KD::<#ty>::NEW).__encoder())
            };
            quote! {
                __dc::KeyStep::Field {
                    field: #field, attr: #field_attr, width: #w, joined: #joined,
                    read: &__dc::FieldRead::<#ty> { read: #read, encode: #encode },
                }
            }
        }
    });
    quote!(__dc::KeyText { attr: #attr, template: #source, shards: (#count, #unpadded), steps: &[#(#steps),*] })
}

/// `HasFields::__key_field_attributes` and `__restore_key_fields`: a view read through an index
/// that does not hold a key field's own attribute reads it back from the keys (the table's, and
/// those of each index whose key attributes the item has).
fn restore_key_fields(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let attr_of = |i: &usize| &m.input.fields[*i].attr_name;
    // The primary key: parsed with the key type's parser.
    let primary = m.key_fields();
    let primary_attrs: Vec<&String> = primary.iter().map(attr_of).collect();
    // Each index: its key fields that are not primary-key fields, parsed from its key texts when
    // the item has them (a sparse index's keys may be absent).
    let mut by_index = Vec::new();
    let mut restore_indexes = Vec::new();
    for index in &m.indexes {
        let keys: Vec<&crate::valid::Key> = std::iter::once(m.index_pk(index))
            .chain(index.sk.as_ref())
            .chain(&index.more_pk)
            .chain(&index.more_sk)
            .collect();
        let mut all_own: Vec<usize> = Vec::new();
        for k in &keys {
            for (i, _) in &k.fields {
                if !primary.contains(i) && !all_own.contains(i) {
                    all_own.push(*i);
                }
            }
        }
        let name = &index.name;
        let mut attrs: Vec<&String> = primary_attrs.clone();
        attrs.extend(all_own.iter().map(attr_of));
        by_index.push(quote!(__O::Some(#name) => &[#(#attrs),*],));
        // A key on a field's own attribute is that attribute: nothing to read back from it. The
        // fields of the index's key texts are.
        let text_keys: Vec<&crate::valid::Key> = keys.iter().copied().filter(|k| k.plain_field().is_none()).collect();
        let own: Vec<usize> = all_own
            .iter()
            .copied()
            .filter(|i| text_keys.iter().any(|k| k.fields.iter().any(|(f, _)| f == i)))
            .filter(|i| !keys.iter().any(|k| k.plain_field() == Some(*i)))
            .collect();
        if own.is_empty() {
            continue;
        }
        let own_attrs: Vec<&String> = own.iter().map(attr_of).collect();
        let key_attrs: Vec<&String> = keys.iter().map(|k| &k.attr).collect();
        let from = text_keys.iter().map(|k| format!("`{}`", k.attr)).collect::<Vec<_>>().join(" and ");
        let texts = text_keys.iter().map(|k| key_text(m, k));
        // Read where a field's attribute is absent, or was read from another index's keys (the
        // two must agree): the runtime's walk over the key texts' parts.
        restore_indexes.push(quote! {
            __dc::restore_index(__item, #entity_type, &[#(#key_attrs),*], &[#(#own_attrs),*], #from, &[#(#texts),*], &mut __restored)?;
        });
    }
    let key_fields = quote!(const __KEY_FIELDS: &'static [&'static str] = &[#(#primary_attrs),*];);
    let by_index = if by_index.is_empty() {
        quote!()
    } else {
        quote! {
            #[inline] fn __key_field_attributes(__index: __O<&str>) -> &'static [&'static str] {
                match __index {
                    #(#by_index)*
                    _ => Self::__KEY_FIELDS,
                }
            }
        }
    };
    if restore_indexes.is_empty() {
        return quote!(#key_fields #by_index);
    }
    quote! {
        #key_fields
        #by_index

        #[inline] fn __restore_key_fields(__item: &mut #p::Item) -> __R<(), #p::Error> {
            let mut __restored: ::std::vec::Vec<(&'static str, &'static str)> = ::std::vec::Vec::new();
            #p::restore_primary_of::<Self>(__item)?;
            #(#restore_indexes)*
            __R::Ok(())
        }
    }
}
