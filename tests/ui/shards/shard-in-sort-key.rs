use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<shard>#<at:13>"]
#[gsi1(pk = "ALERTS#<day>#<shard>", sk = "<at:13>#<shard>", shards = 8)]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
}

fn main() {}
