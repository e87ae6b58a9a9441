//! Index keys on an attribute that something else writes (see `valid::Reuse`): a field's own
//! attribute (`#[gsi1(pk = "<map>", pk_attr = "map")]`, typed by the field's `KeyAttribute`), or
//! the table's key attributes (an inverted index). Such a key writes no attribute; its queries
//! compare the field's attribute as it is stored.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
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
            quote!(__dc::with_encode(#value, |__v: &#t| (&&__dc::TimeWith::<#t>::new()).__encode(#format, __v)))
        }
        (None, Some((_, with))) => quote!(__dc::with_encode(#value, #with::encode)),
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

/// The runtime's description of a sort key on field `field`'s own attribute (`How::Attr`, or
/// `How::AttrThen` with the next sort-key attribute of a multi-attribute index): its key text.
pub fn attr_how(m: &Model<'_>, sk: &Key, field: usize, next: Option<&Key>) -> TokenStream {
    let p = private(m);
    let ty = m.input.fields[field].key_ty();
    let text = attr_text(m, sk, field, &quote!(__v));
    match next {
        Some(next) => {
            let (attr, next_ty) = (&next.attr, attr_type(m, next));
            quote!(#p::How::AttrThen(|__v: &#ty| #text, #attr, #next_ty))
        }
        None => quote!(#p::How::Attr(|__v: &#ty| #text)),
    }
}

/// The query type of a query whose sort key is a field's own attribute: one method, the field's
/// name, giving the runtime's `SortKey` on it.
pub fn sort_builder(m: &Model<'_>, builder: &Ident, sk: &Key, field: usize) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let f = &m.input.fields[field];
    let (ty, name) = (f.key_ty(), f.ident);
    let how = attr_how(m, sk, field, None);
    let doc = format!("A condition on `{}`.", f.name);
    let struct_doc =
        format!("A query of [`{ident}`] items; narrow it with a condition on `{}` or run it as it is.", f.name);
    let options = super::query::options(&p, ident, &quote!(#builder), quote!(), false);
    quote! {
        #[doc = #struct_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #[must_use = "a query does nothing until it is run by a `Table`"]
        #vis struct #builder(#p::Query<#ident>);

        #options

        #[automatically_derived]
        impl #builder {
            #[doc = #doc]
            #[inline] pub fn #name(self) -> #p::SortKey<#ident, #ty, #p::Query<#ident>> {
                #p::QueryLevel::__new(self.0, "").__sort(const { &#how })
            }
        }
    }
}
