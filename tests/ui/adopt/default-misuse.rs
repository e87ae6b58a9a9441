use dynamo_entity::Entity;

// `default` where it means nothing, and `with` where the format is fixed.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    #[version]
    #[entity(default)]
    pub version: u64,
    #[ttl]
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub expires: std::time::SystemTime,
    #[entity(skip, default = "Self::nothing")]
    pub cache: u32,
    #[entity(default = "not a path")]
    pub name: String,
}

fn main() {}
