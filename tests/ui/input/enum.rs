use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub enum User {
    Admin,
    Member,
}

fn main() {}
