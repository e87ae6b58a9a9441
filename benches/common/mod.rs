//! Shared by the benchmarks: the chat `Message` entity, its hand-written codec (the baseline
//! the generated code is compared with), a serde whole-struct mirror, and sample data.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write as _;

use dynamo_entity::{AttributeValue, Item};
use serde::{Deserialize, Serialize};

#[path = "../../examples/chat/model.rs"]
#[allow(dead_code)]
pub mod model;

#[allow(unused_imports)]
pub use model::{Message, MessageKey};

/// A realistic chat message: ids as the seed design writes them, 100 bytes of text, 3 readers.
pub fn sample(room: &str, timestamp: u64, id: &str) -> Message {
    Message {
        chat_room_id: room.to_owned(),
        timestamp,
        message_id: id.to_owned(),
        sender_id: "user-5f2b9c41".to_owned(),
        content: "Hey, are we still on for the design review at 3? I pushed the new key layout to the branch."
            .to_owned(),
        message_type: "text".to_owned(),
        read_by: vec!["user-5f2b9c41".to_owned(), "user-0a7d3e88".to_owned(), "user-c19f2d07".to_owned()],
        created_at: "2024-02-29T19:22:47.000Z".to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-written: what a careful developer writes without a library. Keys are built with
// `push_str` (no escaping: the ids are trusted), the item attribute by attribute.
// ---------------------------------------------------------------------------------------------

/// `CHATROOM#<chat_room_id>`.
#[inline]
pub fn hand_pk(chat_room_id: &str) -> String {
    let mut pk = String::with_capacity(9 + chat_room_id.len());
    pk.push_str("CHATROOM#");
    pk.push_str(chat_room_id);
    pk
}

/// `MESSAGE#<timestamp:13>#<message_id>`.
#[inline]
pub fn hand_sk(timestamp: u64, message_id: &str) -> String {
    let mut sk = String::with_capacity(8 + 13 + 1 + message_id.len());
    sk.push_str("MESSAGE#");
    // Writing into a String cannot fail.
    let _ = write!(sk, "{timestamp:013}");
    sk.push('#');
    sk.push_str(message_id);
    sk
}

/// Parses the keys back: `(chat_room_id, timestamp, message_id)`.
pub fn hand_parse(pk: &str, sk: &str) -> Result<(String, u64, String), String> {
    let room = pk.strip_prefix("CHATROOM#").ok_or("bad PK")?;
    let rest = sk.strip_prefix("MESSAGE#").ok_or("bad SK")?;
    let (ts, id) = rest.split_once('#').ok_or("bad SK")?;
    if ts.len() != 13 || !ts.bytes().all(|b| b.is_ascii_digit()) {
        return Err("bad timestamp".into());
    }
    let ts: u64 = ts.parse().map_err(|_| "bad timestamp")?;
    Ok((room.to_owned(), ts, id.to_owned()))
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// The item, built directly.
pub fn hand_to_item(m: &Message) -> Item {
    let mut item = HashMap::with_capacity(11);
    item.insert("PK".to_owned(), AttributeValue::S(hand_pk(&m.chat_room_id)));
    item.insert("SK".to_owned(), AttributeValue::S(hand_sk(m.timestamp, &m.message_id)));
    item.insert("Type".to_owned(), s("Message"));
    item.insert("chatRoomId".to_owned(), s(&m.chat_room_id));
    item.insert("timestamp".to_owned(), AttributeValue::N(m.timestamp.to_string()));
    item.insert("messageId".to_owned(), s(&m.message_id));
    item.insert("senderId".to_owned(), s(&m.sender_id));
    item.insert("content".to_owned(), s(&m.content));
    item.insert("messageType".to_owned(), s(&m.message_type));
    item.insert("readBy".to_owned(), AttributeValue::L(m.read_by.iter().map(|r| s(r)).collect()));
    item.insert("createdAt".to_owned(), s(&m.created_at));
    item
}

fn take_s(item: &mut Item, attr: &str) -> Result<String, String> {
    match item.remove(attr) {
        Some(AttributeValue::S(v)) => Ok(v),
        _ => Err(format!("{attr}: expected a string")),
    }
}

/// Reads the item back field by field, checking the type attribute.
pub fn hand_from_item(mut item: Item) -> Result<Message, String> {
    match item.get("Type") {
        Some(AttributeValue::S(t)) if t == "Message" => {}
        _ => return Err("not a Message".into()),
    }
    let timestamp = match item.remove("timestamp") {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| "timestamp: not a u64".to_owned())?,
        _ => return Err("timestamp: expected a number".into()),
    };
    let read_by = match item.remove("readBy") {
        Some(AttributeValue::L(list)) => list
            .into_iter()
            .map(|v| match v {
                AttributeValue::S(s) => Ok(s),
                _ => Err("readBy: expected strings".to_owned()),
            })
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err("readBy: expected a list".into()),
    };
    Ok(Message {
        chat_room_id: take_s(&mut item, "chatRoomId")?,
        timestamp,
        message_id: take_s(&mut item, "messageId")?,
        sender_id: take_s(&mut item, "senderId")?,
        content: take_s(&mut item, "content")?,
        message_type: take_s(&mut item, "messageType")?,
        read_by,
        created_at: take_s(&mut item, "createdAt")?,
    })
}

// ---------------------------------------------------------------------------------------------
// serde whole-struct: the struct goes through serde_dynamo, then PK/SK/Type are inserted (how
// most Rust code and modyne do it).
// ---------------------------------------------------------------------------------------------

/// The same fields as [`Message`], deriving serde instead.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SerdeMessage {
    pub chat_room_id: String,
    pub timestamp: u64,
    pub message_id: String,
    pub sender_id: String,
    pub content: String,
    pub message_type: String,
    pub read_by: Vec<String>,
    pub created_at: String,
}

impl From<&Message> for SerdeMessage {
    fn from(m: &Message) -> Self {
        SerdeMessage {
            chat_room_id: m.chat_room_id.clone(),
            timestamp: m.timestamp,
            message_id: m.message_id.clone(),
            sender_id: m.sender_id.clone(),
            content: m.content.clone(),
            message_type: m.message_type.clone(),
            read_by: m.read_by.clone(),
            created_at: m.created_at.clone(),
        }
    }
}

/// `serde_dynamo::to_item` of the struct, plus the keys and the type attribute.
pub fn serde_to_item(m: &SerdeMessage) -> Result<Item, serde_dynamo::Error> {
    let mut item: Item = serde_dynamo::to_item(m)?;
    item.insert("PK".to_owned(), AttributeValue::S(hand_pk(&m.chat_room_id)));
    item.insert("SK".to_owned(), AttributeValue::S(hand_sk(m.timestamp, &m.message_id)));
    item.insert("Type".to_owned(), s("Message"));
    Ok(item)
}

/// Checks the type attribute, then `serde_dynamo::from_item` of the whole item (the key and
/// type attributes are ignored as unknown fields).
pub fn serde_from_item(item: Item) -> Result<SerdeMessage, String> {
    match item.get("Type") {
        Some(AttributeValue::S(t)) if t == "Message" => {}
        _ => return Err("not a Message".into()),
    }
    serde_dynamo::from_item(item).map_err(|e| e.to_string())
}
