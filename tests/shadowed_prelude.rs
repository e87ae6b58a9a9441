//! Generated code names everything by its full path: shadowing prelude names changes nothing.
#![allow(dead_code, non_camel_case_types)]
use dynamo_entity::prelude::*;

struct Result;
struct Ok;
struct Err;
struct Some;
struct None;
struct Option;
struct String;
struct Vec;
struct Box;
struct Default;
struct Into;
struct From;
struct Clone;
struct ToOwned;
struct ToString;
struct Item;
struct HashMap;
mod core {}
mod dynamo_entity_runtime {}

#[derive(::dynamo_entity::Entity, Debug, PartialEq)]
#[pk = "ROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>"]
#[gsi1(pk = "SENDER#<sender>", sk = "<ts>")]
#[gsi2(index = "BySender", pk = "<sender>", sk = "<ts>", pk_attr = "sender", sk_attr = "ts", query = "by_sender")]
#[gsi3(index = "Inverted", pk = "MESSAGE#<ts:13>#<id>", sk = "ROOM#<room_id>", pk_attr = "SK", sk_attr = "PK")]
struct Message {
    room_id: std::string::String,
    ts: u64,
    id: std::string::String,
    sender: std::option::Option<std::string::String>,
    #[ttl]
    expires: std::option::Option<std::time::SystemTime>,
    #[entity(skip)]
    skipped: u8,
    #[entity(default)]
    added: u32,
    #[entity(default = "later")]
    added_later: std::string::String,
    #[entity(with = "::dynamo_entity::time::epoch_millis")]
    seen: std::option::Option<std::time::SystemTime>,
    at: std::time::SystemTime,
}

fn later() -> std::string::String {
    "later".into()
}

#[derive(::dynamo_entity::Entity, Debug, PartialEq)]
#[pk = "USER#<name:raw>"]
struct RawUser {
    name: std::string::String,
}

#[test]
fn compiles_and_works_with_shadowed_names() {
    use ::dynamo_entity::Entity as _;
    let m = Message {
        room_id: "r".into(),
        ts: 1,
        id: "i".into(),
        sender: std::option::Option::Some("s".into()),
        expires: std::option::Option::None,
        skipped: 0,
        added: 3,
        added_later: "x".into(),
        seen: std::option::Option::Some(std::time::UNIX_EPOCH),
        at: std::time::UNIX_EPOCH,
    };
    let item = m.to_item().unwrap();
    assert_eq!(Message::from_item(item).unwrap(), m);
    assert_eq!(Message::key("r", 1u64, "i").sk(), "MESSAGE#0000000000001#i");
    let r = Message::query_by_sender("s").ts().gt(0u64).request().unwrap();
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #sk > :sk");
    let _ = Message::query_gsi3_by_ts_and_id(1u64, "i").room_id().eq("r").request().unwrap();
    let mut item = m.to_item().unwrap();
    item.remove("added");
    item.remove("added_later");
    let read = Message::from_item(item).unwrap();
    assert_eq!((read.added, read.added_later.as_str()), (0, "later"));
    assert_eq!(RawUser::key("a b#c").pk(), "USER#a b#c");
}
