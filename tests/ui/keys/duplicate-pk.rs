use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "ROOM#<room_id>"]
#[pk = "CHATROOM#<room_id>"]
pub struct Room {
    pub room_id: String,
}

fn main() {}
