use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "EVENTS#<stream>"]
#[sk = "EVENT#<seq:10>"]
#[lsi1(sk = "AT#<at:13>", shards = 4)]
pub struct Event {
    pub stream: String,
    pub seq: u64,
    pub at: u64,
}

fn main() {}
