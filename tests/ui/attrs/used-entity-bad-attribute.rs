use dynamo_entity::prelude::*;

// One mistake (`#[updated_at]` in a key of a multi-attribute index) in an entity that the rest of
// the file uses: one error, at the attribute. The multi-attribute query, the setters, the
// fields and a transaction stay quiet.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "seen"], query = "leaderboard")]
pub struct MatchResult {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
    #[updated_at]
    pub seen: std::time::SystemTime,
}

pub async fn uses(table: &Table, m: &MatchResult) -> Result<(), dynamo_entity::Error> {
    let _: Vec<MatchResult> =
        table.query_all(MatchResult::query_leaderboard("W26", "EU").round().eq("SEMI").into_query()).await?;
    let _ = MatchResult::partition_leaderboard("W26", "EU");
    let update = MatchResult::update(MatchResult::key("p1", "m1")).set(MatchResult::fields().score, 10u64).add(MatchResult::fields().score, 1u64);
    let _: MatchResult = table.update(update.condition(MatchResult::fields().score.lt(100u64))).await?;
    table.transact().put(m).update(MatchResult::update_from(m).set(MatchResult::fields().round, "FINAL")).send().await?;
    Ok(())
}

fn main() {}
