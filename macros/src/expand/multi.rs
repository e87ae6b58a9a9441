//! Multi-attribute index keys (`#[gsi1(pk = ["a", "b"], sk = ["c", "d"])]`): the schema's
//! lists, the query type whose types enforce DynamoDB's rule (`eq` on the sort-key fields
//! from the left, then one range on the next, nothing after a range) and the partition a
//! collection query starts from. Each listed field is a key on its own attribute
//! (`valid::Reuse::Field`): writes and update checks are those of `plain`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::private;
use crate::valid::{Index, Key, Model};

/// `multi: ..` of the index's `IndexSchema`: `None`, or every key of each side.
pub fn schema(
    m: &Model<'_>,
    p: &TokenStream,
    index: &Index,
    key_schema: fn(&Model<'_>, &TokenStream, &Key) -> TokenStream,
) -> TokenStream {
    if !index.multi {
        return quote!(__O::None);
    }
    let pk = index.pk.iter().chain(&index.more_pk).map(|k| key_schema(m, p, k));
    let sk = index.sk.iter().chain(&index.more_sk).map(|k| key_schema(m, p, k));
    quote!(__O::Some(#p::MultiKeys { pk: &[#(#pk),*], sk: &[#(#sk),*] }))
}

fn field_of(key: &Key) -> usize {
    key.fields[0].0
}

/// The partition-key parameters, their conversions, and the calls that start a query or a
/// partition on the index: `(params, converts, first text, also calls)`.
fn partition_parts(
    m: &Model<'_>,
    index: &Index,
) -> (Vec<TokenStream>, Vec<TokenStream>, TokenStream, Vec<TokenStream>) {
    let p = private(m);
    let keys: Vec<&Key> = index.pk.iter().chain(&index.more_pk).collect();
    let mut params = Vec::new();
    let mut converts = Vec::new();
    let mut texts = Vec::new();
    for key in &keys {
        let i = field_of(key);
        let f = &m.input.fields[i];
        let (n, ty) = (f.ident, f.key_ty());
        let local = format_ident!("__a{}", i);
        params.push(quote!(#n: impl #p::IntoValue<#ty>));
        converts.push(quote!(let #local: #ty = #p::IntoValue::into_value(#n);));
        texts.push(super::plain::attr_text(m, key, i, &quote!(&#local)));
    }
    let first = texts.remove(0);
    let also = keys[1..]
        .iter()
        .zip(texts)
        .map(|(k, text)| {
            let attr = &k.attr;
            let ty = super::plain::attr_type(m, k);
            quote!(.__also(#attr, #ty, #text))
        })
        .collect();
    (params, converts, first, also)
}

fn sk_start(m: &Model<'_>, index: &Index) -> (TokenStream, TokenStream) {
    let p = private(m);
    match &index.sk {
        Some(k) => {
            let attr = &k.attr;
            (quote!(__O::Some(#attr)), super::plain::attr_type(m, k))
        }
        None => (quote!(__O::None), quote!(#p::AttributeType::S)),
    }
}

/// `<Entity>::query_<name>(partition fields)` and its type `<Entity><Name>Query<L>`, `L` the
/// sort-key fields fixed by `eq`: one method per sort-key field, returning the runtime's
/// `SortKey`, offered only where the rule allows it.
pub fn query(m: &Model<'_>, index: &Index) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let fn_name = &index.query_fn;
    let name = &index.name;
    let builder = format_ident!("{}", crate::valid::query_type_name(&m.input, fn_name));
    let (params, _, _, _) = partition_parts(m, index);
    if index.pk.is_none() {
        return quote!();
    }
    // The query starts from the partition it reads: the generated `partition_<name>`.
    let args = index.pk.iter().chain(&index.more_pk).map(|k| m.input.fields[field_of(k)].ident);
    let partition = super::query::partition_fn_name(index);
    let start = quote!(#ident::#partition(#(#args),*).__entity_query(#p::SortCondition::Any));
    let pk_names: Vec<String> =
        index.pk.iter().chain(&index.more_pk).map(|k| format!("`{}`", m.input.fields[field_of(k)].name)).collect();
    let sks: Vec<&Key> = index.sk.iter().chain(&index.more_sk).collect();
    let sk_names: Vec<String> = sks.iter().map(|k| format!("`{}`", m.input.fields[field_of(k)].name)).collect();
    let doc = format!(
        "Queries multi-attribute index `{name}`: partition {}{}.",
        pk_names.join(" and "),
        if sk_names.is_empty() { String::new() } else { format!(", sorted by {}", sk_names.join(" then ")) }
    );
    let levels = sks.iter().enumerate().map(|(level, key)| {
        let i = field_of(key);
        let f = &m.input.fields[i];
        let (ty, fname) = (f.key_ty(), f.ident);
        let next_key = sks.get(level + 1).copied();
        let (next, doc) = match next_key {
            Some(next) => {
                let l = level + 1;
                let next_name = &m.input.fields[field_of(next)].name;
                (quote!(#builder<#l>), format!("A condition on `{}`; its `eq` leads to `{next_name}`.", f.name))
            }
            None => (quote!(#p::Query<#ident>), format!("A condition on `{}`.", f.name)),
        };
        let how = super::plain::attr_how(m, key, i, next_key);
        quote! {
            #[automatically_derived]
            impl #builder<#level> {
                #[doc = #doc]
                #[inline] pub fn #fname(self) -> #p::SortKey<#ident, #ty, #next> {
                    #p::QueryLevel::__new(self.0, "").__sort(const { &#how })
                }
            }
        }
    });
    let struct_doc = format!(
        "A query of [`{ident}`] items on index `{name}`; narrow it with `eq` on the sort-key fields from the left ({}), \
         then at most one range on the next one, or run it as it is. `L` counts the fields fixed with `eq`.",
        sk_names.join(", then ")
    );
    let options = super::query::options(&p, ident, &quote!(#builder<L>), quote!(<const L: usize>), false);
    quote! {
        #[doc = #struct_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #[must_use = "a query does nothing until it is run by a `Table`"]
        #vis struct #builder<const L: usize = 0>(#p::Query<#ident>);

        #options

        #(#levels)*

        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #[inline] #vis fn #fn_name(#(#params),*) -> #builder {
                #builder(#start)
            }
        }
    }
}

/// `<Entity>::partition_<name>(partition fields)`: where a collection query on the index starts.
pub fn partition_fn(m: &Model<'_>, index: &Index) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let query = index.query_fn.to_string();
    let fn_name = format_ident!("partition_{}", query.strip_prefix("query_").unwrap_or(&query));
    let name = &index.name;
    let (params, converts, first, also) = partition_parts(m, index);
    let Some(pk) = index.pk.as_ref() else { return quote!() };
    let (pk_attr, pk_ty) = (&pk.attr, super::plain::attr_type(m, pk));
    let (sk_attr, sk_ty) = sk_start(m, index);
    let tenant = super::keys::tenant_tail(m, field_of(pk));
    let doc = format!(
        "A partition of multi-attribute index `{name}`, typed by [`{ident}`]: a collection query of `{ident}`'s collections starts from it."
    );
    quote! {
        #[doc = #doc]
        #[inline] #vis fn #fn_name(#(#params),*) -> #p::Partition<#ident> {
            #(#converts)*
            #p::Partition::__new(__O::Some(#name), true, #pk_attr, #first, #sk_attr)
                .__key_types(#pk_ty, #sk_ty) #(#also)* #tenant
        }
    }
}
