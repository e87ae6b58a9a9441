use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "<date>.<shard:unpaded>"]
#[sk = "ORDER#<id>"]
#[entity(shards = 12, shard_by = "id")]
pub struct Order {
    pub date: String,
    pub id: String,
}

fn main() {}
