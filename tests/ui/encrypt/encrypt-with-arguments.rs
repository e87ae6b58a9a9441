use dynamo_entity::Entity;

// `#[encrypt]` takes no arguments.
#[derive(Entity)]
#[pk = "PATIENT#<patient_id>"]
pub struct Patient {
    pub patient_id: String,
    #[encrypt(kms)]
    pub diagnosis: String,
}

fn main() {}
