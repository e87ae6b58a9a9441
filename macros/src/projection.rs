//! An index's projection: `projection = "all" | "keys_only"` or `include = "field_a, field_b"`
//! in `#[gsiN(..)]` / `#[lsiN(..)]`, resolved to the attributes the index holds.

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::ast::Input;
use crate::attr::{INCLUDE, IndexAttr, PROJECTION};
use crate::ctxt::Ctxt;

/// What an index holds besides the keys.
pub enum Projection {
    All,
    KeysOnly,
    /// The attribute names of the included fields, in the order given.
    Include(Vec<String>),
}

impl Projection {
    /// `IndexProjection::..` of the runtime.
    pub fn tokens(&self, p: &TokenStream) -> TokenStream {
        match self {
            Projection::All => quote!(#p::IndexProjection::All),
            Projection::KeysOnly => quote!(#p::IndexProjection::KeysOnly),
            Projection::Include(attrs) => quote!(#p::IndexProjection::Include(&[#(#attrs),*])),
        }
    }
}

/// The span of `name` inside `lit` where the compiler can tell it, else the literal's.
fn name_span(lit: &LitStr, name: &str, at: usize) -> proc_macro2::Span {
    // The literal's token text starts with its opening quote.
    let start = 1 + at;
    lit.token().subspan(start..start + name.len()).unwrap_or_else(|| lit.span())
}

/// The projection of index `a`; every mistake is reported on `cx`.
pub fn resolve(cx: &Ctxt, input: &Input<'_>, a: &IndexAttr) -> Projection {
    let kind = match &a.projection {
        None => None,
        Some(lit) => match lit.value().as_str() {
            "all" => Some((lit, Projection::All)),
            "keys_only" => Some((lit, Projection::KeysOnly)),
            other => {
                let hint = if other == "include" {
                    format!("; an INCLUDE projection is written `{INCLUDE} = \"field_a, field_b\"`")
                } else {
                    String::new()
                };
                cx.error_spanned_by(
                    lit,
                    format!("unknown `{PROJECTION}` `{other}`: expected \"all\" or \"keys_only\"{hint}"),
                );
                return Projection::All;
            }
        },
    };
    let Some(include) = &a.include else {
        return kind.map_or(Projection::All, |(_, k)| k);
    };
    if let Some((lit, _)) = kind {
        cx.error_spanned_by(
            lit,
            format!(
                "`{PROJECTION} = \"{}\"` and `{INCLUDE}` together: `{INCLUDE}` alone makes an INCLUDE projection \
                 (the keys and the fields named)",
                lit.value()
            ),
        );
    }
    let text = include.value();
    let mut attrs: Vec<String> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut offset = 0;
    let parts: Vec<&str> = text.split(',').collect();
    for (n, part) in parts.iter().enumerate() {
        let at = offset + (part.len() - part.trim_start().len());
        offset += part.len() + 1;
        let name = part.trim();
        // A trailing comma is allowed.
        if name.is_empty() && n > 0 && n + 1 == parts.len() {
            continue;
        }
        if name.is_empty() {
            cx.error_spanned_by(include, format!("`{INCLUDE}` names fields separated by commas: \"field_a, field_b\""));
            continue;
        }
        let span = name_span(include, name, at);
        if names.contains(&name) {
            cx.error_at(span, format!("`{name}` is named twice in `{INCLUDE}`"));
            continue;
        }
        names.push(name);
        match input.fields.iter().find(|f| f.name == name) {
            None => {
                let known = input.fields.iter().map(|f| format!("`{}`", f.name)).collect::<Vec<_>>().join(", ");
                cx.error_at(span, format!("unknown field `{name}` in `{INCLUDE}`; `{}` has {known}", input.ident));
            }
            Some(f) if f.attrs.skip.is_some() => {
                cx.error_at(span, format!("`{name}` is `#[entity(skip)]`: it is not stored, so no index can hold it"));
            }
            Some(f) => attrs.push(f.attr_name.clone()),
        }
    }
    Projection::Include(attrs)
}
