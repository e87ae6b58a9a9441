use dynamo_entity::Entity;
use std::time::SystemTime;

#[derive(Entity)]
#[pk = "SESSION#<id>"]
pub struct Session {
    pub id: String,
    #[ttl]
    pub expires: SystemTime,
    #[ttl]
    pub purge_at: SystemTime,
}

fn main() {}
