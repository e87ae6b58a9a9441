use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"], query = "leaderboard")]
pub struct MatchResult {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
}

// A range on `score` needs `round_eq` first (DynamoDB conditions the sort-key attributes from the left).
fn main() {
    let _ = MatchResult::query_leaderboard("W26", "EU").score().gte(100u64);
}
