use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "SEEN#<updated>"]
pub struct User {
    pub user_id: String,
    #[updated_at]
    pub updated: std::time::SystemTime,
}

fn main() {}
