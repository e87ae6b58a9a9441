//! `<Name>Key`, `<Name>::key(..)`, and the functions that format each key attribute.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::assert::{key_field, raw_key_field};
use super::private;
use crate::template::Part;
use crate::valid::{Key, Model, ReadStep};

/// The name of the hidden function that formats key attribute `attr` of `label`.
pub fn fmt_fn(label: &str, which: &str) -> Ident {
    format_ident!("__fmt_{}_{}", label, which)
}

pub fn key_ident(m: &Model<'_>) -> Ident {
    format_ident!("{}Key", m.input.ident)
}

/// The name of the formatter of a sharded key that takes the shard number.
pub fn fmt_at_fn(label: &str, which: &str) -> Ident {
    format_ident!("__fmt_{}_{}_at", label, which)
}

/// The associated constant holding a sharded key's `shard_fn` (one place where its type is
/// checked), named after the key's formatter `at_fmt`.
fn shard_fn_const(at_fmt: &Ident) -> Ident {
    format_ident!("{}_SHARD_FN", at_fmt.to_string().to_uppercase())
}

/// The statement writing field `i`'s key text (`arg`: a reference to it) on builder `w` (`index`:
/// of an index key, whose components are never empty).
#[allow(clippy::too_many_arguments)]
pub(super) fn put_field(
    m: &Model<'_>,
    _p: &TokenStream,
    i: usize,
    width: Option<usize>,
    raw: bool,
    arg: &Ident,
    w: &Ident,
    index: bool,
) -> TokenStream {
    let f = &m.input.fields[i];
    if raw {
        // The last part: the text as it is (see `codec::RawKeyField`).
        let path = raw_key_field(f.key_ty());
        return quote!(#path::__put_raw(#arg, &mut #w););
    }
    let field = &f.name;
    // The trait-bound error of a non-`KeyPart` type points at the field's type, once.
    let path = key_field(f.key_ty(), width);
    match width {
        Some(n) => {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            quote!(#path::__put_padded(#arg, #n, &mut #w, #field);)
        }
        // An index key's component is never empty (the builder refuses an empty one).
        None if index => quote!(#path::__put_index(#arg, &mut #w, #field);),
        None => quote!(#path::__put(#arg, &mut #w, #field);),
    }
}

/// `.__sharded(N, |s| <fmt_at>(.., s, ..), &["by", ..], [known, ..])` for a query or partition of a
/// sharded key whose shard its placeholders do not fix (empty otherwise): every shard's key,
/// and the key texts of the `shard_by` fields the partition fixes. The placeholders' values are
/// in locals `__a<field index>`.
pub(super) fn sharded_tail(m: &Model<'_>, key: &Key, at_fmt: &Ident) -> TokenStream {
    let Some(shard) = key.shard.as_ref().filter(|_| key.fans_out()) else { return quote!() };
    let p = private(m);
    let ident = m.input.ident;
    let attr = &key.attr;
    let count = shard.count;
    let args = key.fields.iter().map(|(i, _)| format_ident!("__a{}", i));
    let by = shard.by.as_deref().unwrap_or_default();
    let names = by.iter().map(|b| &m.input.fields[b.field].name);
    // The `shard_by` fields the partition fixes have their key text now; the others, when a
    // sort-key condition fixes them (`eq`).
    let known = by.iter().map(|b| {
        if key.fields.iter().any(|(i, _)| *i == b.field) {
            let h = format_ident!("__h");
            let put = put_field(m, &p, b.field, b.width, b.raw, &format_ident!("__a{}", b.field), &h, false);
            quote!(__O::Some((|| {
                let mut __h = __KB::new();
                __h.start(#attr, 0);
                let __h = &mut __h;
                #put
                ::core::mem::take(__h).finish()
            })()))
        } else {
            quote!(__O::None)
        }
    });
    let at = quote!(|__s| #ident::#at_fmt(__KB::new(), __s, #(&#args),*));
    match &shard.hash {
        Some(_) => {
            let hash = shard_fn_const(at_fmt);
            quote!(.__sharded_with(#count, #at, &[#(#names),*], [#(#known),*], #ident::#hash))
        }
        None => quote!(.__sharded(#count, #at, &[#(#names),*], [#(#known),*])),
    }
}

/// `fn __fmt_x(w: KeyBuilder, a: &A, b: &B) -> Result<String, KeyError>`: one
/// line per template part, through the runtime's `KeyBuilder` (the mirror of `KeyReader`).
/// Callers pass `KeyBuilder::new()`, or `KeyBuilder::scratch()` for a key only compared.
///
/// A sharded key has two: `..._at(w, shard, a, b)` writes the key of one shard (a query reads
/// each), and the one above computes the shard (from the `shard_by` fields, which follow the
/// placeholders' among its parameters, or at random) and calls it.
fn formatter(m: &Model<'_>, name: &Ident, key: &Key, at_name: &Ident, index: bool) -> TokenStream {
    let p = private(m);
    let attr = &key.attr;
    let w = format_ident!("__w");
    let param = |i: &usize| {
        let f = &m.input.fields[*i];
        let arg = format_ident!("__k{}", i);
        let ty = f.key_ty();
        quote!(#arg: &#ty)
    };
    let params = key.fields.iter().map(|(i, _)| param(i));
    let mut field_iter = key.fields.iter().enumerate();
    let steps = key.template.parts.iter().map(|part| match part {
        Part::Literal(lit) => quote!(__w.literal(#lit);),
        Part::Shard if key.template.shard_unpadded => quote!(__w.shard_unpadded(__shard);),
        Part::Shard => {
            let count = key.shard.as_ref().map_or(0, |s| s.count);
            quote!(__w.shard(__shard, #count);)
        }
        Part::Field { raw, .. } => {
            let Some((_, (i, width))) = field_iter.next() else { return quote!() };
            put_field(m, &p, *i, *width, *raw, &format_ident!("__k{}", i), &w, index)
        }
    });
    let capacity = key.template.literal_len() + 24 * key.fields.len() + 4;
    let Some(shard) = &key.shard else {
        return quote! {
            #[inline]
            fn #name(
                mut __w: __KB,
                #(#params),*
            ) -> __R<__S, #p::KeyError> {
                __w.start(#attr, #capacity);
                #(#steps)*
                __w.finish()
            }
        };
    };
    let count = shard.count;
    let all_params = key.params();
    let outer_params = all_params.iter().map(param);
    let args = key.fields.iter().map(|(i, _)| format_ident!("__k{}", i));
    let compute = match &shard.by {
        None => quote!(#p::key::random_shard(#count)),
        Some(by) if shard.hash.is_some() => {
            // `shard_fn`: each field's key text on its own.
            let hash = shard_fn_const(at_name);
            let h = format_ident!("__h");
            let texts = by.iter().map(|b| {
                let put = put_field(m, &p, b.field, b.width, b.raw, &format_ident!("__k{}", b.field), &h, false);
                quote!({
                    let mut __h = __KB::new();
                    __h.start(#attr, 0);
                    #put
                    __h.finish()?
                })
            });
            quote!(#p::key::shard_with(Self::#hash, &[#(#texts.as_str()),*], #count, #attr)?)
        }
        Some(by) => {
            let h = format_ident!("__h");
            let puts = by.iter().enumerate().map(|(n, b)| {
                let sep = if n == 0 { quote!() } else { quote!(__h.literal("#");) };
                let put = put_field(m, &p, b.field, b.width, b.raw, &format_ident!("__k{}", b.field), &h, false);
                quote!(#sep #put)
            });
            quote!({
                let mut __h = __KB::scratch();
                __h.start(#attr, 0);
                #(#puts)*
                #p::key::shard_of_builder(__h, #count)?
            })
        }
    };
    let hash_const = shard.hash.as_ref().map(|path| {
        let name = shard_fn_const(at_name);
        quote!(#[doc(hidden)] const #name: #p::key::ShardFn = #path;)
    });
    quote! {
        #hash_const
        #[inline]
        fn #at_name(
            mut __w: __KB,
            __shard: u16,
            #(#params),*
        ) -> __R<__S, #p::KeyError> {
            __w.start(#attr, #capacity);
            #(#steps)*
            __w.finish()
        }
        #[inline]
        fn #name(
            __w: __KB,
            #(#outer_params),*
        ) -> __R<__S, #p::KeyError> {
            let __shard: u16 = #compute;
            Self::#at_name(__w, __shard, #(#args),*)
        }
    }
}

/// Every key formatter of the entity: the primary key and each index key of key text (an
/// index key on a field's own attribute has no key text: its field need not be `KeyPart`).
pub fn formatters(m: &Model<'_>) -> TokenStream {
    let f = |label: &str, which: &str, key: &Key| {
        formatter(m, &fmt_fn(label, which), key, &fmt_at_fn(label, which), label != "table")
    };
    let table = |which: &str, key: &Key| match key.plain_field() {
        Some(i) => natural_formatter(m, &fmt_fn("table", which), key, i),
        None => f("table", which, key),
    };
    let mut out = vec![table("pk", &m.pk)];
    if let Some(sk) = &m.sk {
        out.push(table("sk", sk));
    }
    for index in &m.indexes {
        if let Some(pk) = index.pk.as_ref().filter(|k| k.plain_field().is_none()) {
            out.push(f(&index.label, "pk", pk));
        }
        if let Some(sk) = index.sk.as_ref().filter(|k| k.plain_field().is_none()) {
            out.push(f(&index.label, "sk", sk));
        }
    }
    quote!(#(#out)*)
}

/// The formatter of a table key on field `i`'s own attribute (a natural key): the attribute's
/// value as key text (a string as it is, a number in its plain form), as [`formatter`]'s are
/// called. Only the table's keys: an index key on a field's attribute is written by the field.
fn natural_formatter(m: &Model<'_>, name: &Ident, key: &Key, i: usize) -> TokenStream {
    let p = private(m);
    let ty = m.input.fields[i].key_ty();
    let arg = format_ident!("__k{}", i);
    let text = super::plain::attr_text(m, key, i, &quote!(#arg));
    quote! {
        #[inline]
        fn #name(
            __w: __KB,
            #arg: &#ty,
        ) -> __R<__S, #p::KeyError> {
            ::core::mem::drop(__w);
            #text
        }
    }
}

/// Statements reading `text` (key attribute `key`) into `__p_<field>` locals.
pub(super) fn parser(m: &Model<'_>, key: &Key, text: &TokenStream, bound: &mut Vec<usize>) -> TokenStream {
    let p = private(m);
    if let (Some(i), true) =
        (key.plain_field(), std::ptr::eq(key, &m.pk) || m.sk.as_ref().is_some_and(|sk| std::ptr::eq(key, sk)))
    {
        // A table key on the field's own attribute: the text is the attribute's value.
        let (attr, source) = (&key.attr, &key.template.source);
        let ty = m.input.fields[i].key_ty();
        let local = format_ident!("__p{}", i);
        let attr_ty = super::plain::attr_type(m, key);
        let decode = super::codec::field_decode(m, i, quote!(__v));
        bound.push(i);
        return quote! {
            let #local: #ty = #p::attr_key_parse(#text, #attr_ty, #attr, #source, |__v| #decode)?;
        };
    }
    let attr = &key.attr;
    let source = &key.template.source;
    let count = key.shard.as_ref().map_or(0, |s| s.count);
    let unpadded = key.template.shard_unpadded;
    let mut steps = Vec::new();
    // A literal is read with the field after it, and the end of the text with the template's last
    // field: one call (one early return, each dropping every field read before it) per field.
    let mut lit: Option<&str> = None;
    let mut ended = false;
    for step in key.read_steps() {
        let ReadStep::Field { field: i, width, raw, joined, last } = step else {
            if let Some(lit) = lit.take() {
                steps.push(quote!(__r.literal(#lit)?;));
            }
            match step {
                ReadStep::Literal(l) => lit = Some(l),
                _ => steps.push(quote!(__r.shard_number(#count, #unpadded)?;)),
            }
            continue;
        };
        let f = &m.input.fields[i];
        let local = format_ident!("__p{}", i);
        let field = &f.name;
        let ty = f.key_ty();
        let path = key_field(ty, width);
        let read = if joined.is_some() {
            if let Some(lit) = lit.take() {
                steps.push(quote!(__r.literal(#lit)?;));
            }
            match width {
                _ if raw => {
                    let raw = raw_key_field(ty);
                    quote!(#raw::__read_raw(&mut __rj, #field)?)
                }
                Some(w) => quote!(#path::__read_padded(&mut __rj, #field, #w)?),
                None => quote!(#path::__read(&mut __rj, #field)?),
            }
        } else {
            let before = lit.take().unwrap_or_default();
            ended |= last;
            match width {
                _ if raw => {
                    let raw = raw_key_field(ty);
                    quote!(#raw::__read_raw_at(&mut __r, #before, #field)?)
                }
                Some(w) => {
                    let w = proc_macro2::Literal::usize_unsuffixed(w);
                    quote!(#path::__read_padded_at(&mut __r, #before, #field, #w, #last)?)
                }
                None => quote!(#path::__read_at(&mut __r, #before, #field, #last)?),
            }
        };
        let step = if bound.contains(&i) {
            let eq_path = key_field(ty, None);
            // The field appears in both keys: both must say the same.
            quote! {
                if !#eq_path::__eq(&#read, &#local) {
                    // (`From`: the parser runs where the error is a `KeyError` or an `Error`.)
                    return __R::Err(::core::convert::From::from(#p::KeyError::Mismatch {
                        key: #attr,
                        template: #source,
                        text: ::std::string::ToString::to_string(#text),
                        reason: ::std::format!("`{}` differs from its value in the other key", #field),
                    }));
                }
            }
        } else {
            bound.push(i);
            quote!(let #local = #read;)
        };
        steps.push(match joined {
            Some(sep) => quote! {
                let mut __rj = __r.joined_shard(#sep, #count, #unpadded)?;
                #step
                __rj.end()?;
            },
            None => step,
        });
    }
    if let Some(lit) = lit {
        steps.push(quote!(__r.literal(#lit)?;));
    }
    let end = if ended { quote!() } else { quote!(__r.end()?;) };
    quote! {
        let mut __r = __KR::new(#attr, #source, #text);
        #(#steps)*
        #end
    }
}

/// The `<Name>Key` struct (in the user's namespace), and the rest (for the generated block).
pub fn expand(m: &Model<'_>) -> (TokenStream, TokenStream) {
    let p = private(m);
    let ident = m.input.ident;
    let vis = m.input.vis;
    let key = key_ident(m);
    let key_fields = m.key_fields();
    let fields: Vec<_> = key_fields.iter().map(|i| &m.input.fields[*i]).collect();
    let names: Vec<&Ident> = fields.iter().map(|f| f.ident).collect();
    let tys: Vec<_> = fields.iter().map(|f| f.ty).collect();
    let locals: Vec<Ident> = key_fields.iter().map(|i| format_ident!("__p{}", i)).collect();
    let pk_args: Vec<TokenStream> =
        m.pk.params()
            .iter()
            .map(|i| {
                let n = m.input.fields[*i].ident;
                quote!(&self.#n)
            })
            .collect();
    let fmt_pk = fmt_fn("table", "pk");
    let fmt_sk = fmt_fn("table", "sk");

    let mut bound = Vec::new();
    let attrs = super::fields::key_attrs(m);
    let parse_pk = parser(m, &m.pk, &quote!(pk), &mut bound);
    let (parse_sig, parse_sk, try_sk_trait, parse_keys_body) = match &m.sk {
        Some(sk) => {
            let sk_args = sk.fields.iter().map(|(i, _)| {
                let n = m.input.fields[*i].ident;
                quote!(&self.#n)
            });
            let parse_sk = parser(m, sk, &quote!(sk), &mut bound);
            let sk_attr = &sk.attr;
            (
                quote!(pk: &str, sk: &str),
                parse_sk,
                quote!(#ident::#fmt_sk(__KB::new(), #(#sk_args),*).map(__O::Some)),
                quote!(__dc::parse_with_sk(pk, sk, #sk_attr, #key::parse)),
            )
        }
        None => (
            quote!(pk: &str),
            quote!(),
            quote!(__R::Ok(__O::None)),
            quote!({
                let _ = sk;
                #key::parse(pk)
            }),
        ),
    };
    let key_doc = format!(
        "The primary key of [`{ident}`]: `{}`{}.",
        m.pk.template.source,
        m.sk.as_ref().map_or_else(String::new, |sk| format!(" / `{}`", sk.template.source))
    );
    let params = fields.iter().map(|f| {
        let n = f.ident;
        let ty = f.ty;
        quote!(#n: impl #p::IntoValue<#ty>)
    });
    let formatters = formatters(m);
    // Through `KeyPart`-bounded helpers: a field type that is not `KeyPart` is reported once as
    // such, not as a missing `Clone`, `Debug` or `PartialEq`.
    let clones = fields.iter().map(|f| {
        let n = f.ident;
        let path = key_field(f.ty, None);
        quote!(#path::__clone(&self.#n))
    });
    let eqs = fields.iter().map(|f| {
        let n = f.ident;
        let path = key_field(f.ty, None);
        quote!(#path::__eq(&self.#n, &other.#n))
    });
    let key_name = key.to_string();
    let ctor_doc = format!("The key of a [`{ident}`], from its key fields in template order.");
    let key_struct = quote! {
        #[doc = #key_doc]
        #[allow(missing_docs)]
        #vis struct #key {
            #(pub #names: #tys,)*
        }
    };
    let rest = quote! {
        #[automatically_derived]
        impl #key {
            /// Parses key texts written by this entity; `parse(format(k)) == k` for every key.
            #[inline] pub fn parse(#parse_sig) -> __R<Self, #p::KeyError> {
                #parse_pk
                #parse_sk
                __R::Ok(#key { #(#names: #locals),* })
            }
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #key {
            #[inline] fn clone(&self) -> Self {
                #key { #(#names: #clones),* }
            }
        }

        #[automatically_derived]
        impl ::core::cmp::PartialEq for #key {
            #[inline] fn eq(&self, other: &Self) -> bool {
                true #(&& #eqs)*
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Debug for #key {
            #[inline] fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #p::debug_key(f, #key_name, self)
            }
        }

        #[automatically_derived]
        impl #p::EntityKey for #key {
            type Entity = #ident;

            #[inline] fn try_pk(&self) -> __R<__S, #p::KeyError> {
                #ident::#fmt_pk(__KB::new(), #(#pk_args),*)
            }

            #[inline] fn try_sk(&self) -> __R<__O<__S>, #p::KeyError> {
                #try_sk_trait
            }

            #[inline] fn parse_keys(
                pk: &str,
                sk: __O<&str>,
            ) -> __R<Self, #p::KeyError> {
                #parse_keys_body
            }

            #[inline] fn __attrs(&self) -> ::std::vec::Vec<(&'static str, __dc::Encoded)> {
                <::std::vec::Vec<_> as ::core::convert::From<_>>::from([#(#attrs),*])
            }
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #ctor_doc]
            #[inline] #vis fn key(#(#params),*) -> #key {
                #key { #(#names: #p::IntoValue::into_value(#names)),* }
            }

            #formatters
        }
    };
    (key_struct, rest)
}

/// `.__tenant_key(entity, text)` on a query or partition whose partition key is field `field`'s
/// own attribute (or on a vector search fixing field `field`), when that field is the entity's
/// tenant: the tenant's key text, written as the
/// table's partition key writes it (its width), which a tenant handle compares with its id
/// (a number attribute holds `7` where the tenant's key text is `0000000007`). The value is in
/// local `__a<field>`. Empty for every other key.
pub(crate) fn tenant_tail(m: &Model<'_>, field: usize) -> TokenStream {
    let crate::tenant::Tenancy::Field(tenant) = m.tenant else { return quote!() };
    let Some(&(first, width)) = m.pk.fields.first() else { return quote!() };
    if tenant != field || first != tenant {
        return quote!();
    }
    let p = private(m);
    let ident = m.input.ident;
    let attr = &m.pk.attr;
    let local = format_ident!("__a{}", tenant);
    let put = put_field(m, &p, tenant, width, false, &format_ident!("__t"), &format_ident!("__h"), false);
    quote! {
        .__tenant_key(<#ident as #p::Entity>::SCHEMA.entity_type, (|| -> __R<__S, #p::KeyError> {
            let __t = &#local;
            let mut __h = __KB::new();
            __h.start(#attr, 0);
            #put
            __h.finish()
        })())
    }
}
