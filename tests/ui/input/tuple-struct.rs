use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<0>"]
pub struct User(String);

fn main() {}
