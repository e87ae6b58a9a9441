use dynamo_entity::Entity;

// An encrypted field offers no condition or filter: DynamoDB holds only its ciphertext. (The
// UI tests build without the feature `encryption`, so the derive also says it needs it.)
#[derive(Entity)]
#[pk = "PATIENT#<patient_id>"]
pub struct Patient {
    pub patient_id: String,
    #[encrypt]
    pub diagnosis: String,
}

fn main() {
    let _ = Patient::fields().diagnosis.eq("flu");
    let _ = Patient::fields().diagnosis.exists();
}
