use dynamo_entity::Entity;

// A `bool` (BOOL) cannot key an index: each listed field is S, N or B.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id"], sk = ["round", "won"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    pub round: String,
    pub won: bool,
}

fn main() {}
