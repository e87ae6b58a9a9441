//! The properties of the generated key parser, shared by the fuzz target `key_parse`
//! (libFuzzer, nightly) and, on stable, by `tests/key_parse_fuzz.rs` (the proptest and the
//! replay of `fuzz/corpus/key_parse`): on any text the parser never panics, and it accepts only
//! the canonical text of some key (`format(parse(pk, sk)) == (pk, sk)`). A violation panics,
//! which both libFuzzer and the test harness report.

use dynamo_entity::{Entity, EntityKey};

/// Every kind of placeholder: variable-width text (escaped), a fixed-width unsigned number and
/// a signed one (offset), each in a segment of its own.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>#<n>"]
pub struct Message {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub n: i16,
}

/// The byte that separates the partition-key text from the sort-key text in a fuzz input.
/// 0xFF never occurs in UTF-8, so every pair of key texts has an input.
pub const SEPARATOR: u8 = 0xFF;

/// The two key texts of a fuzz input: the bytes before and after the first [`SEPARATOR`]
/// (all of them and nothing if there is none), each decoded lossily, so that every input
/// reaches the parser.
pub fn split(data: &[u8]) -> (String, String) {
    let (pk, sk) = match data.iter().position(|&b| b == SEPARATOR) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    (String::from_utf8_lossy(pk).into_owned(), String::from_utf8_lossy(sk).into_owned())
}

/// [`check`] on a fuzz input.
pub fn check_bytes(data: &[u8]) -> bool {
    let (pk, sk) = split(data);
    check(&pk, &sk)
}

/// Parses `pk` and `sk` as a [`MessageKey`]; panics unless a parsed key formats back to
/// exactly the same text. Returns whether the text was accepted.
pub fn check(pk: &str, sk: &str) -> bool {
    let Ok(key) = MessageKey::parse(pk, sk) else { return false };
    match (key.try_pk(), key.try_sk().map(Option::unwrap_or_default)) {
        (Ok(p), Ok(s)) => {
            assert!(p == pk && s == sk, "accepted the non-canonical {pk:?} / {sk:?}, which formats as {p:?} / {s:?}");
        }
        (p, s) => panic!("accepted {pk:?} / {sk:?} as {key:?}, which does not format: {p:?} / {s:?}"),
    }
    true
}
