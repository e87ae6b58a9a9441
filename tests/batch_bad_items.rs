//! A bad item among many does not hide the good ones (issue 21, item 6): `batch_get` of an
//! entity or of a collection is `Error::BadItems` holding every good item and one
//! `Error::Decode` per bad item, as queries and scans are.

mod common;

use dynamo_entity::{AttributeValue, Collection, Entity, Error, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "META"]
pub struct Room {
    pub room: String,
    pub seats: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "NOTE#<n>"]
pub struct Note {
    pub room: String,
    pub n: u32,
    pub text: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RoomItems {
    Room(Room),
    Note(Note),
}

/// Writes `item` as other code would (no checks), with `attr` replaced by a string.
async fn raw_bad<E: Entity>(table: &Table, e: &E, attr: &str) {
    let mut item = e.to_item().unwrap();
    item.insert(attr.to_owned(), AttributeValue::S("not a number".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn room(r: &str) -> Room {
    Room { room: r.into(), seats: 4 }
}

fn note(r: &str, n: u32) -> Note {
    Note { room: r.into(), n, text: format!("note {n}") }
}

#[tokio::test]
async fn batch_get_returns_the_good_items_beside_the_bad_ones() {
    let table = common::table("bget-bad", &[Room::SCHEMA, Note::SCHEMA]).await;
    table.batch_put(&[room("a"), room("c")]).await.unwrap();
    raw_bad(&table, &room("b"), "seats").await;

    let e = table.batch_get([Room::key("a"), Room::key("b"), Room::key("c")]).await.unwrap_err();
    let Error::BadItems { errors, partial } = e else { panic!("{e:?}") };
    assert_eq!(errors.len(), 1);
    assert!(
        matches!(&errors[0], Error::Decode { attribute, key: Some(k), .. } if attribute == "seats" && k.0 == "ROOM#b"),
        "{errors:?}"
    );
    let page = partial.into_page::<Room>().unwrap();
    assert_eq!(page.items, vec![room("a"), room("c")], "the good items, in key order");
    assert!(page.next.is_none());

    // The same through a collection.
    table.batch_put(&[note("a", 1)]).await.unwrap();
    raw_bad(&table, &note("a", 2), "n").await;
    let keys: Vec<RoomItemsKey> = vec![Room::key("a").into(), Note::key("a", 1u32).into(), Note::key("a", 2u32).into()];
    let e = table.batch_get(keys).await.unwrap_err();
    let Error::BadItems { errors, partial } = e else { panic!("{e:?}") };
    assert_eq!(errors.len(), 1, "{errors:?}");
    let page = partial.into_page::<RoomItems>().unwrap();
    assert_eq!(page.items, vec![RoomItems::Room(room("a")), RoomItems::Note(note("a", 1))]);
}
