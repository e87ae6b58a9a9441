use dynamo_entity::Entity;

// `#[unique]` on a key field, a skipped field, the TTL, the version, and a field stored `with` a
// module: one error each.
#[derive(Entity)]
#[pk = "USER#<id>"]
#[sk = "PROFILE#<email>"]
pub struct User {
    pub id: String,
    #[unique]
    pub email: String,
    #[unique]
    #[entity(skip)]
    pub cache: String,
    #[unique]
    #[ttl]
    pub expires: std::time::SystemTime,
    #[unique]
    #[version]
    pub version: u64,
    #[unique]
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub seen: std::time::SystemTime,
}

fn main() {}
