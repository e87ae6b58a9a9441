use dynamo_entity::Entity;

// One attribute keys an index once: here in the partition key and again in the sort key.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["region", "score"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    pub region: String,
    pub score: u64,
}

fn main() {}
