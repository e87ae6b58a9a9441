//! Trait-bound checks of field types, one per field and role: a key component must be
//! `KeyPart` (`PaddedKeyPart` with a width), a `#[ttl]` a time, a `#[version]` an unsigned
//! integer. They are written `<T as Trait>::item`, the same form and span as every use in the
//! generated code, so rustc reports each mistake once, at the field's type. They are computed
//! from the parsed input alone, so they are emitted even when the macro reports other errors.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Field, Input};
use crate::template::Template;

/// `<ty as KeyField>` or `<ty as PaddedKeyField>`, spanned at the type: the path every use of a
/// key component goes through.
pub fn key_field(ty: &syn::Type, width: Option<usize>) -> TokenStream {
    match width {
        Some(_) => quote_spanned!(ty.span()=> <#ty as __PKF>),
        None => quote_spanned!(ty.span()=> <#ty as __KF>),
    }
}

/// `<ty as RawKeyField>`, spanned at the type: a `<field:raw>` component.
pub fn raw_key_field(ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as __RKF>)
}

/// `<ty as TtlValue>`, spanned at the type.
pub fn ttl_value(p: &TokenStream, ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as #p::TtlValue>)
}

/// `<ty as Version>`, spanned at the type.
pub fn version(p: &TokenStream, ty: &syn::Type) -> TokenStream {
    quote_spanned!(ty.span()=> <#ty as #p::Version>)
}

/// Whether an index key template is exactly `<field>` (no width, not raw) and its attribute is
/// that field's own (`valid::Reuse::Field`).
fn own_attribute(input: &Input<'_>, t: &Template, attr: Option<String>) -> bool {
    match t.parts.as_slice() {
        [crate::template::Part::Field { name, width: None, raw: false }] => input
            .fields
            .iter()
            .any(|f| &f.name == name && Some(&f.attr_name) == attr.as_ref() && f.attrs.skip.is_none()),
        _ => false,
    }
}

pub fn expand(input: &Input<'_>) -> TokenStream {
    let p = quote!(__de);
    let mut templates: Vec<&Template> = Vec::new();
    templates.extend(input.attrs.pk.as_ref().map(|(_, t)| t));
    templates.extend(input.attrs.sk.as_ref().map(|(_, t)| t));
    for index in &input.attrs.indexes {
        // A key on a field's own attribute (`pk = "<f>", pk_attr = "f"`) is no key text: its
        // field is `KeyAttribute` instead (an `f64` keys such an index, but no template).
        let sides = [(&index.pk, index.pk_attr_name()), (&index.sk, index.sk_attr_name())];
        templates
            .extend(sides.into_iter().filter_map(|(t, attr)| t.as_ref().filter(|t| !own_attribute(input, t, attr))));
    }
    // (field, width): a field in several templates is checked once per distinct role.
    let mut keys: Vec<(&Field<'_>, Option<usize>)> = Vec::new();
    let mut out = Vec::new();
    for t in &templates {
        for (n, (name, _)) in t.fields().enumerate() {
            if !t.is_raw(n) {
                continue;
            }
            if let Some(f) = input.fields.iter().find(|f| f.name == name) {
                let path = raw_key_field(f.key_ty());
                out.push(quote!(let _ = #path::__write_raw;));
            }
        }
    }
    for (name, width) in templates.iter().flat_map(|t| t.fields()) {
        let Some(f) = input.fields.iter().find(|f| f.name == name) else { continue };
        if !keys.iter().any(|(k, w)| k.name == f.name && w.is_some() == width.is_some()) {
            keys.push((f, width));
        }
    }
    for (f, width) in keys {
        let path = key_field(f.key_ty(), width);
        let item = if width.is_some() { quote!(__write_padded) } else { quote!(__write) };
        out.push(quote!(let _ = #path::#item;));
    }
    // Every other stored field: its type checked once, at the type (see `codec::Check`).
    let mut stored = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for f in &input.fields {
        let in_key = templates.iter().any(|t| t.fields().any(|(name, _)| name == f.name));
        if f.attrs.skip.is_none()
            && f.attrs.ttl.is_none()
            && f.attrs.with.is_none()
            && f.attrs.version.is_none()
            && !in_key
        {
            // Once per type: a type that cannot be stored is reported at its first field.
            let ty = f.ty;
            let text = quote!(#ty).to_string();
            if seen.contains(&text) {
                continue;
            }
            seen.push(text);
            stored.push(quote_spanned!(ty.span()=> (&&&__dc::Check::<#ty>(::core::marker::PhantomData)).__check();));
        }
    }
    if !stored.is_empty() {
        out.push(quote! {
            #[inline] fn __stored() {
                use __dc::{CheckDirect as _, CheckKey as _, CheckNone as _, CheckSerde as _};
                #(#stored)*
            }
        });
    }
    for f in &input.fields {
        // A field stored in one of the library's time formats: checked once to be a time.
        if f.attrs.with.as_ref().is_some_and(|(_, with)| crate::ast::time_format(with).is_some()) {
            let ty = f.key_ty();
            let path = quote_spanned!(ty.span()=> <#ty as #p::time::TimeValue>);
            out.push(quote!(let _ = #path::to_epoch_millis;));
        }
        if f.attrs.ttl.is_some() {
            let path = ttl_value(&p, f.key_ty());
            out.push(quote!(let _ = #path::to_epoch_seconds;));
        }
        if f.attrs.version.is_some() {
            let path = version(&p, f.ty);
            out.push(quote!(let _ = #path::to_version;));
        }
        if f.attrs.created_at.is_some() || f.attrs.updated_at.is_some() {
            let ty = f.ty;
            let path = quote_spanned!(ty.span()=> <#ty as #p::FilledTime>);
            out.push(quote!(let _ = #path::__filled;));
        }
        if f.attrs.unique.is_some() {
            let ty = f.key_ty();
            let path = quote_spanned!(ty.span()=> <#ty as __dc::UniqueValue>);
            out.push(quote!(let _ = #path::__unique;));
        }
    }
    if out.is_empty() {
        return quote!();
    }
    quote! {
        const _: () = {
            #(#out)*
        };
    }
}
