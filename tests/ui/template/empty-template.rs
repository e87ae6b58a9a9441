use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = ""]
pub struct User {
    pub user_id: String,
}

fn main() {}
