use dynamo_entity::Entity;

// Multi-attribute keys are for global secondary indexes only, not the table's key.
#[derive(Entity)]
#[pk = ["tournament_id", "region"]]
pub struct Result1 {
    pub tournament_id: String,
    pub region: String,
}

fn main() {}
