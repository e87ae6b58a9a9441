//! Generated code names everything by its full path (issue 21, item 13): it compiles in a module
//! without the prelude, for every derive and every feature of them.
#![allow(dead_code)]

mod without_prelude {
    #![no_implicit_prelude]
    use ::dynamo_entity::prelude::*;

    #[derive(
        ::dynamo_entity::KeyPart, ::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy, ::std::cmp::PartialEq,
    )]
    #[key(rename_all = "SCREAMING_SNAKE_CASE")]
    pub enum Level {
        Low,
        High,
    }

    #[derive(::dynamo_entity::KeyPart, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    pub struct RoomId(pub ::std::string::String);

    #[derive(::dynamo_entity::Entity, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    #[pk = "ROOM#<room_id>"]
    #[sk = "MESSAGE#<ts:13>#<id>"]
    #[gsi1(pk = "SENDER#<sender>", sk = "<ts>", query = "by_sender")]
    #[gsi2(pk = "LEVEL#<level>", sk = "<id>", query = "by_level")]
    #[lsi1(sk = "AT#<at>")]
    #[entity(rename_all = "camelCase", type_attr = "Type")]
    pub struct Message {
        pub room_id: RoomId,
        pub ts: u64,
        pub id: ::std::string::String,
        pub sender: ::std::option::Option<::std::string::String>,
        pub level: ::std::option::Option<Level>,
        #[ttl]
        pub expires: ::std::option::Option<::std::time::SystemTime>,
        #[entity(default)]
        pub added: u32,
        #[entity(with = "::dynamo_entity::time::epoch_millis")]
        pub at: ::std::time::SystemTime,
        pub tags: ::std::vec::Vec<::std::string::String>,
        #[version]
        pub version: u64,
    }

    #[derive(::dynamo_entity::Entity, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    #[pk = "ROOM#<room_id>"]
    #[sk = "META"]
    pub struct Room {
        pub room_id: RoomId,
        pub name: ::std::string::String,
    }

    // A multi-attribute index (issue 34): its query builder and partition too.
    #[derive(::dynamo_entity::Entity, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    #[pk = "PLAYER#<player_id>"]
    #[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"], query = "leaderboard")]
    pub struct MatchResult {
        pub player_id: ::std::string::String,
        pub tournament_id: ::std::string::String,
        pub region: ::std::option::Option<::std::string::String>,
        pub round: ::std::string::String,
        pub score: u64,
    }

    #[derive(::dynamo_entity::Collection, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    pub enum RoomItems {
        Room(Room),
        Message(Message),
    }

    #[derive(::dynamo_entity::View, ::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
    #[view(entity = "Message")]
    pub struct Brief {
        pub id: ::std::string::String,
        pub tags: ::std::vec::Vec<::std::string::String>,
    }

    pub fn use_everything() -> ::std::result::Result<(), ::dynamo_entity::Error> {
        use ::dynamo_entity::Entity as _;
        let m = Message {
            room_id: RoomId(::std::borrow::ToOwned::to_owned("r")),
            ts: 1,
            id: ::std::borrow::ToOwned::to_owned("i"),
            sender: ::std::option::Option::Some(::std::borrow::ToOwned::to_owned("s")),
            level: ::std::option::Option::Some(Level::High),
            expires: ::std::option::Option::None,
            added: 0,
            at: ::std::time::UNIX_EPOCH,
            tags: ::std::vec::Vec::new(),
            version: 0,
        };
        let item = m.to_item()?;
        let back = Message::from_item(item)?;
        ::std::assert_eq!(back, m);
        let _ = Message::query_by_room(RoomId(::std::borrow::ToOwned::to_owned("r"))).ts().gt(0).limit(5).request()?;
        let _ = Message::query_by_sender("s").filter(Message::fields().added.gt(1)).request()?;
        let _ = Message::query_by_level(Level::Low).view::<Brief>().request()?;
        let _ = Message::update_from(&m)
            .set(Message::fields().sender, "t")
            .set(Message::fields().level, Level::Low)
            .remove(Message::fields().expires)
            .request()?;
        let _ = Message::update(Message::key(RoomId(::std::borrow::ToOwned::to_owned("r")), 1, "i"))
            .upsert()
            .set(Message::fields().tags, ::std::vec::Vec::new())
            .request();
        let _ = RoomItems::query(Room::partition(RoomId(::std::borrow::ToOwned::to_owned("r")))).limit(3).request()?;
        let _: RoomItemsKey = ::std::convert::From::from(Room::key(RoomId(::std::borrow::ToOwned::to_owned("r"))));
        let _ = MatchResult::query_leaderboard("t", "r").round().eq("s").score().between(1u64, 2u64).request()?;
        let _ = MatchResult::query_leaderboard("t", "r").round().begins_with("s").request()?;
        let _ = MatchResult::partition_leaderboard("t", "r");
        ::std::result::Result::Ok(())
    }
}

#[test]
fn every_derive_compiles_and_works_without_the_prelude() {
    without_prelude::use_everything().unwrap();
}
