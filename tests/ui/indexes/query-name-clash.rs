use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "EMAIL#<email>", query = "by_user")]
pub struct User {
    pub user_id: String,
    pub email: String,
}

fn main() {}
