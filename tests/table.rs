//! `Table` against the official DynamoDB Local: every operation, every sort-key condition on
//! real items, exact pagination, cursors, validation before sending, typed decode errors.

mod common;

use dynamo_entity::prelude::*;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::{AttributeValue, Cursor, Entity, Error, Item, Table};
use futures_util::StreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Message {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub content: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "LASTMESSAGE"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct LastMessage {
    pub room_id: String,
    pub text: String,
}

/// Reserved words as field names; a sparse GSI; a TTL.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DEVICE#<name>"]
#[sk = "STATE"]
#[gsi1(pk = "STATUS#<status>", sk = "<name>", query = "by_status")]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Device {
    pub name: String,
    pub status: Option<String>,
    pub r#type: String,
    pub size: u32,
    #[ttl]
    pub ttl: Option<SystemTime>,
}

/// A partition key that is the value itself: an empty value is an empty key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<name>"]
pub struct Tag {
    pub name: String,
}

fn msg(room: &str, ts: u64, id: &str) -> Message {
    Message { room_id: room.into(), ts, id: id.into(), content: format!("{ts}/{id}") }
}

fn ids(v: &[Message]) -> Vec<(u64, String)> {
    v.iter().map(|m| (m.ts, m.id.clone())).collect()
}

async fn chat_table(test: &str) -> Table {
    common::table(test, &[Message::SCHEMA, LastMessage::SCHEMA]).await
}

#[tokio::test]
async fn put_get_delete_create() {
    let table = chat_table("crud").await;
    let m = msg("r1", 1_709_234_567_000, "msg-1");
    table.put(&m).await.unwrap();
    assert_eq!(table.get(Message::key("r1", 1_709_234_567_000u64, "msg-1")).await.unwrap(), Some(m.clone()));
    assert_eq!(table.get_consistent(m.primary_key()).await.unwrap(), Some(m.clone()));
    assert_eq!(table.get(Message::key("r1", 1u64, "msg-1")).await.unwrap(), None);

    // The error names the entity and the key.
    match table.create(&m).await {
        Err(e @ Error::AlreadyExists { .. }) => {
            let Error::AlreadyExists { entity, pk, sk } = &e else { unreachable!() };
            assert_eq!(
                (*entity, pk.as_str(), sk.as_deref()),
                ("Message", "CHATROOM#r1", Some("MESSAGE#1709234567000#msg-1"))
            );
            assert_eq!(
                e.to_string(),
                "Message item (PK `CHATROOM#r1`, SK `MESSAGE#1709234567000#msg-1`) already exists"
            );
        }
        other => panic!("{other:?}"),
    }
    let changed = Message { content: "changed".into(), ..m.clone() };
    table.put(&changed).await.unwrap();
    assert_eq!(table.get(m.primary_key()).await.unwrap().unwrap().content, "changed");

    table.delete(m.primary_key()).await.unwrap();
    assert_eq!(table.get(m.primary_key()).await.unwrap(), None);
    table.create(&m).await.unwrap();
    assert_eq!(table.get(m.primary_key()).await.unwrap(), Some(m));
}

#[tokio::test]
async fn reserved_words_sparse_index_and_ttl() {
    let table = common::table("device", &[Device::SCHEMA]).await;
    let expires = UNIX_EPOCH + Duration::from_secs(1_900_000_000);
    let online =
        Device { name: "a".into(), status: Some("ON".into()), r#type: "t".into(), size: 1, ttl: Some(expires) };
    let unknown = Device { name: "b".into(), status: None, r#type: "t".into(), size: 2, ttl: None };
    table.put(&online).await.unwrap();
    table.put(&unknown).await.unwrap();
    assert_eq!(table.get(online.primary_key()).await.unwrap(), Some(online.clone()));
    assert_eq!(table.get(unknown.primary_key()).await.unwrap(), Some(unknown.clone()));

    // The sparse index holds only the device with a status; no NULL or empty key was sent.
    let scan = table.client().scan().table_name(table.name()).index_name("GSI1").send().await.unwrap();
    assert_eq!(scan.count, 1);
    assert_eq!(table.query_all(Device::query_by_status("ON")).await.unwrap(), vec![online.clone()]);

    // TTL: a Number of epoch seconds, and enabled on the table.
    let raw = table.client().get_item().table_name(table.name()).set_key(Some(key_item(&online))).send().await.unwrap();
    assert_eq!(raw.item.unwrap()["ttl"], AttributeValue::N("1900000000".into()));
    let ttl = table.client().describe_time_to_live().table_name(table.name()).send().await.unwrap();
    let spec = ttl.time_to_live_description.unwrap();
    assert_eq!(spec.attribute_name.as_deref(), Some("ttl"));
    assert_eq!(spec.time_to_live_status.map(|s| s.as_str().to_owned()).as_deref(), Some("ENABLED"));
}

fn key_item<E: Entity>(e: &E) -> Item {
    use dynamo_entity::EntityKey;
    e.primary_key().to_key_item().unwrap()
}

/// Messages at a few timestamps, several ids each, plus a LASTMESSAGE item in the partition.
async fn seeded() -> (Table, Vec<Message>) {
    let table = chat_table("conditions").await;
    let mut all = Vec::new();
    for ts in [10u64, 20, 30] {
        for id in ["a", "b#1", "c d", "%"] {
            let m = msg("room", ts, id);
            table.put(&m).await.unwrap();
            all.push(m);
        }
    }
    table.put(&LastMessage { room_id: "room".into(), text: "hi".into() }).await.unwrap();
    table.put(&msg("room#2", 20, "other")).await.unwrap();
    all.sort_by(|a, b| (a.ts, &a.id).cmp(&(b.ts, &b.id)));
    (table, all)
}

#[tokio::test]
async fn every_sort_key_condition_on_real_items() {
    let (table, all) = seeded().await;
    let q = || Message::query_by_room("room");
    let expect = |f: &dyn Fn(&Message) -> bool| ids(&all.iter().filter(|m| f(m)).cloned().collect::<Vec<_>>());

    assert_eq!(ids(&table.query_all(q()).await.unwrap()), expect(&|_| true), "no condition: only messages");
    assert_eq!(ids(&table.query_all(q().ts().eq(20u64)).await.unwrap()), expect(&|m| m.ts == 20));
    assert_eq!(ids(&table.query_all(q().ts().lt(20u64)).await.unwrap()), expect(&|m| m.ts < 20));
    assert_eq!(ids(&table.query_all(q().ts().lte(20u64)).await.unwrap()), expect(&|m| m.ts <= 20), "every id at 20");
    assert_eq!(ids(&table.query_all(q().ts().gt(20u64)).await.unwrap()), expect(&|m| m.ts > 20), "no id at 20");
    assert_eq!(ids(&table.query_all(q().ts().gte(20u64)).await.unwrap()), expect(&|m| m.ts >= 20));
    assert_eq!(ids(&table.query_all(q().ts().between(10u64, 20u64)).await.unwrap()), expect(&|m| m.ts <= 20));
    assert_eq!(ids(&table.query_all(q().ts().between(11u64, 19u64)).await.unwrap()), expect(&|_| false));
    assert_eq!(ids(&table.query_all(q().ts().between(20u64, 10u64)).await.unwrap()), expect(&|_| false));
    assert_eq!(
        ids(&table.query_all(q().ts().eq(20u64).id().eq("b#1")).await.unwrap()),
        expect(&|m| m.ts == 20 && m.id == "b#1")
    );
    assert_eq!(
        ids(&table.query_all(q().ts().eq(20u64).id().gt("b#1")).await.unwrap()),
        expect(&|m| m.ts == 20 && m.id.as_str() > "b#1")
    );
    assert_eq!(
        ids(&table.query_all(q().ts().eq(20u64).id().lt("b")).await.unwrap()),
        expect(&|m| m.ts == 20 && m.id.as_str() < "b")
    );
    assert_eq!(
        ids(&table.query_all(q().ts().eq(20u64).id().lte("c d")).await.unwrap()),
        expect(&|m| m.ts == 20 && m.id.as_str() <= "c d")
    );
    assert_eq!(ids(&table.query_all(q().ts().eq(20u64).id().gte("%")).await.unwrap()), expect(&|m| m.ts == 20));
    assert_eq!(
        ids(&table.query_all(q().ts().eq(20u64).id().between("a", "b#2")).await.unwrap()),
        expect(&|m| m.ts == 20 && ("a"..="b#2").contains(&m.id.as_str()))
    );

    let mut newest_first = expect(&|m| m.ts >= 20);
    newest_first.reverse();
    assert_eq!(ids(&table.query_all(q().ts().gte(20u64).descending()).await.unwrap()), newest_first);

    // A `#` in a value cannot reach another partition.
    assert_eq!(ids(&table.query_all(Message::query_by_room("room#2")).await.unwrap()), vec![(20, "other".to_owned())]);
}

#[tokio::test]
async fn query_stream_yields_every_item() {
    let (table, all) = seeded().await;
    let streamed: Vec<Message> = table.query_stream(Message::query_by_room("room")).map(|r| r.unwrap()).collect().await;
    assert_eq!(ids(&streamed), ids(&all));
}

#[tokio::test]
async fn limit_counts_items_returned_across_pages_and_cursors_resume_exactly() {
    let table = chat_table("pages").await;
    // 200 KB each: a DynamoDB page (1 MB) holds about 5 of them.
    let big = "x".repeat(200 * 1024);
    let mut all = Vec::new();
    for i in 0..13u64 {
        let m = Message { room_id: "p".into(), ts: i, id: "m".into(), content: big.clone() };
        table.put(&m).await.unwrap();
        all.push((i, "m".to_owned()));
    }
    let first = table.query(Message::query_by_room("p").limit(7)).await.unwrap();
    assert_eq!(ids(&first.items), all[..7].to_vec(), "7 items although a DynamoDB page holds fewer");
    let cursor = first.next.expect("more to come");

    // The cursor goes through its string form, as a web client would hand it back.
    let text = cursor.to_string();
    let cursor: Cursor = text.parse().unwrap();
    let second = table.query(Message::query_by_room("p").limit(7).after(cursor.clone())).await.unwrap();
    assert_eq!(ids(&second.items), all[7..].to_vec());
    assert!(second.next.is_none());

    // Without a limit: one DynamoDB page, then the next.
    let page = table.query(Message::query_by_room("p")).await.unwrap();
    assert!(page.items.len() < 13 && !page.items.is_empty(), "a 1 MB page: {}", page.items.len());
    let rest = table.query_all(Message::query_by_room("p").after(page.next.unwrap())).await.unwrap();
    assert_eq!(page.items.len() + rest.len(), 13);

    // A cursor of another partition, another index or entity, or an altered one, never reaches DynamoDB.
    let other_room = table.query(Message::query_by_room("q").after(cursor.clone())).await;
    assert!(matches!(other_room, Err(Error::InvalidCursor)), "{other_room:?}");
    let outside = table.query(Message::query_by_room("p").ts().lt(3u64).after(cursor.clone())).await;
    assert!(matches!(outside, Err(Error::InvalidCursor)), "{outside:?}");
    // A cursor is valid only for the query that made it: another sort-key condition (even one
    // its key satisfies) or a filter is refused; another limit resumes.
    let narrow = table.query(Message::query_by_room("p").ts().lte(10u64).limit(3)).await.unwrap();
    let at3 = narrow.next.unwrap();
    let wider = table.query(Message::query_by_room("p").after(at3.clone())).await;
    assert!(matches!(wider, Err(Error::InvalidCursor)), "{wider:?}");
    let filtered = table
        .query(Message::query_by_room("p").ts().lte(10u64).filter(Message::fields().ts.gte(0u64)).after(at3.clone()));
    assert!(matches!(filtered.await, Err(Error::InvalidCursor)));
    let resumed = table.query(Message::query_by_room("p").ts().lte(10u64).limit(5).after(at3)).await.unwrap();
    assert_eq!(ids(&resumed.items), all[3..8].to_vec());
    let other_entity = table.query(LastMessage::query_by_room("p").after(cursor.clone())).await;
    assert!(matches!(other_entity, Err(Error::InvalidCursor)), "{other_entity:?}");
    let mut tampered = text.into_bytes();
    let i = tampered.len() / 2;
    tampered[i] = if tampered[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    assert!(matches!(tampered.parse::<Cursor>(), Err(Error::InvalidCursor)));
}

#[tokio::test]
async fn requests_dynamodb_would_reject_are_refused_before_sending() {
    // A table that does not exist: any request sent would fail with ResourceNotFound, so a
    // Validation error proves nothing was sent.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, "no-such-table");
    let huge = Message { room_id: "r".into(), ts: 1, id: "m".into(), content: "x".repeat(400 * 1024) };
    assert!(matches!(table.put(&huge).await, Err(Error::Validation(m)) if m.contains("bytes")));
    let too_wide = msg("r", 10_000_000_000_000, "m");
    assert!(matches!(table.put(&too_wide).await, Err(Error::Key(_))));
    assert!(matches!(table.put(&Tag { name: String::new() }).await, Err(Error::Validation(m)) if m.contains("empty")));
    assert!(matches!(table.get(Tag::key("")).await, Err(Error::Validation(_))));
    assert!(matches!(table.query(Message::query_by_room("r").limit(0)).await, Err(Error::Validation(_))));
    assert!(matches!(table.get(Message::key("r", 10_000_000_000_000u64, "m")).await, Err(Error::Key(_))));
    // ... while a real request to it is an SDK error.
    assert!(matches!(table.put(&msg("r", 1, "m")).await, Err(Error::Sdk(_))));
}

#[tokio::test]
async fn foreign_and_malformed_items_are_typed_errors() {
    let table = chat_table("foreign").await;
    let put_raw = |item: Vec<(&str, AttributeValue)>| {
        let table = table.clone();
        let item: Item = item.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        async move { table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap() }
    };
    let s = |v: &str| AttributeValue::S(v.to_owned());
    // A number where a string belongs.
    put_raw(vec![
        ("PK", s("CHATROOM#x")),
        ("SK", s("MESSAGE#0000000000001#a")),
        ("content", AttributeValue::N("5".into())),
    ])
    .await;
    match table.get(Message::key("x", 1u64, "a")).await {
        Err(Error::Decode { entity: "Message", attribute, .. }) => assert_eq!(attribute, "content"),
        other => panic!("{other:?}"),
    }
    // An item of another type under a matching key.
    put_raw(vec![
        ("PK", s("CHATROOM#x")),
        ("SK", s("MESSAGE#0000000000002#b")),
        ("Type", s("Reaction")),
        ("content", s("+1")),
    ])
    .await;
    assert!(
        matches!(table.get(Message::key("x", 2u64, "b")).await, Err(Error::Decode { attribute, .. }) if attribute == "Type")
    );
    // A key that does not follow the template and no type attribute: another entity's item,
    // stepped over by the query.
    put_raw(vec![("PK", s("CHATROOM#x")), ("SK", s("MESSAGE#12#c")), ("content", s("?"))]).await;
    let all = table.query_all(Message::query_by_room("x").ts().gte(3u64)).await;
    assert!(matches!(&all, Ok(v) if v.is_empty()), "{all:?}");
    // The same with the type attribute saying it is a Message: a bad item, named by its key.
    put_raw(vec![("PK", s("CHATROOM#x")), ("SK", s("MESSAGE#13#d")), ("Type", s("Message")), ("content", s("?"))])
        .await;
    match table.query_all(Message::query_by_room("x").ts().gte(3u64)).await {
        Err(Error::BadItems { errors, partial }) => {
            assert!(partial.is_empty());
            assert!(
                matches!(&errors[..], [Error::Decode { attribute, key: Some((pk, Some(sk))), .. }]
                    if attribute == "SK" && pk == "CHATROOM#x" && sk == "MESSAGE#13#d"),
                "{errors:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // An item written by other code, with only the keys and content: key fields come from the keys.
    put_raw(vec![("PK", s("CHATROOM#y")), ("SK", s("MESSAGE#0000000000003#z")), ("content", s("hello"))]).await;
    assert_eq!(
        table.get(Message::key("y", 3u64, "z")).await.unwrap(),
        Some(Message { room_id: "y".into(), ts: 3, id: "z".into(), content: "hello".into() })
    );
}

#[tokio::test]
async fn sdk_errors_carry_dynamodb_s_message() {
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, "no-such-table");
    let err = table.put(&msg("r", 1, "m")).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("ResourceNotFoundException") && text.len() > 60, "{text}");
}

#[tokio::test]
async fn create_table_if_not_exists_checks_an_existing_definition() {
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, format!("if-not-exists-{}", std::process::id()));
    let chat = [Message::SCHEMA, LastMessage::SCHEMA];
    assert!(table.create_table_if_not_exists(&chat).await.unwrap(), "created");
    assert!(!table.create_table_if_not_exists(&chat).await.unwrap(), "exists, and matches");
    assert!(!table.create_table_if_not_exists(&[LastMessage::SCHEMA]).await.unwrap(), "a subset matches too");
    table.put(&msg("r", 1, "m")).await.unwrap();

    // The plain form on an existing table is DynamoDB's error.
    let again = table.create_table(&chat).await.unwrap_err();
    assert!(again.to_string().contains("ResourceInUseException"), "{again}");

    // Entities that need another index, or another key schema: a typed error naming the difference.
    match table.create_table_if_not_exists(&[Device::SCHEMA]).await {
        Err(Error::TableMismatch { table: name, differences }) => {
            assert_eq!(name, table.name());
            assert_eq!(differences, "index GSI1 is missing");
        }
        other => panic!("{other:?}"),
    }
    match table.create_table_if_not_exists(&[Tag::SCHEMA]).await {
        Err(Error::TableMismatch { differences, .. }) => {
            assert_eq!(differences, "key schema is (PK, SK), the entities need (PK)");
        }
        other => panic!("{other:?}"),
    }
    // Nothing was changed: the item is still there.
    assert!(table.get(Message::key("r", 1u64, "m")).await.unwrap().is_some());
}

#[tokio::test]
async fn the_request_of_an_empty_range_reads_nothing_when_sent() {
    let (table, _) = seeded().await;
    let send = |r: dynamo_entity::QueryRequest| {
        table
            .client()
            .query()
            .table_name(table.name())
            .key_condition_expression(r.key_condition_expression)
            .set_expression_attribute_names(Some(r.expression_attribute_names))
            .set_expression_attribute_values(Some(r.expression_attribute_values))
            .send()
    };
    let empty = Message::query_by_room("room").ts().between(5u64, 4u64).request().unwrap();
    assert!(empty.selects_nothing());
    assert_ne!(empty.key_condition_expression, "#pk = :pk", "never a read of the whole partition");
    assert_eq!(send(empty).await.unwrap().count, 0);
    let also_empty = Message::query_by_room("room").ts().eq(10u64).id().lt("").request().unwrap();
    assert_eq!(send(also_empty).await.unwrap().count, 0);
    // The same request path reads what it should otherwise.
    let some = Message::query_by_room("room").ts().between(4u64, 10u64).request().unwrap();
    assert!(!some.selects_nothing());
    assert_eq!(send(some).await.unwrap().count, 4);
}
