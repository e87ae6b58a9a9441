use dynamo_entity::Entity;

// `type_name` is the value of a type attribute that `type_attr = false` does not write.
#[derive(Entity)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[entity(type_attr = false, type_name = "Order")]
pub struct Order {
    pub id: String,
}

fn main() {}
