use dynamo_entity::Entity;

// `#[encrypt]` on what DynamoDB reads or compares: a primary-key field, a field of an index's
// key template, a field an index's `include` names, a skipped field, `#[unique]`, the TTL and the
// version. One error each.
#[derive(Entity)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "VISIT#<at>"]
#[gsi1(pk = "WARD#<ward>", sk = "<at>", query = "by_ward")]
#[gsi2(pk = "DOCTOR#<doctor>", query = "by_doctor", include = "notes")]
pub struct Visit {
    #[encrypt]
    pub patient_id: String,
    #[encrypt]
    pub at: String,
    #[encrypt]
    pub ward: String,
    pub doctor: String,
    #[encrypt]
    pub notes: String,
    #[encrypt]
    #[entity(skip)]
    pub cache: String,
    #[encrypt]
    #[unique]
    pub ssn: String,
    #[encrypt]
    #[ttl]
    pub expires: std::time::SystemTime,
    #[encrypt]
    #[version]
    pub version: u64,
}

fn main() {}
