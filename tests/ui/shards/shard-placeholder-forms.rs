use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "EVENTS#<stream>#<shard:2>"]
#[sk = "EVENT#<seq:10>"]
pub struct Event {
    pub stream: String,
    pub seq: u64,
}

#[derive(Entity)]
#[pk = "EVENTS#<shard>#<stream>#<shard>"]
#[sk = "EVENT#<seq:10>"]
pub struct Again {
    pub stream: String,
    pub seq: u64,
}

fn main() {}
