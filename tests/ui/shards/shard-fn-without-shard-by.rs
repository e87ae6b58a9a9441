use dynamo_entity::Entity;

fn int_mod(texts: &[&str], shards: u32) -> u32 {
    texts[0].parse::<u32>().unwrap_or(0) % shards
}

#[derive(Entity)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<at:13>"]
#[gsi1(pk = "ALERTS#<day>.<shard:unpadded>", sk = "<at:13>", shards = 8, shard_fn = "int_mod")]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
}

fn main() {}
