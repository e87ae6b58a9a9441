use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id:10>"]
pub struct User {
    pub user_id: String,
}

fn main() {}
