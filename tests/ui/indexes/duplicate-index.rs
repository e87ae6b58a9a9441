use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "EMAIL#<email>")]
#[gsi1(pk = "NAME#<name>")]
pub struct User {
    pub user_id: String,
    pub email: String,
    pub name: String,
}

fn main() {}
