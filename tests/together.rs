//! The fourth stage's features on one entity, against DynamoDB Local: a multi-attribute index
//! key, a nested document, filled times, validators, `write_batch`, and `plan` of the table.
//! Each feature has its own tests; these check that they hold together (a nested update stamps
//! `#[updated_at]`, a validator refuses a batch whole, an index keyed on plain attributes follows
//! a `set`, and the table the entities create is what `plan` expects).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::{Document, Entity, Error, Table, TableDefinition};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Stats {
    pub wins: u32,
    pub notes: Vec<String>,
}

fn valid_region(region: &String) -> Result<(), String> {
    if region.len() == 2 { Ok(()) } else { Err(format!("`{region}` is not a two-letter region")) }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "ENTRY#<tournament_id>"]
#[gsi1(index = "Board", pk = ["tournament_id", "region"], sk = ["score"], query = "board")]
pub struct Entry {
    pub player_id: String,
    pub tournament_id: String,
    #[entity(validate = "valid_region")]
    pub region: String,
    pub score: u64,
    pub stats: Stats,
    #[created_at]
    pub created: SystemTime,
    #[updated_at]
    pub updated: SystemTime,
}

/// Another entity of the table: its items sit beside the entries and must not disturb them.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "PROFILE"]
pub struct Player {
    pub player_id: String,
    pub name: String,
}

const BASE: u64 = 1_800_000_000;

fn at(s: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(BASE + s)
}

/// A clock reading `BASE + n` seconds at its n-th reading.
fn stepping(table: &Table) -> Table {
    let n = Arc::new(AtomicU64::new(0));
    table.clone().with_clock(move || at(n.fetch_add(1, Ordering::SeqCst)))
}

fn entry(player: &str, region: &str, score: u64) -> Entry {
    Entry {
        player_id: player.into(),
        tournament_id: "W27".into(),
        region: region.into(),
        score,
        stats: Stats::default(),
        created: UNIX_EPOCH,
        updated: UNIX_EPOCH,
    }
}

async fn table(test: &str) -> Table {
    stepping(&common::table(test, &[Entry::SCHEMA, Player::SCHEMA]).await)
}

async fn board(table: &Table, region: &str) -> Vec<(String, u64)> {
    let rows = table.query_all(Entry::query_board("W27", region).score().gte(0u64)).await.unwrap();
    rows.into_iter().map(|e| (e.player_id, e.score)).collect()
}

#[tokio::test]
async fn filled_times_follow_a_nested_update_and_the_index_follows_a_setter() {
    let table = table("together_filled_nested").await;
    table.put(&Player { player_id: "a".into(), name: "Ann".into() }).await.unwrap();

    let saved = table.create(&entry("a", "EU", 10)).returning().await.unwrap();
    assert_eq!((saved.created, saved.updated), (at(0), at(0)), "one reading for both");
    table.create(&entry("b", "EU", 30)).await.unwrap();
    assert_eq!(board(&table, "EU").await, [("a".into(), 10), ("b".into(), 30)]);

    // A nested update is an update like any other: it stamps `updated`, keeps `created`.
    let f = Entry::fields();
    table
        .update(
            Entry::update(Entry::key("a", "W27"))
                .set(f.stats.wins, 3u32)
                .append(f.stats.notes, vec!["first win".to_string()]),
        )
        .await
        .unwrap();
    let a = table.get(Entry::key("a", "W27")).await.unwrap().unwrap();
    assert_eq!(a.stats, Stats { wins: 3, notes: vec!["first win".into()] });
    assert_eq!((a.created, a.updated), (at(0), at(2)));

    // Setting a listed field moves the item in the index: by score, then to another region.
    table.update(Entry::update(Entry::key("a", "W27")).set(Entry::fields().score, 50)).await.unwrap();
    assert_eq!(board(&table, "EU").await, [("b".into(), 30), ("a".into(), 50)]);
    table.update(Entry::update(Entry::key("a", "W27")).set(Entry::fields().region, "US")).await.unwrap();
    assert_eq!(board(&table, "EU").await, [("b".into(), 30)]);
    assert_eq!(board(&table, "US").await, [("a".into(), 50)]);
    let a = table.get(Entry::key("a", "W27")).await.unwrap().unwrap();
    assert_eq!((a.created, a.updated, a.stats.wins), (at(0), at(4), 3), "each update stamped once");
}

#[tokio::test]
async fn a_validator_refuses_a_setter_and_a_mixed_batch_whole() {
    let table = table("together_validate_batch").await;
    table.create(&entry("a", "EU", 10)).await.unwrap();

    let r = table.update(Entry::update(Entry::key("a", "W27")).set(Entry::fields().region, "Europe")).await;
    assert!(matches!(r, Err(Error::Invalid { field: Some("region"), .. })), "{r:?}");

    let batch = table
        .write_batch()
        .put(&Player { player_id: "c".into(), name: "Cy".into() })
        .put(&entry("c", "EU", 5))
        .put(&entry("d", "Europe", 7))
        .delete(Entry::key("a", "W27"));
    let r = batch.send().await;
    assert!(matches!(r, Err(Error::Invalid { field: Some("region"), .. })), "{r:?}");

    // Nothing of either request was sent: the table holds what it held.
    let raw = common::raw_items(&table).await;
    assert_eq!(raw.len(), 1, "{raw:?}");
    assert_eq!(board(&table, "EU").await, [("a".into(), 10)]);

    // The same batch without the invalid entry lands whole, each item stamped.
    table
        .write_batch()
        .put(&Player { player_id: "c".into(), name: "Cy".into() })
        .put(&entry("c", "EU", 5))
        .delete(Entry::key("a", "W27"))
        .send()
        .await
        .unwrap();
    assert_eq!(board(&table, "EU").await, [("c".into(), 5)]);
    let c = table.get(Entry::key("c", "W27")).await.unwrap().unwrap();
    assert_ne!(c.updated, UNIX_EPOCH, "a batch put stamps `updated`");
    assert_eq!(c.created, UNIX_EPOCH, "a put writes the creation time the struct holds");
}

#[tokio::test]
async fn the_table_the_entities_create_is_what_plan_expects() {
    let table = table("together_plan").await;
    let def = TableDefinition::from_entities(&[Entry::SCHEMA, Player::SCHEMA]).unwrap();
    let plan = table.plan(&def).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    let applied = table.apply(&def).await.unwrap();
    assert!(applied.is_empty(), "{applied}");
}
