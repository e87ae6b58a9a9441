use dynamo_entity::Entity;

// `#[encrypt]` on a `shard_by` field: its key text picks the shard and sorts the items.
#[derive(Entity)]
#[pk = "SENSOR#<day>#<shard>"]
#[sk = "<sensor_id>#<at>"]
#[entity(shards = 4, shard_by = "sensor_id")]
pub struct Reading {
    pub day: String,
    pub at: String,
    #[encrypt]
    pub sensor_id: String,
}

fn main() {}
