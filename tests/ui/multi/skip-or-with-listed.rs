use dynamo_entity::Entity;

// A skipped field keys no index: checked on every listed field, not only the first of each
// list. (`score`'s `with` module, of another type than the index declares, is reported once the
// skip is fixed, by a constant assertion: see `with-other-type-listed.rs`.)
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    #[entity(skip)]
    pub region: String,
    pub round: String,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub score: std::time::SystemTime,
}

fn main() {}
