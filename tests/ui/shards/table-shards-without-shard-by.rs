use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "EVENTS#<stream>#<shard>"]
#[sk = "EVENT#<seq:10>"]
#[entity(shards = 4)]
pub struct Event {
    pub stream: String,
    pub seq: u64,
}

fn main() {}
