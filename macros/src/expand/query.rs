//! The typed queries: `<Name>::query_by_..(..)` per index, and one method per sort-key
//! placeholder (`.ts()`), which returns the runtime's `SortKey`: the operators (`eq`, `gt`,
//! `between`, ..) and the query options (`QueryOptions`) are written once, in the runtime.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::assert::key_field;
use super::keys::{fmt_at_fn, fmt_fn, sharded_tail};
use super::private;
use crate::attr::IndexKind;
use crate::template::Part;
use crate::valid::{Key, Model};

struct QuerySpec<'m> {
    fn_name: &'m Ident,
    index: Option<&'m str>,
    global: bool,
    pk: &'m Key,
    pk_fmt: Ident,
    /// The formatter of one shard of a sharded partition key.
    pk_at_fmt: Ident,
    sk: Option<&'m Key>,
    sk_fmt: Ident,
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
    let (query_mut, from_level, into) = if level {
        (quote!(self.0.query_mut()), quote!(Self(level)), quote!(::core::convert::From::from(self.0)))
    } else {
        (quote!(&mut self.0), quote!(Self(::core::convert::From::from(level))), quote!(self.0))
    };
    quote! {
        #[automatically_derived]
        impl #generics #p::QueryOptions for #ty {
            type Entity = #ident;
            #[inline] fn __query_mut(&mut self) -> &mut #p::Query<#ident> {
                #query_mut
            }
            #[inline] fn __from_level(level: #p::QueryLevel<#ident>) -> Self {
                #from_level
            }
            #[inline] fn into_query(self) -> #p::Query<#ident> {
                #into
            }
        }

        #[automatically_derived]
        impl #generics ::core::convert::From<#ty> for #p::Query<#ident> {
            #[inline] fn from(q: #ty) -> Self {
                #p::QueryOptions::into_query(q)
            }
        }
    }
}

fn expand_query(m: &Model<'_>, spec: &QuerySpec<'_>) -> TokenStream {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let fn_name = spec.fn_name;
    let pk_attr = &spec.pk.attr;
    let index = match spec.index {
        Some(i) => quote!(::core::option::Option::Some(#i)),
        None => quote!(::core::option::Option::None),
    };
    let global = spec.global;
    let pk_fields: Vec<_> = spec.pk.fields.iter().map(|(i, _)| (*i, &m.input.fields[*i])).collect();
    let params: Vec<TokenStream> = pk_fields
        .iter()
        .map(|(_, f)| {
            let n = f.ident;
            let ty = f.key_ty();
            quote!(#n: impl #p::IntoValue<#ty>)
        })
        .collect();
    let converts: Vec<TokenStream> = pk_fields
        .iter()
        .map(|(i, f)| {
            let n = f.ident;
            let local = format_ident!("__a{}", i);
            let ty = f.key_ty();
            quote!(let #local: #ty = #p::IntoValue::into_value(#n);)
        })
        .collect();
    let pk_locals = pk_fields.iter().map(|(i, _)| {
        let local = format_ident!("__a{}", i);
        quote!(&#local)
    });
    let pk_fmt = &spec.pk_fmt;
    let pk_value = match spec.pk.plain_field() {
        Some(i) => {
            let local = format_ident!("__a{}", i);
            super::plain::attr_text(m, spec.pk, i, &quote!(&#local))
        }
        None => quote!(#ident::#pk_fmt(#p::key::KeyBuilder::new(), #(#pk_locals),*)),
    };
    let key_types = super::plain::key_types(m, spec.pk, spec.sk);
    // A partition whose shard the query does not fix: every shard's key, read and merged.
    let sharded = sharded_tail(m, spec.pk, &spec.pk_at_fmt);
    let pk_value =
        if sharded.is_empty() { pk_value } else { quote!(::core::result::Result::Ok(::std::string::String::new())) };
    // A partition key on the tenant field's own attribute: the tenant's key text beside it.
    let tenant = spec.pk.plain_field().map(|i| super::keys::tenant_tail(m, i)).unwrap_or_default();
    let start = |sort: TokenStream, sk_attr: TokenStream| quote!(#p::Query::__new(#index, #global, #pk_attr, #pk_value, #sk_attr, #sort) #key_types #sharded #tenant);
    let doc = &spec.doc;
    if let Some((sk, field)) = spec.sk.and_then(|k| k.plain_field().map(|f| (k, f))) {
        // The sort key is a field's own attribute: conditions compare it as it is stored.
        let builder = level_ident(m, spec);
        let sk_attr = &sk.attr;
        let start = start(quote!(#p::SortCondition::Any), quote!(::core::option::Option::Some(#sk_attr)));
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
        let (sort, sk_attr) = match spec.sk {
            Some(sk) => {
                let text = &sk.template.source;
                let attr = &sk.attr;
                (
                    quote!(#p::SortCondition::Equals(::std::borrow::ToOwned::to_owned(#text))),
                    quote!(::core::option::Option::Some(#attr)),
                )
            }
            None => (quote!(#p::SortCondition::Any), quote!(::core::option::Option::None)),
        };
        return complete(start(sort, sk_attr));
    };

    // Leading sort-key placeholders that are partition-key fields are fixed by the partition:
    // the query starts past them, and offers no condition on them (one could only repeat the
    // partition's value).
    let fixed = sk.fields.iter().take_while(|(i, _)| pk_fields.iter().any(|(j, _)| j == i)).count();
    if fixed == sk.fields.len() {
        let sk_attr = &sk.attr;
        let sk_fmt = &spec.sk_fmt;
        let args = sk.fields.iter().map(|(i, _)| {
            let local = format_ident!("__a{}", i);
            quote!(&#local)
        });
        let start = start(quote!(#p::SortCondition::Any), quote!(::core::option::Option::Some(#sk_attr)));
        return complete(quote!(#start.__exact(#ident::#sk_fmt(#p::key::KeyBuilder::new(), #(#args),*))));
    }
    let sk_attr = &sk.attr;
    let prefix = sk.template.prefix();
    let sort = if prefix.is_empty() {
        quote!(#p::SortCondition::Any)
    } else {
        quote!(#p::SortCondition::BeginsWith(::std::borrow::ToOwned::to_owned(#prefix)))
    };
    let start = start(sort, quote!(::core::option::Option::Some(#sk_attr)));
    let n = sk.fields.len();
    // One query type per query, `<Name><Query>Query<const L: usize = 0>`: `L` counts the sort-key
    // components fixed with `eq` so far. Each level's one method gives the runtime's `SortKey`,
    // whose operators are written once.
    let query_ty = level_ident(m, spec);
    let level_ty = |level: usize| {
        let l = proc_macro2::Literal::usize_unsuffixed(level);
        quote!(#query_ty<#l>)
    };
    // The description of placeholder `level`: `How::Level(Level { .. })`, or `How::Raw`; with
    // `plain`, the `Level` alone.
    let how = |level: usize, plain: bool| {
        let (fi, width) = sk.fields[level];
        let f = &m.input.fields[fi];
        let ty = f.key_ty();
        let field = &f.name;
        let last = level + 1 == n;
        let after = sk.template.literal_after(level);
        let path = key_field(&p, ty, width);
        let w = width.unwrap_or(0);
        let spec = quote!(#p::LevelSpec { key: #sk_attr, field: #field, width: #w, after: #after, last: #last });
        let raw = sk.template.is_raw(level).then(|| super::assert::raw_key_field(&p, ty));
        let text = match &raw {
            Some(raw) => quote!(#raw::__at),
            None => quote!(#path::__at),
        };
        let level = quote!(#p::Level { spec: #spec, text: #text });
        match raw {
            _ if plain => level,
            Some(raw) => quote!(#p::How::Raw(#level, #raw::__at_successor)),
            None => quote!(#p::How::Level(#level)),
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
        let how = how(level, false);
        quote! {
            #[automatically_derived]
            impl #this {
                #[doc = #doc]
                #[inline] pub fn #name(self) -> #p::SortKey<#ident, #ty, #next> {
                    #p::SortKey::__new(self.0, const { &#how })
                }
            }
        }
    });
    let start_ty = level_ty(fixed);
    let fix = (0..fixed).map(|level| {
        let (i, _) = sk.fields[level];
        let local = format_ident!("__a{}", i);
        let path = key_field(&p, m.input.fields[i].key_ty(), None);
        let level = how(level, true);
        quote!(.__eq(#p::Level::at(const { &#level }, #path::__clone(&#local))))
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
                #query_ty(#p::QueryLevel::__new(#start, #prefix)#(#fix)*)
            }
        }
    }
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
            index: None,
            global: false,
            pk: &m.pk,
            pk_fmt: fmt_fn("table", "pk"),
            pk_at_fmt: fmt_at_fn("table", "pk"),
            sk: m.sk.as_ref(),
            sk_fmt: fmt_fn("table", "sk"),
            doc: table_doc,
        },
    ));
    for index in &m.indexes {
        if index.multi {
            out.push(super::multi::query(m, index));
            continue;
        }
        let global = index.kind == IndexKind::Global;
        let pk = m.index_pk(index);
        let pk_fmt = if global { fmt_fn(&index.label, "pk") } else { fmt_fn("table", "pk") };
        let pk_at_fmt = if global { fmt_at_fn(&index.label, "pk") } else { fmt_at_fn("table", "pk") };
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
                index: Some(&index.name),
                global,
                pk,
                pk_fmt,
                pk_at_fmt,
                sk: index.sk.as_ref(),
                sk_fmt: fmt_fn(&index.label, "sk"),
                doc,
            },
        ));
    }
    quote!(#(#out)*)
}
