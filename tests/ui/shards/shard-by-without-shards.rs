use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "EVENTS#<stream>"]
#[sk = "EVENT#<seq:10>"]
#[entity(shard_by = "seq")]
pub struct Event {
    pub stream: String,
    pub seq: u64,
}

fn main() {}
