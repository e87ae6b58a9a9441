use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "BOX#<id>"]
pub struct Boxed<T> {
    pub id: String,
    pub value: T,
}

fn main() {}
