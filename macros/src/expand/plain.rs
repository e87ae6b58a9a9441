//! Index keys on an attribute that something else writes (see `valid::Reuse`): a field's own
//! attribute (`#[gsi1(pk = "<map>", pk_attr = "map")]`, typed by the field's `KeyAttribute`), or
//! the table's key attributes (an inverted index). Such a key writes no attribute; its queries
//! compare the field's attribute as it is stored.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned;

use super::private;
use crate::valid::{Index, Key, Model};

/// `<T as KeyAttribute>`, spanned at the field's type: the bound an index key on a field's own
/// attribute needs.
pub(crate) fn key_attribute(m: &Model<'_>, field: usize) -> TokenStream {
    let p = private(m);
    let ty = m.input.fields[field].key_ty();
    quote_spanned!(ty.span()=> <#ty as #p::KeyAttribute>)
}

/// A tenant field that is the table's natural partition key (`#[pk = "<tenant_id>"]` on its own
/// attribute) must be stored as a string: refused at compile time, at the field's type, when its
/// `KeyAttribute` type is not S. The field's type alone says it, so the check is a constant.
pub fn tenant_check(m: &Model<'_>) -> TokenStream {
    let crate::tenant::Tenancy::Field(i) = m.tenant else { return quote!() };
    if m.pk.plain_field() != Some(i) {
        return quote!();
    }
    let p = private(m);
    let field = &m.input.fields[i];
    let ty = field.key_ty();
    let path = key_attribute(m, i);
    let message = format!(
        "the tenant field `{name}` keys the table on its own attribute `{attr}`, which is not a string: a request \
         then carries the number itself (`7`, or `0007`: one number to DynamoDB), not the tenant's key text \
         (`0000000007`) that a tenant handle compares, and the IAM policy's `dynamodb:LeadingKeys` compares text; \
         make `{name}` a `String`, or key the table with a template (`#[pk = \"TENANT#<{name}>\"]`)",
        name = field.name,
        attr = m.pk.attr,
    );
    quote_spanned! {ty.span()=>
        const _: () = ::core::assert!(::core::matches!(#path::TYPE, #p::AttributeType::S), #message);
    }
}

/// The `AttributeType` of a key attribute, as a constant expression.
pub fn attr_type(m: &Model<'_>, key: &Key) -> TokenStream {
    let p = private(m);
    match key.plain_field() {
        Some(i) => {
            let path = key_attribute(m, i);
            quote!(#path::TYPE)
        }
        None => quote!(#p::AttributeType::S),
    }
}

/// An index's keys, each with the size limit DynamoDB sets for it.
fn keys_with_limits<'i>(p: &TokenStream, index: &'i Index) -> impl Iterator<Item = (&'i Key, TokenStream)> {
    let pk = index.pk.iter().chain(&index.more_pk).map(move |k| (k, quote!(#p::MAX_PARTITION_KEY_BYTES)));
    pk.chain(index.sk.iter().chain(&index.more_sk).map(move |k| (k, quote!(#p::MAX_SORT_KEY_BYTES))))
}

/// The checks `to_item` makes of the fields that key an index as they are: of the declared
/// type, not empty, within the key size limit (DynamoDB would reject the write).
pub fn item_checks(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let entity = m.input.entity_type();
    let mut out = Vec::new();
    // The table's keys on fields' own attributes: present, of their type, within the limits.
    let table_keys = std::iter::once((&m.pk, quote!(#p::MAX_PARTITION_KEY_BYTES)))
        .chain(m.sk.iter().map(|k| (k, quote!(#p::MAX_SORT_KEY_BYTES))));
    for (key, max) in table_keys.filter(|(k, _)| k.plain_field().is_some()) {
        let attr = &key.attr;
        let ty = attr_type(m, key);
        out.push(quote!(#p::check_table_attr_key(__w.item(), #entity, #attr, #ty, #max)?;));
    }
    for index in &m.indexes {
        let name = &index.name;
        let keys = keys_with_limits(&p, index);
        for (key, max) in keys {
            if key.plain_field().is_none() {
                continue;
            }
            let attr = &key.attr;
            let ty = attr_type(m, key);
            out.push(quote!(#p::check_attr_key(__w.item(), #entity, #name, #attr, #ty, #max)?;));
        }
    }
    quote!(#(#out)*)
}

/// The checks an update makes of `__av` (`&Option<AttributeValue>`), the new value of field
/// `field`, where it keys an index as it is: as [`item_checks`], failing the update.
pub fn update_checks(m: &Model<'_>, field: usize) -> TokenStream {
    let p = private(m);
    let entity = m.input.entity_type();
    let mut out = Vec::new();
    for index in &m.indexes {
        let name = &index.name;
        let keys = keys_with_limits(&p, index);
        for (key, max) in keys.filter(|(k, _)| k.plain_field() == Some(field)) {
            let attr = &key.attr;
            let ty = attr_type(m, key);
            out.push(quote! {
                let __checked = match &__av {
                    ::core::option::Option::Some(__a) => #p::check_attr_value(__a, #entity, #name, #attr, #ty, #max),
                    ::core::option::Option::None => ::core::result::Result::Ok(()),
                };
                if let ::core::result::Result::Err(__e) = __checked {
                    self.__u.__fail(__e);
                }
            });
        }
    }
    quote!(#(#out)*)
}

/// The key text of `value` (a `&T` of field `field`) as the field's attribute stores it, for a
/// query: `Result<String, KeyError>`. Through the field's `with` module if it has one (`T` is
/// the type in the field's `Option`, which the module handles).
pub fn attr_text(m: &Model<'_>, key: &Key, field: usize, value: &TokenStream) -> TokenStream {
    let p = private(m);
    let attr = &key.attr;
    let f = &m.input.fields[field];
    let name = &f.name;
    let ty = attr_type(m, key);
    let encoded = match (super::codec::time_format(m, field), &f.attrs.with) {
        (Some(format), _) => {
            let t = f.key_ty();
            quote!(#p::codec::with_encode(#value, |__v: &#t| (&&#p::codec::TimeWith::<#t>::new()).__encode(#format, __v)))
        }
        (None, Some((_, with))) => quote!(#p::codec::with_encode(#value, #with::encode)),
        (None, None) => quote!((&&&&__KE(#value)).__encode()),
    };
    quote!(#p::attr_key_text(#encoded, #ty, #attr, #name))
}

/// For each field stored `with` a module that keys an index on its own attribute: a constant
/// assertion that the module's `ATTRIBUTE_TYPE` is the type the index declares for the field's
/// type (`KeyAttribute::TYPE`). A module that states no type fails to compile at its path.
pub fn with_types(m: &Model<'_>) -> TokenStream {
    let p = private(m);
    let mut out = Vec::new();
    let mut seen: Vec<(usize, &str)> = Vec::new();
    for index in &m.indexes {
        for key in index.keys() {
            let Some(i) = key.plain_field() else { continue };
            let f = &m.input.fields[i];
            let Some((at, with)) = &f.attrs.with else { continue };
            if seen.contains(&(i, index.name.as_str())) {
                continue;
            }
            seen.push((i, index.name.as_str()));
            let module_name = quote!(#with).to_string().replace(' ', "");
            let stated = match crate::ast::time_format(with) {
                Some(_) => {
                    let module = with.segments.last().map(|s| &s.ident);
                    quote_spanned!(with.span()=> #p::time::#module::ATTRIBUTE_TYPE)
                }
                None => quote_spanned!(with.span()=> #with::ATTRIBUTE_TYPE),
            };
            let ty = f.key_ty();
            let type_name = quote!(#ty).to_string().replace(' ', "");
            let declared = key_attribute(m, i);
            let message = format!(
                "`{}` keys index `{}` on its own attribute, which the index declares with the type of `{type_name}` \
                 (`KeyAttribute::TYPE`): its `with` module `{module_name}` states another type (`ATTRIBUTE_TYPE`), \
                 which DynamoDB would refuse as the index key; use a module that stores that type \
                 (`dynamo_entity::time::iso8601_seconds` for a time) or give the index its own attribute (another \
                 `pk_attr`/`sk_attr`)",
                f.name, index.name
            );
            out.push(quote_spanned! {at.span()=>
                const _: () = ::core::assert!(#p::AttributeType::__same(#stated, #declared::TYPE), #message);
            });
        }
    }
    quote!(#(#out)*)
}

/// `.__key_types(pk, sk)` when a key of the query is not key text.
pub fn key_types(m: &Model<'_>, pk: &Key, sk: Option<&Key>) -> TokenStream {
    if pk.plain_field().is_none() && sk.and_then(Key::plain_field).is_none() {
        return quote!();
    }
    let p = private(m);
    let pk_ty = attr_type(m, pk);
    let sk_ty = sk.map_or_else(|| quote!(#p::AttributeType::S), |k| attr_type(m, k));
    quote!(.__key_types(#pk_ty, #sk_ty))
}

/// The range conditions on a sort key that is a field's own attribute: `<field>_lt`, `_lte`,
/// `_gt`, `_gte`, `_begins_with` (strings only: DynamoDB has no prefix of a number) and
/// `_between`, each ending the query. `note` ends the comparisons' docs.
pub fn range_methods(m: &Model<'_>, sk: &Key, field: usize, note: &str) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let f = &m.input.fields[field];
    let ty = f.key_ty();
    let name = &f.name;
    let method = |suffix: &str| format_ident!("{}_{}", f.name, suffix);
    let text = |v: &str| {
        let v = format_ident!("{}", v);
        attr_text(m, sk, field, &quote!(&#v))
    };
    let value = text("__v");
    let from = text("__from");
    let to = text("__to");
    let cmps = [
        ("lt", "Lt", "less than"),
        ("lte", "Lte", "at most"),
        ("gt", "Gt", "greater than"),
        ("gte", "Gte", "at least"),
    ]
    .iter()
    .map(|(suffix, op, words)| {
        let fn_name = method(suffix);
        let op = format_ident!("{}", op);
        let doc = format!("Items whose `{name}` is {words} `value`{note}.");
        quote! {
            #[doc = #doc]
            #[inline] pub fn #fn_name(self, value: impl #p::IntoValue<#ty>) -> #p::Query<#ident> {
                let __v: #ty = #p::IntoValue::into_value(value);
                self.0.__attr_cmp(#p::SortOp::#op, #value)
            }
        }
    });
    let begins_with = is_string(ty).then(|| {
        let fn_name = method("begins_with");
        let doc = format!("Items whose `{name}` starts with `prefix`.");
        quote! {
            #[doc = #doc]
            #[inline] pub fn #fn_name(self, prefix: impl #p::IntoValue<#ty>) -> #p::Query<#ident> {
                let __v: #ty = #p::IntoValue::into_value(prefix);
                self.0.__attr_begins_with(#value)
            }
        }
    });
    let between = method("between");
    let between_doc = format!("Items whose `{name}` is between `from` and `to`, both included.");
    quote! {
        #(#cmps)*

        #begins_with

        #[doc = #between_doc]
        #[inline] pub fn #between(self, from: impl #p::IntoValue<#ty>, to: impl #p::IntoValue<#ty>) -> #p::Query<#ident> {
            let __from: #ty = #p::IntoValue::into_value(from);
            let __to: #ty = #p::IntoValue::into_value(to);
            self.0.__attr_between(#from, #to)
        }
    }
}

/// Whether a field's type is `String`, the one key type with a prefix condition.
fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(t) if t.qself.is_none() && {
        let names: Vec<String> = t.path.segments.iter().map(|s| s.ident.to_string()).collect();
        matches!(names.iter().map(String::as_str).collect::<Vec<_>>().as_slice(), ["String"] | [.., "string", "String"])
    })
}

/// The builder of a query whose sort key is a field's own attribute: `<field>_eq`, `_lt`,
/// `_lte`, `_gt`, `_gte`, `_between`, each one comparison of the attribute.
pub fn sort_builder(m: &Model<'_>, builder: &Ident, sk: &Key, field: usize, options: &TokenStream) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let f = &m.input.fields[field];
    let ty = f.key_ty();
    let name = &f.name;
    let method = |suffix: &str| format_ident!("{}_{}", f.name, suffix);
    let text = |v: &str| {
        let v = format_ident!("{}", v);
        attr_text(m, sk, field, &quote!(&#v))
    };
    let value = text("__v");
    let eq = method("eq");
    let ranges = range_methods(m, sk, field, "");
    let eq_doc = format!("Items whose `{name}` equals `value`.");
    let struct_doc =
        format!("A query of [`{ident}`] items; narrow it with a condition on `{name}` or run it as it is.");
    quote! {
        #[doc = #struct_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #[must_use = "a query does nothing until it is run by a `Table`"]
        #vis struct #builder(#p::Query<#ident>);

        #[automatically_derived]
        impl #builder {
            #[doc = #eq_doc]
            #[inline] pub fn #eq(self, value: impl #p::IntoValue<#ty>) -> #p::Query<#ident> {
                let __v: #ty = #p::IntoValue::into_value(value);
                self.0.__attr_eq(#value)
            }

            #ranges

            #options
        }

        #[automatically_derived]
        impl ::core::convert::From<#builder> for #p::Query<#ident> {
            #[inline] fn from(q: #builder) -> Self {
                q.0
            }
        }
    }
}
