//! The seed chat design end to end: `cargo run --example chat`.
//!
//! Starts DynamoDB Local (unless `AWS_ENDPOINT_URL_DYNAMODB` is set), creates the table from
//! the entities, writes the design's items, prints the single-table layout, and answers the
//! design's six access patterns, "rooms by join date" on GSI1, and the chat-list flow.

#[path = "../common/layout.rs"]
mod layout;
mod model;

use std::time::{Duration, SystemTime};

use dynamo_entity::{Error, Table};
use model::*;

const USER: &str = "user-001";

/// Epoch milliseconds as ISO 8601 UTC, the design's timestamp format.
fn iso(millis: u64) -> Result<String, Error> {
    let t = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
    dynamo_entity::key::to_key_text(&t).map_err(|e| Error::Validation(e.to_string()))
}

async fn seed(table: &Table) -> Result<(), Error> {
    let ttl = SystemTime::now() + Duration::from_secs(24 * 60 * 60);
    let at = "2026-03-01T09:00:00.000Z";
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

async fn access_patterns(table: &Table) -> Result<(), Error> {
    println!("#1 Get: who owns connection abc-123?");
    let conn = table.get(Connection::key("abc-123")).await?.ok_or(Error::NotFound)?;
    println!("   -> {}\n", conn.user_id);

    println!("#2 Query: active connections of {USER} (PK = USER#{USER}, begins_with(SK, \"CONNECTION#\"))");
    let conns = table.query_all(UserConnection::query_connections_of(USER)).await?;
    println!("   -> {:?}\n", conns.iter().map(|c| &c.connection_id).collect::<Vec<_>>());

    println!("#3 Get: metadata of room-xyz");
    let room = table.get(ChatRoom::key("room-xyz")).await?.ok_or(Error::NotFound)?;
    println!("   -> {} ({}, participants {:?})\n", room.name, room.r#type, room.participant_ids);

    println!("#4 Query: latest 50 messages of room-xyz, newest first");
    let page = table.query(Message::query_messages("room-xyz").descending().limit(50)).await?;
    for m in &page.items {
        println!("   -> {} {} {}: {}", m.timestamp, m.message_id, m.sender_id, m.content);
    }
    println!("   next page: {}\n", page.next.map_or_else(|| "none".to_owned(), |c| c.to_string()));

    println!("#4' Query: messages of room-xyz after 1709234567000 (a key condition, not a filter)");
    let newer = table.query_all(Message::query_messages("room-xyz").timestamp_gt(1_709_234_567_000u64)).await?;
    println!("   -> {:?}\n", newer.iter().map(|m| &m.message_id).collect::<Vec<_>>());

    println!("#5 Query: rooms of {USER} (PK = USER#{USER}, begins_with(SK, \"CHATROOM#\"))");
    let rooms = table.query_all(ChatParticipation::query_rooms_of(USER)).await?;
    println!("   -> {:?}\n", rooms.iter().map(|r| &r.chat_room_id).collect::<Vec<_>>());

    println!("#6 Get: last message of room-xyz");
    let last = table.get(LastMessage::key("room-xyz")).await?.ok_or(Error::NotFound)?;
    println!("   -> {} at {}\n", last.last_message, last.last_message_at);

    println!("GSI1: rooms of {USER} by join date, newest first");
    let by_date = table.query_all(ChatParticipation::query_rooms_by_join_date(USER).descending()).await?;
    for r in &by_date {
        println!("   -> {} joined {}", r.chat_room_id, r.joined_at);
    }
    println!();

    println!("Chat list of {USER}: rooms, then each room's metadata and last message");
    for p in &rooms {
        let (room, last) =
            tokio::try_join!(table.get(ChatRoom::key(&p.chat_room_id)), table.get(LastMessage::key(&p.chat_room_id)))?;
        let room = room.ok_or(Error::NotFound)?;
        let last = last.map_or_else(|| "(no messages)".to_owned(), |l| l.last_message);
        println!("   -> {:<24} [{}] {}", room.name, room.r#type, last);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = dynamo_entity::local::client().await?;
    let name = format!("Connect40-Table-{}", std::process::id());
    let table = Table::new(client, name);
    table.create_table(&schemas()).await?;
    seed(&table).await?;
    layout::print(&table).await?;
    access_patterns(&table).await?;
    Ok(())
}
