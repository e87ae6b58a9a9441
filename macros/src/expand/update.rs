//! `<Name>::update(key)`: a typed update builder that keeps index keys in step.
//!
//! Setters exist for every stored field except the primary-key fields (they are the item's
//! identity) and the `#[version]` (managed): `set_<f>`, `remove_<f>` for `Option`s, `add_<f>` for
//! numbers and `append_<f>` for `Vec`s that are not part of an index key. Setting a field that is
//! part of an index key also rewrites that index's key attributes in the same request (or
//! removes them when the index becomes sparse); if the index key needs another field the update
//! does not set, the update fails with `Error::Validation` before anything is sent.
//!
//! An upsert must create a readable item: the generated conversion tells the runtime which
//! fields it must set (those without a default), and which attributes it also writes (the key
//! fields' own attributes, and the index keys made of key fields only, which no setter changes).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Type;

use super::keys::{fmt_fn, key_ident};
use super::private;
use crate::ast::Field;
use crate::valid::Model;

const NUMBERS: &[&str] =
    &["u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64"];

fn is_number(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| NUMBERS.contains(&i.to_string().as_str())))
}

/// `T` of a `Vec<T>` field.
fn vec_inner(ty: &Type) -> Option<&Type> {
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
        if f.attrs.skip.is_some() || primary.contains(&i) || m.version == Some(i) {
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
            } else if f.attrs.with.is_some() {
                // The field's own format (`with = ".."`), as the item codec writes it.
                let encode = super::codec::field_encode(m, i, quote!(&#v));
                quote!(self.__u.__set_encoded(#entity_type, #attr, #encode);)
            } else if plain_checks.is_empty() {
                quote!(self.__u.__set_encoded(#entity_type, #attr, (&&&&#p::codec::KeyEncode(&#v)).__encode());)
            } else {
                // The field is an index key on its own attribute: its value is checked as a key.
                quote! {
                    match (&&&&#p::codec::KeyEncode(&#v)).__encode() {
                        ::core::result::Result::Ok(__av) => {
                            #plain_checks
                            self.__u.__set(#attr, __av)
                        }
                        ::core::result::Result::Err(__m) => self.__u.__fail(#p::codec::encode_error(#entity_type, #attr, __m)),
                    }
                }
            }
        };
        let set_doc = format!("Sets `{name}`.");
        match f.option_inner {
            Some(inner) => {
                let enc = encode(quote!(__v));
                methods.push(quote! {
                    #[doc = #set_doc]
                    pub fn #set(mut self, value: impl #p::IntoValue<#inner>) -> Self {
                        let __v: #ty = ::core::option::Option::Some(#p::IntoValue::into_value(value));
                        #enc
                        #track
                        self
                    }
                });
                let remove = format_ident!("remove_{}", f.name);
                let doc = format!("Removes `{name}` (sets it to `None`).");
                methods.push(quote! {
                    #[doc = #doc]
                    pub fn #remove(mut self) -> Self {
                        let __v: #ty = ::core::option::Option::None;
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
                    pub fn #set(mut self, value: impl #p::IntoValue<#ty>) -> Self {
                        let __v: #ty = #p::IntoValue::into_value(value);
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
                pub fn #add(mut self, n: #ty) -> Self {
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
                pub fn #append(mut self, items: impl ::core::iter::IntoIterator<Item = #elem>) -> Self {
                    let __l: #ty = ::core::iter::Iterator::collect(::core::iter::IntoIterator::into_iter(items));
                    self.__u.__append_encoded(#entity_type, #attr, (&&&&#p::codec::KeyEncode(&__l)).__encode());
                    self
                }
            });
        }
    }

    // Index-key maintenance, when the builder becomes an `Update`.
    let index_steps = m.indexes.iter().filter_map(|index| {
        let keys = own_keys(index);
        if keys.is_empty() {
            return None;
        }
        let mut fields: Vec<usize> = Vec::new();
        for (k, _) in &keys {
            for i in k.params() {
                if !fields.contains(&i) {
                    fields.push(i);
                }
            }
        }
        let touched: Vec<_> =
            fields.iter().filter(|i| index_fields.contains(i)).map(|i| format_ident!("__v_{}", m.input.fields[*i].name)).collect();
        if touched.is_empty() {
            return None;
        }
        let index_name = &index.name;
        // Each field that is not a primary-key field: `Some(Some(&v))` when known and present,
        // `Some(None)` when it is `None` (the item leaves a sparse index), `None` when neither
        // set nor given (noted in `__missing`).
        let unknown: Vec<usize> = fields.iter().copied().filter(|i| !primary.contains(i)).collect();
        let local = |i: usize| format_ident!("__x_{}", m.input.fields[i].name);
        let locals: Vec<_> = unknown.iter().map(|i| local(*i)).collect();
        let mut reads = Vec::new();
        let mut unchanged = Vec::new();
        let mut leaves = Vec::new();
        for i in &unknown {
            let f = &m.input.fields[*i];
            let name = &f.name;
            let tracked = format_ident!("__v_{}", f.name);
            let context = format_ident!("__c_{}", f.name);
            let l = local(*i);
            let some = if f.option_inner.is_some() {
                // A `None` component: the item leaves the (sparse) index, whatever the others.
                leaves.push(quote!(::core::matches!(#l, ::core::option::Option::Some(::core::option::Option::None))));
                quote!(::core::option::Option::as_ref)
            } else {
                quote!(::core::option::Option::Some)
            };
            // The value set by this update, else the current value `update_from` was given.
            reads.push(quote! {
                let #l = ::core::option::Option::map(#p::codec::current(&#tracked, &#context, #name, &mut __missing), #some);
            });
            // A value taken from `update_from`'s entity, not set: DynamoDB checks the item still
            // holds it (a versioned entity's version check already refuses a stale copy; a field
            // kept in the keys only has no attribute to check).
            if m.version.is_none() && !m.key_only(*i) {
                let attr = &f.attr_name;
                let encode = unchanged_encode(m, *i, quote!(__g));
                unchanged.push(quote! {
                    if #tracked.is_none() {
                        if let ::core::option::Option::Some(__g) = &#context {
                            __u.__unchanged(#entity_type, #attr, #encode);
                        }
                    }
                });
            }
        }
        let limits = keys.iter().map(|(k, which)| {
            let attr = &k.attr;
            let max = if *which == "pk" { quote!(#p::MAX_PARTITION_KEY_BYTES) } else { quote!(#p::MAX_SORT_KEY_BYTES) };
            quote!((#attr, #max))
        });
        let texts = keys.iter().map(|(k, which)| {
            let f = fmt_fn(&index.label, which);
            let args = k.params().into_iter().map(|i| {
                let i = &i;
                if primary.contains(i) {
                    let n = m.input.fields[*i].ident;
                    quote!(&__key.#n)
                } else {
                    let l = local(*i);
                    quote!(#l)
                }
            });
            quote!(#ident::#f(#p::key::KeyBuilder::new(), #(#args),*))
        });
        let touched_names: Vec<String> = fields
            .iter()
            .filter(|i| index_fields.contains(i))
            .map(|i| format!("`{}`", m.input.fields[*i].name))
            .collect();
        Some(quote! {
            if #(#touched.is_some())||* {
                let mut __missing: ::std::vec::Vec<&'static str> = ::std::vec::Vec::new();
                #(#reads)*
                let __leaves = false #(|| #leaves)*;
                if !__leaves {
                    #(#unchanged)*
                }
                let __texts = match (#(#locals,)*) {
                    (#(::core::option::Option::Some(::core::option::Option::Some(#locals)),)*) => ::core::option::Option::Some([#(#texts),*]),
                    _ => ::core::option::Option::None,
                };
                __u.__index_keys(#index_name, [#((#touched_names, #touched.is_some())),*], __leaves, &__missing, [#(#limits),*], __texts);
            }
        })
    });
    let index_steps: Vec<_> = index_steps.collect();

    // What an upsert must set: every stored field without a default (not a key field, not an
    // `Option`, not `#[entity(default)]`, not the version, not skipped).
    let required = m.input.fields.iter().enumerate().filter(|(i, f)| {
        f.attrs.skip.is_none()
            && f.option_inner.is_none()
            && f.attrs.default.is_none()
            && !primary.contains(i)
            && m.version != Some(*i)
    });
    let required = required.map(|(_, f)| {
        let attr = &f.attr_name;
        let name = &f.name;
        quote!((#attr, #name))
    });
    // What an upsert also writes: the key fields as their own attributes...
    let key_attrs_fn = super::fields::key_attrs_fn();
    let key_attrs = if m.input.attrs.no_key_attributes.is_some() {
        // `key_attributes = false`: the key fields live in the keys only.
        quote!()
    } else {
        quote! {
            for (__a, __v) in __key.#key_attrs_fn() {
                __u.__upsert_encoded(#entity_type, __a, __v);
            }
        }
    };
    // ... and the index keys made of key fields only, which no setter maintains.
    let constant_indexes = m.indexes.iter().filter_map(|index| {
        let keys = own_keys(index);
        if keys.is_empty() {
            return None;
        }
        if keys.iter().any(|(k, _)| k.params().iter().any(|i| !primary.contains(i))) {
            return None;
        }
        let steps = keys.iter().map(|(k, which)| {
            let f = fmt_fn(&index.label, which);
            let attr = &k.attr;
            let args = k.params().into_iter().map(|i| {
                let n = m.input.fields[i].ident;
                quote!(&__key.#n)
            });
            let max = if *which == "pk" { quote!(#p::MAX_PARTITION_KEY_BYTES) } else { quote!(#p::MAX_SORT_KEY_BYTES) };
            quote!(__u.__upsert_index_key(#attr, #max, #ident::#f(#p::key::KeyBuilder::new(), #(#args),*));)
        });
        Some(quote!(#(#steps)*))
    });
    // ... and the index keys made of key fields and defaulted fields that the update leaves
    // alone: a created item holds the defaults (`if_not_exists`: an existing item keeps its
    // values and the index keys made of them).
    let default_indexes = m.indexes.iter().filter_map(|index| {
        let keys = own_keys(index);
        let mut defaulted: Vec<usize> = Vec::new();
        for (k, _) in &keys {
            for i in &k.params() {
                if primary.contains(i) || defaulted.contains(i) {
                    continue;
                }
                let f = &m.input.fields[*i];
                if f.option_inner.is_some() || f.attrs.default.is_none() || m.version == Some(*i) {
                    return None;
                }
                defaulted.push(*i);
            }
        }
        if defaulted.is_empty() {
            return None;
        }
        let unset = defaulted.iter().map(|i| format_ident!("__v_{}", m.input.fields[*i].name));
        let values = defaulted.iter().map(|i| {
            let f = &m.input.fields[*i];
            let l = format_ident!("__d_{}", f.name);
            let ty = f.ty;
            let default = super::codec::field_default(m, *i);
            let attr = &f.attr_name;
            let encode = unchanged_encode(m, *i, quote!(&#l));
            quote! {
                let #l: #ty = #default;
                __u.__upsert_default(#entity_type, #attr, #encode);
            }
        });
        let steps = keys.iter().map(|(k, which)| {
            let f = fmt_fn(&index.label, which);
            let attr = &k.attr;
            let args = k.params().into_iter().map(|i| {
                let i = &i;
                let fi = &m.input.fields[*i];
                if primary.contains(i) {
                    let n = fi.ident;
                    quote!(&__key.#n)
                } else {
                    let l = format_ident!("__d_{}", fi.name);
                    quote!(&#l)
                }
            });
            let max = if *which == "pk" { quote!(#p::MAX_PARTITION_KEY_BYTES) } else { quote!(#p::MAX_SORT_KEY_BYTES) };
            quote!(__u.__upsert_index_key_default(#attr, #max, #ident::#f(#p::key::KeyBuilder::new(), #(#args),*));)
        });
        Some(quote! {
            if #(#unset.is_none())&&* {
                #(#values)*
                #(#steps)*
            }
        })
    });
    let upsert_steps = quote! {
        __u.__upsert_requires(&[#(#required),*]);
        #key_attrs
        #(#constant_indexes)*
        #(#default_indexes)*
    };
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
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&self.__u, f)
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #ctor_doc]
            #vis fn update(key: #key) -> #builder {
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
            #vis fn update_from(entity: &#ident) -> #builder {
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
            pub fn upsert(self) -> Self {
                Self { __u: self.__u.upsert(), ..self }
            }

            /// Applies only if the stored `#[version]` is `version`, else `Error::VersionConflict`.
            pub fn if_version(self, version: u64) -> Self {
                Self { __u: self.__u.if_version(version), ..self }
            }

            /// Applies only if `condition` holds on the stored item (besides the existence and
            /// version checks), else `Error::ConditionFailed`.
            pub fn condition(self, condition: #p::Condition<#ident>) -> Self {
                Self { __u: self.__u.condition(condition), ..self }
            }

            /// On a failed condition, `Error::ConditionFailed` holds the item as it was.
            pub fn return_old_on_failure(self) -> Self {
                Self { __u: self.__u.return_old_on_failure(), ..self }
            }

            /// The request this update sends, or why it cannot be sent.
            pub fn request(self) -> ::core::result::Result<#p::UpdateRequest, #p::Error> {
                <#p::Update<#ident> as ::core::convert::From<Self>>::from(self).request()
            }
        }

        #[automatically_derived]
        impl ::core::convert::From<#builder> for #p::Update<#ident> {
            fn from(b: #builder) -> Self {
                let #builder { __u: mut __u, __key, #(#tracked_names,)* #(#context_names,)* } = b;
                #(#index_steps)*
                #upsert_steps
                let _ = &__key;
                __u
            }
        }
    }
}
