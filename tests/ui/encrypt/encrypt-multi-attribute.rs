use dynamo_entity::Entity;

// `#[encrypt]` on the fields of a multi-attribute index (`pk = [..]`, `sk = [..]`): DynamoDB
// keys the index on each field's own attribute, so every listed field is an index key, not only
// the first of each list. One error each.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[sk = "GAME#<game_id>"]
#[gsi1(pk = ["region", "mode"], sk = ["season", "score"], query = "leaderboard")]
pub struct Score {
    pub player_id: String,
    pub game_id: String,
    pub region: String,
    #[encrypt]
    pub mode: String,
    pub season: u32,
    #[encrypt]
    pub score: u64,
}

fn main() {}
