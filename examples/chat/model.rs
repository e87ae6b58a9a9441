//! The entities of the seed chat design (`shared/seeds/chat-single-table-design.md`), one table
//! `Connect40-Table`, keys exactly as the design writes them.

use std::time::SystemTime;

use dynamo_entity::{Collection, Entity};

/// ① A WebSocket connection: who owns it. Expires after 24 h if `$disconnect` never comes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CONNECTION#<connection_id>"]
#[sk = "METADATA"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Connection {
    pub connection_id: String,
    pub user_id: String,
    pub connected_at: String,
    #[ttl]
    pub ttl: SystemTime,
}

/// ② The reverse record: a user's active connections.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "CONNECTION#<connection_id>"]
#[entity(rename_all = "camelCase", type_attr = "Type", query = "connections_of")]
pub struct UserConnection {
    pub user_id: String,
    pub connection_id: String,
    pub connected_at: String,
    #[ttl]
    pub ttl: SystemTime,
}

/// ③ A user's membership of a room; GSI1 lists a user's rooms by join date.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<participant_id>"]
#[sk = "CHATROOM#<chat_room_id>"]
#[gsi1(pk = "USERROOMS#<participant_id>", sk = "<joined_at>", query = "rooms_by_join_date")]
#[entity(rename_all = "camelCase", type_attr = "Type", query = "rooms_of")]
pub struct ChatParticipation {
    pub participant_id: String,
    pub chat_room_id: String,
    pub joined_at: String,
}

/// ④ A room: its name, participants and kind (`direct` or `group`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<chat_room_id>"]
#[sk = "METADATA"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct ChatRoom {
    pub chat_room_id: String,
    pub name: String,
    pub participant_ids: Vec<String>,
    pub r#type: String,
    pub activity_id: Option<String>,
    pub last_message_at: String,
    pub created_at: String,
}

/// ⑤ A message, under its room, ordered by time (epoch milliseconds, 13 digits).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<chat_room_id>"]
#[sk = "MESSAGE#<timestamp:13>#<message_id>"]
#[entity(rename_all = "camelCase", type_attr = "Type", query = "messages")]
pub struct Message {
    pub chat_room_id: String,
    pub timestamp: u64,
    pub message_id: String,
    pub sender_id: String,
    pub content: String,
    pub message_type: String,
    pub read_by: Vec<String>,
    pub created_at: String,
}

/// ⑥ The latest message of a room, for the chat list.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<chat_room_id>"]
#[sk = "LASTMESSAGE"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct LastMessage {
    pub chat_room_id: String,
    pub last_message_at: String,
    pub last_message: String,
}

/// A user's profile, in the user's partition beside their connections and rooms. No two users
/// share an email: each address owns a guard item, written and removed in the same transaction
/// as the profile (`#[unique]`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct User {
    pub user_id: String,
    pub display_name: String,
    #[unique]
    pub email: String,
}

/// The items of a room's partition (`CHATROOM#<id>`): its metadata, its messages and its
/// last-message summary, read together by one Query or one BatchGetItem.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RoomItems {
    Room(ChatRoom),
    Message(Message),
    Last(LastMessage),
}

/// Every entity of the table, to create it.
pub fn schemas() -> [dynamo_entity::EntitySchema; 7] {
    [
        User::SCHEMA,
        Connection::SCHEMA,
        UserConnection::SCHEMA,
        ChatParticipation::SCHEMA,
        ChatRoom::SCHEMA,
        Message::SCHEMA,
        LastMessage::SCHEMA,
    ]
}

/// The table's name in the design (the CDK stack appends the environment).
#[allow(dead_code)] // not every file that includes this module exports the table
pub const TABLE_NAME: &str = "Connect40-Table";

/// The table as the design's CDK stack defines it: on demand, TTL on `ttl`, GSI1 projecting all
/// attributes; no stream.
#[allow(dead_code)]
pub fn definition() -> Result<dynamo_entity::TableDefinition, dynamo_entity::Error> {
    dynamo_entity::TableDefinition::from_entities(&schemas())
}
