//! Field arguments infer as struct literals do (issue 21, item 17): unsuffixed integer
//! literals in keys, partitions, key conditions and updates' `set`, `&str` for `String`s.

use dynamo_entity::Entity;
use dynamo_entity::prelude::*;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>"]
pub struct Message {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub likes: u32,
    pub level: Option<u8>,
}

#[test]
fn integer_literals_infer_the_field_type() {
    let key = Message::key("room-1", 1709234567000, "m-1");
    assert_eq!(key.sk(), "MESSAGE#1709234567000#m-1");
    let q = Message::query_by_room("room-1").ts().between(1, 1709234567000).request().unwrap();
    assert!(q.key_condition_expression.contains("BETWEEN"), "{q:?}");
    let q = Message::query_by_room(String::from("room-1")).ts().eq(5).id().gt("m").request().unwrap();
    assert!(q.key_condition_expression.contains(">") || q.key_condition_expression.contains("BETWEEN"), "{q:?}");
    let u = Message::update(key).set(Message::fields().likes, 2).set(Message::fields().level, 3).request().unwrap();
    let values = u.expression_attribute_values.unwrap();
    assert!(values.values().any(|v| v.as_n().is_ok_and(|n| n == "2")), "{values:?}");
    assert!(values.values().any(|v| v.as_n().is_ok_and(|n| n == "3")), "{values:?}");
}
