use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "EMAIL#<email>", index = "ByEmail")]
#[gsi2(pk = "NAME#<name>", index = "ByEmail")]
pub struct User {
    pub user_id: String,
    pub email: String,
    pub name: String,
}

fn main() {}
