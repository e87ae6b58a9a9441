//! The clinic the encryption tests share (feature `encryption`): visits with an encrypted
//! diagnosis, plain notes in the same partitions, the collection of both, and the raw AES
//! keyring the items are written with.

use dynamo_entity::Entity;
use dynamo_entity::encryption::Keyring;

/// A visit: its diagnosis encrypted, the rest signed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "VISIT#<at>"]
#[entity(query = "visits")]
pub struct Visit {
    pub patient_id: String,
    pub at: String,
    pub ward: String,
    #[encrypt]
    pub diagnosis: String,
}

/// A plain entity (never encrypted) in the visits' partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "NOTE#<id>"]
pub struct Note {
    pub patient_id: String,
    pub id: String,
    pub text: String,
}

#[derive(dynamo_entity::Collection, Debug, Clone, PartialEq)]
pub enum Chart {
    Visit(Visit),
    Note(Note),
}

/// The key the items are written with.
pub const KEY: [u8; 32] = [7u8; 32];

/// DB-ESDK's raw AES keyring on [`KEY`], as `app` / `key-1`.
pub fn keyring() -> Keyring {
    Keyring::raw_aes("app", "key-1", KEY)
}
