use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<at:13>"]
#[gsi1(pk = "ALERTS#<day>#<shard>", sk = "<at:13>", shards = 8, shard_by = "level")]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
    pub level: u8,
}

#[derive(Entity)]
#[pk = "EVENTS#<stream>#<shard>"]
#[sk = "EVENT#<seq:10>"]
#[entity(shards = 4, shard_by = "body, nothing")]
pub struct Event {
    pub stream: String,
    pub seq: u64,
    pub body: String,
}

fn main() {}
