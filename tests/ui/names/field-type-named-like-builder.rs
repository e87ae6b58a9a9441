use dynamo_entity::Entity;

#[derive(serde::Serialize, serde::Deserialize)]
pub struct UserFields {
    pub at: u64,
}

#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    pub last: Option<UserFields>,
}

fn main() {}
