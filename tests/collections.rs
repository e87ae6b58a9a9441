//! Item collections: one request reads a partition's items of several entity types, each decoded
//! into its variant; items of non-members are stepped over; keys of several member types are
//! read in one `get`/`transact_get`. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Collection, Entity, Error, Item, Page, Table};
use futures_util::StreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "METADATA"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct ChatRoom {
    pub room_id: String,
    pub name: String,
}

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
    pub message_id: String,
}

/// Not a member of `RoomItems`: stepped over.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CHATROOM#<room_id>"]
#[sk = "MESSAGE#<ts:13>#<id>#REACTION#<user>"]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Reaction {
    pub room_id: String,
    pub ts: u64,
    pub id: String,
    pub user: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RoomItems {
    Room(ChatRoom),
    Message(Message),
    Last(LastMessage),
}

// The adjacency list of teams and users: a user's memberships and profile in one GSI partition.

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TEAM#<team>"]
#[sk = "USER#<user>"]
#[gsi1(pk = "USER#<user>", sk = "TEAM#<team>", query = "teams_of_user")]
pub struct Membership {
    pub team: String,
    pub user: String,
    pub role: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user>"]
#[sk = "PROFILE"]
#[gsi1(pk = "USER#<user>", sk = "PROFILE", query = "profile_of")]
pub struct Profile {
    pub user: String,
    pub display_name: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum UserItems {
    Membership(Membership),
    Profile(Profile),
}

fn room(id: &str) -> ChatRoom {
    ChatRoom { room_id: id.into(), name: format!("room {id}") }
}

fn message(room_id: &str, ts: u64) -> Message {
    Message { room_id: room_id.into(), ts, id: format!("m{ts}"), content: format!("hello {ts}") }
}

async fn room_table(name: &str) -> Table {
    common::table(name, &[ChatRoom::SCHEMA, Message::SCHEMA, LastMessage::SCHEMA, Reaction::SCHEMA]).await
}

/// room-1: metadata, last message, 7 messages, reactions under some of them.
async fn fill(table: &Table) -> Vec<RoomItems> {
    let messages: Vec<Message> = (1..=7).map(|ts| message("room-1", ts)).collect();
    let reactions: Vec<Reaction> = (1..=7)
        .filter(|ts| ts % 2 == 1)
        .map(|ts| Reaction { room_id: "room-1".into(), ts, id: format!("m{ts}"), user: "u".into() })
        .collect();
    let last = LastMessage { room_id: "room-1".into(), message_id: "m7".into() };
    table.put(&room("room-1")).await.unwrap();
    table.put(&last).await.unwrap();
    table.batch_put(&messages).await.unwrap();
    table.batch_put(&reactions).await.unwrap();
    // Sort-key order: LASTMESSAGE < MESSAGE#... < METADATA.
    let mut expected = vec![RoomItems::Last(last)];
    expected.extend(messages.into_iter().map(RoomItems::Message));
    expected.push(RoomItems::Room(room("room-1")));
    expected
}

#[tokio::test]
async fn a_collection_query_reads_every_member_in_one_request() {
    let table = room_table("coll-query").await;
    let expected = fill(&table).await;

    let all = table.query_all(RoomItems::query(ChatRoom::partition("room-1"))).await.unwrap();
    assert_eq!(all, expected);
    // Any member's partition of the table is the same partition.
    let same = table.query_all(RoomItems::query(Message::partition("room-1"))).await.unwrap();
    assert_eq!(same, expected);
    let streamed: Vec<RoomItems> =
        table.query_stream(RoomItems::query(LastMessage::partition("room-1"))).map(Result::unwrap).collect().await;
    assert_eq!(streamed, expected);

    // One page without a limit: one request (DynamoDB's 1 MB page holds it all).
    let page = table.query(RoomItems::query(ChatRoom::partition("room-1"))).await.unwrap();
    assert_eq!((page.items.len(), page.next), (9, None));

    for descending in [false, true] {
        let mut want = expected.clone();
        if descending {
            want.reverse();
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let mut q = RoomItems::query(ChatRoom::partition("room-1")).limit(4);
            if descending {
                q = q.descending();
            }
            if let Some(c) = cursor.take() {
                q = q.after(c);
            }
            let page: Page<RoomItems> = table.query(q).await.unwrap();
            if page.next.is_some() {
                assert_eq!(page.items.len(), 4);
            }
            seen.extend(page.items);
            match page.next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, want, "descending: {descending}");
    }

    // A cursor of the collection is bound to it: an entity query refuses it.
    let page = table.query(RoomItems::query(ChatRoom::partition("room-1")).limit(2)).await.unwrap();
    let wrong = table.query(Message::query_by_room("room-1").after(page.next.unwrap())).await;
    assert!(matches!(wrong, Err(Error::InvalidCursor)), "{wrong:?}");
    assert!(table.query_all(RoomItems::query(ChatRoom::partition("room-2"))).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_bad_member_item_is_named_and_the_others_still_arrive() {
    let table = room_table("coll-bad").await;
    let expected = fill(&table).await;
    let raw: Item = [
        ("PK", AttributeValue::S("CHATROOM#room-1".into())),
        ("SK", AttributeValue::S("MESSAGE#0000000000004#zz".into())),
        ("Type", AttributeValue::S("Message".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    table.client().put_item().table_name(table.name()).set_item(Some(raw)).send().await.unwrap();
    // An item of an entity nobody declared, without a type attribute: stepped over.
    let foreign: Item =
        [("PK", AttributeValue::S("CHATROOM#room-1".into())), ("SK", AttributeValue::S("PINNED#1".into()))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
    table.client().put_item().table_name(table.name()).set_item(Some(foreign)).send().await.unwrap();

    match table.query_all(RoomItems::query(ChatRoom::partition("room-1"))).await {
        Err(Error::BadItems { errors, partial }) => {
            assert!(
                matches!(&errors[..], [Error::Decode { entity: "Message", key: Some((_, Some(sk))), .. }] if sk == "MESSAGE#0000000000004#zz"),
                "{errors:?}"
            );
            assert_eq!(partial.into_page::<RoomItems>().unwrap().items, expected);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn keys_of_several_members_read_in_one_get_or_transaction() {
    let table = room_table("coll-get").await;
    fill(&table).await;
    let got = table.get(RoomItemsKey::from(ChatRoom::key("room-1"))).await.unwrap();
    assert_eq!(got, Some(RoomItems::Room(room("room-1"))));
    assert_eq!(table.get(RoomItemsKey::from(ChatRoom::key("room-9"))).await.unwrap(), None);
    let keys = vec![
        RoomItemsKey::from(ChatRoom::key("room-1")),
        LastMessage::key("room-1").into(),
        Message::key("room-1", 3u64, "m3").into(),
        Message::key("room-1", 99u64, "missing").into(),
    ];
    let got = table.transact_get(keys.clone()).await.unwrap();
    assert_eq!(
        got,
        vec![
            Some(RoomItems::Room(room("room-1"))),
            Some(RoomItems::Last(LastMessage { room_id: "room-1".into(), message_id: "m7".into() })),
            Some(RoomItems::Message(message("room-1", 3))),
            None,
        ]
    );
    for (item, key) in got.iter().zip(&keys) {
        if let Some(item) = item {
            assert_eq!(&item.key(), key);
        }
    }
    // A collection's key is `Send + Sync` as its members' keys are, and so is a read of it:
    // spawned on another task.
    fn send_sync<T: Send + Sync>(_: &T) {}
    send_sync(&keys[0]);
    let spawned = tokio::spawn({
        let table = table.clone();
        async move { table.batch_get(keys).await }
    });
    assert_eq!(spawned.await.unwrap().unwrap().len(), 3);
}

#[tokio::test]
async fn a_collection_reads_one_partition_of_a_secondary_index() {
    let table = common::table("coll-gsi", &[Membership::SCHEMA, Profile::SCHEMA]).await;
    let memberships: Vec<Membership> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|t| Membership { team: (*t).into(), user: "u1".into(), role: "member".into() })
        .collect();
    let other = Membership { team: "alpha".into(), user: "u2".into(), role: "owner".into() };
    let profile = Profile { user: "u1".into(), display_name: "Ann".into() };
    table.batch_put(&memberships).await.unwrap();
    table.put(&other).await.unwrap();
    table.put(&profile).await.unwrap();

    let items = table.query_all(UserItems::query(Membership::partition_teams_of_user("u1"))).await.unwrap();
    let mut expected: Vec<UserItems> = vec![UserItems::Profile(profile.clone())];
    expected.extend(memberships.iter().cloned().map(UserItems::Membership));
    assert_eq!(items, expected);
    // The profile's own partition of the index is the same one.
    let same = table.query_all(UserItems::query(Profile::partition_profile_of("u1"))).await.unwrap();
    assert_eq!(same, expected);
    // Paged, descending.
    let first =
        table.query(UserItems::query(Membership::partition_teams_of_user("u1")).descending().limit(2)).await.unwrap();
    assert_eq!(
        first.items,
        vec![UserItems::Membership(memberships[2].clone()), UserItems::Membership(memberships[1].clone())]
    );
    let rest = table
        .query(
            UserItems::query(Membership::partition_teams_of_user("u1"))
                .descending()
                .limit(2)
                .after(first.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(rest.items, vec![UserItems::Membership(memberships[0].clone()), UserItems::Profile(profile)]);
    // DynamoDB reads global indexes eventually consistently only: refused before sending.
    let strong = table.query(UserItems::query(Membership::partition_teams_of_user("u1")).consistent_read()).await;
    assert!(matches!(strong, Err(Error::Validation(_))), "{strong:?}");
}

// The game layout: a player's characters and, under each, its inventory and enhancement logs.

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>"]
pub struct Character {
    pub player_id: String,
    pub char_no: u8,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>#inventory#<item_id>"]
pub struct InventoryItem {
    pub player_id: String,
    pub char_no: u8,
    pub item_id: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "player#<player_id>"]
#[sk = "char#<char_no:2>#enhance#<item_id>"]
pub struct Enhance {
    pub player_id: String,
    pub char_no: u8,
    pub item_id: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum PlayerItems {
    Character(Character),
    Inventory(InventoryItem),
    Enhance(Enhance),
}

#[tokio::test]
async fn a_collection_query_narrowed_to_the_items_under_one_member() {
    let table = common::table("coll-under", &[Character::SCHEMA, InventoryItem::SCHEMA, Enhance::SCHEMA]).await;
    // Characters 1, 10 and 2: `char#01#` must not select `char#10`'s items.
    for n in [1u8, 2, 10] {
        table.put(&Character { player_id: "p".into(), char_no: n }).await.unwrap();
        table.put(&InventoryItem { player_id: "p".into(), char_no: n, item_id: format!("sword{n}") }).await.unwrap();
        table.put(&Enhance { player_id: "p".into(), char_no: n, item_id: format!("sword{n}") }).await.unwrap();
    }
    let under = table.query_all(PlayerItems::query(Character::partition("p")).under(&Character::key("p", 1u8))).await;
    assert_eq!(
        under.unwrap(),
        vec![
            PlayerItems::Enhance(Enhance { player_id: "p".into(), char_no: 1, item_id: "sword1".into() }),
            PlayerItems::Inventory(InventoryItem { player_id: "p".into(), char_no: 1, item_id: "sword1".into() }),
        ]
    );
    let req = PlayerItems::query(Character::partition("p")).under(&Character::key("p", 1u8)).request().unwrap();
    assert_eq!(req.key_condition_expression, "#pk = :pk AND begins_with(#sk, :sk)");
    assert_eq!(req.expression_attribute_values[":sk"], AttributeValue::S("char#01#".into()));
    // A key of another partition is refused before sending.
    let other = table.query_all(PlayerItems::query(Character::partition("p")).under(&Character::key("q", 1u8))).await;
    assert!(matches!(other, Err(Error::Key(_))), "{other:?}");
    assert_eq!(table.query_all(PlayerItems::query(Character::partition("p"))).await.unwrap().len(), 9);
}
