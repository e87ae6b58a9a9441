use dynamo_entity::Entity;

// `score` keys ByScore as the field's own attribute (a number), so ByScoreText cannot write
// key text (a string) into the same attribute.
#[derive(Entity)]
#[pk = "PLAYER#<player_id>"]
#[gsi1(index = "ByScore", pk = "<score>", pk_attr = "score")]
#[gsi2(index = "ByScoreText", pk = "SCORE#<score>", pk_attr = "score")]
pub struct Player {
    pub player_id: String,
    pub score: u32,
}

fn main() {}
