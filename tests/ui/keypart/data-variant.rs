use dynamo_entity::KeyPart;

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub enum Status {
    Active,
    Suspended(String),
}

fn main() {}
