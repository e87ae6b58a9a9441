//! Partitions shared by many entities: a query returns its entity's items and steps over the
//! others', `limit` counts items returned, cursors resume exactly after the last item returned,
//! and a bad item of the entity never hides the good ones. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, Error, Item, Page, Table};
use futures_util::StreamExt;

// The hierarchical game layout of the guidelines: a player's characters, their inventories and
// their enhancement logs, all in one partition.

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>"]
pub struct Character {
    pub player_id: String,
    pub char_no: u8,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>#inventory#<slot>#<item_id>"]
pub struct InventoryItem {
    pub player_id: String,
    pub char_no: u8,
    pub slot: String,
    pub item_id: String,
    pub quantity: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>#enhance#<item_id>#<date>"]
pub struct Enhance {
    pub player_id: String,
    pub char_no: u8,
    pub item_id: String,
    pub date: String,
    pub level: u32,
}

// Messages with their reactions nested under them.

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
#[sk = "MESSAGE#<ts:13>#<id>#REACTION#<user>"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Reaction {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub user: String,
    pub emoji: String,
}

// Two entities sharing a GSI partition whose sort key starts with a placeholder (the chat
// design's GSI1).

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<participant_id>"]
#[sk = "CHATROOM#<chat_room_id>"]
#[gsi1(pk = "USERROOMS#<participant_id>", sk = "<joined_at>", query = "rooms_by_join_date")]
pub struct ChatParticipation {
    pub participant_id: String,
    pub chat_room_id: String,
    pub joined_at: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "INVITE#<invite_id>"]
#[gsi1(pk = "USERROOMS#<user_id>", sk = "<sent_at>", query = "invites_by_date")]
pub struct Invite {
    pub user_id: String,
    pub invite_id: String,
    pub sent_at: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn put_raw(table: &Table, item: Vec<(&str, AttributeValue)>) {
    let item: Item = item.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn inv(char_no: u8, slot: &str, item_id: &str) -> InventoryItem {
    InventoryItem { player_id: "1234".into(), char_no, slot: slot.into(), item_id: item_id.into(), quantity: 1 }
}

fn enh(char_no: u8, item_id: &str, date: &str) -> Enhance {
    Enhance { player_id: "1234".into(), char_no, item_id: item_id.into(), date: date.into(), level: 2 }
}

#[tokio::test]
async fn hierarchical_sort_keys_return_each_entity_at_every_level() {
    let table = common::table("game", &[Character::SCHEMA, InventoryItem::SCHEMA, Enhance::SCHEMA]).await;
    let chars: Vec<Character> =
        (1..=2).map(|n| Character { player_id: "1234".into(), char_no: n, name: format!("c{n}") }).collect();
    let items = vec![
        inv(1, "armor", "a1"),
        inv(1, "weapon", "w1"),
        inv(1, "weapon", "w2"),
        inv(2, "ring", "r1"),
        inv(2, "weapon", "w3"),
    ];
    let logs =
        vec![enh(1, "w1", "2024-01-01"), enh(1, "w1", "2024-02-01"), enh(1, "w2", "2024-01-15"), enh(2, "w3", "x")];
    table.batch_put(&chars).await.unwrap();
    table.batch_put(&items).await.unwrap();
    table.batch_put(&logs).await.unwrap();

    let all = table.query_all(InventoryItem::query_by_player("1234")).await.unwrap();
    assert_eq!(all, items);
    let c1 = table.query_all(InventoryItem::query_by_player("1234").char_no().eq(1)).await.unwrap();
    assert_eq!(c1, items[..3]);
    let weapons =
        table.query_all(InventoryItem::query_by_player("1234").char_no().eq(1).slot().eq("weapon")).await.unwrap();
    assert_eq!(weapons, items[1..3]);
    let one = table
        .query_all(InventoryItem::query_by_player("1234").char_no().eq(1).slot().eq("weapon").item_id().eq("w2"))
        .await
        .unwrap();
    assert_eq!(one, items[2..3]);
    let later_chars = table.query_all(InventoryItem::query_by_player("1234").char_no().gt(1)).await.unwrap();
    assert_eq!(later_chars, items[3..]);

    assert_eq!(table.query_all(Enhance::query_by_player("1234")).await.unwrap(), logs);
    let w1 = table.query_all(Enhance::query_by_player("1234").char_no().eq(1).item_id().eq("w1")).await.unwrap();
    assert_eq!(w1, logs[..2]);
    let since = table
        .query_all(Enhance::query_by_player("1234").char_no().eq(1).item_id().eq("w1").date().gte("2024-01-15"))
        .await
        .unwrap();
    assert_eq!(since, logs[1..2]);
    assert_eq!(table.query_all(Character::query_by_player("1234")).await.unwrap(), chars);
    assert_eq!(table.query_all(Character::query_by_player("1234").char_no().eq(2)).await.unwrap(), chars[1..]);

    // The narrowest key condition the template allows: the literal after `char_no` is known.
    let req = InventoryItem::query_by_player("1234").char_no().eq(1).request().unwrap();
    assert_eq!(req.expression_attribute_values[":sk"], s("char#01#inventory#"));

    // `limit` counts inventory items returned, though enhancement logs sort between them.
    let page = table.query(InventoryItem::query_by_player("1234").limit(4)).await.unwrap();
    assert_eq!(page.items, items[..4]);
    let rest = table.query(InventoryItem::query_by_player("1234").limit(4).after(page.next.unwrap())).await.unwrap();
    assert_eq!(rest.items, items[4..]);
    assert!(rest.next.is_none());
}

fn message(ts: u64, id: &str) -> Message {
    Message { room_id: "r".into(), ts, id: id.into(), content: format!("m{ts}{id}") }
}

#[tokio::test]
async fn messages_with_interleaved_reactions_page_exactly() {
    let table = common::table("reactions", &[Message::SCHEMA, Reaction::SCHEMA]).await;
    let messages: Vec<Message> = (0..11).map(|i| message(1_709_234_567_000 + i, &format!("m{i}"))).collect();
    let mut reactions = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        // 0 to 3 reactions under each message, sorting right after it.
        for u in 0..(i % 4) {
            reactions.push(Reaction {
                room_id: "r".into(),
                ts: m.ts,
                id: m.id.clone(),
                user: format!("u{u}"),
                emoji: "+1".into(),
            });
        }
    }
    table.batch_put(&messages).await.unwrap();
    table.batch_put(&reactions).await.unwrap();

    for descending in [false, true] {
        let mut expected = messages.clone();
        if descending {
            expected.reverse();
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        let mut pages = 0;
        loop {
            let mut q = Message::query_by_room("r").limit(4);
            if descending {
                q = q.descending();
            }
            if let Some(c) = cursor.take() {
                q = q.after(c);
            }
            let page: Page<Message> = table.query(q).await.unwrap();
            pages += 1;
            let full = page.next.is_some();
            if full {
                assert_eq!(page.items.len(), 4, "every page with a cursor is full");
            }
            seen.extend(page.items);
            match page.next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, expected, "descending: {descending}");
        assert_eq!(pages, 3);
    }
    let all_reactions = table.query_all(Reaction::query_by_room("r")).await.unwrap();
    assert_eq!(all_reactions, reactions);
    let on_m3 = table.query_all(Reaction::query_by_room("r").ts().eq(messages[3].ts).id().eq("m3")).await.unwrap();
    assert_eq!(on_m3.len(), 3);
    // The stream steps over reactions too.
    let streamed: Vec<Message> =
        table.query_stream(Message::query_by_room("r")).map(Result::unwrap).collect::<Vec<_>>().await;
    assert_eq!(streamed, messages);
    // A reaction key is another entity's, even without a type attribute: written by other code.
    put_raw(
        &table,
        vec![("PK", s("CHATROOM#r")), ("SK", s("MESSAGE#1709234567000#m0#REACTION#raw")), ("emoji", s("!"))],
    )
    .await;
    assert_eq!(table.query_all(Message::query_by_room("r")).await.unwrap(), messages);
}

#[tokio::test]
async fn entities_sharing_a_gsi_partition_keyed_by_a_placeholder() {
    let table = common::table("gsi-shared", &[ChatParticipation::SCHEMA, Invite::SCHEMA]).await;
    let joins: Vec<ChatParticipation> = ["2024-01-01", "2024-01-03", "2024-01-05"]
        .iter()
        .enumerate()
        .map(|(i, d)| ChatParticipation {
            participant_id: "u1".into(),
            chat_room_id: format!("room{i}"),
            joined_at: (*d).into(),
        })
        .collect();
    let invites: Vec<Invite> = ["2024-01-02", "2024-01-04"]
        .iter()
        .enumerate()
        .map(|(i, d)| Invite { user_id: "u1".into(), invite_id: format!("i{i}"), sent_at: (*d).into() })
        .collect();
    table.batch_put(&joins).await.unwrap();
    table.batch_put(&invites).await.unwrap();
    assert_eq!(table.query_all(ChatParticipation::query_rooms_by_join_date("u1")).await.unwrap(), joins);
    assert_eq!(table.query_all(Invite::query_invites_by_date("u1")).await.unwrap(), invites);
    let recent = table
        .query(ChatParticipation::query_rooms_by_join_date("u1").joined_at().gte("2024-01-02").descending().limit(1))
        .await
        .unwrap();
    assert_eq!(recent.items, joins[2..]);
    let next = table
        .query(
            ChatParticipation::query_rooms_by_join_date("u1")
                .joined_at()
                .gte("2024-01-02")
                .descending()
                .limit(1)
                .after(recent.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(next.items, joins[1..2]);
    // Only an invite follows in the range: the page after it is empty and the last.
    let last = table
        .query(
            ChatParticipation::query_rooms_by_join_date("u1")
                .joined_at()
                .gte("2024-01-02")
                .descending()
                .limit(1)
                .after(next.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!((last.items, last.next), (vec![], None));
}

#[tokio::test]
async fn a_bad_item_never_hides_the_good_ones() {
    let table = common::table("bad-items", &[Message::SCHEMA]).await;
    let good = [message(1, "a"), message(2, "b"), message(4, "d"), message(5, "z")];
    table.batch_put(&good).await.unwrap();
    // A Message missing its content between b and d.
    put_raw(
        &table,
        vec![("PK", s("CHATROOM#r")), ("SK", s("MESSAGE#0000000000003#c")), ("Type", s("Message")), ("roomId", s("r"))],
    )
    .await;

    // The stream yields every good item and one error, naming the bad item's key.
    let streamed: Vec<Result<Message, Error>> = table.query_stream(Message::query_by_room("r")).collect().await;
    assert_eq!(streamed.len(), 5);
    let goods: Vec<Message> = streamed.iter().filter_map(|r| r.as_ref().ok().cloned()).collect();
    assert_eq!(goods, good);
    match &streamed[2] {
        Err(Error::Decode { entity: "Message", attribute, key: Some((pk, Some(sk))), .. }) => {
            assert_eq!(attribute, "content");
            assert_eq!((pk.as_str(), sk.as_str()), ("CHATROOM#r", "MESSAGE#0000000000003#c"));
        }
        other => panic!("{other:?}"),
    }
    let text = streamed[2].as_ref().unwrap_err().to_string();
    assert!(text.contains("MESSAGE#0000000000003#c"), "{text}");

    // query_all: the error holds every good item.
    match table.query_all(Message::query_by_room("r")).await {
        Err(Error::BadItems { errors, partial }) => {
            assert_eq!(errors.len(), 1);
            assert_eq!(partial.into_page::<Message>().unwrap().items, good);
        }
        other => panic!("{other:?}"),
    }

    // Paging with limit(1) reaches the last good item, through the bad one.
    let mut seen = Vec::new();
    let mut bad = 0;
    let mut cursor = None;
    for _ in 0..10 {
        let mut q = Message::query_by_room("r").limit(1);
        if let Some(c) = cursor.take() {
            q = q.after(c);
        }
        let page = match table.query(q).await {
            Ok(page) => page,
            Err(Error::BadItems { errors, partial }) => {
                bad += errors.len();
                partial.into_page::<Message>().expect("a page of messages")
            }
            Err(e) => panic!("{e}"),
        };
        seen.extend(page.items);
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, good);
    assert_eq!(bad, 1);
}

#[tokio::test]
async fn key_attributes_that_contradict_the_key_are_decode_errors() {
    let table = common::table("contradict", &[Message::SCHEMA]).await;
    put_raw(
        &table,
        vec![
            ("PK", s("CHATROOM#r")),
            ("SK", s("MESSAGE#1709234567500#bad")),
            ("Type", s("Message")),
            ("roomId", s("r")),
            ("ts", AttributeValue::N("5".into())),
            ("id", s("bad")),
            ("content", s("x")),
        ],
    )
    .await;
    let got = table.get(Message::key("r", 1_709_234_567_500u64, "bad")).await;
    match &got {
        Err(Error::Decode { attribute, message, key: Some((_, Some(sk))), .. }) => {
            assert_eq!(attribute, "SK");
            assert_eq!(sk, "MESSAGE#1709234567500#bad");
            assert!(message.contains("MESSAGE#0000000000005#bad"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let q = table.query_all(Message::query_by_room("r").ts().gt(1_709_234_567_000u64)).await;
    assert!(matches!(q, Err(Error::BadItems { ref errors, .. }) if errors.len() == 1), "{q:?}");
    // A partition key that contradicts the room is caught the same way.
    put_raw(
        &table,
        vec![
            ("PK", s("CHATROOM#r")),
            ("SK", s("MESSAGE#0000000000001#x")),
            ("Type", s("Message")),
            ("roomId", s("other")),
            ("content", s("x")),
        ],
    )
    .await;
    assert!(matches!(
        table.get(Message::key("r", 1u64, "x")).await,
        Err(Error::Decode { ref attribute, .. }) if attribute == "PK"
    ));
}
