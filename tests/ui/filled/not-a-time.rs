use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    #[created_at]
    pub created: String,
}

fn main() {}
