//! `<Name>::update(key)`: a typed update builder that keeps index keys in step.
//!
//! Setters exist for every stored field except the primary-key fields (they are the item's
//! identity) and the `#[version]` (managed): `set_<f>`, `remove_<f>` for `Option`s, `add_<f>` for
//! numbers and `append_<f>` for `Vec`s that are not part of an index key. Setting a field that is
//! part of an index key also rewrites that index's key attributes in the same request (or
//! removes them when the index becomes sparse); if the index key needs another field the update
//! does not set, the update fails with `Error::Validation` before anything is sent.
//!
//! The rules of index-key maintenance (which index an update touches, what it misses, when the
//! item leaves a sparse index, which given values are checked unchanged, what an upsert must set
//! and also writes) live in the runtime (`Update::__upkeep`). The conversion of the builder into
//! an `Update` only describes the entity's index keys to it and supplies the typed glue: where
//! each field's value stands, its encoding, and calls of the generated key formatters.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::keys::{fmt_fn, key_ident};
use super::private;
use crate::ast::Field;
use crate::valid::Model;

const NUMBERS: &[&str] =
    &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64"];

pub(crate) fn is_number(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| NUMBERS.contains(&i.to_string().as_str())))
}

/// `T` of a `Vec<T>` field.
pub(crate) fn vec_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

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
            quote!(::core::result::Result::Ok(::core::option::Option::map(::core::option::Option::as_ref(#value), |__t| #p::codec::ttl_number(#ttl::to_epoch_seconds(__t)))))
        } else {
            quote!(::core::result::Result::Ok(::core::option::Option::Some(#p::codec::ttl_number(#ttl::to_epoch_seconds(#value)))))
        }
    } else {
        super::codec::field_encode(m, i, value)
    }
}

pub fn expand(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let key = key_ident(m);
    let builder = format_ident!("{}Update", ident);
    let entity_type = m.input.entity_type();
    let primary = m.key_fields();

    // Fields of index keys that an update can change, by field index.
    let mut index_fields: Vec<usize> = Vec::new();
    // (A key on an attribute written by something else, a field or the table's keys, follows it.)
    for index in &m.indexes {
        for k in index.pk.iter().chain(index.sk.iter()).filter(|k| k.reuse.is_none()) {
            for i in &k.params() {
                if !primary.contains(i) && !index_fields.contains(i) {
                    index_fields.push(*i);
                }
            }
        }
    }
    let tracked: Vec<&Field<'_>> = index_fields.iter().map(|i| &m.input.fields[*i]).collect();
    let tracked_names: Vec<_> = tracked.iter().map(|f| format_ident!("__v_{}", f.name)).collect();
    let context_names: Vec<_> = tracked.iter().map(|f| format_ident!("__c_{}", f.name)).collect();
    let tracked_idents: Vec<_> = tracked.iter().map(|f| f.ident).collect();
    let tracked_tys: Vec<_> = tracked.iter().map(|f| f.ty).collect();

    let mut methods = Vec::new();
    for (i, f) in m.input.fields.iter().enumerate() {
        // The fields the library fills have no setter: every update sets `#[updated_at]`, none
        // changes `#[created_at]`.
        if f.attrs.skip.is_some()
            || primary.contains(&i)
            || m.version == Some(i)
            || m.created_at == Some(i)
            || m.updated_at == Some(i)
        {
            continue;
        }
        let attr = &f.attr_name;
        let ty = f.ty;
        let name = &f.name;
        let set = format_ident!("set_{}", f.name);
        let track = if index_fields.contains(&i) {
            let t = format_ident!("__v_{}", f.name);
            quote!(self.#t = ::core::option::Option::Some(__v);)
        } else {
            quote!()
        };
        let is_ttl = m.ttl == Some(i);
        let plain_checks = super::plain::update_checks(m, i);
        let key_only = m.key_only(i);
        let encode = |v: TokenStream| {
            if key_only {
                // Kept in the keys only (`key_attributes = false`): the index keys carry it.
                quote!(let _ = &#v;)
            } else if is_ttl {
                // The same path as every other use of the TTL type: a wrong type is one error.
                let ttl = super::assert::ttl_value(&p, f.key_ty());
                if f.option_inner.is_some() {
                    quote!(self.__u.__set(#attr, ::core::option::Option::as_ref(&#v).map(|__t| #p::codec::ttl_number(#ttl::to_epoch_seconds(__t))));)
                } else {
                    quote!(self.__u.__set(#attr, ::core::option::Option::Some(#p::codec::ttl_number(#ttl::to_epoch_seconds(&#v))));)
                }
            } else if f.attrs.with.is_some() && plain_checks.is_empty() {
                // The field's own format (`with = ".."`), as the item codec writes it.
                let encode = super::codec::field_encode(m, i, quote!(&#v));
                quote!(self.__u.__set_encoded(#attr, #encode);)
            } else if plain_checks.is_empty() {
                quote!(self.__u.__set_encoded(#attr, (&&&&__KE(&#v)).__encode());)
            } else {
                // The field is an index key on its own attribute: its value (in the field's own
                // format, `with` a module or not) is checked as a key.
                let encoded = if f.attrs.with.is_some() {
                    super::codec::field_encode(m, i, quote!(&#v))
                } else {
                    quote!((&&&&__KE(&#v)).__encode())
                };
                quote! {
                    match #encoded {
                        ::core::result::Result::Ok(__av) => {
                            #plain_checks
                            self.__u.__set(#attr, __av)
                        }
                        ::core::result::Result::Err(__m) => self.__u.__fail(#p::codec::encode_error(#entity_type, #attr, __m)),
                    }
                }
            }
        };
        // The field's validator runs on the value each setter carries; a refusal is reported
        // when the update is sent, before anything is.
        let check = match &f.attrs.validate {
            Some((_, path)) => {
                let call = quote::quote_spanned!(syn::spanned::Spanned::span(path)=> (#path as fn(&#ty) -> ::core::result::Result<(), ::std::string::String>)(&__v));
                quote! {
                    if let ::core::result::Result::Err(__e) = #p::valid(#entity_type, ::core::option::Option::Some(#name), #call) {
                        self.__u.__fail(__e);
                    }
                }
            }
            None => quote!(),
        };
        let set_doc = format!("Sets `{name}`.");
        match f.option_inner {
            Some(inner) => {
                let enc = encode(quote!(__v));
                let inner_name = quote!(#inner).to_string().replace(' ', "");
                let set_doc = format!(
                    "Sets `{name}` to `Some(value)`: the setter takes the value inside the `Option` (a \
                     `{inner_name}`). To set it to `None` (the attribute removed), call `remove_{name}()`."
                );
                methods.push(quote! {
                    #[doc = #set_doc]
                    #[inline] pub fn #set(mut self, value: impl #p::IntoValue<#inner>) -> Self {
                        let __v: #ty = ::core::option::Option::Some(#p::IntoValue::into_value(value));
                        #check
                        #enc
                        #track
                        self
                    }
                });
                let remove = format_ident!("remove_{}", f.name);
                let doc = format!(
                    "Removes `{name}` (sets it to `None`: the attribute is removed; an index it keys no longer holds \
                     the item). `set_{name}(value)` sets `Some(value)`."
                );
                methods.push(quote! {
                    #[doc = #doc]
                    #[inline] pub fn #remove(mut self) -> Self {
                        let __v: #ty = ::core::option::Option::None;
                        #check
                        self.__u.__set(#attr, ::core::option::Option::None);
                        #track
                        self
                    }
                });
            }
            None => {
                let enc = encode(quote!(__v));
                methods.push(quote! {
                    #[doc = #set_doc]
                    #[inline] pub fn #set(mut self, value: impl #p::IntoValue<#ty>) -> Self {
                        let __v: #ty = #p::IntoValue::into_value(value);
                        #check
                        #enc
                        #track
                        self
                    }
                });
            }
        }
        if index_fields.contains(&i) || is_ttl || f.attrs.with.is_some() {
            continue;
        }
        if is_number(ty) {
            let add = format_ident!("add_{}", f.name);
            let doc = format!("Adds `n` to `{name}` atomically (`ADD`): concurrent additions all count.");
            methods.push(quote! {
                #[doc = #doc]
                #[inline] pub fn #add(mut self, n: #ty) -> Self {
                    self.__u.__add(#attr, #p::AttributeValue::N(::std::string::ToString::to_string(&n)));
                    self
                }
            });
        }
        if let Some(elem) = vec_inner(ty) {
            let append = format_ident!("append_{}", f.name);
            let doc = format!("Appends to the list `{name}` (`list_append`), creating it if absent.");
            methods.push(quote! {
                #[doc = #doc]
                #[inline] pub fn #append(mut self, items: impl ::core::iter::IntoIterator<Item = #elem>) -> Self {
                    let __l: #ty = ::core::iter::Iterator::collect(::core::iter::IntoIterator::into_iter(items));
                    self.__u.__append_encoded(#attr, (&&&&__KE(&__l)).__encode());
                    self
                }
            });
        }
    }

    let upkeep = upkeep(m, &index_fields);
    let doc = format!("A typed update of a [`{ident}`] item; run it with `Table::update`.");
    let from_doc = format!(
        "Starts an update of `entity`'s item. Its current values complete the index keys that the update \
         changes{}.",
        if m.version.is_some() {
            ", and the update applies only if the stored version is still the entity's"
        } else {
            ""
        }
    );
    let if_version = match m.version {
        Some(i) => {
            let v = m.input.fields[i].ident;
            let version = super::assert::version(&p, m.input.fields[i].ty);
            quote!(__b.if_version(#version::to_version(entity.#v)))
        }
        None => quote!(__b),
    };
    let ctor_doc = format!("Starts an update of the [`{ident}`] item with `key`.");
    quote! {
        #[doc = #doc]
        #[must_use = "an update does nothing until it is run by a `Table`"]
        #vis struct #builder {
            __u: #p::Update<#ident>,
            __key: #key,
            #(#tracked_names: ::core::option::Option<#tracked_tys>,)*
            #(#context_names: ::core::option::Option<#tracked_tys>,)*
        }

        impl ::core::fmt::Debug for #builder {
            #[inline] fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.__u, f)
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #ctor_doc]
            #[inline] #vis fn update(key: #key) -> #builder {
                let __item = #p::EntityKey::to_key_item(&key);
                #builder {
                    __u: #p::Update::__new(__item),
                    __key: key,
                    #(#tracked_names: ::core::option::Option::None,)*
                    #(#context_names: ::core::option::Option::None,)*
                }
            }

            #[doc = #from_doc]
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_lossless, clippy::needless_update)]
            #[inline] #vis fn update_from(entity: &#ident) -> #builder {
                let __b = #builder {
                    #(#context_names: ::core::option::Option::Some(::core::clone::Clone::clone(&entity.#tracked_idents)),)*
                    ..#ident::update(#p::Entity::primary_key(entity))
                };
                #if_version
            }
        }

        #[automatically_derived]
        #[allow(clippy::needless_update)]
        impl #builder {
            #(#methods)*

            /// Creates the item if it does not exist (by default a missing item is `Error::NotFound`).
            /// The update must then set every field that is not an `Option` (nor a key field, a
            /// defaulted field or the version), else `Error::Validation` before sending: the item it may create must be
            /// readable. It also writes the key fields' attributes and the index keys made of them.
            #[inline] pub fn upsert(self) -> Self {
                Self { __u: self.__u.upsert(), ..self }
            }

            /// Applies only if the stored `#[version]` is `version`, else `Error::VersionConflict`.
            #[inline] pub fn if_version(self, version: u64) -> Self {
                Self { __u: self.__u.if_version(version), ..self }
            }

            /// Applies only if `condition` holds on the stored item (besides the existence and
            /// version checks), else `Error::ConditionFailed`.
            #[inline] pub fn condition(self, condition: #p::Condition<#ident>) -> Self {
                Self { __u: self.__u.condition(condition), ..self }
            }

            /// On a failed condition, `Error::ConditionFailed` holds the item as it was.
            #[inline] pub fn return_old_on_failure(self) -> Self {
                Self { __u: self.__u.return_old_on_failure(), ..self }
            }

            /// Sends the update as a one-action `TransactWriteItems` with a token of its own, so
            /// that it may be retried safely (an `ADD` or an append counts once); see
            /// `Update::idempotent` for what it costs.
            #[inline] pub fn idempotent(self) -> Self {
                Self { __u: self.__u.idempotent(), ..self }
            }

            /// The request this update sends, or why it cannot be sent.
            #[inline] pub fn request(self) -> ::core::result::Result<#p::UpdateRequest, #p::Error> {
                <#p::Update<#ident> as ::core::convert::From<Self>>::from(self).request()
            }
        }

        #[automatically_derived]
        impl ::core::convert::From<#builder> for #p::Update<#ident> {
            #[inline] fn from(b: #builder) -> Self {
                #upkeep
            }
        }
    }
}

/// The body of `From<<Name>Update> for Update<Name>`: the description of the entity's index keys
/// that the runtime keeps in step (`Update::__upkeep` decides which it rewrites, removes or
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
        let (v, c) = (format_ident!("__v_{}", f.name), format_ident!("__c_{}", f.name));
        let of = if f.option_inner.is_some() { quote!(of_option) } else { quote!(of) };
        locals.push(quote!(let (#s, #x, #g) = #p::Slot::#of(&b.#v, &b.#c);));
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
        given.push(quote!(#n => ::core::option::Option::map(#g, |__g| #encode),));
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
                quote!(#ident::#f(#p::key::KeyBuilder::new(), #(#args),*))
            });
            quote!(::std::vec::Vec::from([#(#calls),*]))
        };
        // From the values set or given: each component known and present.
        let patterns = (0..tracked.len()).map(|t| {
            if components.iter().any(|i| slot(i) == Some(t)) {
                let x = &values[t];
                quote!(::core::option::Option::Some(#x))
            } else {
                quote!(_)
            }
        });
        let from_values = key_texts(&|i| {
            let x = format_ident!("__x{}", slot(&i).unwrap_or_default());
            quote!(#x)
        });
        texts.push(quote!((#n, #(#patterns,)*) => ::core::option::Option::Some(#from_values),));
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
                    ::core::option::Option::Some((::std::vec::Vec::from([#(#encodings),*]), #from_defaults))
                }
            });
        }
    }

    // What an upsert must set: every stored field without a default (not a key field, not an
    // `Option`, not `#[entity(default)]`, not the version, not skipped).
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
    // The key fields as their own attributes, but those kept in the keys only
    // (`key_attributes = false`, `key_attribute = false` on the field), and those whose own
    // attribute is the table's key (a natural key: the key itself, never in an update expression).
    let natural = |i: usize| m.pk.plain_field() == Some(i) || m.sk.as_ref().is_some_and(|k| k.plain_field() == Some(i));
    let stored: Vec<bool> = primary.iter().map(|i| !m.key_only(*i) && !natural(*i)).collect();
    let key_attrs_fn = super::fields::key_attrs_fn();
    let key_attrs = if stored.iter().all(|s| *s) {
        quote!(__key.#key_attrs_fn())
    } else if !stored.iter().any(|s| *s) {
        quote!([])
    } else {
        let names: Vec<syn::Ident> = (0..stored.len()).map(|n| format_ident!("__k{}", n)).collect();
        let pats = names.iter().zip(&stored).map(|(n, s)| if *s { quote!(#n) } else { quote!(_) });
        let kept = names.iter().zip(&stored).filter(|(_, s)| **s).map(|(n, _)| n);
        quote!({ let [#(#pats),*] = __key.#key_attrs_fn(); [#(#kept),*] })
    };
    let none = quote!(::core::option::Option::None);
    let created = created_fn(m, tracked, &created);
    if indexes.is_empty() {
        return quote! {
            let (mut __u, __key) = (b.__u, b.__key);
            __u.__upkeep_no_indexes(&[#(#required),*], #key_attrs);
            #created
            __u
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
        let (mut __u, __key) = (b.__u, b.__key);
        #(#locals)*
        const __UPKEEP: #p::Upkeep = #p::Upkeep(&[#(#fields),*], &[#(#indexes),*]);
        #given
        let __texts = |__i: usize| match (__i, #(#values,)*) { #(#texts)* _ => #none };
        #defaults
        __u.__upkeep(&[#(#required),*], #key_attrs, &__UPKEEP, #p::Glue::new(&[#(#slots),*], &__texts)#with_given #with_defaults);
        #created
        __u
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
    let p = private(m);
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
            quote!(::core::result::Result::Ok(::core::option::Option::None))
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
        quote!(#ident::#f(#p::key::KeyBuilder::new(), #(#args),*))
    });
    let push = quote! {
        #(#lets)*
        __keys.push((#n, ::std::vec::Vec::from([#(#encodings),*]), ::std::vec::Vec::from([#(#calls),*])));
    };
    if option {
        quote!(if let ::core::option::Option::Some(__ci) = &__c { #push })
    } else {
        quote!({ let __ci = &__c; #push })
    }
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
    } else if tracked.contains(&c) {
        let given = format_ident!("__c_{}", f.name);
        (
            quote!(let __given: ::core::option::Option<#ty> = ::core::clone::Clone::clone(&b.#given);),
            quote!(match &__given {
                ::core::option::Option::Some(__g) => ::core::clone::Clone::clone(__g),
                ::core::option::Option::None => #p::filled(#entity_type, __now, #fill)?,
            }),
        )
    } else {
        (quote!(), quote!(#p::filled(#entity_type, __now, #fill)?))
    };
    let encode = super::codec::field_encode(m, c, quote!(&__c));
    let encode = if m.key_only(c) { quote!(::core::result::Result::Ok(::core::option::Option::None)) } else { encode };
    quote! {
        {
            let __key = ::core::clone::Clone::clone(&__key);
            #capture
            __u.__created(::std::boxed::Box::new(move |__now: ::std::time::SystemTime| -> ::core::result::Result<#p::Created, #p::Error> {
                let _ = (&__now, &__key);
                let __c: #ty = #value;
                #[allow(unused_mut)]
                let mut __keys = ::std::vec::Vec::new();
                #(#indexes)*
                ::core::result::Result::Ok(#p::Created(#encode, __keys))
            }));
        }
    }
}
