//! A typed model of the derive input.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type, Visibility};

use crate::attr::{ContainerAttrs, FieldAttrs};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    /// The name without `r#`, as placeholders spell it.
    pub name: String,
    pub ty: &'a Type,
    /// `T` of an `Option<T>` field.
    pub option_inner: Option<&'a Type>,
    pub attrs: FieldAttrs,
    /// The attribute name in the item.
    pub attr_name: String,
}

impl Field<'_> {
    /// The type a key component of this field has: `T` for `Option<T>`.
    pub fn key_ty(&self) -> &Type {
        self.option_inner.unwrap_or(self.ty)
    }

    pub fn span(&self) -> Span {
        self.ident.span()
    }
}

/// `T` if `ty` is written `Option<T>` (or `std::option::Option<T>`, `core::option::Option<T>`).
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let segments: Vec<_> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let is_option = matches!(
        segments.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["Option"] | ["std" | "core", "option", "Option"]
    );
    if !is_option {
        return None;
    }
    let last = p.path.segments.last()?;
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

impl<'a> Input<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Input<'a>> {
        let attrs = ContainerAttrs::parse(cx, &input.attrs);
        let named = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => Some(named),
                Fields::Unnamed(_) => {
                    cx.error_at(
                        input.ident.span(),
                        "`#[derive(Entity)]` needs a struct with named fields: each field becomes an attribute",
                    );
                    None
                }
                Fields::Unit => {
                    cx.error_at(
                        input.ident.span(),
                        "`#[derive(Entity)]` needs a struct with named fields, found a unit struct",
                    );
                    None
                }
            },
            Data::Enum(e) => {
                cx.error_at(
                    e.enum_token.span(),
                    "`#[derive(Entity)]` works on structs with named fields, not enums: declare one entity per \
                     item type (for a key component, use `#[derive(KeyPart)]`)",
                );
                None
            }
            Data::Union(u) => {
                cx.error_at(u.union_token.span(), "`#[derive(Entity)]` works on structs with named fields, not unions");
                None
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(&input.generics, "`#[derive(Entity)]` does not support generic structs");
        }
        let named = named?;
        let rename_all = attrs.rename_all;
        let fields = named
            .named
            .iter()
            .filter_map(|f| {
                let ident = f.ident.as_ref()?;
                let attrs = FieldAttrs::parse(cx, &f.attrs);
                let name = ident.unraw().to_string();
                let attr_name = match (&attrs.rename, rename_all) {
                    (Some(lit), _) => lit.value(),
                    (None, Some(rule)) => rule.apply_to_field(&name),
                    (None, None) => name.clone(),
                };
                Some(Field { ident, name, ty: &f.ty, option_inner: option_inner(&f.ty), attrs, attr_name })
            })
            .collect();
        Some(Input { ident: &input.ident, vis: &input.vis, attrs, fields })
    }

    pub fn entity_type(&self) -> String {
        self.attrs.type_name.as_ref().map_or_else(|| self.ident.unraw().to_string(), syn::LitStr::value)
    }

    /// The type attribute's name; empty for an entity that writes none (`type_attr = false`).
    pub fn type_attr(&self) -> String {
        if self.attrs.no_type_attr.is_some() {
            return String::new();
        }
        self.attrs.type_attr.as_ref().map_or_else(|| "entity_type".to_owned(), syn::LitStr::value)
    }

    pub fn pk_attr(&self) -> String {
        self.attrs.pk_attr.as_ref().map_or_else(|| "PK".to_owned(), syn::LitStr::value)
    }

    pub fn sk_attr(&self) -> String {
        self.attrs.sk_attr.as_ref().map_or_else(|| "SK".to_owned(), syn::LitStr::value)
    }

    pub fn krate(&self) -> proc_macro2::TokenStream {
        match &self.attrs.krate {
            Some(path) => quote::quote!(#path),
            None => quote::quote!(::dynamo_entity),
        }
    }
}

/// The variant of `codec::TimeFormat` a `with` path names, when it is one of the library's own
/// time formats (`dynamo_entity::time::epoch_millis`, with or without a leading `::`).
pub fn time_format(path: &syn::Path) -> Option<&'static str> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["dynamo_entity", "time", format] => match *format {
            "iso8601" => Some("Iso8601"),
            "iso8601_seconds" => Some("Iso8601Seconds"),
            "epoch_seconds" => Some("EpochSeconds"),
            "epoch_millis" => Some("EpochMillis"),
            _ => None,
        },
        _ => None,
    }
}
