//! `#[inline]` on every function a derive generates.
//!
//! A non-generic function of a library is compiled to machine code in that library whether or
//! not anything calls it; an `#[inline]` one is compiled only where it is used (in the crates
//! that call it, once per crate in unoptimized builds), as serde's generic impls are. The
//! derives generate some seventy small functions per entity, most of which a given program
//! never calls (every sort-key condition of every query, every setter): marking them all
//! `#[inline]` halves a clean build of a crate of entities and shortens each incremental one
//! (BENCHMARKS.md, issue 11). It also lets the optimizer inline the one-line wrappers.
//!
//! The decoder (`from_item`, `__from_typed_item`) is left as it was: with the hint, the optimizer
//! inlined it whole into its callers, and the decoding loop of the codec benchmark took 21
//! instruction-cache misses per item (callgrind's cache simulation) where the hand-written decoder
//! takes none; left alone, it takes none either, and criterion had read it 1.3x–1.7x slower than
//! hand-written with the hint (BENCHMARKS.md, issue 11, session 4). Every program that reads an
//! entity compiles its decoder anyway, so leaving it out of the pass costs little.
//!
//! The pass works on tokens: a function item is the keyword `fn` followed by its name (a
//! function-pointer type is `fn(..)`, and closures have no keyword). The attribute goes before
//! the item's qualifiers (`pub`, `pub(..)`, `const`, `async`, `unsafe`, `extern ".."`), and is
//! not added where the item already has an `#[inline..]` attribute.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;

/// `tokens` with `#[inline]` on each function item, at any depth.
pub fn inline_fns(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        if is_fn_item(&tokens, i) {
            let start = item_start(&out);
            if !has_inline(&out[..start]) {
                let attr: Vec<TokenTree> = quote!(#[inline]).into_iter().collect();
                out.splice(start..start, attr);
            }
        }
        out.push(match token {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), inline_fns(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            t => t.clone(),
        });
    }
    out.into_iter().collect()
}

/// The functions the pass leaves alone: the item decoder.
const LEFT_ALONE: &[&str] = &["from_item", "__from_typed_item"];

fn is_fn_item(tokens: &[TokenTree], i: usize) -> bool {
    matches!(&tokens[i], TokenTree::Ident(k) if k == "fn")
        && matches!(tokens.get(i + 1), Some(TokenTree::Ident(name)) if !LEFT_ALONE.iter().any(|n| name == n))
}

/// Where the item whose `fn` comes next in `out` starts: before its qualifiers.
fn item_start(out: &[TokenTree]) -> usize {
    let mut j = out.len();
    while j > 0 {
        match &out[j - 1] {
            TokenTree::Ident(q) if ["pub", "const", "async", "unsafe", "extern", "default"].iter().any(|k| q == k) => {
                j -= 1
            }
            // `pub(crate)`, `pub(super)`, `pub(in path)`.
            TokenTree::Group(g)
                if g.delimiter() == Delimiter::Parenthesis
                    && j >= 2
                    && matches!(&out[j - 2], TokenTree::Ident(p) if p == "pub") =>
            {
                j -= 1
            }
            // The ABI of `extern "C" fn`.
            TokenTree::Literal(_) if j >= 2 && matches!(&out[j - 2], TokenTree::Ident(e) if e == "extern") => j -= 1,
            _ => break,
        }
    }
    j
}

/// Whether the outer attributes at the end of `before` include `#[inline..]`.
fn has_inline(before: &[TokenTree]) -> bool {
    let mut j = before.len();
    while j >= 2 {
        let (TokenTree::Punct(hash), TokenTree::Group(attr)) = (&before[j - 2], &before[j - 1]) else { break };
        if hash.as_char() != '#' || attr.delimiter() != Delimiter::Bracket {
            break;
        }
        if matches!(attr.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "inline") {
            return true;
        }
        j -= 2;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::inline_fns;
    use quote::quote;

    fn check(input: proc_macro2::TokenStream, expected: proc_macro2::TokenStream) {
        assert_eq!(inline_fns(input).to_string(), expected.to_string());
    }

    #[test]
    fn marks_functions_at_any_depth_before_their_qualifiers() {
        check(
            quote! {
                const _: () = {
                    impl A {
                        #[doc = "x"]
                        pub fn a(&self) -> u8 { 1 }
                        pub(crate) const fn b() {}
                        fn c() {}
                        unsafe extern "C" fn d() {}
                    }
                    fn e() {}
                };
            },
            quote! {
                const _: () = {
                    impl A {
                        #[doc = "x"]
                        #[inline]
                        pub fn a(&self) -> u8 { 1 }
                        #[inline]
                        pub(crate) const fn b() {}
                        #[inline]
                        fn c() {}
                        #[inline]
                        unsafe extern "C" fn d() {}
                    }
                    #[inline]
                    fn e() {}
                };
            },
        );
    }

    #[test]
    fn leaves_inline_functions_pointer_types_and_closures_alone() {
        check(
            quote! {
                #[inline(always)] #[allow(x)] fn a(f: fn(u8) -> u8) { let c = |x: u8| x; }
                #[inline] pub fn b() {}
                struct S { f: fn(), g: Box<dyn Fn()> }
                impl E { fn from_item() {} fn __from_typed_item() {} }
            },
            quote! {
                #[inline(always)] #[allow(x)] fn a(f: fn(u8) -> u8) { let c = |x: u8| x; }
                #[inline] pub fn b() {}
                struct S { f: fn(), g: Box<dyn Fn()> }
                impl E { fn from_item() {} fn __from_typed_item() {} }
            },
        );
    }
}
