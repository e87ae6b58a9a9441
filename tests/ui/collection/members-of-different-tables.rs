use dynamo_entity::{Collection, Entity};

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "METADATA"]
pub struct Room {
    pub id: String,
}

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "MESSAGE#<n>"]
#[entity(pk_attr = "pk", sk_attr = "sk")]
pub struct Message {
    pub id: String,
    pub n: u32,
}

#[derive(Collection)]
pub enum Items {
    Room(Room),
    Message(Message),
}

fn main() {}
