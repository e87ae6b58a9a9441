use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>-profile"]
pub struct User {
    pub user_id: String,
}

fn main() {}
