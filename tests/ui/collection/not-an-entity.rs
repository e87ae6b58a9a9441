use dynamo_entity::{Collection, Entity};

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "METADATA"]
pub struct Room {
    pub id: String,
}

pub struct Plain {
    pub id: String,
}

#[derive(Collection)]
pub enum Items {
    Room(Room),
    Plain(Plain),
}

fn main() {}
