use dynamo_entity::Entity;

// A listed field that the struct does not have.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "regoin"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    pub region: String,
}

fn main() {}
