use dynamo_entity::Entity;

// With `rename_all = "camelCase"`, `open_timestamp` is stored as `openTimestamp`: the index
// must name that attribute to key on it.
#[derive(Entity)]
#[pk = "GAME#<game_id>"]
#[gsi1(index = "OpenGamesIndex", pk = "<map>", sk = "<open_timestamp>", pk_attr = "map", sk_attr = "open_timestamp")]
#[entity(rename_all = "camelCase")]
pub struct Game {
    pub game_id: String,
    pub map: String,
    pub open_timestamp: Option<String>,
}

fn main() {}
