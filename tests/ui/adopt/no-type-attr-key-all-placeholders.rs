use dynamo_entity::Entity;

// Without a type attribute an item is recognised by its key alone: a sort key made only of
// placeholders would take other entities' items in the partition for its own.
#[derive(Entity)]
#[pk = "DEVICE#<device_id>"]
#[sk = "<date>"]
#[entity(type_attr = false)]
pub struct Reading {
    pub device_id: String,
    pub date: String,
}

fn main() {}
