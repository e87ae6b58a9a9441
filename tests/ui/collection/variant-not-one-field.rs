use dynamo_entity::{Collection, Entity};

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "METADATA"]
pub struct Room {
    pub id: String,
}

#[derive(Collection)]
pub enum Items {
    Room(Room),
    Nothing,
    Pair(Room, Room),
    Named { room: Room },
}

fn main() {}
