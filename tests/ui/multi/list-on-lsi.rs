use dynamo_entity::Entity;

// Multi-attribute keys are for global secondary indexes only, not local ones.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[lsi1(index = "ByRound", sk = ["round", "score"])]
pub struct Result1 {
    pub player_id: String,
    pub match_id: String,
    pub round: String,
    pub score: u64,
}

fn main() {}
