use dynamo_entity::Entity;

// Key fields are written as attributes by default: only `false` says something.
#[derive(Entity)]
#[pk = "ORDER#<id>"]
#[entity(key_attributes = true)]
pub struct Order {
    pub id: String,
}

fn main() {}
