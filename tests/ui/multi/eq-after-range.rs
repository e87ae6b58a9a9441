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

// Nothing follows a range: `round_eq` after `score_gte` does not compile.
fn main() {
    let _ = MatchResult::query_leaderboard("W26", "EU").round().eq("SEMI").score().gte(100u64).round().eq("SEMI");
}
