use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<a>"]
pub union Bits {
    a: u32,
    b: f32,
}

fn main() {}
