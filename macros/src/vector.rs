//! `#[vector(index = "..", field = "..", dimensions = N, distance = "cosine", hash = "..",
//! filter = [..], query = "..")]`: a vector index (DynamoDB `VectorIndexes`, `SearchVectors`).
//! The derive writes its description (`VectorIndexSchema` in the entity's schema) and a thin
//! typed builder, `<Name>::search_<query>(hash values.., &vector)` with the filter fields'
//! comparisons; the runtime's `Search` does the work.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Ident, LitStr};

use crate::ctxt::Ctxt;
use crate::projection::Projection;
use crate::valid::Model;

pub const VECTOR: &str = "vector";
/// DynamoDB's limit on a vector index's dimensions.
const MAX_DIMENSIONS: u32 = 4096;

/// One `#[vector(..)]`, checked: fields by position.
pub struct VectorSpec {
    pub index: String,
    pub field: usize,
    pub dimensions: u32,
    /// The runtime's `Distance` variant.
    pub distance: Ident,
    pub hash: Vec<usize>,
    pub filter: Vec<usize>,
    pub query: Ident,
    pub projection: Projection,
}

/// A string, or a list of strings (`"a"`, `["a", "b"]`), with their spans.
fn strings(input: syn::parse::ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        Ok(syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&content)?.into_iter().collect())
    } else {
        Ok(vec![input.parse::<LitStr>()?])
    }
}

/// Every `#[vector(..)]` of `attrs`, checked against the entity's fields; mistakes on `cx`.
pub fn parse(cx: &Ctxt, attrs: &[Attribute], m: &Model<'_>) -> Vec<VectorSpec> {
    let mut out: Vec<VectorSpec> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(VECTOR)) {
        let (mut index, mut field, mut dimensions, mut distance, mut query) = (None, None, None, None, None);
        let (mut hash, mut filter, mut projection, mut include) = (Vec::new(), Vec::new(), None, None);
        let parsed = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "index" => index = Some(meta.value()?.parse::<LitStr>()?),
                "field" => field = Some(meta.value()?.parse::<LitStr>()?),
                "dimensions" => dimensions = Some(meta.value()?.parse::<syn::LitInt>()?),
                "distance" => distance = Some(meta.value()?.parse::<LitStr>()?),
                "query" => query = Some(meta.value()?.parse::<LitStr>()?),
                "projection" => projection = Some(meta.value()?.parse::<LitStr>()?),
                "hash" => hash = strings(meta.value()?)?,
                "filter" => filter = strings(meta.value()?)?,
                "include" => include = Some(strings(meta.value()?)?),
                _ => {
                    return Err(meta.error(
                        "unknown `#[vector(..)]` option: expected `index`, `field`, `dimensions`, `distance`, `hash`, \
                         `filter`, `query`, `projection` or `include`",
                    ));
                }
            }
            Ok(())
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
            continue;
        }
        let span = attr.path().get_ident().map_or_else(Span::call_site, Ident::span);
        let missing = |what: &str| cx.error_at(span, format!("`#[vector(..)]` needs `{what} = ..`"));
        let field_of = |lit: &LitStr| -> Option<usize> {
            let name = lit.value();
            let found = m.input.fields.iter().position(|f| f.name == name);
            if found.is_none() {
                cx.error_spanned_by(lit, format!("`{name}` is not a field of `{}`", m.input.ident));
            }
            found
        };
        let Some(index_lit) = index else {
            missing("index");
            continue;
        };
        let Some(field_lit) = field else {
            missing("field");
            continue;
        };
        let Some(dim_lit) = dimensions else {
            missing("dimensions");
            continue;
        };
        let Some(query_lit) = query else {
            missing("query");
            continue;
        };
        let name = index_lit.value();
        if name.len() < 3 || name.len() > 255 || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
            cx.error_spanned_by(
                &index_lit,
                "a vector index name has 3 to 255 characters: letters, digits, `_`, `-`, `.`",
            );
        }
        if out.iter().any(|v| v.index == name) || m.indexes.iter().any(|i| i.name == name) {
            cx.error_spanned_by(&index_lit, format!("the entity has another index named `{name}`"));
        }
        let dims = match dim_lit.base10_parse::<u32>() {
            Ok(d) if (1..=MAX_DIMENSIONS).contains(&d) => d,
            _ => {
                cx.error_spanned_by(&dim_lit, format!("`dimensions` is 1 to {MAX_DIMENSIONS} (DynamoDB's limit)"));
                1
            }
        };
        let distance = match distance.as_ref().map(LitStr::value).as_deref() {
            None | Some("cosine") => format_ident!("Cosine"),
            Some("euclidean") => format_ident!("Euclidean"),
            Some("dot_product") => format_ident!("DotProduct"),
            Some(other) => {
                cx.error_spanned_by(
                    distance.as_ref(),
                    format!("unknown distance `{other}`: expected \"cosine\", \"euclidean\" or \"dot_product\""),
                );
                format_ident!("Cosine")
            }
        };
        let Some(vector_field) = field_of(&field_lit) else { continue };
        if !is_vec_f32(m.input.fields[vector_field].ty) {
            cx.error_spanned_by(
                m.input.fields[vector_field].ty,
                format!("the vector field `{}` of `#[vector(..)]` must be a `Vec<f32>`", field_lit.value()),
            );
        }
        let search_field = |lit: &LitStr, what: &str| -> Option<usize> {
            let i = field_of(lit)?;
            if i == vector_field {
                cx.error_spanned_by(lit, format!("the vector field cannot be a {what} attribute of its own index"));
                return None;
            }
            if m.input.fields[i].attrs.skip.is_some() || m.key_only(i) {
                cx.error_spanned_by(
                    lit,
                    format!("`{}` is not stored as an attribute: it cannot be {what}", lit.value()),
                );
                return None;
            }
            Some(i)
        };
        let hash: Vec<usize> = hash.iter().filter_map(|l| search_field(l, "HASH")).collect();
        let filter: Vec<usize> = filter.iter().filter_map(|l| search_field(l, "INLINE_FILTER")).collect();
        if let Some(i) = hash.iter().find(|i| filter.contains(i)) {
            cx.error_at(span, format!("`{}` is both `hash` and `filter`", m.input.fields[*i].name));
        }
        let projection = match (projection.as_ref().map(LitStr::value).as_deref(), include) {
            (None | Some("all"), None) => Projection::All,
            (Some("keys_only"), None) => Projection::KeysOnly,
            (None, Some(fields)) => Projection::Include(
                fields.iter().filter_map(field_of).map(|i| m.input.fields[i].attr_name.clone()).collect(),
            ),
            _ => {
                cx.error_at(span, "`projection` is \"all\" or \"keys_only\", or `include = [..]` names the fields");
                Projection::All
            }
        };
        let q = query_lit.value();
        if syn::parse_str::<Ident>(&q).is_err() {
            cx.error_spanned_by(
                &query_lit,
                "`query` names the search: `query = \"similar\"` gives `search_similar(..)`",
            );
            continue;
        }
        out.push(VectorSpec {
            index: name,
            field: vector_field,
            dimensions: dims,
            distance,
            hash,
            filter,
            query: format_ident!("search_{}", q),
            projection,
        });
    }
    out
}

/// Whether `ty` is spelled `Vec<f32>` (or `std::vec::Vec<f32>`).
fn is_vec_f32(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    if last.ident != "Vec" {
        return false;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else { return false };
    matches!(args.args.first(), Some(syn::GenericArgument::Type(syn::Type::Path(t))) if t.path.is_ident("f32"))
        && args.args.len() == 1
}

/// `.with_vectors(&[..])` of the entity's schema; nothing for an entity without `#[vector]`.
pub fn schema_with(m: &Model<'_>, p: &TokenStream) -> Option<TokenStream> {
    if m.vectors.is_empty() {
        return None;
    }
    let attr = |i: &usize| &m.input.fields[*i].attr_name;
    let each = m.vectors.iter().map(|v| {
        let (name, dims, distance) = (&v.index, v.dimensions, &v.distance);
        let field = attr(&v.field);
        let hash = v.hash.iter().map(attr);
        let filter = v.filter.iter().map(attr);
        let projection = v.projection.tokens(p);
        // Each search attribute's type, from its field's `KeyAttribute` (S, N or B, as DynamoDB's
        // AttributeDefinitions take it): another type is a compile error at the field.
        let types = v.hash.iter().chain(&v.filter).map(|i| {
            let path = crate::expand::plain::key_attribute(m, *i);
            quote!(#path::TYPE)
        });
        quote!(#p::VectorIndexSchema::new(#name, #field, #dims, #p::Distance::#distance, &[#(#hash),*], &[#(#filter),*]).with_projection(#projection).with_types(&[#(#types),*]))
    });
    Some(quote!(.with_vectors(&[#(#each),*])))
}

/// The typed search builders: one wrapper type per `#[vector]` over the runtime's `Search`.
pub fn expand(m: &Model<'_>, p: &TokenStream) -> TokenStream {
    let ident = m.input.ident;
    let vis = m.input.vis;
    m.vectors
        .iter()
        .map(|v| {
            let builder = format_ident!("{}{}", ident, crate::valid::pascal_of(&v.query.to_string()));
            let name = &v.index;
            let params = v.hash.iter().map(|i| {
                let f = &m.input.fields[*i];
                let (n, ty) = (f.ident, f.ty);
                quote!(#n: impl #p::expr::Value<#ty>)
            });
            // The tenant's value is held in local `__a<field>` (its type), whose key text the
            // search carries beside it: a tenant handle compares that with its id, never the
            // stored value (`7` where the key text is `0000000007`).
            let tenant =
                v.hash.iter().copied().find(|i| matches!(m.tenant, crate::tenant::Tenancy::Field(t) if t == *i));
            let converts = tenant.map(|i| {
                let f = &m.input.fields[i];
                let (n, ty, local) = (f.ident, f.ty, format_ident!("__a{}", i));
                quote!(let #local: #ty = #p::expr::Value::<#ty>::into_value(#n);)
            });
            let tenant_key = tenant.map(|i| crate::expand::tenant_tail(m, i));
            let hashes = v.hash.iter().map(|i| {
                let f = &m.input.fields[*i];
                let (n, attr) = (f.ident, &f.attr_name);
                let value = match tenant == Some(*i) {
                    true => format_ident!("__a{}", i),
                    false => n.clone(),
                };
                quote!(.__hash(#attr, #ident::fields().#n.eq(#value)))
            });
            let filters = v.filter.iter().map(|i| {
                let f = &m.input.fields[*i];
                let (n, ty) = (f.ident, f.ty);
                // DynamoDB's SearchConditionExpression is an AND of equalities only (another
                // comparator is a ValidationException): one method per filter field, whose one
                // operator is `eq`.
                let doc = format!("An inline filter of the search on `{}`.", f.name);
                quote! {
                    #[doc = #doc]
                    #[inline] pub fn #n(self) -> #p::SearchFilter<#ident, #ty, Self> {
                        #p::SearchFilter::__new(self.0, #ident::fields().#n)
                    }
                }
            });
            let fn_name = &v.query;
            let doc = format!(
                "A vector search of index `{name}` ({} dimensions): the `HASH` values and the query vector; send it \
                 with `Table::search`.",
                v.dimensions
            );
            quote! {
                #[doc = #doc]
                #vis struct #builder(#p::Search<#ident>);

                #[automatically_derived]
                impl ::core::convert::From<#builder> for #p::Search<#ident> {
                    #[inline] fn from(s: #builder) -> Self {
                        s.0
                    }
                }

                #[automatically_derived]
                impl ::core::convert::From<#p::Search<#ident>> for #builder {
                    #[inline] fn from(s: #p::Search<#ident>) -> Self {
                        Self(s)
                    }
                }

                #[automatically_derived]
                impl #builder {
                    /// The `n` most similar items (DynamoDB's `TopK`).
                    #[inline] pub fn top_k(self, n: u32) -> Self {
                        Self(self.0.top_k(n))
                    }
                    /// Reads view `V` of the items (for an index that projects fewer attributes).
                    #[inline] pub fn view<V: #p::View<Entity = #ident>>(self) -> #p::Search<V> {
                        self.0.view::<V>()
                    }
                    /// The request this search sends, or why it cannot be sent.
                    #[inline] pub fn request(&self) -> __R<#p::SearchRequest, #p::Error> {
                        self.0.request()
                    }
                    #(#filters)*
                }

                #[automatically_derived]
                impl #ident {
                    #[doc = #doc]
                    #[inline] #vis fn #fn_name(#(#params,)* vector: &[f32]) -> #builder {
                        #converts
                        #builder(#p::Search::__new(#name, vector) #tenant_key #(#hashes)*)
                    }
                }
            }
        })
        .collect()
}
