//! `#[inline]` on every function a derive generates, and the test that holds the derives to it.
//!
//! A non-generic function of a library is compiled to machine code in that library whether or
//! not anything calls it; an `#[inline]` one is compiled only where it is used (in the crates
//! that call it, once per crate in unoptimized builds), as serde's generic impls are. The
//! derives generate some seventy small functions per entity, most of which a given program
//! never calls (every query's sort-key methods, every key constructor): marking them all
//! `#[inline]` halves a clean build of a crate of entities and shortens each incremental one
//! (BENCHMARKS.md, issue 11). It also lets the optimizer inline the one-line wrappers.
//!
//! The decoder (`from_item`, `__from_typed_item`) is left as it was: with the hint, the optimizer
//! inlined it whole into its callers, and the decoding loop of the codec benchmark took 21
//! instruction-cache misses per item (callgrind's cache simulation) where the hand-written decoder
//! takes none; left alone, it takes none either, and criterion had read it 1.3x–1.7x slower than
//! hand-written with the hint (BENCHMARKS.md, issue 11, session 4). Every program that reads an
//! entity compiles its decoder anyway, so leaving it without the attribute costs little.
//!
//! The derives write `#[inline]` where they generate each function. (It used to be added by a
//! pass over the finished tokens: walking every token of the expansion once more through the
//! compiler's token bridge took as long as generating them: more than a quarter of the time
//! `rustc` spent expanding a crate of 50 entities.) The test below expands every entity, key part, collection
//! and view of the examples and of the tests, and names each generated function without the
//! attribute: a function item is the keyword `fn` followed by its name (a function-pointer type
//! is `fn(..)`, and closures have no keyword).

#[cfg(test)]
mod tests {
    use proc_macro2::{Delimiter, TokenStream, TokenTree};

    /// The functions left without the attribute: the item decoder.
    const LEFT_ALONE: &[&str] = &["from_item", "__from_typed_item"];

    /// The generated functions in `tokens`, at any depth, with no `#[inline..]` among their
    /// outer attributes (which come before the qualifiers `pub`, `pub(..)`, `const`, ...).
    fn without_inline(tokens: TokenStream, out: &mut Vec<String>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, token) in tokens.iter().enumerate() {
            if let TokenTree::Group(g) = token {
                without_inline(g.stream(), out);
            }
            let (TokenTree::Ident(k), Some(TokenTree::Ident(name))) = (token, tokens.get(i + 1)) else { continue };
            if k != "fn" || LEFT_ALONE.iter().any(|n| name == n) {
                continue;
            }
            let mut j = i;
            while j > 0 {
                match &tokens[j - 1] {
                    TokenTree::Ident(q)
                        if ["pub", "const", "async", "unsafe", "extern", "default"].iter().any(|k| q == k) =>
                    {
                        j -= 1
                    }
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis && j >= 2 => j -= 1,
                    TokenTree::Literal(_) => j -= 1,
                    _ => break,
                }
            }
            let mut inline = false;
            while j >= 2 {
                let (TokenTree::Punct(hash), TokenTree::Group(attr)) = (&tokens[j - 2], &tokens[j - 1]) else { break };
                if hash.as_char() != '#' || attr.delimiter() != Delimiter::Bracket {
                    break;
                }
                inline |= matches!(attr.stream().into_iter().next(), Some(TokenTree::Ident(a)) if a == "inline");
                j -= 2;
            }
            if !inline {
                out.push(name.to_string());
            }
        }
    }

    /// Each item deriving one of the four derives, at any depth of a file's tokens: its outer
    /// attributes (doc comments included) to its body or closing semicolon, and the derive list.
    fn derived_items(tokens: TokenStream, found: &mut Vec<(String, syn::DeriveInput)>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let attr_at = |k: usize| -> Option<String> {
            match (tokens.get(k), tokens.get(k + 1)) {
                (Some(TokenTree::Punct(h)), Some(TokenTree::Group(g)))
                    if h.as_char() == '#' && g.delimiter() == Delimiter::Bracket =>
                {
                    Some(g.stream().to_string())
                }
                _ => None,
            }
        };
        let mut i = 0;
        while i < tokens.len() {
            if let TokenTree::Group(g) = &tokens[i] {
                derived_items(g.stream(), found);
            }
            let Some(derive) = attr_at(i).filter(|a| a.starts_with("derive")) else {
                i += 1;
                continue;
            };
            let mut start = i;
            while start >= 2 && attr_at(start - 2).is_some() {
                start -= 2;
            }
            let mut end = i;
            while end < tokens.len() {
                match &tokens[end] {
                    TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                    TokenTree::Punct(p) if p.as_char() == ';' => break,
                    _ => end += 1,
                }
            }
            let item: TokenStream = tokens[start..(end + 1).min(tokens.len())].iter().cloned().collect();
            if let Ok(input) = syn::parse2::<syn::DeriveInput>(item) {
                found.push((derive, input));
            }
            i = end + 1;
        }
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_generated_function_is_inline_but_the_decoder() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        rust_files(&root.join("examples"), &mut files);
        rust_files(&root.join("tests"), &mut files);
        files.sort();
        let (mut items, mut missing) = (0, Vec::new());
        for file in &files {
            let Ok(tokens) = std::fs::read_to_string(file).unwrap().parse::<TokenStream>() else { continue };
            let mut found = Vec::new();
            derived_items(tokens, &mut found);
            for (derive, input) in found {
                let mut expansions = Vec::new();
                for (name, expand) in [
                    ("Entity", crate::expand::entity as fn(&syn::DeriveInput) -> TokenStream),
                    ("KeyPart", crate::keypart::derive),
                    ("Collection", crate::collection::derive),
                    ("View", crate::view::derive),
                ] {
                    if derive.split(|c: char| !c.is_alphanumeric()).any(|d| d == name) {
                        expansions.push(expand(&input));
                    }
                }
                items += 1;
                let mut names = Vec::new();
                for e in expansions {
                    without_inline(e, &mut names);
                }
                if !names.is_empty() {
                    missing.push(format!("{}: {}: {names:?}", file.display(), input.ident));
                }
            }
        }
        assert!(items > 200, "the test found only {items} derived items");
        assert!(missing.is_empty(), "generated functions without #[inline]:\n{}", missing.join("\n"));
    }

    #[test]
    fn a_function_without_the_attribute_is_named() {
        let mut names = Vec::new();
        without_inline(
            quote::quote! {
                impl A {
                    #[doc = "x"] #[inline] pub fn a(&self) -> u8 { 1 }
                    #[inline] pub(crate) const fn b() {}
                    #[allow(x)] pub fn c(f: fn(u8) -> u8) { let c = |x: u8| x; }
                    fn from_item() {}
                }
                const _: () = { unsafe extern "C" fn d() {} };
            },
            &mut names,
        );
        assert_eq!(names, ["c", "d"]);
    }
}
