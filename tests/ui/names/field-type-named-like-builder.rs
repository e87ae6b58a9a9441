use dynamo_entity::Entity;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct UserUpdate {
    pub at: u64,
}

#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    pub last: Option<UserUpdate>,
}

fn main() {}
