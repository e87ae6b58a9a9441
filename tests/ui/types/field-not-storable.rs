use dynamo_entity::Entity;

pub struct Opaque;

// A field that is neither `Serialize` nor `KeyPart`: one error, at its type.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    pub secret: Opaque,
}

fn main() {}
