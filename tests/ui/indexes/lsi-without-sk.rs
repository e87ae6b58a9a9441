use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[lsi1(sk = "EMAIL#<email>")]
pub struct User {
    pub user_id: String,
    pub email: String,
}

fn main() {}
