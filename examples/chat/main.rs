//! The seed chat design end to end: `cargo run --example chat`; `-- --export terraform` (or
//! `cloudformation-json`, `cloudformation-yaml`, `markdown`) prints the table definition instead.
//!
//! Starts DynamoDB Local (unless `AWS_ENDPOINT_URL_DYNAMODB` is set), creates the table from
//! the entities, writes the design's items, prints the single-table layout, and answers the
//! design's six access patterns, "rooms by join date" on GSI1, the chat-list flow, and users
//! unique by email.

#[path = "../common/export.rs"]
mod export;
#[path = "../common/layout.rs"]
mod layout;
mod model;
#[path = "../common/requests.rs"]
mod requests;

use dynamo_entity::prelude::*;
use std::time::{Duration, SystemTime};

use dynamo_entity::{Error, Table};
use model::*;
use requests::Requests;

const USER: &str = "user-001";

/// Epoch milliseconds as ISO 8601 UTC, the design's timestamp format.
fn iso(millis: u64) -> Result<String, Error> {
    let t = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
    dynamo_entity::key::to_key_text(&t).map_err(|e| Error::Validation(e.to_string()))
}

async fn seed(table: &Table) -> Result<(), Error> {
    let ttl = SystemTime::now() + Duration::from_secs(24 * 60 * 60);
    let at = "2026-03-01T09:00:00.000Z";
    for (user, name) in [(USER, "Aiko"), ("user-002", "Ben"), ("user-003", "Chen")] {
        let email = format!("{user}@example.com");
        table.create(&User { user_id: user.into(), display_name: name.into(), email }).await?;
    }
    for (conn, user) in [("abc-123", USER), ("def-456", USER), ("ghi-789", "user-002")] {
        table
            .put(&Connection { connection_id: conn.into(), user_id: user.into(), connected_at: at.into(), ttl })
            .await?;
        table
            .put(&UserConnection { user_id: user.into(), connection_id: conn.into(), connected_at: at.into(), ttl })
            .await?;
    }
    let rooms = [
        ("room-xyz", "ゴルフ部 週末ラウンド", "group", Some("act-xyz"), "2026-02-15T10:00:00.000Z"),
        ("room-abc", "user-001 & user-002", "direct", None, "2026-02-01T08:30:00.000Z"),
    ];
    for (id, name, kind, activity, joined) in rooms {
        let participants: Vec<String> = ["user-001", "user-002", "user-003"].iter().map(|s| (*s).to_owned()).collect();
        let participants = if kind == "direct" { participants[..2].to_vec() } else { participants };
        for p in &participants {
            table
                .create(&ChatParticipation {
                    participant_id: p.clone(),
                    chat_room_id: id.into(),
                    joined_at: joined.into(),
                })
                .await?;
        }
        table
            .create(&ChatRoom {
                chat_room_id: id.into(),
                name: name.into(),
                participant_ids: participants,
                r#type: kind.into(),
                activity_id: activity.map(str::to_owned),
                last_message_at: "2026-03-01T10:05:00.000Z".into(),
                created_at: joined.into(),
            })
            .await?;
    }
    let messages = [
        ("room-xyz", 1_709_234_567_000u64, "msg-aaa", "user-001", "おはようございます！"),
        ("room-xyz", 1_709_234_890_000, "msg-bbb", "user-002", "Tee time is 8:10."),
        ("room-xyz", 1_709_235_100_000, "msg-ccc", "user-003", "See you at the range #golf"),
        ("room-abc", 1_709_234_600_000, "msg-ddd", "user-002", "Lunch?"),
    ];
    for (room, ts, id, sender, content) in messages {
        table
            .create(&Message {
                chat_room_id: room.into(),
                timestamp: ts,
                message_id: id.into(),
                sender_id: sender.into(),
                content: content.into(),
                message_type: "user".into(),
                read_by: vec![sender.into()],
                created_at: at.into(),
            })
            .await?;
        table
            .put(&LastMessage {
                chat_room_id: room.into(),
                last_message_at: iso(ts)?,
                last_message: content.chars().take(100).collect(),
            })
            .await?;
    }
    Ok(())
}

async fn access_patterns(table: &Table, requests: &Requests) -> Result<(), Error> {
    let count = |requests: &Requests| println!("   ({} request(s))\n", requests.take());
    requests.take();
    println!("#1 Get: who owns connection abc-123?");
    let conn =
        table.get(Connection::key("abc-123")).await?.ok_or_else(|| Error::not_found(&Connection::key("abc-123")))?;
    println!("   -> {}", conn.user_id);
    count(requests);

    println!("#2 Query: active connections of {USER} (PK = USER#{USER}, begins_with(SK, \"CONNECTION#\"))");
    let conns = table.query_all(UserConnection::query_connections_of(USER)).await?;
    println!("   -> {:?}", conns.iter().map(|c| &c.connection_id).collect::<Vec<_>>());
    count(requests);

    println!("#3 Get: metadata of room-xyz");
    let room =
        table.get(ChatRoom::key("room-xyz")).await?.ok_or_else(|| Error::not_found(&ChatRoom::key("room-xyz")))?;
    println!("   -> {} ({}, participants {:?})", room.name, room.r#type, room.participant_ids);
    count(requests);

    println!("#4 Query: latest 50 messages of room-xyz, newest first");
    let page = table.query(Message::query_messages("room-xyz").descending().limit(50)).await?;
    for m in &page.items {
        println!("   -> {} {} {}: {}", m.timestamp, m.message_id, m.sender_id, m.content);
    }
    println!("   next page: {}", page.next.map_or_else(|| "none".to_owned(), |c| c.to_string()));
    count(requests);

    println!("#4' Query: messages of room-xyz after 1709234567000 (a key condition, not a filter)");
    let newer = table.query_all(Message::query_messages("room-xyz").timestamp().gt(1_709_234_567_000u64)).await?;
    println!("   -> {:?}", newer.iter().map(|m| &m.message_id).collect::<Vec<_>>());
    count(requests);

    println!("#5 Query: rooms of {USER} (PK = USER#{USER}, begins_with(SK, \"CHATROOM#\"))");
    let rooms = table.query_all(ChatParticipation::query_rooms_of(USER)).await?;
    println!("   -> {:?}", rooms.iter().map(|r| &r.chat_room_id).collect::<Vec<_>>());
    count(requests);

    println!("#6 Get: last message of room-xyz");
    let last = table
        .get(LastMessage::key("room-xyz"))
        .await?
        .ok_or_else(|| Error::not_found(&LastMessage::key("room-xyz")))?;
    println!("   -> {} at {}", last.last_message, last.last_message_at);
    count(requests);

    println!("#7 Create: user-004 with {USER}'s email (unique: refused, nothing written)");
    let taken = User { user_id: "user-004".into(), display_name: "Dee".into(), email: format!("{USER}@example.com") };
    match table.create(&taken).await {
        Err(e @ Error::UniqueViolation { .. }) => println!("   -> {e}"),
        other => return Err(Error::Validation(format!("expected a unique violation, got {other:?}"))),
    }
    count(requests);

    println!("#7' Update: user-002 changes email; the old address is free again");
    let ben = table
        .update(User::update(User::key("user-002")).set(User::fields().email, "ben@example.com".to_owned()))
        .await?;
    println!("   -> {} <{}>", ben.display_name, ben.email);
    let dee = User { email: "user-002@example.com".into(), ..taken };
    table.create(&dee).await?;
    println!("   -> {} <{}> created", dee.display_name, dee.email);
    count(requests);

    println!("GSI1: rooms of {USER} by join date, newest first");
    let by_date = table.query_all(ChatParticipation::query_rooms_by_join_date(USER).descending()).await?;
    for r in &by_date {
        println!("   -> {} joined {}", r.chat_room_id, r.joined_at);
    }
    count(requests);

    println!("Room page of room-xyz: metadata and the latest 20 messages in one Query (an item collection)");
    // Descending, the partition reads METADATA, then MESSAGE#... newest first, then LASTMESSAGE.
    let page = table.query(RoomItems::query(ChatRoom::partition("room-xyz")).descending().limit(21)).await?;
    for item in &page.items {
        match item {
            RoomItems::Room(r) => println!("   -> room {} ({})", r.name, r.r#type),
            RoomItems::Message(m) => println!("   -> {} {}: {}", m.timestamp, m.sender_id, m.content),
            RoomItems::Last(l) => println!("   -> last message: {}", l.last_message),
        }
    }
    count(requests);

    println!(
        "Chat list of {USER}: one Query for the rooms, one BatchGetItem for every room's METADATA and LASTMESSAGE"
    );
    let rooms = table.query_all(ChatParticipation::query_rooms_of(USER)).await?;
    let keys = rooms
        .iter()
        .flat_map(|p| [RoomItemsKey::from(ChatRoom::key(&p.chat_room_id)), LastMessage::key(&p.chat_room_id).into()]);
    let items = table.batch_get(keys).await?;
    for p in &rooms {
        let room = items.iter().find_map(|i| match i {
            RoomItems::Room(r) if r.chat_room_id == p.chat_room_id => Some(r),
            _ => None,
        });
        let last = items.iter().find_map(|i| match i {
            RoomItems::Last(l) if l.chat_room_id == p.chat_room_id => Some(l.last_message.as_str()),
            _ => None,
        });
        let room = room.ok_or_else(|| Error::not_found(&ChatRoom::key(&p.chat_room_id)))?;
        println!("   -> {:<24} [{}] {}", room.name, room.r#type, last.unwrap_or("(no messages)"));
    }
    count(requests);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(text) = export::requested(&definition()?, TABLE_NAME) {
        print!("{}", text?);
        return Ok(());
    }
    let client = dynamo_entity::local::client().await?;
    let name = format!("Connect40-Table-{}", std::process::id());
    let (client, requests) = requests::counted(&client);
    let table = Table::new(client, name);
    table.create_table_from(&definition()?).await?;
    seed(&table).await?;
    layout::print(&table, &definition()?, "chat").await?;
    access_patterns(&table, &requests).await?;
    Ok(())
}
