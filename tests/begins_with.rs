//! `<field>_begins_with(prefix)` on a string component of a sort key (issue 21, item 20),
//! exact like the other conditions: the AWS device-state-log design's "a device's warnings of a
//! day", with other items in the same partition.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, Table};

/// A device's state changes: `WARNING4#2020-04-27T10:00:00`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<device_id>"]
#[sk = "<state>#<date>"]
#[entity(type_attr = "Type")]
pub struct StateLog {
    pub device_id: String,
    pub state: String,
    pub date: String,
    pub operator: String,
}

/// The device's metadata, in the same partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<device_id>"]
#[sk = "Metadata"]
#[entity(type_attr = "Type")]
pub struct Metadata {
    pub device_id: String,
    pub model: String,
}

fn log(state: &str, date: &str) -> StateLog {
    StateLog { device_id: "d#1".into(), state: state.into(), date: date.into(), operator: "op".into() }
}

async fn table(test: &str) -> Table {
    common::table(test, &[StateLog::SCHEMA, Metadata::SCHEMA]).await
}

#[tokio::test]
async fn begins_with_on_a_component_is_exact() {
    let table = table("begins-with").await;
    let logs = [
        log("WARNING4", "2020-04-27T10:00:00"),
        log("WARNING4", "2020-04-27T23:59:59"),
        log("WARNING4", "2020-04-28T00:00:00"),
        log("WARNING40", "2020-04-27T11:00:00"),
        log("WARNING4", "2020-04-2"),
        log("NORMAL", "2020-04-27T12:00:00"),
    ];
    table.batch_put(&logs).await.unwrap();
    table.put(&Metadata { device_id: "d#1".into(), model: "m".into() }).await.unwrap();

    let day =
        table.query_all(StateLog::query_by_device("d#1").state().eq("WARNING4").date().begins_with("2020-04-27")).await;
    assert_eq!(day.unwrap(), vec![logs[0].clone(), logs[1].clone()]);

    // On the first component: WARNING4 and WARNING40, never Metadata or NORMAL.
    let warnings = table.query_all(StateLog::query_by_device("d#1").state().begins_with("WARN")).await.unwrap();
    assert_eq!(warnings.len(), 5);
    assert!(warnings.iter().all(|l| l.state.starts_with("WARN")));
    let req = StateLog::query_by_device("d#1").state().begins_with("WARN").request().unwrap();
    assert_eq!(req.key_condition_expression, "#pk = :pk AND begins_with(#sk, :sk)");

    // The prefix is escaped as the key is: `#` in a prefix cannot reach into the next component.
    table.put(&log("A#B", "2020")).await.unwrap();
    let escaped = table.query_all(StateLog::query_by_device("d#1").state().begins_with("A#")).await.unwrap();
    assert_eq!(escaped, vec![log("A#B", "2020")]);
    assert!(table.query_all(StateLog::query_by_device("d#1").state().begins_with("A%")).await.unwrap().is_empty());

    // Descending, limited: the newest warning of the day.
    let newest = table
        .query(
            StateLog::query_by_device("d#1")
                .state()
                .eq("WARNING4")
                .date()
                .begins_with("2020-04-27")
                .descending()
                .limit(1),
        )
        .await
        .unwrap();
    assert_eq!(newest.items, vec![logs[1].clone()]);
    let rest = table
        .query(
            StateLog::query_by_device("d#1")
                .state()
                .eq("WARNING4")
                .date()
                .begins_with("2020-04-27")
                .descending()
                .limit(5)
                .after(newest.next.unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(rest.items, vec![logs[0].clone()]);
}
