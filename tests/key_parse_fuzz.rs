//! The generated key parser on arbitrary text: never panics, and accepts only the canonical
//! text of some key (`format(parse(s)) == s`), checked by `fuzz/src/key_parse.rs`, the same
//! checks as the fuzz target's, on proptest's inputs and on the fuzz corpus. Also
//! `#[entity(crate = "..")]` for a renamed crate.

use dynamo_entity::prelude::*;
use proptest::prelude::*;

#[path = "../fuzz/src/key_parse.rs"]
mod key_parse;

mod renamed {
    pub use ::dynamo_entity as de;
}

#[derive(renamed::de::Entity, Debug, Clone, PartialEq)]
#[entity(crate = "renamed::de")]
#[pk = "CHATROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>#<n>"]
pub struct Message {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub n: i16,
}

fn key_text() -> impl Strategy<Value = String> {
    // Arbitrary text, and text built from the template's own pieces so that parsing gets far.
    let piece = prop_oneof![
        Just("MESSAGE#".to_owned()),
        Just("CHATROOM#".to_owned()),
        Just("#".to_owned()),
        "[0-9]{1,14}",
        "[a-z%#0-9A-F]{0,4}",
        any::<String>(),
    ];
    prop_oneof![any::<String>(), proptest::collection::vec(piece, 0..8).prop_map(|v| v.concat())]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_and_accepts_only_canonical_text(pk in key_text(), sk in key_text()) {
        key_parse::check(&pk, &sk);
    }

    #[test]
    fn every_key_round_trips(room in any::<String>(), ts in 0u64..10_000_000_000_000, id in any::<String>(), n in any::<i16>()) {
        let key = Message::key(room, ts, id, n);
        prop_assert_eq!(MessageKey::parse(&key.try_pk().unwrap(), &key.try_sk().unwrap().unwrap_or_default()).unwrap(), key);
    }
}

#[test]
fn the_renamed_crate_path_is_used() {
    use renamed::de::Entity as _;
    let m = Message { room_id: "r".into(), ts: 1, id: "i".into(), n: -1 };
    assert_eq!(m.primary_key().sk(), "MESSAGE#0000000000001#i#32767");
    assert_eq!(Message::from_item(m.to_item().unwrap()).unwrap(), m);
}

/// The fuzz target's checked-in corpus (`fuzz/corpus/key_parse`, seeds and whatever fuzzing
/// added), replayed through the fuzz target's checks: runs on stable, in every `cargo test`.
#[test]
fn the_fuzz_corpus_replays() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/key_parse");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .collect();
    inputs.sort();
    let mut accepted = Vec::new();
    for input in &inputs {
        let data = std::fs::read(input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        if key_parse::check_bytes(&data) {
            accepted.push(input.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_owned());
        }
    }
    // The seeds reach both outcomes: canonical keys, and near misses that must be refused.
    assert!(inputs.len() >= 17, "the corpus lost its seeds: {} inputs", inputs.len());
    // `not-utf8` decodes to U+FFFD, which is canonical text.
    for seed in ["canonical", "canonical-empty-texts", "canonical-escapes", "canonical-max-char", "not-utf8"] {
        assert!(accepted.iter().any(|a| a == seed), "the seed {seed} is refused; accepted {accepted:?}");
    }
    for seed in [
        "empty",
        "extra-segment",
        "long-number",
        "lowercase-escape",
        "minus-sign",
        "needless-escape",
        "no-separator",
        "raw-hash-in-text",
        "short-number",
        "signed-out-of-range",
        "truncated-escape",
        "wrong-prefix",
    ] {
        assert!(inputs.iter().any(|i| i.ends_with(seed)), "the seed {seed} is missing");
        assert!(!accepted.iter().any(|a| a == seed), "the seed {seed} is accepted");
    }
}

#[test]
fn a_fuzz_input_is_split_at_the_first_ff_byte() {
    assert_eq!(key_parse::split(b"a\xffb\xffc"), ("a".to_owned(), "b\u{fffd}c".to_owned()));
    assert_eq!(key_parse::split(b"a"), ("a".to_owned(), String::new()));
    assert_eq!(key_parse::split(b"\xc3\x28\xff"), ("\u{fffd}(".to_owned(), String::new()));
}
