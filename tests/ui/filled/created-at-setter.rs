use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    pub name: String,
    #[created_at]
    pub created: std::time::SystemTime,
}

fn main() {
    let _ = User::update(User::key("u1")).set(User::fields().created, std::time::SystemTime::now());
}
