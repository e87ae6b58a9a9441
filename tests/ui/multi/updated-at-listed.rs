use dynamo_entity::Entity;

// `#[updated_at]` keys no index, wherever a list names it: first, or after another field.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Recent", pk = ["tournament_id"], sk = ["round", "seen"])]
pub struct Seen {
    pub player_id: String,
    pub tournament_id: String,
    pub round: String,
    #[updated_at]
    pub seen: std::time::SystemTime,
}

#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "ByDay", pk = ["tournament_id", "day"])]
pub struct Daily {
    pub player_id: String,
    pub tournament_id: String,
    #[updated_at]
    pub day: std::time::SystemTime,
}

#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "First", pk = ["seen"])]
pub struct First {
    pub player_id: String,
    #[updated_at]
    pub seen: std::time::SystemTime,
}

fn main() {}
