use dynamo_entity::Entity;

// Only `<shard>` may be joined by `.`, `_` or `-`, and by one of them alone.
#[derive(Entity)]
#[pk = "<date>+<shard>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct Plus {
    pub date: String,
    pub id: String,
}

#[derive(Entity)]
#[pk = "<date>.<region>#<shard>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct NotAShard {
    pub date: String,
    pub region: String,
    pub id: String,
}

#[derive(Entity)]
#[pk = "<date>..<shard>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct Twice {
    pub date: String,
    pub id: String,
}

fn main() {}
