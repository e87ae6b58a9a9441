//! The typed queries: `<Name>::query_by_..(..)` per index, and one method per sort-key
//! placeholder (`.ts()`), which returns the runtime's `SortKey`: the operators (`eq`, `gt`,
//! `between`, ..) and the query options (`QueryOptions`) are written once, in the runtime.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::assert::{key_field, raw_key_field};
use super::keys::fmt_fn;
use super::private;
use crate::template::Part;
use crate::valid::{Key, Model};

struct QuerySpec<'m> {
    fn_name: &'m Ident,
    pk: &'m Key,
    sk: Option<&'m Key>,
    sk_fmt: Ident,
    /// The generated function of the partition the query reads.
    partition: Ident,
    doc: String,
}

fn level_ident(m: &Model<'_>, spec: &QuerySpec<'_>) -> Ident {
    format_ident!("{}", crate::valid::query_type_name(&m.input, spec.fn_name))
}

/// The options of a generated query type (`QueryOptions`, written once in the runtime): the
/// impl reaches its query, and makes it from a query narrowed by `eq`. `level`: the type wraps a
/// `QueryLevel` (a sort-key template), else a `Query` (a key on a field's own attribute).
/// `generics`: `<const L: usize>` for a type of levels.
pub(crate) fn options(
    p: &TokenStream,
    ident: &Ident,
    ty: &TokenStream,
    generics: TokenStream,
    level: bool,
) -> TokenStream {
    let (into_level, from_level, query) = if level {
        (quote!(self.0), quote!(Self(level)), quote!(self.0.query()))
    } else {
        (quote!(#p::QueryLevel::__new(self.0, "")), quote!(Self(::core::convert::Into::into(level))), quote!(&self.0))
    };
    quote! {
        #[automatically_derived]
        impl #generics #p::QueryOptions for #ty {
            type Entity = #ident;
            #[inline] fn __into_level(self) -> #p::QueryLevel<#ident> {
                #into_level
            }
            #[inline] fn __from_level(level: #p::QueryLevel<#ident>) -> Self {
                #from_level
            }
            #[inline] fn __query(&self) -> &#p::Query<#ident> {
                #query
            }
        }

    }
}

fn expand_query(m: &Model<'_>, spec: &QuerySpec<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let fn_name = spec.fn_name;
    let pk_fields: Vec<_> = spec.pk.fields.iter().map(|(i, _)| (*i, &m.input.fields[*i])).collect();
    let params: Vec<TokenStream> = pk_fields
        .iter()
        .map(|(_, f)| {
            let n = f.ident;
            let ty = f.key_ty();
            quote!(#n: impl #p::IntoValue<#ty>)
        })
        .collect();
    // Leading sort-key placeholders that are partition-key fields are fixed by the partition
    // (see below): their values are needed twice, so they are converted first.
    let fixed = match spec.sk {
        Some(sk) if sk.plain_field().is_none() => {
            sk.fields.iter().take_while(|(i, _)| pk_fields.iter().any(|(j, _)| j == i)).count()
        }
        _ => 0,
    };
    let (converts, args): (Vec<TokenStream>, Vec<TokenStream>) = pk_fields
        .iter()
        .map(|(i, f)| {
            let n = f.ident;
            if fixed == 0 {
                return (quote!(), quote!(#n));
            }
            let local = format_ident!("__a{}", i);
            let ty = f.key_ty();
            let clone = key_field(ty, None);
            (quote!(let #local: #ty = #p::IntoValue::into_value(#n);), quote!(#clone::__clone(&#local)))
        })
        .unzip();
    // The query starts from the partition it reads (its key, shards, tenant, key types): the
    // generated `partition` function of the table or the index.
    let partition = &spec.partition;
    let start = |sort: TokenStream| quote!(#ident::#partition(#(#args),*).__entity_query(#sort));
    let doc = &spec.doc;
    if let Some((sk, field)) = spec.sk.and_then(|k| k.plain_field().map(|f| (k, f))) {
        // The sort key is a field's own attribute: conditions compare it as it is stored.
        let builder = level_ident(m, spec);
        let start = start(quote!(#p::SortCondition::Any));
        let levels = super::plain::sort_builder(m, &builder, sk, field);
        return quote! {
            #levels

            #[automatically_derived]
            impl #ident {
                #[doc = #doc]
                #[inline] #vis fn #fn_name(#(#params),*) -> #builder {
                    #(#converts)*
                    #builder(#start)
                }
            }
        };
    }
    // A query with nothing left to narrow: the constructor gives the `Query` itself.
    let complete = |query: TokenStream| {
        quote! {
            #[automatically_derived]
            impl #ident {
                #[doc = #doc]
                #[inline] #vis fn #fn_name(#(#params),*) -> #p::Query<#ident> {
                    #(#converts)*
                    #query
                }
            }
        }
    };
    let Some(sk) = spec.sk.filter(|sk| !sk.fields.is_empty()) else {
        // No sort-key placeholder: the query is complete.
        let sort = match spec.sk {
            Some(sk) => {
                let text = &sk.template.source;
                quote!(#p::SortCondition::Equals(::std::borrow::ToOwned::to_owned(#text)))
            }
            None => quote!(#p::SortCondition::Any),
        };
        return complete(start(sort));
    };

    // Leading sort-key placeholders that are partition-key fields are fixed by the partition:
    // the query starts past them, and offers no condition on them (one could only repeat the
    // partition's value).
    if fixed == sk.fields.len() {
        let sk_fmt = &spec.sk_fmt;
        let args = sk.fields.iter().map(|(i, _)| {
            let local = format_ident!("__a{}", i);
            quote!(&#local)
        });
        let start = start(quote!(#p::SortCondition::Any));
        return complete(quote!(#start.__exact(#ident::#sk_fmt(__KB::new(), #(#args),*))));
    }
    let sk_attr = &sk.attr;
    let prefix = sk.template.prefix();
    let n = sk.fields.len();
    // One query type per query, `<Name><Query>Query<const L: usize = 0>`: `L` counts the sort-key
    // components fixed with `eq` so far. Each level's one method gives the runtime's `SortKey`,
    // whose operators are written once.
    let query_ty = level_ident(m, spec);
    let level_ty = |level: usize| {
        let l = proc_macro2::Literal::usize_unsuffixed(level);
        quote!(#query_ty<#l>)
    };
    // The description of placeholder `level`: `How::key::<T>(..)`, `How::padded` or `How::raw`
    // (the type's key text chosen by the trait it implements, spanned at the type).
    let how = |level: usize| {
        let (fi, width) = sk.fields[level];
        let f = &m.input.fields[fi];
        let ty = f.key_ty();
        let field = &f.name;
        let last = level + 1 == n;
        let after = sk.template.literal_after(level);
        // The type's key text through the same paths as every other use of the component
        // (spanned at the type): a type that is no key part is one error, at the field.
        let w = proc_macro2::Literal::usize_unsuffixed(width.unwrap_or(0));
        if sk.template.is_raw(level) {
            let raw = raw_key_field(ty);
            quote!(const { &#p::How::raw(#raw::__at, #raw::__at_successor, #sk_attr, #field, #after, #last) })
        } else {
            let text = key_field(ty, width);
            quote!(const { &#p::How::level(#text::__at, #sk_attr, #field, #w, #after, #last) })
        }
    };
    let levels = (fixed..n).map(|level| {
        let this = level_ty(level);
        let (fi, _) = sk.fields[level];
        let f = &m.input.fields[fi];
        let (ty, name) = (f.key_ty(), f.ident);
        let next = if level + 1 == n { quote!(#p::Query<#ident>) } else { level_ty(level + 1) };
        let doc = match sk.fields.get(level + 1) {
            Some((j, _)) => format!("A condition on `{}`; its `eq` leads to `{}`.", f.name, m.input.fields[*j].name),
            None => format!("A condition on `{}`.", f.name),
        };
        let how = how(level);
        quote! {
            #[automatically_derived]
            impl #this {
                #[doc = #doc]
                #[inline] pub fn #name(self) -> #p::SortKey<#ident, #ty, #next> {
                    self.0.__sort(#how)
                }
            }
        }
    });
    let start_ty = level_ty(fixed);
    let fix = (0..fixed).map(|level| {
        let (i, _) = sk.fields[level];
        let local = format_ident!("__a{}", i);
        let path = key_field(m.input.fields[i].key_ty(), None);
        let how = how(level);
        quote!(.__fix(#how, #path::__clone(&#local)))
    });
    let names: Vec<String> = sk.fields.iter().map(|(i, _)| format!("`{}`", m.input.fields[*i].name)).collect();
    let struct_doc = format!(
        "A query of [`{ident}`] items; narrow it with a condition on its sort key ({}) or run it as it is. \
         `L` counts the sort-key components already fixed with `eq`.",
        names.join(", then ")
    );
    let options = options(&p, ident, &quote!(#query_ty<L>), quote!(<const L: usize>), true);
    quote! {
        #[doc = #struct_doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #[must_use = "a query does nothing until it is run by a `Table`"]
        #vis struct #query_ty<const L: usize = 0>(#p::QueryLevel<#ident>);

        #options

        #(#levels)*

        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #[inline] #vis fn #fn_name(#(#params),*) -> #start_ty {
                #(#converts)*
                #query_ty(#ident::#partition(#(#args),*).__level(#prefix)#(#fix)*)
            }
        }
    }
}

/// The generated function of an index's partition: `partition_<query name>`.
pub(crate) fn partition_fn_name(index: &crate::valid::Index) -> Ident {
    let query = index.query_fn.to_string();
    format_ident!("partition_{}", query.strip_prefix("query_").unwrap_or(&query))
}

fn describe(key: &Key) -> String {
    key.template
        .parts
        .iter()
        .map(|p| match p {
            Part::Literal(l) => l.clone(),
            Part::Shard => "<shard>".to_owned(),
            Part::Field { name, raw: true, .. } => format!("<{name}:raw>"),
            Part::Field { name, .. } => format!("<{name}>"),
        })
        .collect()
}

pub fn expand(m: &Model<'_>) -> TokenStream {
    let mut out = Vec::new();
    let table_doc = format!(
        "Queries the table: partition `{}`{}.",
        describe(&m.pk),
        m.sk.as_ref().map_or_else(String::new, |sk| format!(", sort key `{}`", describe(sk)))
    );
    out.push(expand_query(
        m,
        &QuerySpec {
            fn_name: &m.query_fn,
            pk: &m.pk,
            sk: m.sk.as_ref(),
            sk_fmt: fmt_fn("table", "sk"),
            partition: format_ident!("partition"),
            doc: table_doc,
        },
    ));
    for index in &m.indexes {
        if index.multi {
            out.push(super::multi::query(m, index));
            continue;
        }
        let pk = m.index_pk(index);
        let doc = format!(
            "Queries index `{}`: partition `{}`{}.",
            index.name,
            describe(pk),
            index.sk.as_ref().map_or_else(String::new, |sk| format!(", sort key `{}`", describe(sk)))
        );
        out.push(expand_query(
            m,
            &QuerySpec {
                fn_name: &index.query_fn,
                pk,
                sk: index.sk.as_ref(),
                sk_fmt: fmt_fn(&index.label, "sk"),
                partition: partition_fn_name(index),
                doc,
            },
        ));
    }
    quote!(#(#out)*)
}
