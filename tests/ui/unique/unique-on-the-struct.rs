use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<id>"]
#[unique]
pub struct User {
    pub id: String,
    pub email: String,
}

fn main() {}
