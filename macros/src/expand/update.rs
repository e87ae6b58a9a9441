//! `<Name>::update(key)` and `update_from(&entity)`: the runtime's `Update<Name>`, and what the
//! entity tells it (`Updatable`).
//!
//! An update names fields through `<Name>::fields()` paths (`.set(f.status, ..)`); the actions,
//! the options and the rules (which fields an update may write, index keys kept in step, what an
//! upsert must set) are the runtime's, written once. The derive writes only what it alone can:
//! the fields an upsert must set, and, for an entity with index keys an update can change, the
//! typed glue the runtime's rules ask for (`Update::__upkeep`): each such field's slot, the
//! encoding of a value `update_from` gave, and calls of the generated key formatters.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::keys::{fmt_fn, key_ident};
use super::private;
use crate::valid::Model;

/// The keys of `index` that have attributes of their own (not a field's or the table's key
/// attribute reused), each with `"pk"` or `"sk"`.
fn own_keys(index: &crate::valid::Index) -> Vec<(&crate::valid::Key, &'static str)> {
    let keys = index.pk.iter().map(|k| (k, "pk")).chain(index.sk.iter().map(|k| (k, "sk")));
    keys.filter(|(k, _)| k.reuse.is_none()).collect()
}

/// The stored attribute of field `i`'s `value` (a reference to the field), as the item codec
/// writes it: `Result<Option<AttributeValue>, String>`.
fn unchanged_encode(m: &Model<'_>, i: usize, value: TokenStream) -> TokenStream {
    let p = private(m);
    let f = &m.input.fields[i];
    if m.ttl == Some(i) {
        let ttl = super::assert::ttl_value(&p, f.key_ty());
        if f.option_inner.is_some() {
            quote!(__R::Ok(__O::map(__O::as_ref(#value), |__t| __dc::ttl_number(#ttl::to_epoch_seconds(__t)))))
        } else {
            quote!(__R::Ok(__O::Some(__dc::ttl_number(#ttl::to_epoch_seconds(#value)))))
        }
    } else {
        super::codec::field_encode(m, i, value)
    }
}

/// The fields of index keys that an update can change, by field index: slot `n` is the `n`th.
/// (A key on an attribute written by something else, a field or the table's keys, follows it.)
pub(crate) fn tracked(m: &Model<'_>) -> Vec<usize> {
    let primary = m.key_fields();
    let mut index_fields: Vec<usize> = Vec::new();
    for index in &m.indexes {
        for k in index.pk.iter().chain(index.sk.iter()).filter(|k| k.reuse.is_none()) {
            for i in &k.params() {
                if !primary.contains(i) && !index_fields.contains(i) {
                    index_fields.push(*i);
                }
            }
        }
    }
    index_fields
}

pub fn expand(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let key = key_ident(m);
    let index_fields = tracked(m);
    let upkeep = upkeep(m, &index_fields);
    let from_doc = format!(
        "Starts an update of `entity`'s item. Its current values complete the index keys that the update \
         changes{}.",
        if m.version.is_some() {
            ", and the update applies only if the stored version is still the entity's"
        } else {
            ""
        }
    );
    let given = index_fields.iter().enumerate().map(|(n, i)| {
        let f = m.input.fields[*i].ident;
        let n = Literal::u8_unsuffixed(n as u8);
        quote!(.__given(#n, ::core::clone::Clone::clone(&entity.#f)))
    });
    // The version's conversion to a `u64` (`Version::to_version`) is the runtime's.
    let allow = m
        .version
        .map(|_| quote!(#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_lossless)]));
    let if_version = match m.version {
        Some(i) => {
            let v = m.input.fields[i].ident;
            let version = super::assert::version(&p, m.input.fields[i].ty);
            quote!(.if_version(#version::to_version(entity.#v)))
        }
        None => quote!(),
    };
    let ctor_doc =
        format!("Starts an update of the [`{ident}`] item with `key`: name its fields with `{ident}::fields()`.");
    // What an upsert must set: every stored field without a default (not a key field, not an
    // `Option`, not `#[entity(default)]`, not the version, not skipped).
    let primary = m.key_fields();
    let required = m.input.fields.iter().enumerate().filter(|(i, f)| {
        f.attrs.skip.is_none()
            && f.option_inner.is_none()
            && f.attrs.default.is_none()
            && !primary.contains(i)
            && m.version != Some(*i)
            && m.created_at != Some(*i)
            && m.updated_at != Some(*i)
    });
    let required = required.map(|(_, f)| {
        let attr = &f.attr_name;
        let name = &f.name;
        quote!((#attr, #name))
    });
    quote! {
        #[automatically_derived]
        impl #p::Updatable for #ident {
            const __REQUIRED: &'static [(&'static str, &'static str)] = &[#(#required),*];
            #upkeep
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #ctor_doc]
            #[inline] #vis fn update(key: #key) -> #p::Update<#ident> {
                #p::Update::__new(key)
            }

            #[doc = #from_doc]
            #allow
            #[inline] #vis fn update_from(entity: &#ident) -> #p::Update<#ident> {
                #p::Update::__new(#p::Entity::primary_key(entity)) #(#given)* #if_version
            }
        }
    }
}

/// `Updatable::__upkeep` where the entity has index keys an update can change (or an upsert's
/// `#[created_at]` keys something): the description of the entity's index keys that the runtime
/// keeps in step (`Update::__upkeep` decides which it rewrites, removes or
/// cannot build, what it checks unchanged and what an upsert writes), and the typed glue it
/// asks for: each tracked field's slot, the encoding of a value `update_from` gave, the key
/// texts of an index from the key and the fields' values, and from the fields' defaults.
/// `tracked`: the fields of index keys that an update can change, by field index (slot `n` is
/// `tracked[n]`).
fn upkeep(m: &Model<'_>, tracked: &[usize]) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let primary = m.key_fields();
    let slot = |i: &usize| tracked.iter().position(|t| t == i);
    // Each tracked field: `(slot, value, given)` locals, its description and the encoding of its
    // given value (`__g`, a reference), for the runtime to check unchanged when its rules say so.
    let mut locals = Vec::new();
    let mut fields = Vec::new();
    let mut given = Vec::new();
    for (n, i) in tracked.iter().enumerate() {
        let f = &m.input.fields[*i];
        let (s, x, g) = (format_ident!("__s{}", n), format_ident!("__x{}", n), format_ident!("__g{}", n));
        let slot = Literal::u8_unsuffixed(n as u8);
        locals.push(match f.option_inner {
            Some(inner) => quote!(let (#s, #x, #g) = #p::Slot::of_option::<#inner>(&__v, #slot);),
            None => {
                let ty = f.ty;
                quote!(let (#s, #x, #g) = #p::Slot::of::<#ty>(&__v, #slot);)
            }
        });
        let mut flags = 0u8;
        if f.option_inner.is_some() {
            flags |= 1; // UpkeepField::OPTION
        }
        if f.attrs.default.is_some() {
            flags |= 2; // UpkeepField::DEFAULT
        }
        if !m.key_only(*i) {
            flags |= 4; // UpkeepField::STORED
        }
        if m.version == Some(*i) {
            flags |= 8; // UpkeepField::VERSION
        }
        let encode = unchanged_encode(m, *i, quote!(__g));
        let n = Literal::usize_unsuffixed(n);
        given.push(quote!(#n => __O::map(#g, |__g| #encode),));
        let (name, attr) = (&f.name, &f.attr_name);
        let flags = Literal::u8_unsuffixed(flags);
        fields.push(quote!(#p::UpkeepField(#name, #attr, #flags)));
    }
    let slots = (0..tracked.len()).map(|n| format_ident!("__s{}", n));
    let values: Vec<_> = (0..tracked.len()).map(|n| format_ident!("__x{}", n)).collect();

    let mut indexes = Vec::new();
    let mut texts = Vec::new();
    let mut defaults = Vec::new();
    let mut created = Vec::new();
    for (place, index) in m.indexes.iter().enumerate() {
        let keys = own_keys(index);
        if keys.is_empty() {
            continue;
        }
        let n = Literal::usize_unsuffixed(indexes.len());
        // The fields besides the key's, each once, in the order the templates name them.
        let mut components: Vec<usize> = Vec::new();
        for (k, _) in &keys {
            for i in k.params() {
                if !primary.contains(&i) && !components.contains(&i) {
                    components.push(i);
                }
            }
        }
        // Its place in the schema's indexes, which name it and its key attributes.
        let place = Literal::usize_unsuffixed(place);
        let own_pk = keys.iter().any(|(_, which)| *which == "pk");
        let own_sk = keys.iter().any(|(_, which)| *which == "sk");
        let slot_numbers = components.iter().filter_map(slot).map(Literal::usize_unsuffixed);
        indexes.push(quote!(#p::UpkeepIndex(#place, #own_pk, #own_sk, &[#(#slot_numbers),*])));
        // The key texts, with each component's value in `arg(i)`.
        let key_texts = |arg: &dyn Fn(usize) -> TokenStream| {
            let calls = keys.iter().map(|(k, which)| {
                let f = fmt_fn(&index.label, which);
                let args = k.params().into_iter().map(|i| {
                    if primary.contains(&i) {
                        let n = m.input.fields[i].ident;
                        quote!(&__key.#n)
                    } else {
                        arg(i)
                    }
                });
                quote!(#ident::#f(__KB::new(), #(#args),*))
            });
            quote!(<::std::vec::Vec<_> as ::core::convert::From<_>>::from([#(#calls),*]))
        };
        // From the values set or given: each component known and present.
        let patterns = (0..tracked.len()).map(|t| {
            if components.iter().any(|i| slot(i) == Some(t)) {
                let x = &values[t];
                quote!(__O::Some(#x))
            } else {
                quote!(_)
            }
        });
        let from_values = key_texts(&|i| {
            let x = format_ident!("__x{}", slot(&i).unwrap_or_default());
            quote!(#x)
        });
        texts.push(quote!((#n, #(#patterns,)*) => __O::Some(#from_values),));
        // From the defaults, when every component has one.
        let defaultable = |i: &usize| {
            m.input.fields[*i].option_inner.is_none()
                && m.input.fields[*i].attrs.default.is_some()
                && m.created_at != Some(*i)
        };
        // From `#[created_at]` (an upsert's, computed when it is sent) and the defaults.
        if let Some(c) = m.created_at
            && components.contains(&c)
            && components.iter().all(|i| *i == c || (defaultable(i) && m.version != Some(*i)))
        {
            created.push(created_index(m, &n, index, &keys, &components, c));
        }
        if !components.is_empty() && components.iter().all(defaultable) {
            let lets = components.iter().map(|i| {
                let d = format_ident!("__d{}", i);
                let ty = m.input.fields[*i].ty;
                let default = super::codec::field_default(m, *i);
                quote!(let #d: #ty = #default;)
            });
            let encodings = components.iter().map(|i| {
                let d = format_ident!("__d{}", i);
                unchanged_encode(m, *i, quote!(&#d))
            });
            let from_defaults = key_texts(&|i| {
                let d = format_ident!("__d{}", i);
                quote!(&#d)
            });
            defaults.push(quote! {
                #n => {
                    #(#lets)*
                    __O::Some((<::std::vec::Vec<_> as ::core::convert::From<_>>::from([#(#encodings),*]), #from_defaults))
                }
            });
        }
    }

    let none = quote!(__O::None);
    let created = created_fn(m, tracked, &created);
    let take = quote!(let (__v, __O::Some(__key)) = __u.__values() else { return };);
    if indexes.is_empty() {
        if created.is_empty() {
            return quote!();
        }
        return quote! {
            #[inline] fn __upkeep(__u: &mut #p::Update<Self>) {
                #take
                let _ = &__v;
                __u.__upkeep(__O::Some(&__key), &#p::Upkeep::NONE, #p::Glue::NONE);
                #created
            }
        };
    }
    // The closures are locals, not arguments: the generated code stays shallow.
    let (given, with_given) = if given.is_empty() {
        (quote!(), quote!())
    } else {
        (quote!(let __given = |__n: usize| match __n { #(#given)* _ => #none };), quote!(.given(&__given)))
    };
    let (defaults, with_defaults) = if defaults.is_empty() {
        (quote!(), quote!())
    } else {
        (quote!(let __defaults = |__i: usize| match __i { #(#defaults)* _ => #none };), quote!(.defaults(&__defaults)))
    };
    quote! {
        #[inline] fn __upkeep(__u: &mut #p::Update<Self>) {
            #take
            #(#locals)*
            const __UPKEEP: #p::Upkeep = #p::Upkeep(&[#(#fields),*], &[#(#indexes),*]);
            #given
            let __texts = |__i: usize| match (__i, #(#values,)*) { #(#texts)* _ => #none };
            #defaults
            __u.__upkeep(__O::Some(&__key), &__UPKEEP, #p::Glue::new(&[#(#slots),*], &__texts)#with_given #with_defaults);
            #created
        }
    }
}

/// The key texts of index `index` (number `n` among those with keys of their own, `keys`) made
/// of `#[created_at]` (field `c`, its value in `__c`), key fields and defaulted fields, pushed
/// onto `__keys` with the defaults' encodings: a statement of the closure of [`created_fn`].
fn created_index(
    m: &Model<'_>,
    n: &Literal,
    index: &crate::valid::Index,
    keys: &[(&crate::valid::Key, &'static str)],
    components: &[usize],
    c: usize,
) -> TokenStream {
    let ident = m.input.ident;
    let primary = m.key_fields();
    let option = m.input.fields[c].option_inner.is_some();
    let lets = components.iter().filter(|i| **i != c).map(|i| {
        let d = format_ident!("__d{}", i);
        let ty = m.input.fields[*i].ty;
        let default = super::codec::field_default(m, *i);
        quote!(let #d: #ty = #default;)
    });
    let encodings = components.iter().map(|i| {
        if *i == c {
            quote!(__R::Ok(__O::None))
        } else {
            let d = format_ident!("__d{}", i);
            unchanged_encode(m, *i, quote!(&#d))
        }
    });
    let calls = keys.iter().map(|(k, which)| {
        let f = fmt_fn(&index.label, which);
        let args = k.params().into_iter().map(|i| {
            if primary.contains(&i) {
                let n = m.input.fields[i].ident;
                quote!(&__key.#n)
            } else if i == c {
                quote!(__ci)
            } else {
                let d = format_ident!("__d{}", i);
                quote!(&#d)
            }
        });
        quote!(#ident::#f(__KB::new(), #(#args),*))
    });
    let push = quote! {
        #(#lets)*
        __keys.push((#n, <::std::vec::Vec<_> as ::core::convert::From<_>>::from([#(#encodings),*]), <::std::vec::Vec<_> as ::core::convert::From<_>>::from([#(#calls),*])));
    };
    if option { quote!(if let __O::Some(__ci) = &__c { #push }) } else { quote!({ let __ci = &__c; #push }) }
}

/// Where `#[created_at]` keys something (the primary key, or an index: `indexes`, the
/// statements of [`created_index`]), the closure an upsert computes its value and those index
/// keys with (`Update::__created`): the key's value, else the one `update_from` gave, else the
/// clock's. Nothing otherwise: the clock's reading is then all an upsert writes.
fn created_fn(m: &Model<'_>, tracked: &[usize], indexes: &[TokenStream]) -> TokenStream {
    let p = private(m);
    let Some(c) = m.created_at else { return quote!() };
    let f = &m.input.fields[c];
    let primary = m.key_fields().contains(&c);
    if !primary && indexes.is_empty() {
        return quote!();
    }
    let (ty, n, entity_type) = (f.ty, f.ident, m.input.entity_type());
    let fill = quote_spanned!(ty.span()=> <#ty as #p::FilledTime>::__filled);
    let (capture, value) = if primary {
        (quote!(), quote!(::core::clone::Clone::clone(&__key.#n)))
    } else if let Some(n) = tracked.iter().position(|t| *t == c) {
        let n = Literal::u8_unsuffixed(n as u8);
        (
            quote!(let __given: __O<#ty> = __O::map(__v.given::<#ty>(#n), ::core::clone::Clone::clone);),
            quote!(match &__given {
                __O::Some(__g) => ::core::clone::Clone::clone(__g),
                __O::None => #p::filled(#entity_type, __now, #fill)?,
            }),
        )
    } else {
        (quote!(), quote!(#p::filled(#entity_type, __now, #fill)?))
    };
    let encode = super::codec::field_encode(m, c, quote!(&__c));
    let encode = if m.key_only(c) { quote!(__R::Ok(__O::None)) } else { encode };
    quote! {
        {
            let __key = ::core::clone::Clone::clone(&__key);
            #capture
            __u.__created(::std::boxed::Box::new(move |__now: ::std::time::SystemTime| -> __R<#p::Created, #p::Error> {
                let _ = (&__now, &__key);
                let __c: #ty = #value;
                #[allow(unused_mut)]
                let mut __keys = ::std::vec::Vec::new();
                #(#indexes)*
                __R::Ok(#p::Created(#encode, __keys))
            }));
        }
    }
}
