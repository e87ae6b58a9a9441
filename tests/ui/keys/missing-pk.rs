use dynamo_entity::Entity;

#[derive(Entity)]
#[sk = "METADATA"]
pub struct Room {
    pub room_id: String,
}

fn main() {}
