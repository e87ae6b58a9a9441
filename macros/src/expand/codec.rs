//! `impl Entity`: the schema constant and the field-by-field item codec.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::assert::{key_field, ttl_value};
use super::keys::{fmt_fn, key_ident};
use super::private;
use crate::attr::IndexKind;
use crate::valid::{Key, Model};

fn key_schema(m: &Model<'_>, p: &TokenStream, key: &Key) -> TokenStream {
    let attr = &key.attr;
    let template = &key.template.source;
    let ty = super::plain::attr_type(m, key);
    match &key.shard {
        Some(s) => {
            let (n, random) = (s.count, s.by.is_none());
            quote!(#p::KeySchema::of(#attr, #template, #ty).sharded(#n, #random))
        }
        None => quote!(#p::KeySchema::of(#attr, #template, #ty)),
    }
}

fn option_tokens<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(__O::Some(#v)),
        None => quote!(__O::None),
    }
}

fn schema(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let type_attr = m.input.type_attr();
    // The table's keys: a key text (S) written as such, in short.
    let text = |k: &Key, some: bool| match (k.shard.is_none() && k.plain_field().is_none(), some) {
        (true, false) => {
            let (attr, template) = (&k.attr, &k.template.source);
            quote!(#p::KeySchema::__text(#attr, #template))
        }
        (true, true) => {
            let (attr, template) = (&k.attr, &k.template.source);
            quote!(#p::KeySchema::__some_text(#attr, #template))
        }
        (false, false) => key_schema(m, &p, k),
        (false, true) => option_tokens(Some(key_schema(m, &p, k))),
    };
    let pk = text(&m.pk, false);
    let sk = m.sk.as_ref().map_or_else(|| quote!(__O::None), |k| text(k, true));
    let indexes = m.indexes.iter().map(|i| {
        let name = &i.name;
        let kind = match i.kind {
            IndexKind::Global => quote!(#p::IndexKind::Global),
            IndexKind::Local => quote!(#p::IndexKind::Local),
        };
        let pk = option_tokens(i.pk.as_ref().map(|k| key_schema(m, &p, k)));
        let sk = option_tokens(i.sk.as_ref().map(|k| key_schema(m, &p, k)));
        let projection = i.projection.tokens(&p);
        let declared = i.projection_declared;
        let multi = super::multi::schema(m, &p, i, key_schema);
        quote!(#p::IndexSchema { name: #name, kind: #kind, pk: #pk, sk: #sk, projection: #projection, projection_declared: #declared, multi: #multi })
    });
    // Only what the entity uses is written: an entity without indexes, TTL, version, tenant or
    // unique fields expands to `EntitySchema::new(..)` alone.
    let mut with = Vec::new();
    if !m.indexes.is_empty() {
        with.push(quote!(.with_indexes(&[#(#indexes),*])));
    }
    if let Some(i) = m.ttl {
        let attr = &m.input.fields[i].attr_name;
        with.push(quote!(.with_ttl(#attr)));
    }
    if let Some(i) = m.version {
        let attr = &m.input.fields[i].attr_name;
        let version = super::assert::version(&p, m.input.fields[i].ty);
        with.push(quote!(.with_version(#attr, #version::MAX)));
    }
    match m.tenant {
        crate::tenant::Tenancy::Untenanted => {}
        crate::tenant::Tenancy::Shared => with.push(quote!(.with_tenant(#p::Tenancy::Shared))),
        crate::tenant::Tenancy::Field(i) => {
            let attr = &m.input.fields[i].attr_name;
            with.push(quote!(.with_tenant(#p::Tenancy::Field(#attr))));
        }
    }
    let unique: Vec<TokenStream> = m
        .input
        .fields
        .iter()
        .filter(|f| f.attrs.unique.is_some())
        .map(|f| {
            let (field, attr) = (&f.name, &f.attr_name);
            quote!(#p::UniqueField { field: #field, attr: #attr })
        })
        .collect();
    if !unique.is_empty() {
        with.push(quote!(.with_unique(&[#(#unique),*])));
    }
    if m.created_at.is_some() || m.updated_at.is_some() {
        let attr_of = |i: Option<usize>| option_tokens(i.map(|i| &m.input.fields[i].attr_name));
        let (created, updated) = (attr_of(m.created_at), attr_of(m.updated_at));
        with.push(quote!(.with_filled(#created, #updated)));
    }
    let encrypted: Vec<&String> =
        m.input.fields.iter().filter(|f| f.attrs.encrypt.is_some()).map(|f| &f.attr_name).collect();
    if !encrypted.is_empty() {
        with.push(quote!(.with_encrypted::<()>(&[#(#encrypted),*])));
    }
    with.extend(crate::vector::schema_with(m, &p));
    // The attributes items hold: not skipped fields, nor key fields kept in the keys only.
    let attributes = m
        .input
        .fields
        .iter()
        .enumerate()
        .filter(|(i, f)| f.attrs.skip.is_none() && !m.key_only(*i))
        .map(|(_, f)| &f.attr_name);
    quote! {
        const SCHEMA: #p::EntitySchema =
            #p::EntitySchema::new(#entity_type, #type_attr, #pk, #sk, &[#(#attributes),*]) #(#with)*;
    }
}

/// A reference to field `i`'s value as `to_item` writes it: `&self.<field>`, or for a field the
/// library fills (`#[created_at]`, `#[updated_at]`) the local holding its filled value.
fn field_ref(m: &Model<'_>, i: usize) -> TokenStream {
    if is_filled(m, i) {
        let local = format_ident!("__t{}", i);
        quote!(&#local)
    } else {
        let n = m.input.fields[i].ident;
        quote!(&self.#n)
    }
}

fn is_filled(m: &Model<'_>, i: usize) -> bool {
    m.created_at == Some(i) || m.updated_at == Some(i)
}

/// Writes PK/SK, and each index's keys when all their components are present and non-empty.
fn keys_to_item(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let args = |key: &Key| -> Vec<TokenStream> {
        key.params()
            .iter()
            .map(|i| {
                let f = &m.input.fields[*i];
                if f.option_inner.is_some() {
                    let local = format_ident!("__o{}", i);
                    quote!(#local)
                } else {
                    field_ref(m, *i)
                }
            })
            .collect()
    };
    let mut out = Vec::new();
    let pk_attr = &m.pk.attr;
    let fmt_pk = fmt_fn("table", "pk");
    let pk_args = args(&m.pk);
    // A table key on a field's own attribute is written by the field (and checked after it).
    if m.pk.plain_field().is_none() {
        out.push(quote! {
            __w.pk(#pk_attr, Self::#fmt_pk(__KB::new(), #(#pk_args),*));
        });
    }
    if let Some(sk) = m.sk.as_ref().filter(|k| k.plain_field().is_none()) {
        let sk_attr = &sk.attr;
        let fmt_sk = fmt_fn("table", "sk");
        let sk_args = args(sk);
        out.push(quote! {
            __w.sk(#sk_attr, Self::#fmt_sk(__KB::new(), #(#sk_args),*));
        });
    }
    for index in &m.indexes {
        // A key on an attribute written by something else (a field, the table's keys) writes nothing.
        let keys: Vec<(&Key, syn::Ident, TokenStream)> = index
            .pk
            .iter()
            .map(|k| (k, fmt_fn(&index.label, "pk"), quote!(#p::MAX_PARTITION_KEY_BYTES)))
            .chain(index.sk.iter().map(|k| (k, fmt_fn(&index.label, "sk"), quote!(#p::MAX_SORT_KEY_BYTES))))
            .filter(|(k, _, _)| k.reuse.is_none())
            .collect();
        if keys.is_empty() {
            continue;
        }
        let mut optional: Vec<usize> = Vec::new();
        for (key, _, _) in &keys {
            for i in key.params() {
                if m.input.fields[i].option_inner.is_some() && !optional.contains(&i) {
                    optional.push(i);
                }
            }
        }
        // DynamoDB rejects empty index keys: an item with one is simply left out of the index.
        let entries = keys.iter().map(|(key, f, max)| {
            let a = args(key);
            let attr = &key.attr;
            quote!((#attr, #ident::#f(__KB::new(), #(#a),*), #max))
        });
        let body = quote!(__w.index_keys([#(#entries),*]););
        if optional.is_empty() {
            out.push(body);
        } else {
            let locals = optional.iter().map(|i| format_ident!("__o{}", i));
            let values = optional.iter().map(|i| {
                let r = field_ref(m, *i);
                quote!(__O::as_ref(#r))
            });
            out.push(quote! {
                // A sparse index: written only when every component is present.
                if let (#(__O::Some(#locals),)*) = (#(#values,)*) {
                    #body
                }
            });
        }
    }
    quote!(#(#out)*)
}

fn to_item(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let type_attr = m.input.type_attr();
    let keys = keys_to_item(m);
    let insert_type = if type_attr.is_empty() {
        quote!()
    } else {
        quote!(__w.insert_sized(#type_attr, ::core::primitive::str::len(#entity_type), || {
            #p::AttributeValue::S(::std::borrow::ToOwned::to_owned(#entity_type))
        });)
    };
    let fields =
        m.input.fields.iter().enumerate().filter(|(i, f)| f.attrs.skip.is_none() && !m.key_only(*i)).map(|(i, f)| {
            let n = f.ident;
            let attr = &f.attr_name;
            if m.ttl == Some(i) {
                let path = ttl_value(&p, f.key_ty());
                let insert = quote!(__w.insert(#attr, __dc::ttl_number(#path::to_epoch_seconds(__v))););
                if f.option_inner.is_some() {
                    quote!(if let __O::Some(__v) = &self.#n { #insert })
                } else {
                    quote!({ let __v = &self.#n; #insert })
                }
            } else if f.attrs.with.is_some() {
                let encode = field_encode(m, i, field_ref(m, i));
                quote!(__w.put(#attr, #encode);)
            } else {
                // The field's codec, chosen by autoref dispatch, writes it: one call.
                let value = field_ref(m, i);
                quote!((&&&&__KE(#value)).__write(__w, #attr);)
            }
        });
    let capacity = 2 + m.indexes.len() * 2 + m.input.fields.len() + 1;
    let plain_checks = super::plain::item_checks(m);
    let (stamp, filled) = filled_locals(m);
    let stamps = stamps(m);
    quote! {
        #[inline] fn to_item(&self) -> __R<#p::Item, #p::Error> {
            #p::item_of(self, #capacity)
        }

        #[inline] fn __write(
            &self,
            __w: &mut __dc::Writer,
            #stamp: __O<#p::Stamp>,
        ) -> __R<(), #p::Error> {
            #(#filled)*
            #keys
            #insert_type
            #(#fields)*
            __w.status()?;
            #plain_checks
            __R::Ok(())
        }

        #stamps
    }
}

/// The locals `__write` reads the filled fields (`#[created_at]`, `#[updated_at]`) from: the
/// struct's values without a stamp (`to_item`), else filled from it (`#[created_at]` on a
/// create only); and the name of the stamp parameter (`_` if there are none).
fn filled_locals(m: &Model<'_>) -> (TokenStream, Vec<TokenStream>) {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let filled: Vec<usize> = m.created_at.iter().chain(m.updated_at.iter()).copied().collect();
    if filled.is_empty() {
        return (quote!(_), Vec::new());
    }
    let locals = filled
        .into_iter()
        .map(|i| {
            let f = &m.input.fields[i];
            let (n, ty, local) = (f.ident, f.ty, format_ident!("__t{}", i));
            let fill = quote_spanned!(ty.span()=> <#ty as #p::FilledTime>::__filled);
            let guard = if m.created_at == Some(i) { quote!(if __s.create) } else { quote!() };
            quote! {
                let #local: #ty = match __stamp {
                    __O::Some(__s) #guard => #p::filled(#entity_type, __s.now, #fill)?,
                    _ => ::core::clone::Clone::clone(&self.#n),
                };
            }
        })
        .collect();
    (quote!(__stamp), locals)
}

/// `__stamps` of an entity with fields the library fills: what an update writes for them.
fn stamps(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let filled: Vec<usize> = m.created_at.iter().chain(m.updated_at.iter()).copied().collect();
    if filled.is_empty() {
        return quote!();
    }
    let mut stamps = Vec::new();
    for &i in &filled {
        let f = &m.input.fields[i];
        let ty = f.ty;
        let fill = quote_spanned!(ty.span()=> <#ty as #p::FilledTime>::__filled);
        if !m.key_only(i) {
            let attr = &f.attr_name;
            let slot = if m.created_at == Some(i) { quote!(created) } else { quote!(updated) };
            let encode = field_encode(m, i, quote!(&__v));
            stamps.push(quote! {
                let __v: #ty = #p::filled(#entity_type, __now, #fill)?;
                if let __O::Some(__a) =
                    __R::map_err(#encode, |__m| __dc::encode_error(#entity_type, #attr, __m))?
                {
                    __s.#slot = __O::Some((#attr, __a));
                }
            });
        }
    }
    quote! {
        #[inline] fn __stamps(__now: ::std::time::SystemTime) -> __R<#p::Stamps, #p::Error> {
            let mut __s = <#p::Stamps as ::core::default::Default>::default();
            #(#stamps)*
            __R::Ok(__s)
        }
    }
}

/// The value of field `i` when its attribute is missing, if it has one: its `default`, or 0 for
/// the `#[version]` (an item written before versioning, or by other code).
pub fn field_default(m: &Model<'_>, i: usize) -> Option<TokenStream> {
    let f = &m.input.fields[i];
    match &f.attrs.default {
        Some((_, Some(path))) => Some(quote!(#path())),
        Some((_, None)) => Some(quote!(::core::default::Default::default())),
        None if m.version == Some(i) => Some(quote!(::core::default::Default::default())),
        None => None,
    }
}

/// An expression reading field `i` from `value` (an `Option<AttributeValue>`, `None` if the
/// attribute is absent): `Result<T, String>`. Through the field's `with` module if it has one.
pub fn field_decode(m: &Model<'_>, i: usize, value: TokenStream) -> TokenStream {
    let f = &m.input.fields[i];
    let ty = f.ty;
    if let Some(format) = time_format(m, i) {
        // One of the library's time formats: checked once (see `assert`), never an error here.
        let ty = f.key_ty();
        let decode = quote!(|__v| (&&__dc::TimeWith::<#ty>::new()).__decode(#format, __v));
        return if f.option_inner.is_some() {
            quote!(__dc::with_decode_option(#value, #decode))
        } else {
            quote!(__dc::with_decode(#value, #decode))
        };
    }
    if let Some((_, with)) = &f.attrs.with {
        // Spanned at the module's name: a type the module cannot store is reported there.
        let decode = quote_spanned!(with.span()=> #with::decode);
        return if f.option_inner.is_some() {
            quote!(__dc::with_decode_option(#value, #decode))
        } else {
            quote!(__dc::with_decode(#value, #decode))
        };
    }
    // Every field's type is checked once (a key field's to be `KeyPart`, any other's by
    // `codec::Check`): its decoding adds no error.
    quote!((&&&&__KD::<#ty>::NEW).__decode(#value))
}

/// The library's own time format a field is stored with (`with = "dynamo_entity::time::.."`),
/// as a `codec::TimeFormat` expression.
pub fn time_format(m: &Model<'_>, i: usize) -> Option<TokenStream> {
    let (_, with) = m.input.fields[i].attrs.with.as_ref()?;
    let variant = crate::ast::time_format(with)?;
    let variant = quote::format_ident!("{}", variant);
    Some(quote!(__dc::TimeFormat::#variant))
}

/// An expression encoding `value` (a `&T` of field `i`): `Result<Option<AttributeValue>, String>`,
/// `None` meaning "omit the attribute". Through the field's `with` module if it has one.
pub fn field_encode(m: &Model<'_>, i: usize, value: TokenStream) -> TokenStream {
    let f = &m.input.fields[i];
    if let Some(format) = time_format(m, i) {
        let ty = f.key_ty();
        let encode = quote!(|__v: &#ty| (&&__dc::TimeWith::<#ty>::new()).__encode(#format, __v));
        return if f.option_inner.is_some() {
            quote!(__dc::with_encode_option(#value, #encode))
        } else {
            quote!(__dc::with_encode(#value, #encode))
        };
    }
    if let Some((_, with)) = &f.attrs.with {
        let encode = quote_spanned!(with.span()=> #with::encode);
        return if f.option_inner.is_some() {
            quote!(__dc::with_encode_option(#value, #encode))
        } else {
            quote!(__dc::with_encode(#value, #encode))
        };
    }
    // Every field's type is checked once (see `field_decode`): its encoding adds no error.
    quote!((&&&&__KE(#value)).__encode())
}

fn from_item(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let key = key_ident(m);
    let entity_type = m.input.entity_type();
    let key_fields = m.key_fields();
    // The fields whose own attribute is a key of the table (a table keyed on plain attributes):
    // taken out of the item with the others, so a failed read puts them back (below) for the
    // error to name the item's key.
    let plain_keys: Vec<usize> = std::iter::once(&m.pk).chain(m.sk.as_ref()).filter_map(|k| k.plain_field()).collect();
    // The attributes the fields read, taken out of the item in one pass (`take_fields`): each
    // name's value in a slot `__a{k}`, the first field of a name taking it (as a look-up per field
    // did: a later field of that name found it gone).
    let mut names: Vec<&String> = Vec::new();
    let mut values = vec![quote!(__O::None); m.input.fields.len()];
    for (i, f) in m.input.fields.iter().enumerate() {
        let reads_attr = f.attrs.skip.is_none() && !(key_fields.contains(&i) && m.key_only_name_taken(i));
        if reads_attr && !names.contains(&&f.attr_name) {
            let slot = format_ident!("__a{}", names.len());
            values[i] = quote!(#slot);
            names.push(&f.attr_name);
        }
    }
    let take = if names.is_empty() {
        quote!()
    } else {
        let slots: Vec<_> = (0..names.len()).map(|k| format_ident!("__a{}", k)).collect();
        let indexes = 0..names.len();
        let n = names.len();
        quote! {
            let [#(#slots),*] = __dc::take_fields::<#n>(&mut __item, |__n| match __n {
                #(#names => #indexes,)*
                _ => #n,
            });
        }
    };
    // Each read is `Option<field type>` (`None`: an error, kept by the reader); a key field's
    // `Option<Option<..>>`, its inner `None` meaning "absent: read it from the keys".
    let reads = m.input.fields.iter().enumerate().filter(|(_, f)| f.attrs.skip.is_none()).map(|(i, f)| {
        let local = format_ident!("__f{}", i);
        let attr = &f.attr_name;
        let value = &values[i];
        let ty = f.ty;
        let decode = |value: TokenStream| field_decode(m, i, value);
        let default = field_default(m, i);
        if m.ttl == Some(i) {
            let path = ttl_value(&p, f.key_ty());
            let decode = quote!(__r.check(__dc::decode_ttl_with(#entity_type, #attr, #value, #path::from_epoch_seconds)));
            if f.option_inner.is_some() {
                quote!(let #local: __O<#ty> = #decode;)
            } else if let Some(default) = default {
                quote!(let #local: __O<#ty> = match #decode {
                    __O::Some(__O::Some(__v)) => __O::Some(__v),
                    __O::Some(__O::None) => __O::Some(#default),
                    __O::None => __O::None,
                };)
            } else {
                quote!(let #local: __O<#ty> = { let __v = #decode; __r.require(#attr, __v) };)
            }
        } else if key_fields.contains(&i) && m.key_only_name_taken(i) {
            // Kept in the keys only, under a name something else writes (the partition key's
            // attribute, say): that attribute is not this field's, so it is read from the keys.
            quote!(let #local: __O<__O<#ty>> = __O::Some(__O::None);)
        } else if plain_keys.contains(&i) {
            // The table's key on the field's own attribute: a read that fails puts the
            // attribute back into the item, so that the error names the item's key.
            let ty = f.ty;
            quote! {
                let #local = __r.read_table_key::<#ty>(&mut __item, #attr, <#ty as #p::KeyAttribute>::TYPE, #value, |__v| {
                    (&&&&__KD::<#ty>::NEW).__decode_present(__v)
                });
            }
        } else if key_fields.contains(&i) {
            // Absent key fields are read from the keys below (items written by other code).
            if f.attrs.with.is_some() {
                let decode = decode(quote!(__O::Some(__v)));
                let decode = quote!(__O::transpose(__O::map(#value, |__v| #decode)));
                quote!(let #local: __O<__O<#ty>> = __r.ok(#attr, #decode);)
            } else {
                quote!(let #local = (&&&&__KD::<#ty>::NEW).__read_present(&mut __r, #value, #attr);)
            }
        } else if let Some(default) = default {
            // An item written before the field existed (or by other code) reads as the default.
            let decode = decode(quote!(__O::Some(__v)));
            quote! {
                let #local: __O<#ty> = match #value {
                    __O::Some(__v) => __r.ok(#attr, #decode),
                    __O::None => __O::Some(#default),
                };
            }
        } else if f.attrs.with.is_some() {
            let decode = decode(quote!(#value));
            quote!(let #local: __O<#ty> = __r.ok(#attr, #decode);)
        } else {
            // The field's codec, chosen by autoref dispatch, reads it: one call.
            quote!(let #local = (&&&&__KD::<#ty>::NEW).__read(&mut __r, #value, #attr);)
        }
    });
    let key_locals: Vec<_> = key_fields.iter().map(|i| format_ident!("__f{}", i)).collect();
    let key_names: Vec<_> = key_fields.iter().map(|i| m.input.fields[*i].ident).collect();
    let pk_attr = &m.pk.attr;
    let sk_attr = option_tokens(m.sk.as_ref().map(|sk| &sk.attr));
    let some = quote!(__O::Some);
    let none = quote!(__O::None);
    let nones: Vec<_> = key_locals.iter().map(|_| &none).collect();
    // The runtime fills the absent key fields from the key (`Reader::key_fields`, for tuples of
    // up to 16 fields); a key of more fields (templates allow it) gets the same `match` here.
    let fill = if key_locals.is_empty() {
        quote!()
    } else if key_locals.len() <= 16 {
        quote! {
            let (#(#key_locals,)*) = __r.key_fields::<#key, _>(
                &__item, #pk_attr, #sk_attr, (#(#key_locals,)*), |__k| (#(__k.#key_names,)*),
            );
        }
    } else {
        quote! {
        let (#(#key_locals,)*) = match (#(#key_locals,)*) {
            (#(#some(#some(#key_locals)),)*) => (#(#some(#key_locals),)*),
            (#(#some(#key_locals),)*) => match __r.keys::<#key>(&__item, #pk_attr, #sk_attr) {
                #some(__k) => (#(#some(__O::unwrap_or(#key_locals, __k.#key_names)),)*),
                #none => (#(#nones,)*),
            },
            _ => (#(#nones,)*),
        };
        }
    };
    // The key fields must give back the key the item is stored under (they were read from the
    // key attributes where absent, so this checks the attributes that are present).
    let local_of = |i: &usize| format_ident!("__f{}", i);
    let check_key = |key: &Key, fmt: syn::Ident| {
        let attr = &key.attr;
        let args = key.params().into_iter().map(|i| local_of(&i));
        quote! {
            __r.check_key(#attr, &__item, Self::#fmt(__KB::scratch(), #(&#args),*));
        }
    };
    // Key fields of indexes only (not of the table's keys) whose attribute is absent (items
    // that keep them only in index key texts, as published layouts do) are read from those keys.
    let index_only: Vec<&String> = m
        .all_key_fields()
        .into_iter()
        .filter(|i| !key_fields.contains(i) && m.input.fields[*i].attrs.skip.is_none())
        .map(|i| &m.input.fields[i].attr_name)
        .collect();
    let restore = if index_only.is_empty() {
        quote!()
    } else {
        quote! {
            if !::core::iter::Iterator::all(&mut [#(#index_only),*].iter(), |__a| __item.contains_key(*__a)) {
                __r.check(<Self as #p::HasFields>::__restore_key_fields(&mut __item));
            }
        }
    };
    // (A table key on a field's own attribute is that attribute: nothing can contradict it.)
    let check_pk = m.pk.plain_field().is_none().then(|| check_key(&m.pk, fmt_fn("table", "pk")));
    let check_sk = m.sk.as_ref().filter(|k| k.plain_field().is_none()).map(|sk| check_key(sk, fmt_fn("table", "sk")));
    // A read that failed: the table's key attributes (on the fields' own attributes) that were
    // read well are put back into the item, encoded again from the values read, for the error
    // to name the item's key; on the error path only. `read` is how a key field's local holds
    // its value, `(pattern, expression)`.
    let put_back = |read: &dyn Fn(&syn::Ident) -> (TokenStream, TokenStream)| {
        let puts = plain_keys.iter().map(|i| {
            let attr = &m.input.fields[*i].attr_name;
            let (pattern, value) = read(&local_of(i));
            let encode = field_encode(m, *i, quote!(__k));
            quote!(if let #pattern = #value { __dc::put_back(&mut __item, #attr, #encode); })
        });
        quote!(if __r.failed() { #(#puts)* })
    };
    // Before the absent key fields are filled (which drops them all if one read failed): each
    // key field's read, `Some(Some(value))` if it read its attribute.
    let put_back_read =
        (!plain_keys.is_empty()).then(|| put_back(&|local| (quote!(__O::Some(__O::Some(__k))), quote!(&#local))));
    // After the other key's check (a table keyed on one plain attribute and one template): the
    // values read.
    let put_back_checked = (!plain_keys.is_empty() && (check_pk.is_some() || check_sk.is_some()))
        .then(|| put_back(&|local| (quote!(__k), quote!(&#local))));
    let read: Vec<_> =
        m.input.fields.iter().enumerate().filter(|(_, f)| f.attrs.skip.is_none()).map(|(i, _)| local_of(&i)).collect();
    let inits = m.input.fields.iter().enumerate().map(|(i, f)| {
        let n = f.ident;
        if f.attrs.skip.is_some() {
            quote!(#n: ::core::default::Default::default())
        } else {
            let local = format_ident!("__f{}", i);
            quote!(#n: #local)
        }
    });
    quote! {
        fn from_item(__item: #p::Item) -> __R<Self, #p::Error> {
            #p::from_checked::<Self>(__item)
        }

        fn __from_typed_item(mut __item: #p::Item) -> __R<Self, #p::Error> {
            let mut __r = __dc::Reader::new(#entity_type);
            #restore
            #take
            #(#reads)*
            #put_back_read
            #fill
            let __v = match (#(#read,)*) {
                (#(#some(#read),)*) => {
                    #check_pk
                    #check_sk
                    #put_back_checked
                    #some(#ident { #(#inits),* })
                }
                _ => #none,
            };
            __r.finish(&<Self as #p::Entity>::SCHEMA, &__item, __v)
        }
    }
}

/// `__validate`, for an entity with `#[entity(validate = "..")]` validators: each field's on
/// its value, then the struct's.
fn validate(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity_type = m.input.entity_type();
    let mut checks = Vec::new();
    for f in &m.input.fields {
        if let Some((_, path)) = &f.attrs.validate {
            let (n, name, ty) = (f.ident, &f.name, f.ty);
            let call = quote_spanned!(path.span()=> (#path as fn(&#ty) -> __R<(), __S>)(&self.#n));
            checks.push(quote!(#p::valid(#entity_type, __O::Some(#name), #call)?;));
        }
    }
    if let Some(path) = &m.input.attrs.validate {
        let call = quote_spanned!(path.span()=> (#path as fn(&Self) -> __R<(), __S>)(self));
        checks.push(quote!(#p::valid(#entity_type, __O::None, #call)?;));
    }
    if checks.is_empty() {
        return quote!();
    }
    quote! {
        #[inline] fn __validate(&self) -> __R<(), #p::Error> {
            #(#checks)*
            __R::Ok(())
        }
    }
}

pub fn expand(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let key = key_ident(m);
    let schema = schema(m);
    let validate = validate(m);
    let to_item = to_item(m);
    let from_item = from_item(m);
    let key_clones = m.key_fields().into_iter().map(|i| {
        let f = &m.input.fields[i];
        let n = f.ident;
        let path = key_field(f.ty, None);
        quote!(#n: #path::__clone(&self.#n))
    });
    quote! {
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Key = #key;

            #schema

            #to_item

            #from_item

            #validate

            #[inline] fn primary_key(&self) -> #key {
                #key { #(#key_clones),* }
            }
        }
    }
}
