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

/// A DynamoDB client with DB-ESDK configured by hand for [`Visit`]'s items in `table` (its keys,
/// the type attribute and the fields signed, the diagnosis encrypted), as AWS's examples
/// configure it: what a user of the SDK alone reads and writes with `keyring`.
#[allow(dead_code)]
pub fn sdk_client_for_visits(
    table: &dynamo_entity::Table,
    keyring: dynamo_entity::encryption::aws_db_esdk::material_providers::types::keyring::KeyringRef,
) -> aws_sdk_dynamodb::Client {
    use dynamo_entity::encryption::aws_db_esdk::dynamodb::types::DynamoDbTableEncryptionConfig;
    use dynamo_entity::encryption::aws_db_esdk::intercept::DbEsdkInterceptor;
    use dynamo_entity::encryption::aws_db_esdk::{CryptoAction, DynamoDbTablesEncryptionConfig};
    let signed = ["PK", "SK", "entity_type", "patient_id", "at", "ward"];
    let mut actions: std::collections::HashMap<String, CryptoAction> =
        signed.iter().map(|a| ((*a).to_owned(), CryptoAction::SignOnly)).collect();
    actions.insert("diagnosis".to_owned(), CryptoAction::EncryptAndSign);
    let config = DynamoDbTableEncryptionConfig::builder()
        .logical_table_name(table.name())
        .partition_key_name("PK")
        .sort_key_name("SK")
        .attribute_actions_on_encrypt(actions)
        .keyring(keyring)
        .build()
        .unwrap();
    let configs = DynamoDbTablesEncryptionConfig::builder()
        .table_encryption_configs(std::collections::HashMap::from([(table.name().to_owned(), config)]))
        .build()
        .unwrap();
    let conf = table.client().config().to_builder().interceptor(DbEsdkInterceptor::new(configs).unwrap()).build();
    aws_sdk_dynamodb::Client::from_conf(conf)
}
