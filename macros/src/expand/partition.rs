//! `<Name>::partition(..)` and `<Name>::partition_<query>(..)`: the partitions of the table and
//! of each index, typed by the entity, from which collection queries start.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::keys::{fmt_at_fn, fmt_fn};
use super::private;
use crate::attr::IndexKind;
use crate::valid::{Key, Model};

#[allow(clippy::too_many_arguments)]
fn partition_fn(
    m: &Model<'_>,
    name: &syn::Ident,
    index: Option<&str>,
    global: bool,
    pk: &Key,
    pk_fmt: syn::Ident,
    pk_at_fmt: syn::Ident,
    sk: Option<&Key>,
) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let pk_attr = &pk.attr;
    let index_tokens = match index {
        Some(i) => quote!(__O::Some(#i)),
        None => quote!(__O::None),
    };
    let sk_attr = match sk {
        Some(k) => {
            let a = &k.attr;
            quote!(__O::Some(#a))
        }
        None => quote!(__O::None),
    };
    let fields: Vec<_> = pk.fields.iter().map(|(i, _)| &m.input.fields[*i]).collect();
    let params = fields.iter().map(|f| {
        let n = f.ident;
        let ty = f.key_ty();
        quote!(#n: impl #p::IntoValue<#ty>)
    });
    let locals: Vec<_> = pk.fields.iter().map(|(i, _)| format_ident!("__a{}", i)).collect();
    // A partition key on a field's own attribute is that attribute's value, typed as it is stored.
    let pk_value = match (pk.plain_field(), locals.first()) {
        (Some(i), Some(local)) => super::plain::attr_text(m, pk, i, &quote!(&#local)),
        _ => quote!(#ident::#pk_fmt(__KB::new(), #(&#locals),*)),
    };
    let key_types = super::plain::key_types(m, pk, sk);
    // A partition key on the tenant field's own attribute: the tenant's key text beside it.
    let tenant = pk.plain_field().map(|i| super::keys::tenant_tail(m, i)).unwrap_or_default();
    // A partition spread over shards: every shard's key (the query reads them all, merged).
    let sharded = super::keys::sharded_tail(m, pk, &pk_at_fmt);
    let pk_value = if sharded.is_empty() { pk_value } else { quote!(__R::Ok(__S::new())) };
    let converts = fields.iter().zip(&locals).map(|(f, local)| {
        let n = f.ident;
        let ty = f.key_ty();
        quote!(let #local: #ty = #p::IntoValue::into_value(#n);)
    });
    // The table's: its key attributes are the schema's.
    let start = match index {
        None => quote!(#p::Partition::__of_table(#pk_value)),
        Some(_) => quote!(#p::Partition::__new(#index_tokens, #global, #pk_attr, #pk_value, #sk_attr)),
    };
    let doc = format!(
        "The partition `{}` of {}, typed by [`{ident}`]: a collection query of `{ident}`'s collections starts from it.",
        pk.template.source,
        index.map_or_else(|| "the table".to_owned(), |i| format!("index `{i}`")),
    );
    quote! {
        #[doc = #doc]
        #[inline] #vis fn #name(#(#params),*) -> #p::Partition<#ident> {
            #(#converts)*
            #start #key_types #sharded #tenant
        }
    }
}

pub fn expand(m: &Model<'_>) -> TokenStream {
    let ident = m.input.ident;
    let mut fns = vec![partition_fn(
        m,
        &format_ident!("partition"),
        None,
        false,
        &m.pk,
        fmt_fn("table", "pk"),
        fmt_at_fn("table", "pk"),
        m.sk.as_ref(),
    )];
    for index in &m.indexes {
        if index.multi {
            fns.push(super::multi::partition_fn(m, index));
            continue;
        }
        let global = index.kind == IndexKind::Global;
        let query = index.query_fn.to_string();
        let name = format_ident!("partition_{}", query.strip_prefix("query_").unwrap_or(&query));
        let pk_fmt = if global { fmt_fn(&index.label, "pk") } else { fmt_fn("table", "pk") };
        let pk_at_fmt = if global { fmt_at_fn(&index.label, "pk") } else { fmt_at_fn("table", "pk") };
        fns.push(partition_fn(
            m,
            &name,
            Some(&index.name),
            global,
            m.index_pk(index),
            pk_fmt,
            pk_at_fmt,
            index.sk.as_ref(),
        ));
    }
    quote! {
        #[automatically_derived]
        impl #ident {
            #(#fns)*
        }
    }
}
