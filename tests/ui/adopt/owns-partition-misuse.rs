use dynamo_entity::Entity;

// `owns_partition = true` says the key alone identifies the entity: only meaningful without a
// type attribute, and only `true` says anything.
#[derive(Entity)]
#[pk = "DEVICE#<device_id>"]
#[sk = "<date>"]
#[entity(owns_partition = true)]
pub struct Reading {
    pub device_id: String,
    pub date: String,
}

#[derive(Entity)]
#[pk = "DEVICE#<device_id>"]
#[sk = "<date>"]
#[entity(type_attr = false, owns_partition = false)]
pub struct Sample {
    pub device_id: String,
    pub date: String,
}

fn main() {}
