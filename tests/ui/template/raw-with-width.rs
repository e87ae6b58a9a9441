use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "SEQ#<n:raw:8>"]
pub struct Counter {
    pub n: u64,
}

fn main() {}
