use dynamo_entity::Entity;

// An inverted index reuses the table's SK only with the sort key's own template.
#[derive(Entity)]
#[pk = "GAME#<game_id>"]
#[sk = "USER#<username>"]
#[gsi1(index = "InvertedIndex", pk = "PLAYER#<username>", sk = "GAME#<game_id>", pk_attr = "SK", sk_attr = "PK")]
pub struct UserGameMapping {
    pub game_id: String,
    pub username: String,
}

fn main() {}
