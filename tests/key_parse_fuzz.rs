//! The generated key parser on arbitrary text: never panics, and accepts only the canonical
//! text of some key (`format(parse(s)) == s`). Also `#[entity(crate = "..")]` for a renamed crate.

use proptest::prelude::*;

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
        if let Ok(key) = MessageKey::parse(&pk, &sk) {
            prop_assert_eq!(key.try_pk().unwrap(), pk);
            prop_assert_eq!(key.try_sk().unwrap(), sk);
        }
    }

    #[test]
    fn every_key_round_trips(room in any::<String>(), ts in 0u64..10_000_000_000_000, id in any::<String>(), n in any::<i16>()) {
        let key = Message::key(room, ts, id, n);
        prop_assert_eq!(MessageKey::parse(&key.try_pk().unwrap(), &key.try_sk().unwrap()).unwrap(), key);
    }
}

#[test]
fn the_renamed_crate_path_is_used() {
    use renamed::de::Entity as _;
    let m = Message { room_id: "r".into(), ts: 1, id: "i".into(), n: -1 };
    assert_eq!(m.primary_key().sk(), "MESSAGE#0000000000001#i#32767");
    assert_eq!(Message::from_item(m.to_item().unwrap()).unwrap(), m);
}
