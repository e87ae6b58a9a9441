use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(sk = "<created_at>")]
pub struct User {
    pub user_id: String,
    pub created_at: String,
}

fn main() {}
