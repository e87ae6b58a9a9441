use dynamo_entity::Entity;

// Only strings are escaped, so only a `String` can opt out.
#[derive(Entity)]
#[pk = "ORDER#<id>"]
#[sk = "ITEM#<n:raw>"]
pub struct Line {
    pub id: String,
    pub n: u32,
}

fn main() {}
