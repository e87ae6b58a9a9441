use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "ROOM#<room_id>"]
#[sk = "MESSAGE#<ts:0>"]
pub struct Message {
    pub room_id: String,
    pub ts: u64,
}

fn main() {}
