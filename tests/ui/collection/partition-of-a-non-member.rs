use dynamo_entity::{Collection, Entity};

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "METADATA"]
pub struct Room {
    pub id: String,
}

#[derive(Entity)]
#[pk = "ROOM#<id>"]
#[sk = "PIN#<n>"]
pub struct Pin {
    pub id: String,
    pub n: u32,
}

#[derive(Collection)]
pub enum Items {
    Room(Room),
}

fn main() {
    let _ = Items::query(Pin::partition("r"));
}
