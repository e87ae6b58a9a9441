use dynamo_entity::{Entity, View};

#[derive(Entity)]
#[pk = "ORDER#<id>"]
pub struct Order {
    pub id: String,
    pub total: u64,
}

#[derive(View)]
#[view(entity = "Order")]
pub struct Summary {
    pub id: String,
    pub totl: u64,
}

fn main() {}
