//! Compile errors are part of the product: each mistake's message and span is pinned here.
//! Regenerate with `TRYBUILD=overwrite cargo test --test ui` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
