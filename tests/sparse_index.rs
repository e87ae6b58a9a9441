//! A sparse index keyed by an `Option` of a type that is only `KeyPart` (a `#[derive(KeyPart)]`
//! enum, not serde): items with a value are in the index, items without are not, and both read
//! back. Against the embedded engine.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
#[key(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Warning {
    BatteryLow,
    Overheat,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DEVICE#<device_id>"]
#[sk = "STATUS"]
#[gsi1(pk = "WARNING#<warning>", sk = "DEVICE#<device_id>", query = "by_warning")]
pub struct DeviceStatus {
    pub device_id: String,
    pub warning: Option<Warning>,
    pub level: u32,
}

fn status(device_id: &str, warning: Option<Warning>) -> DeviceStatus {
    DeviceStatus { device_id: device_id.to_owned(), warning, level: 7 }
}

#[test]
fn the_warning_is_stored_as_its_key_text_and_omitted_when_none() {
    let item = status("d1", Some(Warning::BatteryLow)).to_item().unwrap();
    assert_eq!(item.get("warning"), Some(&AttributeValue::S("BATTERY_LOW".into())));
    assert_eq!(item.get("GSI1PK"), Some(&AttributeValue::S("WARNING#BATTERY_LOW".into())));
    assert_eq!(item.get("GSI1SK"), Some(&AttributeValue::S("DEVICE#d1".into())));
    assert_eq!(DeviceStatus::from_item(item).unwrap(), status("d1", Some(Warning::BatteryLow)));

    let item = status("d2", None).to_item().unwrap();
    assert!(!item.contains_key("warning"), "{item:?}");
    assert!(!item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"), "{item:?}");
    assert_eq!(DeviceStatus::from_item(item).unwrap(), status("d2", None));
}

#[test]
fn a_stored_warning_that_is_no_variant_is_a_decode_error() {
    let mut item = status("d1", Some(Warning::Overheat)).to_item().unwrap();
    item.insert("warning".into(), AttributeValue::S("ON_FIRE".into()));
    let err = DeviceStatus::from_item(item).unwrap_err();
    assert!(err.to_string().contains("warning"), "{err}");
}

#[tokio::test]
async fn only_items_with_a_warning_are_in_the_index() {
    let table = common::table("sparse-index", &[DeviceStatus::SCHEMA]).await;
    let devices = [
        status("d1", Some(Warning::BatteryLow)),
        status("d2", None),
        status("d3", Some(Warning::Overheat)),
        status("d4", Some(Warning::BatteryLow)),
        status("d5", None),
    ];
    for d in &devices {
        table.put(d).await.unwrap();
    }

    let low = table.query_all(DeviceStatus::query_by_warning(Warning::BatteryLow)).await.unwrap();
    assert_eq!(low, vec![devices[0].clone(), devices[3].clone()]);
    let hot = table.query_all(DeviceStatus::query_by_warning(Warning::Overheat)).await.unwrap();
    assert_eq!(hot, vec![devices[2].clone()]);

    // Every item reads back, with and without a warning.
    for d in &devices {
        let got = table.get(DeviceStatus::key(d.device_id.as_str())).await.unwrap();
        assert_eq!(got.as_ref(), Some(d));
    }

    // Clearing the warning takes the item out of the index.
    table.put(&status("d1", None)).await.unwrap();
    let low = table.query_all(DeviceStatus::query_by_warning(Warning::BatteryLow)).await.unwrap();
    assert_eq!(low, vec![devices[3].clone()]);

    // So do updates: setting a warning indexes the item, removing it takes it out.
    let d2 = table
        .update(DeviceStatus::update(DeviceStatus::key("d2")).set(DeviceStatus::fields().warning, Warning::Overheat))
        .await
        .unwrap();
    assert_eq!(d2, status("d2", Some(Warning::Overheat)));
    let hot = table.query_all(DeviceStatus::query_by_warning(Warning::Overheat)).await.unwrap();
    assert_eq!(hot, vec![d2, devices[2].clone()]);
    let d3 = table
        .update(DeviceStatus::update(DeviceStatus::key("d3")).remove(DeviceStatus::fields().warning))
        .await
        .unwrap();
    assert_eq!(d3, status("d3", None));
    let hot = table.query_all(DeviceStatus::query_by_warning(Warning::Overheat)).await.unwrap();
    assert_eq!(hot, vec![status("d2", Some(Warning::Overheat))]);
}

/// A helpdesk ticket, assigned or not: the index by agent is sparse on `assignee`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#<org>"]
#[sk = "TICKET#<id>"]
#[gsi1(pk = "ORG#<org>#AGENT#<assignee>", sk = "TICKET#<id>", query = "by_agent")]
pub struct Ticket {
    pub org: String,
    pub id: String,
    pub assignee: Option<String>,
}

fn is_empty_component(e: &dynamo_entity::Error) -> bool {
    let text = e.to_string();
    text.contains("assignee") && text.contains("GSI1PK") && text.contains("never empty")
}

/// One rule for an empty string in an index key's component, on every write path: refused
/// before anything is sent (`None` leaves the item out of the index; an empty component would
/// key it under `ORG#a#AGENT#`, which no query for an agent finds). The table's own keys keep
/// taking an empty component, whose text round-trips.
#[tokio::test]
async fn an_empty_string_never_keys_an_index() {
    let table = common::table("sparse-empty", &[Ticket::SCHEMA]).await;
    let unassigned = Ticket { org: "a".into(), id: "1".into(), assignee: None };
    let empty = Ticket { org: "a".into(), id: "2".into(), assignee: Some(String::new()) };
    let e = empty.to_item().unwrap_err();
    assert!(is_empty_component(&e), "{e}");
    let before = table.requests_sent();
    let e = table.put(&empty).await.unwrap_err();
    assert!(is_empty_component(&e), "put: {e}");
    let e = table.create(&empty).await.unwrap_err();
    assert!(is_empty_component(&e), "create: {e}");
    let e = table.batch_put(&[unassigned.clone(), empty.clone()]).await.unwrap_err();
    assert!(e.to_string().contains("never empty"), "batch_put: {e}");
    let e =
        table.transact().put(&unassigned).put(&Ticket { id: "9".into(), ..empty.clone() }).send().await.unwrap_err();
    assert!(is_empty_component(&e), "transaction: {e}");
    let e = table
        .update(Ticket::update(Ticket::key("a", "1")).set(Ticket::fields().assignee, String::new()))
        .await
        .unwrap_err();
    assert!(is_empty_component(&e), "update: {e}");
    let e = Ticket::query_by_agent("a", "").request().unwrap_err();
    assert!(e.to_string().contains("never empty"), "query: {e}");
    assert_eq!(table.requests_sent(), before, "nothing sent");
    // None: stored, out of the index; a value: in it.
    table.put(&unassigned).await.unwrap();
    table.update(Ticket::update(Ticket::key("a", "1")).set(Ticket::fields().assignee, "ada".to_owned())).await.unwrap();
    assert_eq!(table.query_all(Ticket::query_by_agent("a", "ada")).await.unwrap().len(), 1);
    // The table's keys: an empty org is a value of its own (`ORG#`), read back as written.
    let nameless = Ticket { org: String::new(), id: "3".into(), assignee: None };
    table.put(&nameless).await.unwrap();
    assert_eq!(table.get(Ticket::key("", "3")).await.unwrap(), Some(nameless));
}
