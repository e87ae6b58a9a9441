//! The generated key parser on arbitrary bytes (see `src/key_parse.rs`).
#![no_main]

#[path = "../src/key_parse.rs"]
mod key_parse;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    key_parse::check_bytes(data);
});
