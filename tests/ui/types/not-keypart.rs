use dynamo_entity::Entity;

pub struct Email(String);

#[derive(Entity)]
#[pk = "USER#<email>"]
pub struct User {
    pub email: Email,
}

fn main() {}
