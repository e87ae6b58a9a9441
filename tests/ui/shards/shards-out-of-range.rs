use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<at:13>"]
#[gsi1(pk = "ALERTS#<day>#<shard>", sk = "<at:13>", shards = 1)]
#[gsi2(pk = "DAY#<day>#<shard>", sk = "<at:13>", shards = 513)]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
}

fn main() {}
