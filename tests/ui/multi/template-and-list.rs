use dynamo_entity::Entity;

// A template on one side and a list on the other: one kind of key per index.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = "T#<tournament_id>", sk = ["round", "score"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    pub round: String,
    pub score: u64,
}

// A template inside a list.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["T#<tournament_id>", "region"])]
pub struct Result2 {
    pub player_id: String,
    pub tournament_id: String,
    pub region: String,
}

fn main() {}
