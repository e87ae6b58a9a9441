//! A game leaderboard on DynamoDB's multi-attribute index keys (November 2025), the design
//! AWS's "Multi-attribute keys" pattern and ElectroDB's "composite" index describe: each match
//! result is stored once under its player (`PLAYER#<player_id>` / `MATCH#<match_id>`), and
//! `Leaderboard` is keyed on the attributes the result holds anyway:
//! - HASH `tournament_id` + `region` (two attributes, S and S): one leaderboard per tournament
//!   and region, without a `TOURNAMENT#<t>#REGION#<r>` copy;
//! - RANGE `round` + `score` (S and N): ordered by round, then by score as a number.
//!
//! A result with no `replay` is not in the sparse `Replays` index (HASH `region`, RANGE
//! `replay_id` + `score`).

use dynamo_entity::Entity;

/// A player's result in one match of a tournament.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"], query = "leaderboard")]
#[gsi2(index = "Replays", pk = ["region"], sk = ["replay_id", "score"], query = "replays")]
pub struct MatchResult {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
    /// Set when the match was recorded: only then is the result in `Replays`.
    pub replay_id: Option<String>,
}

pub const TABLE_NAME: &str = "leaderboard";

/// The entities of the table.
pub fn schemas() -> [dynamo_entity::EntitySchema; 1] {
    [MatchResult::SCHEMA]
}

/// The table: on demand, both indexes projecting all attributes.
#[allow(dead_code)]
pub fn definition() -> Result<dynamo_entity::TableDefinition, dynamo_entity::Error> {
    dynamo_entity::TableDefinition::from_entities(&schemas())
}
