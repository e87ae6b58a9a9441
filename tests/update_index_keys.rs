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

/// A parcel in an index by carrier, state and hub, whose `#[version]` refuses a stale copy.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PARCEL#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "CARRIER#<carrier>", sk = "<state>#<hub>", query = "by_carrier")]
pub struct Parcel {
    pub id: String,
    pub carrier: String,
    pub state: String,
    pub hub: String,
    #[version]
    pub version: u64,
}

/// A route whose index fields live in the index keys only (`key_attributes = false`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROUTE#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "FROM#<origin>", sk = "TO#<destination>", query = "by_origin")]
#[entity(key_attributes = false)]
pub struct Route {
    pub id: String,
    pub origin: String,
    pub destination: String,
    pub note: String,
}

/// The placeholder `request` names attribute `attr` with, if it names it.
fn placeholder(r: &dynamo_entity::UpdateRequest, attr: &str) -> Option<String> {
    r.expression_attribute_names.iter().find(|(_, a)| *a == attr).map(|(p, _)| p.clone())
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
    let a = table.update(Ticket::update_from(&t).set(Ticket::fields().queue, "billing")).await.unwrap();
    assert_eq!((a.queue.as_str(), a.state.as_str()), ("billing", "OPEN"));
    let b = table.update(Ticket::update_from(&t).set(Ticket::fields().state, "CLOSED")).await;
    assert!(matches!(b, Err(Error::ConditionFailed { .. })), "{b:?}");

    // Nothing contradicts: the item and its index entry agree.
    let item = table.get_consistent(Ticket::key("t1")).await.unwrap().unwrap();
    assert_eq!(item, a);
    assert_eq!(table.query_all(Ticket::query_by_queue("billing")).await.unwrap(), vec![a.clone()]);
    assert!(table.query_all(Ticket::query_by_queue("support")).await.unwrap().is_empty());

    // From a fresh copy the same update applies, and the index follows.
    let b = table.update(Ticket::update_from(&a).set(Ticket::fields().state, "CLOSED")).await.unwrap();
    assert_eq!(table.query_all(Ticket::query_by_queue("billing").state().eq("CLOSED")).await.unwrap(), vec![b]);

    // A field the update sets itself is not checked: setting both needs no fresh copy.
    let c = table
        .update(Ticket::update_from(&t).set(Ticket::fields().queue, "sales").set(Ticket::fields().state, "NEW"))
        .await
        .unwrap();
    assert_eq!(table.query_all(Ticket::query_by_queue("sales")).await.unwrap(), vec![c]);
    // A field outside every index is not checked either.
    table.update(Ticket::update_from(&t).set(Ticket::fields().title, "y")).await.unwrap();
}

#[tokio::test]
async fn an_upsert_writes_the_defaulted_fields_that_key_an_index() {
    let table = table("idx-default").await;
    let created =
        table.update(Player::update(Player::key("p1")).set(Player::fields().name, "Ann").upsert()).await.unwrap();
    assert_eq!(created.level, 1);
    assert_eq!(table.get(Player::key("p1")).await.unwrap(), Some(created.clone()));
    assert_eq!(table.query_all(Player::query_by_level(1u32)).await.unwrap(), vec![created]);

    // An existing item keeps its level and its index entry: the defaults are `if_not_exists`.
    table.put(&Player { id: "p2".into(), level: 7, name: None }).await.unwrap();
    let kept = table.update(Player::update(Player::key("p2")).set(Player::fields().name, "Bo").upsert()).await.unwrap();
    assert_eq!(kept.level, 7);
    assert_eq!(table.query_all(Player::query_by_level(7u32)).await.unwrap(), vec![kept]);
    assert!(table.query_all(Player::query_by_level(1u32)).await.unwrap().iter().all(|p| p.id != "p2"));

    // Setting the defaulted field in the upsert writes the value set.
    let set = table.update(Player::update(Player::key("p3")).set(Player::fields().level, 3).upsert()).await.unwrap();
    assert_eq!(table.query_all(Player::query_by_level(3u32)).await.unwrap(), vec![set]);
}

#[tokio::test]
async fn removing_an_option_that_keys_a_sparse_index_takes_the_item_out_of_it() {
    let table = table("idx-remove").await;
    let d = Device { id: "d1".into(), region: "eu".into(), warning: Some("HOT".into()) };
    table.put(&d).await.unwrap();
    assert_eq!(table.query_all(Device::query_warnings("eu")).await.unwrap(), vec![d.clone()]);
    // No other field of the index is needed to leave it.
    let removed = table.update(Device::update(Device::key("d1")).remove(Device::fields().warning)).await.unwrap();
    assert_eq!(removed.warning, None);
    assert!(table.query_all(Device::query_warnings("eu")).await.unwrap().is_empty());
    let raw = table.client().scan().table_name(table.name()).index_name("GSI1").send().await.unwrap();
    assert_eq!(raw.count, 0);

    // Setting it needs the index's other fields, and the message names only what was set.
    let e = Device::update(Device::key("d1")).set(Device::fields().warning, "COLD").request().unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert_eq!(
        m,
        "setting `warning` changes the key of index GSI1, which also needs region: set it in the same update, or start from `update_from(&entity)`"
    );
    let e = Device::update(Device::key("d1")).set(Device::fields().region, "us").request().unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert!(m.starts_with("setting `region` changes"), "{m}");
}

#[test]
fn an_index_key_the_update_cannot_complete_names_what_it_sets_and_what_is_missing() {
    // The fields set, in the order the index key names them, and each one missing.
    let e = Parcel::update(Parcel::key("p1"))
        .set(Parcel::fields().state, "SENT")
        .set(Parcel::fields().carrier, "ups")
        .request()
        .unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert_eq!(
        m,
        "setting `carrier` and `state` changes the key of index GSI1, which also needs hub: set it in the same update, or start from `update_from(&entity)`"
    );
    let e = Parcel::update(Parcel::key("p1")).set(Parcel::fields().state, "SENT").request().unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert!(m.starts_with("setting `state` changes the key of index GSI1, which also needs carrier, hub:"), "{m}");
    // With every field, the index keys are written.
    let r = Parcel::update(Parcel::key("p1"))
        .set(Parcel::fields().state, "SENT")
        .set(Parcel::fields().carrier, "ups")
        .set(Parcel::fields().hub, "ams")
        .request()
        .unwrap();
    let (pk, sk) = (placeholder(&r, "GSI1PK").unwrap(), placeholder(&r, "GSI1SK").unwrap());
    assert!(
        r.update_expression.contains(&format!("{pk} = :")) && r.update_expression.contains(&format!("{sk} = :")),
        "{r:?}"
    );
}

#[test]
fn only_given_values_an_index_key_is_rebuilt_from_are_checked_unchanged() {
    // No version: the given value of the rebuilt key is checked, the value set is not.
    let t = Ticket { id: "t1".into(), queue: "support".into(), state: "OPEN".into(), title: "x".into() };
    let r = Ticket::update_from(&t).set(Ticket::fields().state, "CLOSED").request().unwrap();
    let queue = placeholder(&r, "queue").expect("queue is checked");
    let condition = r.condition_expression.clone().unwrap();
    assert!(condition.contains(&format!("{queue} = :")), "{r:?}");
    assert!(!condition.contains(&placeholder(&r, "state").unwrap()), "{r:?}");
    // An update that touches no index checks nothing.
    let r = Ticket::update_from(&t).set(Ticket::fields().title, "y").request().unwrap();
    assert_eq!(r.condition_expression.as_deref(), Some("attribute_exists(#pk)"));

    // A versioned entity: its version check is enough.
    let p = Parcel { id: "p1".into(), carrier: "ups".into(), state: "NEW".into(), hub: "ams".into(), version: 3 };
    let r = Parcel::update_from(&p).set(Parcel::fields().state, "SENT").request().unwrap();
    assert!(placeholder(&r, "carrier").is_none() && placeholder(&r, "hub").is_none(), "{r:?}");
    assert!(placeholder(&r, "GSI1PK").is_some(), "{r:?}");

    // Leaving a sparse index checks nothing: its keys are removed whatever the other values.
    let d = Device { id: "d1".into(), region: "eu".into(), warning: Some("HOT".into()) };
    let r = Device::update_from(&d).remove(Device::fields().warning).request().unwrap();
    assert_eq!(r.condition_expression.as_deref(), Some("attribute_exists(#pk)"));
    let (pk, sk) = (placeholder(&r, "GSI1PK").unwrap(), placeholder(&r, "GSI1SK").unwrap());
    let removed = r.update_expression.split("REMOVE ").nth(1).unwrap_or_default();
    assert!(removed.contains(&pk) && removed.contains(&sk), "{r:?}");
    // Entering it from the given region checks the region.
    let d = Device { warning: None, ..d };
    let r = Device::update_from(&d).set(Device::fields().warning, "COLD").request().unwrap();
    assert!(r.condition_expression.as_deref().unwrap().contains(&placeholder(&r, "region").unwrap()), "{r:?}");

    // A field kept in the keys only has no attribute to check.
    let route = Route { id: "r1".into(), origin: "a".into(), destination: "b".into(), note: "n".into() };
    let r = Route::update_from(&route).set(Route::fields().destination, "c").request().unwrap();
    assert_eq!(r.condition_expression.as_deref(), Some("attribute_exists(#pk)"));
    assert!(placeholder(&r, "GSI1PK").is_some(), "{r:?}");
}

#[test]
fn an_upsert_writes_defaulted_index_keys_only_where_the_item_has_none() {
    let r = Player::update(Player::key("p1")).set(Player::fields().name, "Ann").upsert().request().unwrap();
    for attr in ["level", "GSI1PK", "GSI1SK"] {
        let p = placeholder(&r, attr).unwrap_or_else(|| panic!("{attr} is written: {r:?}"));
        assert!(r.update_expression.contains(&format!("{p} = if_not_exists({p}, ")), "{attr}: {r:?}");
    }
    // Not an upsert: the item exists, with its level and its index keys.
    let r = Player::update(Player::key("p1")).set(Player::fields().name, "Ann").request().unwrap();
    assert!(["level", "GSI1PK", "GSI1SK"].iter().all(|a| placeholder(&r, a).is_none()), "{r:?}");
    // Setting the defaulted field writes it and the index keys made of it, as any update does.
    let r = Player::update(Player::key("p1")).set(Player::fields().level, 3).upsert().request().unwrap();
    let pk = placeholder(&r, "GSI1PK").unwrap();
    assert!(r.update_expression.contains(&format!("{pk} = :")), "{r:?}");
    assert!(!r.update_expression.contains("if_not_exists"), "{r:?}");
    // What an upsert must set: every field without a default (here none: `level` has one).
    let e = Ticket::update(Ticket::key("t1")).set(Ticket::fields().title, "x").upsert().request().unwrap_err();
    assert!(e.to_string().ends_with("not set: `queue`, `state`"), "{e}");
}
