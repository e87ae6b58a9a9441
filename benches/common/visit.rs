//! The visit both encryption benches write: one encrypted field among signed ones.

use dynamo_entity::Entity;

/// One encrypted field among signed ones.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "VISIT#<at>"]
#[entity(query = "visits")]
pub struct Visit {
    pub patient_id: String,
    pub at: String,
    pub ward: String,
    pub doctor: String,
    #[encrypt]
    pub diagnosis: String,
}
