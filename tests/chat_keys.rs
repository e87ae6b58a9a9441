//! The seed chat design (`shared/seeds/chat-single-table-design.md`): the derive must produce
//! byte-identical keys and the attribute layout of the design's table.

#[path = "../examples/chat/model.rs"]
mod model;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, EntityKey, Item};
use model::*;
use std::time::{Duration, UNIX_EPOCH};

fn s(item: &Item, attr: &str) -> String {
    match item.get(attr) {
        Some(AttributeValue::S(v)) => v.clone(),
        other => panic!("{attr}: expected S, found {other:?}"),
    }
}

fn n(item: &Item, attr: &str) -> String {
    match item.get(attr) {
        Some(AttributeValue::N(v)) => v.clone(),
        other => panic!("{attr}: expected N, found {other:?}"),
    }
}

fn keys(mut names: Vec<&str>) -> Vec<String> {
    names.sort_unstable();
    names.into_iter().map(str::to_owned).collect()
}

fn attr_names(item: &Item) -> Vec<String> {
    let mut v: Vec<String> = item.keys().cloned().collect();
    v.sort_unstable();
    v
}

#[test]
fn connection_layout() {
    let ttl = UNIX_EPOCH + Duration::from_secs(1_709_320_967);
    let c = Connection {
        connection_id: "abc-123".into(),
        user_id: "user-001".into(),
        connected_at: "2024-02-29T19:22:47.000Z".into(),
        ttl,
    };
    let item = c.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "CONNECTION#abc-123");
    assert_eq!(s(&item, "SK"), "METADATA");
    assert_eq!(s(&item, "Type"), "Connection");
    assert_eq!(s(&item, "connectionId"), "abc-123");
    assert_eq!(s(&item, "userId"), "user-001");
    assert_eq!(n(&item, "ttl"), "1709320967");
    assert_eq!(attr_names(&item), keys(vec!["PK", "SK", "Type", "connectionId", "userId", "connectedAt", "ttl"]));
    assert_eq!(Connection::from_item(item).unwrap(), c);

    let key = Connection::key("abc-123");
    assert_eq!(key.pk(), "CONNECTION#abc-123");
    assert_eq!(key.sk(), "METADATA");
    assert_eq!(ConnectionKey::parse("CONNECTION#abc-123", "METADATA").unwrap(), key);
}

#[test]
fn user_connection_layout() {
    let uc = UserConnection {
        user_id: "user-001".into(),
        connection_id: "def-456".into(),
        connected_at: "2024-02-29T19:22:47.000Z".into(),
        ttl: UNIX_EPOCH + Duration::from_secs(1_709_320_967),
    };
    let item = uc.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "USER#user-001");
    assert_eq!(s(&item, "SK"), "CONNECTION#def-456");
    assert_eq!(s(&item, "Type"), "UserConnection");
    assert_eq!(n(&item, "ttl"), "1709320967");
    assert_eq!(UserConnection::from_item(item).unwrap(), uc);
}

#[test]
fn chat_participation_layout_and_gsi1() {
    let p = ChatParticipation {
        participant_id: "user-001".into(),
        chat_room_id: "room-xyz".into(),
        joined_at: "2026-02-15T09:30:00.000Z".into(),
    };
    let item = p.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "USER#user-001");
    assert_eq!(s(&item, "SK"), "CHATROOM#room-xyz");
    assert_eq!(s(&item, "GSI1PK"), "USERROOMS#user-001");
    assert_eq!(s(&item, "GSI1SK"), "2026-02-15T09:30:00.000Z");
    assert_eq!(s(&item, "Type"), "ChatParticipation");
    assert_eq!(s(&item, "chatRoomId"), "room-xyz");
    assert_eq!(s(&item, "participantId"), "user-001");
    assert_eq!(s(&item, "joinedAt"), "2026-02-15T09:30:00.000Z");
    assert_eq!(
        attr_names(&item),
        keys(vec!["PK", "SK", "GSI1PK", "GSI1SK", "Type", "chatRoomId", "participantId", "joinedAt"])
    );
    assert_eq!(ChatParticipation::from_item(item).unwrap(), p);

    let req = ChatParticipation::query_rooms_by_join_date("user-001").descending().request().unwrap();
    assert_eq!(req.index_name, Some("GSI1"));
    assert_eq!(req.key_condition_expression, "#pk = :pk");
    assert_eq!(req.expression_attribute_names["#pk"], "GSI1PK");
    assert_eq!(req.expression_attribute_values[":pk"], AttributeValue::S("USERROOMS#user-001".into()));
    assert!(!req.scan_index_forward);
    assert!(!req.consistent_read);

    // Pattern 5: the rooms of a user, on the table.
    let req = ChatParticipation::query_rooms_of("user-001").request().unwrap();
    assert_eq!(req.index_name, None);
    assert_eq!(req.key_condition_expression, "#pk = :pk AND begins_with(#sk, :sk)");
    assert_eq!(req.expression_attribute_values[":pk"], AttributeValue::S("USER#user-001".into()));
    assert_eq!(req.expression_attribute_values[":sk"], AttributeValue::S("CHATROOM#".into()));
}

#[test]
fn chat_room_layout() {
    let room = ChatRoom {
        chat_room_id: "room-xyz".into(),
        name: "ゴルフ部 週末ラウンド".into(),
        participant_ids: vec!["user-001".into(), "user-002".into(), "user-003".into()],
        r#type: "group".into(),
        activity_id: None,
        last_message_at: "2026-03-01T10:00:00.000Z".into(),
        created_at: "2026-03-01T09:00:00.000Z".into(),
    };
    let item = room.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "CHATROOM#room-xyz");
    assert_eq!(s(&item, "SK"), "METADATA");
    assert_eq!(s(&item, "Type"), "ChatRoom");
    assert_eq!(s(&item, "type"), "group");
    assert_eq!(s(&item, "name"), "ゴルフ部 週末ラウンド");
    assert!(!item.contains_key("activityId"), "None is omitted, never NULL");
    match &item["participantIds"] {
        AttributeValue::L(l) => assert_eq!(l.len(), 3),
        other => panic!("participantIds: {other:?}"),
    }
    assert_eq!(ChatRoom::from_item(item).unwrap(), room);
    let with_activity = ChatRoom { activity_id: Some("act-xyz".into()), ..room };
    let item = with_activity.to_item().unwrap();
    assert_eq!(s(&item, "activityId"), "act-xyz");
    assert_eq!(ChatRoom::from_item(item).unwrap(), with_activity);
}

#[test]
fn message_layout() {
    let m = Message {
        chat_room_id: "room-xyz".into(),
        timestamp: 1_709_234_567_000,
        message_id: "msg-aaa".into(),
        sender_id: "user-001".into(),
        content: "おはようございます！".into(),
        message_type: "user".into(),
        read_by: vec!["user-001".into()],
        created_at: "2024-02-29T19:22:47.000Z".into(),
    };
    let item = m.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "CHATROOM#room-xyz");
    assert_eq!(s(&item, "SK"), "MESSAGE#1709234567000#msg-aaa");
    assert_eq!(s(&item, "Type"), "Message");
    assert_eq!(n(&item, "timestamp"), "1709234567000");
    assert_eq!(s(&item, "messageId"), "msg-aaa");
    assert_eq!(s(&item, "chatRoomId"), "room-xyz");
    assert_eq!(
        attr_names(&item),
        keys(vec![
            "PK",
            "SK",
            "Type",
            "chatRoomId",
            "timestamp",
            "messageId",
            "senderId",
            "content",
            "messageType",
            "readBy",
            "createdAt"
        ])
    );
    assert_eq!(Message::from_item(item).unwrap(), m);

    let key = Message::key("room-xyz", 1_709_234_567_000u64, "msg-aaa");
    assert_eq!(key.pk(), "CHATROOM#room-xyz");
    assert_eq!(key.sk(), "MESSAGE#1709234567000#msg-aaa");
    assert_eq!(MessageKey::parse("CHATROOM#room-xyz", "MESSAGE#1709234567000#msg-aaa").unwrap(), key);
    assert_eq!(m.primary_key(), key);
    assert_eq!(<MessageKey as EntityKey>::try_sk(&key).unwrap().as_deref(), Some("MESSAGE#1709234567000#msg-aaa"));

    // Pattern 4: the latest 50 messages.
    let req = Message::query_messages("room-xyz").descending().limit(50).request().unwrap();
    assert_eq!(req.key_condition_expression, "#pk = :pk AND begins_with(#sk, :sk)");
    assert_eq!(req.expression_attribute_values[":sk"], AttributeValue::S("MESSAGE#".into()));
    assert_eq!(req.limit, Some(50));
    assert!(!req.scan_index_forward);
}

#[test]
fn last_message_layout_and_items_written_by_the_seed_app() {
    let lm = LastMessage {
        chat_room_id: "room-xyz".into(),
        last_message_at: "2026-03-01T10:00:00.000Z".into(),
        last_message: "see you".into(),
    };
    let item = lm.to_item().unwrap();
    assert_eq!(s(&item, "PK"), "CHATROOM#room-xyz");
    assert_eq!(s(&item, "SK"), "LASTMESSAGE");
    assert_eq!(LastMessage::from_item(item).unwrap(), lm);

    // The design's own LASTMESSAGE item has neither a Type nor a chatRoomId attribute: the
    // key field is read back from PK.
    let mut seed = Item::new();
    seed.insert("PK".into(), AttributeValue::S("CHATROOM#room-xyz".into()));
    seed.insert("SK".into(), AttributeValue::S("LASTMESSAGE".into()));
    seed.insert("lastMessageAt".into(), AttributeValue::S("2026-03-01T10:00:00.000Z".into()));
    seed.insert("lastMessage".into(), AttributeValue::S("see you".into()));
    assert_eq!(LastMessage::from_item(seed).unwrap(), lm);
}

#[test]
fn the_design_table_definition_comes_from_the_entities() {
    let def = dynamo_entity::TableDefinition::from_entities(&schemas()).unwrap();
    assert_eq!(def.pk_attr, "PK");
    assert_eq!(def.sk_attr.as_deref(), Some("SK"));
    assert_eq!(def.ttl_attr.as_deref(), Some("ttl"));
    assert_eq!(def.indexes.len(), 1);
    assert_eq!(def.indexes[0].name, "GSI1");
    assert_eq!(def.indexes[0].pk_attr, "GSI1PK");
    assert_eq!(def.indexes[0].sk_attr.as_deref(), Some("GSI1SK"));
    assert_eq!(def.key_attributes(), vec!["GSI1PK", "GSI1SK", "PK", "SK"]);
}

/// Conflicting definitions in one table are refused, each with its reason.
#[test]
fn conflicting_entities_are_refused() {
    #[derive(Entity)]
    #[pk = "X#<id>"]
    #[sk = "S"]
    #[gsi1(pk = "Y#<id>", pk_attr = "OtherPK")]
    struct OtherGsi1 {
        id: String,
    }
    #[derive(Entity)]
    #[pk = "X#<id>"]
    #[sk = "S"]
    struct OtherTtl {
        id: String,
        #[ttl]
        expires_at: std::time::SystemTime,
    }
    #[derive(Entity)]
    #[pk = "Z#<id>"]
    struct NoSortKey {
        id: String,
    }
    let conflict = |e: dynamo_entity::EntitySchema| {
        let mut v = schemas().to_vec();
        v.push(e);
        dynamo_entity::TableDefinition::from_entities(&v).unwrap_err().to_string()
    };
    assert!(conflict(NoSortKey::SCHEMA).contains("one key schema"));
    assert!(conflict(OtherGsi1::SCHEMA).contains("index GSI1"));
    assert!(conflict(OtherTtl::SCHEMA).contains("one per table"));
}
