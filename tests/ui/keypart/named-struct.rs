use dynamo_entity::KeyPart;

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub struct UserId {
    pub id: String,
}

fn main() {}
