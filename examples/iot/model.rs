//! The entities of an IoT fleet (seed 003's key study: a day's readings are one hot partition):
//! every sensor reports every few seconds, and the day's readings, written to one partition
//! `DAY#<day>`, would pass the 1,000 write units a partition takes per second. Sharding spreads
//! them:
//! - the table's partition `DAY#<day>#<shard>` has 8 shards, picked by the sensor
//!   (`shard_by = "sensor_id"`): one sensor's readings of a day stay in one shard, so reading
//!   them is one Query; the whole day is 8 Queries, merged in key order;
//! - `AlertsByDay` (`ALERTS#<day>#<shard>`, 4 shards at random) holds only the readings that
//!   raised an alert (a sparse index: `alert` is `None` otherwise), newest first across shards.

use dynamo_entity::{Entity, TableDefinition};

/// The table name (prefixed with the process id when the example runs).
pub const TABLE_NAME: &str = "iot";

/// A reading of one sensor at one time.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DAY#<day>#<shard>"]
#[sk = "SENSOR#<sensor_id>#<at:13>"]
#[entity(shards = 8, shard_by = "sensor_id")]
#[gsi1(
    index = "AlertsByDay",
    pk = "ALERTS#<day>#<shard>",
    sk = "<at:13>#<sensor_id>#<alert>",
    query = "alerts_by_day",
    shards = 4
)]
pub struct Reading {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    pub sensor_id: String,
    /// Epoch milliseconds.
    pub at: u64,
    /// Degrees Celsius, in tenths.
    pub value: i32,
    /// `Some("HIGH")` when the value crossed a threshold: the reading is in `AlertsByDay`.
    pub alert: Option<String>,
}

/// The table the entities need.
pub fn definition() -> Result<TableDefinition, dynamo_entity::Error> {
    TableDefinition::from_entities(&[Reading::SCHEMA])
}
