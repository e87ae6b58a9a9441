use dynamo_entity::Entity;

// A field stored `with` a module keys an index on its own attribute only when the module keeps
// the type the index declares: `epoch_millis` writes a number (N), a time keys an index as a
// string (S). Checked on every listed field, not only the first of each list.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id"], sk = ["round", "finished_at"])]
pub struct Result1 {
    pub player_id: String,
    pub tournament_id: String,
    pub round: String,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub finished_at: std::time::SystemTime,
}

fn main() {}
