//! The typed query builders: `<Name>::query_by_..(..)` per index, with sort-key conditions
//! named after the sort-key placeholders.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::assert::key_field;
use super::keys::fmt_fn;
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
    sk: Option<&'m Key>,
    doc: String,
}

fn level_ident(m: &Model<'_>, spec: &QuerySpec<'_>, level: usize, sk: &Key) -> Ident {
    format_ident!("{}", crate::valid::query_type_name(&m.input, spec.fn_name, level, sk))
}

/// Builder options shared by every level.
fn options(p: &TokenStream, ident: &Ident, global: bool) -> TokenStream {
    let consistent = if global {
        quote!()
    } else {
        quote! {
            /// Strongly consistent read (eventually consistent by default).
            pub fn consistent_read(self) -> Self {
                Self { __q: self.__q.consistent_read(), ..self }
            }
        }
    };
    quote! {
        /// Greatest sort key first (newest first for time-ordered keys).
        pub fn descending(self) -> Self {
            Self { __q: self.__q.descending(), ..self }
        }

        /// At most `n` items in the result (items returned, not items evaluated).
        pub fn limit(self, n: u32) -> Self {
            Self { __q: self.__q.limit(n), ..self }
        }

        #consistent

        /// Resume after the last item of a previous page (see `Query::after`).
        pub fn after(self, cursor: #p::Cursor) -> Self {
            Self { __q: self.__q.after(cursor), ..self }
        }

        /// The request this query sends, or why it cannot be sent.
        pub fn request(&self) -> ::core::result::Result<#p::QueryRequest, #p::Error> {
            self.__q.request()
        }

        /// The query with no further sort-key condition.
        pub fn into_query(self) -> #p::Query<#ident> {
            self.__q
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
    let params = pk_fields.iter().map(|(_, f)| {
        let n = f.ident;
        let ty = f.key_ty();
        quote!(#n: impl ::core::convert::Into<#ty>)
    });
    let converts = pk_fields.iter().map(|(i, f)| {
        let n = f.ident;
        let local = format_ident!("__a{}", i);
        let ty = f.key_ty();
        quote!(let #local: #ty = ::core::convert::Into::into(#n);)
    });
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
        None => quote!(#ident::#pk_fmt(#(#pk_locals),*)),
    };
    let key_types = super::plain::key_types(m, spec.pk, spec.sk);
    let start = |sort: TokenStream, sk_attr: TokenStream| quote!(#p::Query::__new(#index, #global, #pk_attr, #pk_value, #sk_attr, #sort) #key_types);
    let doc = &spec.doc;
    if let Some((sk, field)) = spec.sk.and_then(|k| k.plain_field().map(|f| (k, f))) {
        // The sort key is a field's own attribute: conditions compare it as it is stored.
        let builder = level_ident(m, spec, 0, sk);
        let sk_attr = &sk.attr;
        let start = start(quote!(#p::SortCondition::Any), quote!(::core::option::Option::Some(#sk_attr)));
        let options = options(&p, ident, spec.global);
        let levels = super::plain::sort_builder(m, &builder, sk, field, &options);
        return quote! {
            #levels

            #[automatically_derived]
            impl #ident {
                #[doc = #doc]
                #vis fn #fn_name(#(#params),*) -> #builder {
                    #(#converts)*
                    #builder { __q: #start }
                }
            }
        };
    }
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
        let start = start(sort, sk_attr);
        return quote! {
            #[automatically_derived]
            impl #ident {
                #[doc = #doc]
                #vis fn #fn_name(#(#params),*) -> #p::Query<#ident> {
                    #(#converts)*
                    #start
                }
            }
        };
    };

    let sk_attr = &sk.attr;
    let prefix = sk.template.prefix();
    let sort = if prefix.is_empty() {
        quote!(#p::SortCondition::Any)
    } else {
        quote!(#p::SortCondition::BeginsWith(::std::borrow::ToOwned::to_owned(#prefix)))
    };
    let start = start(sort, quote!(::core::option::Option::Some(#sk_attr)));
    let n = sk.fields.len();
    let levels = (0..n).map(|level| {
        let this = level_ident(m, spec, level, sk);
        let (fi, width) = sk.fields[level];
        let f = &m.input.fields[fi];
        let ty = f.key_ty();
        let field = &f.name;
        let last = level + 1 == n;
        let after = sk.template.literal_after(level);
        let path = key_field(&p, ty, width);
        let raw = sk.template.is_raw(level).then(|| super::assert::raw_key_field(&p, ty));
        let text = |v: TokenStream| match (&raw, width) {
            (Some(raw), _) => quote!(#raw::__text_raw(&#v)),
            (None, Some(w)) => quote!(#path::__text_padded(&#v, #w, #sk_attr, #field)),
            (None, None) => quote!(#path::__text(&#v, #sk_attr, #field)),
        };
        let value_text = text(quote!(__v));
        let from_text = text(quote!(__from));
        let to_text = text(quote!(__to));
        let method = |suffix: &str| format_ident!("{}_{}", f.name, suffix);
        let (eq_ret, eq_body) = if last {
            (quote!(#p::Query<#ident>), quote!(self.__q.__eq(&self.__prefix, #value_text, #after, true).0))
        } else {
            let next = level_ident(m, spec, level + 1, sk);
            (
                quote!(#next),
                quote! {
                    let (__q, __prefix) = self.__q.__eq(&self.__prefix, #value_text, #after, false);
                    #next { __q, __prefix }
                },
            )
        };
        let eq = method("eq");
        let cmps = [
            ("lt", "Lt", "less than"),
            ("lte", "Lte", "at most"),
            ("gt", "Gt", "greater than"),
            ("gte", "Gte", "at least"),
        ]
        .iter()
        .map(|(suffix, op, words)| {
            let name = method(suffix);
            let doc = format!("Items whose `{field}` is {words} `value`.");
            // A raw component may continue with any byte: "greater than v" is "at least the
            // next string after v", exactly (see `codec::RawKeyField`).
            let (op, value_text) = match &raw {
                Some(raw) if *op == "Gt" => (format_ident!("Gte"), quote!(#raw::__text_raw_successor(&__v))),
                _ => (format_ident!("{}", op), value_text.clone()),
            };
            quote! {
                #[doc = #doc]
                pub fn #name(self, value: impl ::core::convert::Into<#ty>) -> #p::Query<#ident> {
                    let __v: #ty = ::core::convert::Into::into(value);
                    self.__q.__cmp(&self.__prefix, #p::SortOp::#op, #value_text, #after, #last)
                }
            }
        });
        let between = method("between");
        let eq_doc = format!("Items whose `{field}` equals `value`.");
        let between_doc = format!("Items whose `{field}` is between `from` and `to`, both included.");
        let struct_doc =
            format!("A query of [`{ident}`] items; narrow it with a condition on `{field}` or run it as it is.");
        let options = options(&p, ident, spec.global);
        quote! {
            #[doc = #struct_doc]
            #[derive(::core::fmt::Debug, ::core::clone::Clone)]
            #[must_use = "a query does nothing until it is run by a `Table`"]
            #vis struct #this {
                __q: #p::Query<#ident>,
                __prefix: ::std::string::String,
            }

            #[automatically_derived]
            impl #this {
                #[doc = #eq_doc]
                pub fn #eq(self, value: impl ::core::convert::Into<#ty>) -> #eq_ret {
                    let __v: #ty = ::core::convert::Into::into(value);
                    #eq_body
                }

                #(#cmps)*

                #[doc = #between_doc]
                pub fn #between(
                    self,
                    from: impl ::core::convert::Into<#ty>,
                    to: impl ::core::convert::Into<#ty>,
                ) -> #p::Query<#ident> {
                    let __from: #ty = ::core::convert::Into::into(from);
                    let __to: #ty = ::core::convert::Into::into(to);
                    self.__q.__between(&self.__prefix, #from_text, #to_text, #after, #last)
                }

                #options
            }

            #[automatically_derived]
            impl ::core::convert::From<#this> for #p::Query<#ident> {
                fn from(q: #this) -> Self {
                    q.__q
                }
            }
        }
    });
    let first = level_ident(m, spec, 0, sk);
    quote! {
        #(#levels)*

        #[automatically_derived]
        impl #ident {
            #[doc = #doc]
            #vis fn #fn_name(#(#params),*) -> #first {
                #(#converts)*
                #first { __q: #start, __prefix: ::std::borrow::ToOwned::to_owned(#prefix) }
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
            sk: m.sk.as_ref(),
            doc: table_doc,
        },
    ));
    for index in &m.indexes {
        let global = index.kind == IndexKind::Global;
        let pk = m.index_pk(index);
        let pk_fmt = if global { fmt_fn(&index.label, "pk") } else { fmt_fn("table", "pk") };
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
                sk: index.sk.as_ref(),
                doc,
            },
        ));
    }
    quote!(#(#out)*)
}
