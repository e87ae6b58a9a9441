//! Generated code is warning-free, even under `#![deny(warnings)]` and the pedantic lints.
#![deny(warnings, missing_docs, unused_qualifications, clippy::all, clippy::pedantic)]
#![allow(clippy::missing_panics_doc)]

use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, KeyPart};

/// A key word.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
#[key(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    /// Waiting.
    Pending,
    /// Done.
    Shipped,
}

/// An order.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "<created_at>")]
#[gsi2(pk = "USER#<user_id>", sk = "ORDER#<created_at>", query = "orders_of_user")]
#[lsi1(sk = "TOTAL#<total:10>")]
#[entity(rename_all = "camelCase")]
pub struct Order {
    /// Id.
    pub id: String,
    /// Status.
    pub status: Status,
    /// Owner.
    pub user_id: Option<String>,
    /// Created.
    pub created_at: String,
    /// Total in cents.
    pub total: u32,
    /// Version.
    #[version]
    pub version: u64,
    /// Expiry.
    #[ttl]
    pub expires: Option<std::time::SystemTime>,
    /// Not stored.
    #[entity(skip)]
    pub cache: Vec<u8>,
    /// Added later.
    #[entity(default)]
    pub note: String,
    /// Paid at.
    #[entity(with = "dynamo_entity::time::epoch_seconds")]
    pub paid_at: Option<std::time::SystemTime>,
}

/// A game, on indexes keyed on its own attributes, and its inverted mapping.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GAME#<game_id>"]
#[sk = "USER#<username>"]
#[gsi1(index = "OpenGames", pk = "<map>", sk = "<open_timestamp>", pk_attr = "map", sk_attr = "openTimestamp")]
#[gsi2(index = "ByLevel", pk = "<level>", sk = "<score>", pk_attr = "level", sk_attr = "score", query = "by_level")]
#[gsi3(index = "Inverted", pk = "USER#<username>", sk = "GAME#<game_id>", pk_attr = "SK", sk_attr = "PK")]
#[entity(rename_all = "camelCase")]
pub struct Seat {
    /// Game.
    pub game_id: String,
    /// Player.
    pub username: String,
    /// Map.
    pub map: Status,
    /// Open since.
    #[entity(rename = "openTimestamp")]
    pub open_timestamp: Option<String>,
    /// Level.
    pub level: u32,
    /// Score.
    pub score: Option<i64>,
}

/// A partition-only entity.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CONFIG"]
#[entity(constant_pk)]
pub struct Config {
    /// Value.
    pub value: String,
}

#[test]
fn derives_compile_warning_free() {
    let o = Order {
        id: "o1".into(),
        status: Status::Pending,
        user_id: None,
        created_at: "2026-01-01".into(),
        total: 5,
        version: 0,
        expires: None,
        cache: vec![1],
        note: String::new(),
        paid_at: Some(std::time::UNIX_EPOCH),
    };
    let item = o.to_item().unwrap();
    assert_eq!(item["GSI1PK"], dynamo_entity::AttributeValue::S("STATUS#PENDING".into()));
    assert!(!item.contains_key("GSI2PK"), "sparse: user_id is None");
    assert_eq!(item["LSI1SK"], dynamo_entity::AttributeValue::S("TOTAL#0000000005".into()));
    let back = Order::from_item(item).unwrap();
    assert_eq!(back, Order { cache: Vec::new(), ..o });
    let _ = Order::query_gsi1_by_status(Status::Shipped).created_at().gte("2026").request().unwrap();
    let _ = Order::query_orders_of_user("u1").descending().request().unwrap();
    let _ = Order::query_lsi1_by_id("o1").total().gt(3u32).consistent_read().request().unwrap();
    let _ = Seat::query_gsi1_by_map(Status::Pending).open_timestamp().begins_with("2026").request().unwrap();
    let _ = Seat::query_by_level(3u32).score().between(-1i64, 5i64).limit(2).request().unwrap();
    let _ = Seat::query_gsi3_by_username("u1").game_id().gt("g").request().unwrap();
    let _ = Seat::update(Seat::key("g1", "u1"))
        .remove(Seat::fields().open_timestamp)
        .add(Seat::fields().level, 1)
        .request()
        .unwrap();
    let c = Config { value: "v".into() };
    assert_eq!(c.to_item().unwrap()["PK"], dynamo_entity::AttributeValue::S("CONFIG".into()));
    let _ = Config::query().request().unwrap();
}
