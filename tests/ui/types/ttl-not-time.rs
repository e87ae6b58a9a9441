use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SESSION#<id>"]
pub struct Session {
    pub id: String,
    #[ttl]
    pub expires_at_ms: u64,
}

fn main() {}
