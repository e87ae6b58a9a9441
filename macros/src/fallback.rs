//! Output on error: the errors, plus a stub of everything the derive would have generated, with
//! `unreachable!()` bodies, so that one mistake is one error: the crate's own uses of the entity
//! (`Order::key(..)`, `Order::query_by_customer(..).order_id().begins_with(..)`, `Order::fields()`,
//! `Order::update(..).set(f.total, ..)`, `table.put(&order)`) still find what they name, and do not
//! bury the real mistake under "no function or associated item named ..".
//!
//! The stub is read from the derive input leniently (the attributes as written, whether or not
//! they are valid), not from the checked model: a template that does not parse still gives its
//! placeholders, an index whose attribute is refused still gives its query.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Meta, Type};

use crate::attr;

fn krate(input: &DeriveInput) -> TokenStream {
    // Honour `#[entity(crate = "..")]` when it parses; otherwise the default path.
    for attr in input.attrs.iter().filter(|a| a.path().is_ident(attr::ENTITY)) {
        let mut path = None;
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(attr::CRATE) {
                path = meta.value()?.parse::<syn::LitStr>()?.parse::<syn::Path>().ok();
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            }
            Ok(())
        });
        if let Some(path) = path {
            return quote!(#path);
        }
    }
    quote!(::dynamo_entity)
}

/// A key as written: a template's placeholders, or a multi-attribute list's fields.
#[derive(Default)]
struct LooseKey {
    /// Field names, in order, each once (no `<shard>`).
    fields: Vec<String>,
}

impl LooseKey {
    fn template(text: &str) -> Self {
        let mut fields: Vec<String> = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find('<') {
            let after = &rest[open + 1..];
            // An unclosed placeholder (the mistake reported) still names its field.
            let close = after.find(['>', '<', '#']).unwrap_or(after.len());
            let inner = &after[..close];
            let name = inner.split(':').next().unwrap_or_default().trim();
            if !name.is_empty() && name != "shard" && !fields.iter().any(|f| f == name) {
                fields.push(name.to_owned());
            }
            rest = after[close..].strip_prefix('>').unwrap_or(&after[close..]);
        }
        LooseKey { fields }
    }
}

struct LooseIndex {
    label: String,
    local: bool,
    pk: Option<LooseKey>,
    query: Option<String>,
}

/// What the attributes say, as far as they can be read.
#[derive(Default)]
struct Loose {
    pk: LooseKey,
    sk: Option<LooseKey>,
    pk_attr: Option<String>,
    sk_attr: Option<String>,
    type_name: Option<String>,
    type_attr: Option<String>,
    query: Option<String>,
    indexes: Vec<LooseIndex>,
}

/// `"text"` of `#[pk = "text"]`.
fn name_value_str(attr: &Attribute) -> Option<String> {
    match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(lit), .. }) => Some(lit.value()),
            _ => None,
        },
        _ => None,
    }
}

/// A key value inside `gsiN(..)`: `"template"` or `["a", "b"]`.
fn loose_key(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LooseKey> {
    let value = meta.value()?;
    if value.peek(syn::token::Bracket) {
        let (_, elems) = crate::attr::bracketed_list(value)?;
        let mut fields = Vec::new();
        for e in &elems {
            if let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(l), .. }) = e {
                fields.push(l.value());
            }
        }
        Ok(LooseKey { fields })
    } else {
        Ok(LooseKey::template(&value.parse::<LitStr>()?.value()))
    }
}

/// Skips the value of a key this reader does not need.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    }
    Ok(())
}

fn loose(input: &DeriveInput) -> Loose {
    let mut out = Loose::default();
    for a in &input.attrs {
        let path = a.path();
        if path.is_ident(attr::PK) {
            out.pk = name_value_str(a).map(|t| LooseKey::template(&t)).unwrap_or_default();
        } else if path.is_ident(attr::SK) {
            out.sk = Some(name_value_str(a).map(|t| LooseKey::template(&t)).unwrap_or_default());
        } else if path.is_ident(attr::ENTITY) {
            let _ = a.parse_nested_meta(|meta| {
                let slot = if meta.path.is_ident(attr::QUERY) {
                    &mut out.query
                } else if meta.path.is_ident(attr::PK_ATTR) {
                    &mut out.pk_attr
                } else if meta.path.is_ident(attr::SK_ATTR) {
                    &mut out.sk_attr
                } else if meta.path.is_ident(attr::TYPE_NAME) {
                    &mut out.type_name
                } else if meta.path.is_ident(attr::TYPE_ATTR) {
                    match meta.value()?.parse::<syn::Lit>()? {
                        syn::Lit::Str(l) => out.type_attr = Some(l.value()),
                        _ => out.type_attr = Some(String::new()),
                    }
                    return Ok(());
                } else {
                    return skip_value(&meta);
                };
                *slot = Some(meta.value()?.parse::<LitStr>()?.value());
                Ok(())
            });
        } else if let Some(ident) = path.get_ident() {
            let label = ident.to_string();
            let local = label.starts_with("lsi");
            if !(label.starts_with("gsi") || local) || !label[3..].bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let mut index = LooseIndex { label, local, pk: None, query: None };
            let _ = a.parse_nested_meta(|meta| {
                if meta.path.is_ident(attr::PK) {
                    index.pk = Some(loose_key(&meta)?);
                } else if meta.path.is_ident(attr::QUERY) {
                    index.query = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident(attr::SK) {
                    loose_key(&meta)?;
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            });
            out.indexes.push(index);
        }
    }
    out
}

/// A field as written, with the attributes that decide what the derive generates for it.
struct LooseField<'a> {
    ident: &'a Ident,
    name: String,
    ty: &'a Type,
    skip: bool,
    encrypt: bool,
}

fn loose_fields(fields: &syn::FieldsNamed) -> Vec<LooseField<'_>> {
    let mut out = Vec::new();
    for f in &fields.named {
        let Some(ident) = f.ident.as_ref() else { continue };
        let mut skip = false;
        for a in f.attrs.iter().filter(|a| a.path().is_ident(attr::ENTITY)) {
            let _ = a.parse_nested_meta(|meta| {
                skip |= meta.path.is_ident(attr::SKIP);
                skip_value(&meta)
            });
        }
        let has = |name: &str| f.attrs.iter().any(|a| a.path().is_ident(name));
        out.push(LooseField { ident, name: ident.unraw().to_string(), ty: &f.ty, skip, encrypt: has(attr::ENCRYPT) });
    }
    out
}

/// `query_by_` + the names with a trailing `_id` stripped, joined by `_and_` (as the derive
/// names a query whose attribute does not).
fn default_query_name(prefix: &str, key: &LooseKey) -> String {
    let names: Vec<&str> =
        key.fields.iter().map(|n| n.strip_suffix("_id").filter(|s| !s.is_empty()).unwrap_or(n)).collect();
    if names.is_empty() { prefix.to_owned() } else { format!("{prefix}_by_{}", names.join("_and_")) }
}

/// `name` as an identifier, if it is one (checked before lexing: the compiler's lexer reports
/// what it cannot lex, such as `a#b`, as an error of its own).
fn parse_ident(name: &str) -> Option<Ident> {
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_alphabetic() || first == '_') || !chars.all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    syn::parse_str::<Ident>(name).ok()
}

/// The edit distance between `a` and `b`.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A placeholder that names no field (the mistake reported) stands for the field it most
/// likely meant, so that the query it names is the one the code calls: `<usr_id>` for
/// `user_id`.
fn meant(name: &str, fields: &[LooseField<'_>]) -> String {
    if fields.iter().any(|f| f.name == name) {
        return name.to_owned();
    }
    let mut best: Vec<(usize, &str)> = fields.iter().map(|f| (distance(name, &f.name), f.name.as_str())).collect();
    best.sort_unstable();
    match best.as_slice() {
        [(d, f), rest @ ..] if *d <= 2.max(name.len() / 3) && rest.first().is_none_or(|(e, _)| e > d) => {
            (*f).to_owned()
        }
        _ => name.to_owned(),
    }
}

/// `n` parameters that take any value: the stub's functions accept what the real ones would.
fn any_params(n: usize) -> Vec<TokenStream> {
    (0..n)
        .map(|i| {
            let a = format_ident!("__a{}", i);
            quote!(#a: impl ::core::marker::Sized)
        })
        .collect()
}

/// `asserts` are the field types' trait-bound checks (see `expand::assert`): rustc reports
/// those mistakes in the same build as the macro's own errors.
pub fn entity(input: &DeriveInput, errors: syn::Error, asserts: &TokenStream) -> TokenStream {
    let errors = errors.to_compile_error();
    let named = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => named,
            _ => return errors,
        },
        _ => return errors,
    };
    if !input.generics.params.is_empty() {
        return errors;
    }
    let krate = krate(input);
    let header = crate::expand::block_header(&krate);
    let p = quote!(__de);
    let ident = &input.ident;
    let vis = &input.vis;
    let bare = ident.unraw().to_string();
    let key = format_ident!("{}Key", ident);
    let mut loose = loose(input);
    let fields = loose_fields(named);
    for key in std::iter::once(&mut loose.pk)
        .chain(loose.sk.iter_mut())
        .chain(loose.indexes.iter_mut().filter_map(|i| i.pk.as_mut()))
    {
        for name in &mut key.fields {
            *name = meant(name, &fields);
        }
    }
    // A generated type named like a type the fields use would shadow it inside the block: the
    // stub's own is renamed (the mistake, if that is one, is reported already).
    let mut used: Vec<String> = Vec::new();
    for f in &fields {
        let mut stack = vec![quote::ToTokens::to_token_stream(f.ty)];
        while let Some(tokens) = stack.pop() {
            for tt in tokens {
                match tt {
                    proc_macro2::TokenTree::Ident(i) => used.push(i.unraw().to_string()),
                    proc_macro2::TokenTree::Group(g) => stack.push(g.stream()),
                    _ => {}
                }
            }
        }
    }
    let type_name =
        |name: String| if used.contains(&name) { format_ident!("__{}", name) } else { format_ident!("{}", name) };
    let unreachable = quote!(::core::unreachable!());
    let fields_ty = type_name(format!("{bare}Fields"));

    // The key fields the attributes name, in the order `<Name>::key(..)` takes them.
    let mut key_names: Vec<&String> = Vec::new();
    for n in loose.pk.fields.iter().chain(loose.sk.iter().flat_map(|k| &k.fields)) {
        if !key_names.contains(&n) {
            key_names.push(n);
        }
    }
    let key_params = any_params(key_names.len());
    let key_fields: Vec<&LooseField<'_>> =
        key_names.iter().filter_map(|n| fields.iter().find(|f| f.name == **n && !f.skip)).collect();
    let key_field_idents = key_fields.iter().map(|f| f.ident);
    let key_field_tys = key_fields.iter().map(|f| f.ty);
    let (sk_methods, parse_sig) = if loose.sk.is_some() {
        (
            quote! {
                #[inline] pub fn try_sk(&self) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                    #unreachable
                }
                #[inline] pub fn sk(&self) -> ::std::string::String {
                    #unreachable
                }
            },
            quote!(_: &str, _: &str),
        )
    } else {
        (quote!(), quote!(_: &str))
    };

    // Queries and partitions: the table's, then each index's.
    let mut queries: Vec<(String, usize)> = Vec::new();
    let table_query = match &loose.query {
        Some(q) => format!("query_{q}"),
        None => default_query_name("query", &loose.pk),
    };
    queries.push((table_query, loose.pk.fields.len()));
    let mut partitions: Vec<(String, usize)> = vec![("partition".to_owned(), loose.pk.fields.len())];
    for index in &loose.indexes {
        let pk = match (&index.pk, index.local) {
            (_, true) => &loose.pk,
            (Some(pk), false) => pk,
            (None, false) => continue,
        };
        let query = match &index.query {
            Some(q) => format!("query_{q}"),
            None => default_query_name(&format!("query_{}", index.label), pk),
        };
        let partition = format!("partition_{}", query.strip_prefix("query_").unwrap_or(&query));
        queries.push((query, pk.fields.len()));
        partitions.push((partition, pk.fields.len()));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut builders = Vec::new();
    let mut fns = Vec::new();
    for (name, n) in queries {
        let Some(fn_name) = parse_ident(&name).filter(|_| !seen.contains(&name)) else { continue };
        seen.push(name.clone());
        let base = name.strip_prefix("query_").unwrap_or(&name);
        let pascal: String = base
            .split('_')
            .filter(|w| !w.is_empty())
            .map(|w| {
                let mut c = w.chars();
                c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
            })
            .collect();
        let Some(builder) = parse_ident(&format!("{bare}{pascal}Query")).map(|b| type_name(b.to_string())) else {
            continue;
        };
        let params = any_params(n);
        fns.push(quote! {
            #[doc(hidden)]
            #[inline] #vis fn #fn_name(#(#params),*) -> #builder {
                #unreachable
            }
        });
        // Two queries whose builders would share a name (reported) share the stub's one.
        if !builders.contains(&builder) {
            builders.push(builder);
        }
    }
    for (name, n) in partitions {
        let Some(fn_name) = parse_ident(&name).filter(|_| !seen.contains(&name)) else { continue };
        seen.push(name);
        let params = any_params(n);
        fns.push(quote! {
            #[doc(hidden)]
            #[inline] #vis fn #fn_name(#(#params),*) -> #p::Partition<#ident> {
                #unreachable
            }
        });
    }

    // A query type's conditions: one for every stored field (the stub does not know which fields
    // the sort keys hold), each a `SortKey` whose `eq` keeps the query type.
    let mut conditions = Vec::new();
    for f in fields.iter().filter(|f| !f.skip) {
        let (m, ty) = (f.ident, crate::ast::option_inner(f.ty).unwrap_or(f.ty));
        conditions.push(quote!(#[inline] pub fn #m(self) -> #p::SortKey<#ident, #ty, Self> { #unreachable }));
    }
    let builder_impls = builders.iter().map(|builder| {
        quote! {
            #[doc(hidden)]
            #[derive(::core::fmt::Debug, ::core::clone::Clone)]
            #vis struct #builder;

            #[automatically_derived]
            #[doc(hidden)]
            impl #p::QueryOptions for #builder {
                type Entity = #ident;
                #[inline] fn __into_level(self) -> #p::QueryLevel<#ident> { #unreachable }
                #[inline] fn __from_level(_: #p::QueryLevel<#ident>) -> Self { #unreachable }
                #[inline] fn __query(&self) -> &#p::Query<#ident> { #unreachable }
            }

            #[automatically_derived]
            #[doc(hidden)]
            impl #builder {
                #(#conditions)*
            }

            #[automatically_derived]
            impl ::core::convert::From<#builder> for #p::Query<#ident> {
                #[inline] fn from(_: #builder) -> Self {
                    #unreachable
                }
            }
        }
    });

    // `<Name>::fields()`: a path per stored field, typed as the real ones.
    let stored: Vec<&LooseField<'_>> = fields.iter().filter(|f| !f.skip).collect();
    let path_decls = stored.iter().map(|f| {
        let (n, ty) = (f.ident, f.ty);
        if f.encrypt { quote!(pub #n: #p::expr::Encrypted<#ident, #ty>) } else { quote!(pub #n: #p::Path<#ident, #ty>) }
    });

    // The schema names the key attributes as written, so that a collection holding the entity
    // does not also report "other key attribute names".
    let entity_type = loose.type_name.clone().unwrap_or_else(|| bare.clone());
    let type_attr = loose.type_attr.clone().unwrap_or_else(|| "entity_type".to_owned());
    let pk_attr = loose.pk_attr.clone().unwrap_or_else(|| "PK".to_owned());
    let sk = match &loose.sk {
        Some(_) => {
            let sk_attr = loose.sk_attr.clone().unwrap_or_else(|| "SK".to_owned());
            quote!(::core::option::Option::Some(#p::KeySchema::of(#sk_attr, "", #p::AttributeType::S)))
        }
        None => quote!(::core::option::Option::None),
    };

    quote! {
        #errors

        #[doc(hidden)]
        #[allow(dead_code)]
        #vis struct #key {
            #(
                #[allow(missing_docs)]
                pub #key_field_idents: #key_field_tys,
            )*
        }

        #[doc(hidden)]
        #[allow(dead_code, unused_imports, unused_variables, unreachable_code, clippy::unused_self, clippy::too_many_arguments)]
        const _: () = {
        #header
        #asserts

        #[automatically_derived]
        impl ::core::clone::Clone for #key {
            #[inline] fn clone(&self) -> Self {
                #unreachable
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #key {
            #[inline] fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #unreachable
            }
        }

        #[automatically_derived]
        impl ::core::cmp::PartialEq for #key {
            #[inline] fn eq(&self, _: &Self) -> bool {
                #unreachable
            }
        }

        #[automatically_derived]
        #[doc(hidden)]
        impl #key {
            #[inline] pub fn try_pk(&self) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                #unreachable
            }
            #[inline] pub fn pk(&self) -> ::std::string::String {
                #unreachable
            }
            #sk_methods
            #[inline] pub fn parse(#parse_sig) -> ::core::result::Result<Self, #p::KeyError> {
                #unreachable
            }
        }

        #[automatically_derived]
        impl #p::EntityKey for #key {
            type Entity = #ident;
            #[inline] fn try_pk(&self) -> ::core::result::Result<::std::string::String, #p::KeyError> {
                #unreachable
            }
            #[inline] fn try_sk(&self) -> ::core::result::Result<::core::option::Option<::std::string::String>, #p::KeyError> {
                #unreachable
            }
            #[inline] fn parse_keys(
                _: &str,
                _: ::core::option::Option<&str>,
            ) -> ::core::result::Result<Self, #p::KeyError> {
                #unreachable
            }
        }

        #[automatically_derived]
        impl #p::Entity for #ident {
            type Key = #key;
            const SCHEMA: #p::EntitySchema = #p::EntitySchema::new(
                #entity_type,
                #type_attr,
                #p::KeySchema::of(#pk_attr, "", #p::AttributeType::S),
                #sk,
                &[],
            );
            #[inline] fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                #unreachable
            }
            fn from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                #unreachable
            }
            #[inline] fn primary_key(&self) -> #key {
                #unreachable
            }
        }

        #[doc(hidden)]
        #vis struct #fields_ty {
            #(#path_decls,)*
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #fields_ty {
            #[inline] fn clone(&self) -> Self {
                *self
            }
        }

        #[automatically_derived]
        impl ::core::marker::Copy for #fields_ty {}

        #[automatically_derived]
        impl ::core::fmt::Debug for #fields_ty {
            #[inline] fn fmt(&self, _: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #unreachable
            }
        }

        #[automatically_derived]
        impl #p::HasFields for #ident {
            type Fields = #fields_ty;
            const __KEY_FIELDS: &'static [&'static str] = &[];
        }

        #[automatically_derived]
        impl #p::Updatable for #ident {
            const __REQUIRED: &'static [(&'static str, &'static str)] = &[];
        }

        #(#builder_impls)*

        #[automatically_derived]
        impl #ident {
            #[doc(hidden)]
            #[inline] #vis fn key(#(#key_params),*) -> #key {
                #unreachable
            }
            #[doc(hidden)]
            #[inline] #vis fn fields() -> #fields_ty {
                #unreachable
            }
            #[doc(hidden)]
            #[inline] #vis fn update(_: #key) -> #p::Update<#ident> {
                #unreachable
            }
            #[doc(hidden)]
            #[inline] #vis fn update_from(_: &#ident) -> #p::Update<#ident> {
                #unreachable
            }
            #(#fns)*
        }
        };
    }
}
