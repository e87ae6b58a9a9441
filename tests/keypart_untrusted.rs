//! Hand-written `KeyPart` impls cannot forge or break the key around their component: their text
//! is written into a buffer of its own, checked, then appended; no override skips the check.

use dynamo_entity::key::{KeyWord, KeyWriter, to_key_text};
use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, KeyError, KeyPart, KeyPartError};

/// Clears the buffer it is handed and writes a whole other partition key.
#[derive(Debug, Clone, PartialEq)]
struct Forger;

impl KeyPart for Forger {
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.clear();
        out.push_str("OTHER#x-forged-partition");
        Ok(())
    }
    fn parse_key(_: &str) -> Result<Self, KeyPartError> {
        Ok(Forger)
    }
}

/// Clears the buffer and writes contract-keeping text: it only ever writes its own component.
#[derive(Debug, Clone, PartialEq)]
struct Shortener;

impl KeyPart for Shortener {
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.clear();
        out.push_str("ab");
        Ok(())
    }
    fn parse_key(_: &str) -> Result<Self, KeyPartError> {
        Ok(Shortener)
    }
}

/// Overrides the hidden writing method: the only ways it has keep the contract.
#[derive(Debug, Clone, PartialEq)]
struct Overrider(String);

impl KeyPart for Overrider {
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(&self.0);
        Ok(())
    }
    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        Ok(Overrider(text.to_owned()))
    }
    fn __write_part(&self, writer: KeyWriter<'_>) -> Result<(), KeyPartError> {
        match KeyWord::new(Box::leak(self.0.clone().into_boxed_str())) {
            Some(word) => writer.word(word),
            // Handing its raw text to a `String` gets it escaped.
            None => writer.delegate(&self.0),
        }
    }
}

/// Overrides the hidden reading method (and tells which method read it): the reader still
/// decides where its component ends.
#[derive(Debug, Clone, PartialEq)]
struct Reread(String);

impl KeyPart for Reread {
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(&self.0);
        Ok(())
    }
    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        Ok(Reread(format!("parse_key:{text}")))
    }
    fn __parse_plain(text: &str) -> Result<Self, KeyPartError> {
        Ok(Reread(format!("plain:{text}")))
    }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room>"]
#[sk = "AT#<at>"]
struct Reparsed {
    room: Reread,
    at: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room>"]
#[sk = "AT#<at>"]
struct Forged {
    room: Forger,
    at: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room>"]
#[sk = "AT#<at>"]
struct Shortened {
    room: Shortener,
    at: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room>"]
struct Overridden {
    room: Overrider,
}

#[test]
fn an_impl_that_clears_the_buffer_cannot_forge_the_partition_key() {
    let key = Forged::key(Forger, 1u32);
    match key.try_pk() {
        Err(KeyError::Format { key: "PK", field: "room", source: KeyPartError::Forbidden { text } }) => {
            assert_eq!(text, "OTHER#x-forged-partition")
        }
        other => panic!("{other:?}"),
    }
    assert!(Forged { room: Forger, at: 1 }.to_item().is_err());
}

#[test]
fn an_impl_that_shortens_the_buffer_neither_panics_nor_cuts_the_key() {
    let key = Shortened::key(Shortener, 1u32);
    assert_eq!(key.try_pk().unwrap(), "CHATROOM#ab");
    assert_eq!(key.try_sk().unwrap().as_deref(), Some("AT#0000000001"));
    assert_eq!(to_key_text(&Shortener).unwrap(), "ab");
}

#[test]
fn overriding_the_hidden_method_cannot_skip_the_check() {
    assert_eq!(KeyWord::new("OTHER#x"), None);
    assert_eq!(KeyWord::new(""), None);
    assert_eq!(KeyWord::new("a%b"), None);
    assert_eq!(Overridden::key(Overrider("OTHER#x".into())).try_pk().unwrap(), "CHATROOM#OTHER%23x");
    assert_eq!(Overridden::key(Overrider("plain".into())).try_pk().unwrap(), "CHATROOM#plain");
}

#[test]
fn overriding_the_hidden_reading_method_cannot_read_past_the_component() {
    let parse = |pk: &str| ReparsedKey::parse(pk, "AT#0000000001").map(|k| k.room);
    // A component with no byte below `&` goes to `__parse_plain`, one with an escape (or any
    // other byte below `&`) to `parse_key`; either way it ends at the first `#`.
    assert_eq!(parse("CHATROOM#a-b").unwrap(), Reread("plain:a-b".into()));
    assert_eq!(parse("CHATROOM#a%23b").unwrap(), Reread("parse_key:a%23b".into()));
    assert_eq!(parse("CHATROOM#a b").unwrap(), Reread("parse_key:a b".into()));
    assert_eq!(parse("CHATROOM#").unwrap(), Reread("plain:".into()));
    assert!(matches!(parse("CHATROOM#a#b"), Err(KeyError::Mismatch { key: "PK", .. })));
    assert!(matches!(parse("CHATROOM#a%23b#c"), Err(KeyError::Mismatch { key: "PK", .. })));
}
