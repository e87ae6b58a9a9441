//! Compile errors are part of the product: each mistake's message and span is pinned here.
//! Regenerate with `TRYBUILD=overwrite cargo test --test ui` and read the diff.
//!
//! Pinned for the default features: rustc lists the types implementing `KeyPart` and `TtlValue`
//! in some messages, and the optional features (uuid, chrono, ...) add to those lists.
#![cfg(not(any(feature = "uuid", feature = "ulid", feature = "chrono", feature = "time", feature = "jiff")))]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
