//! Index keys an update rebuilds never contradict the item (issue 21, items 2 to 4): a stale
//! `update_from` copy is refused, an upsert writes the defaulted fields that key an index, and
//! removing an `Option` that keys a sparse index takes the item out of it.

mod common;

use dynamo_entity::{Entity, Error, Table};

/// A ticket, listed per queue and state (no `#[version]`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TICKET#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "QUEUE#<queue>", sk = "<state>#<id>", query = "by_queue")]
pub struct Ticket {
    pub id: String,
    pub queue: String,
    pub state: String,
    pub title: String,
}

fn default_level() -> u32 {
    1
}

/// A player ranked by level, which older items lack (`default`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "LEVEL#<level:4>", sk = "<id>", query = "by_level")]
pub struct Player {
    pub id: String,
    #[entity(default = "default_level")]
    pub level: u32,
    pub name: Option<String>,
}

/// A device in a sparse index of its warnings, by region and warning.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DEVICE#<id>"]
#[sk = "STATUS"]
#[gsi1(pk = "WARN#<region>", sk = "<warning>#<id>", query = "warnings")]
pub struct Device {
    pub id: String,
    pub region: String,
    pub warning: Option<String>,
}

async fn table(test: &str) -> Table {
    common::table(test, &[Ticket::SCHEMA, Player::SCHEMA, Device::SCHEMA]).await
}

#[tokio::test]
async fn a_stale_update_from_copy_cannot_write_an_index_key_that_contradicts_the_item() {
    let table = table("idx-stale").await;
    let t = Ticket { id: "t1".into(), queue: "support".into(), state: "OPEN".into(), title: "x".into() };
    table.put(&t).await.unwrap();
    // Writer A moves it to billing; writer B, from the same old copy, closes it.
    let a = table.update(Ticket::update_from(&t).set_queue("billing")).await.unwrap();
    assert_eq!((a.queue.as_str(), a.state.as_str()), ("billing", "OPEN"));
    let b = table.update(Ticket::update_from(&t).set_state("CLOSED")).await;
    assert!(matches!(b, Err(Error::ConditionFailed { .. })), "{b:?}");

    // Nothing contradicts: the item and its index entry agree.
    let item = table.get_consistent(Ticket::key("t1")).await.unwrap().unwrap();
    assert_eq!(item, a);
    assert_eq!(table.query_all(Ticket::query_by_queue("billing")).await.unwrap(), vec![a.clone()]);
    assert!(table.query_all(Ticket::query_by_queue("support")).await.unwrap().is_empty());

    // From a fresh copy the same update applies, and the index follows.
    let b = table.update(Ticket::update_from(&a).set_state("CLOSED")).await.unwrap();
    assert_eq!(table.query_all(Ticket::query_by_queue("billing").state_eq("CLOSED")).await.unwrap(), vec![b]);

    // A field the update sets itself is not checked: setting both needs no fresh copy.
    let c = table.update(Ticket::update_from(&t).set_queue("sales").set_state("NEW")).await.unwrap();
    assert_eq!(table.query_all(Ticket::query_by_queue("sales")).await.unwrap(), vec![c]);
    // A field outside every index is not checked either.
    table.update(Ticket::update_from(&t).set_title("y")).await.unwrap();
}

#[tokio::test]
async fn an_upsert_writes_the_defaulted_fields_that_key_an_index() {
    let table = table("idx-default").await;
    let created = table.update(Player::update(Player::key("p1")).set_name("Ann").upsert()).await.unwrap();
    assert_eq!(created.level, 1);
    assert_eq!(table.get(Player::key("p1")).await.unwrap(), Some(created.clone()));
    assert_eq!(table.query_all(Player::query_by_level(1u32)).await.unwrap(), vec![created]);

    // An existing item keeps its level and its index entry: the defaults are `if_not_exists`.
    table.put(&Player { id: "p2".into(), level: 7, name: None }).await.unwrap();
    let kept = table.update(Player::update(Player::key("p2")).set_name("Bo").upsert()).await.unwrap();
    assert_eq!(kept.level, 7);
    assert_eq!(table.query_all(Player::query_by_level(7u32)).await.unwrap(), vec![kept]);
    assert!(table.query_all(Player::query_by_level(1u32)).await.unwrap().iter().all(|p| p.id != "p2"));

    // Setting the defaulted field in the upsert writes the value set.
    let set = table.update(Player::update(Player::key("p3")).set_level(3).upsert()).await.unwrap();
    assert_eq!(table.query_all(Player::query_by_level(3u32)).await.unwrap(), vec![set]);
}

#[tokio::test]
async fn removing_an_option_that_keys_a_sparse_index_takes_the_item_out_of_it() {
    let table = table("idx-remove").await;
    let d = Device { id: "d1".into(), region: "eu".into(), warning: Some("HOT".into()) };
    table.put(&d).await.unwrap();
    assert_eq!(table.query_all(Device::query_warnings("eu")).await.unwrap(), vec![d.clone()]);
    // No other field of the index is needed to leave it.
    let removed = table.update(Device::update(Device::key("d1")).remove_warning()).await.unwrap();
    assert_eq!(removed.warning, None);
    assert!(table.query_all(Device::query_warnings("eu")).await.unwrap().is_empty());
    let raw = table.client().scan().table_name(table.name()).index_name("GSI1").send().await.unwrap();
    assert_eq!(raw.count, 0);

    // Setting it needs the index's other fields, and the message names only what was set.
    let e = Device::update(Device::key("d1")).set_warning("COLD").request().unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert_eq!(
        m,
        "setting `warning` changes the key of index GSI1, which also needs region: set it in the same update, or start from `update_from(&entity)`"
    );
    let e = Device::update(Device::key("d1")).set_region("us").request().unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert!(m.starts_with("setting `region` changes"), "{m}");
}
