use dynamo_entity::Entity;

// DynamoDB keys an index on at most four attributes per side.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Wide", pk = ["a"], sk = ["b", "c", "d", "e", "f"])]
pub struct Wide {
    pub player_id: String,
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    pub e: String,
    pub f: String,
}

fn main() {}
