use dynamo_entity::Entity;

// A raw component may hold `#`: it can only be the last part of a template.
#[derive(Entity)]
#[pk = "USER#<username:raw>#PROFILE"]
pub struct User {
    pub username: String,
}

#[derive(Entity)]
#[pk = "ROOM#<room>"]
#[sk = "MEMBER#<member:raw>#<since>"]
pub struct Member {
    pub room: String,
    pub member: String,
    pub since: u64,
}

fn main() {}
