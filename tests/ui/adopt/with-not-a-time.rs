use dynamo_entity::Entity;

// A time format on a field that is not a time.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    #[entity(with = "dynamo_entity::time::epoch_millis")]
    pub joined: String,
}

fn main() {}
