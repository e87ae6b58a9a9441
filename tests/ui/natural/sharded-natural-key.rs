use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "<device_id>"]
#[sk = "<at>"]
#[entity(pk_attr = "deviceId", sk_attr = "at", rename_all = "camelCase", shards = 4, shard_by = "device_id")]
struct Reading {
    device_id: String,
    at: u64,
    value: i64,
}

fn main() {}
