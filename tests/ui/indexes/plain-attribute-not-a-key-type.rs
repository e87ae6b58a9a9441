use dynamo_entity::Entity;

// A `bool` attribute (BOOL) cannot key an index: key attributes are strings, numbers or binary.
#[derive(Entity)]
#[pk = "GAME#<game_id>"]
#[gsi1(index = "ByOpen", pk = "<open>", pk_attr = "open")]
pub struct Game {
    pub game_id: String,
    pub open: bool,
}

fn main() {}
