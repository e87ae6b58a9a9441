use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<at:13>"]
#[gsi1(pk = "ALERTS#<day>", sk = "<at:13>", shards = 8)]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
}

fn main() {}
