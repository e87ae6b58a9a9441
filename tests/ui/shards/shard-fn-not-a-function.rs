use dynamo_entity::Entity;

fn two_args(texts: &[&str]) -> u32 {
    texts.len() as u32
}

#[derive(Entity)]
#[pk = "<date>.<shard>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 4, shard_by = "id", shard_fn = "not a path")]
pub struct Order {
    pub date: String,
    pub id: String,
}

#[derive(Entity)]
#[pk = "<date>.<shard>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 4, shard_by = "id", shard_fn = "two_args")]
pub struct Other {
    pub date: String,
    pub id: String,
}

fn main() {}
