//! Client-side encryption on AWS's Database Encryption SDK for DynamoDB (`aws-db-esdk`):
//! [`Table::with_encryption`] gives a handle whose client carries DB-ESDK's interceptor,
//! configured from the entities' schemas. `#[encrypt]` fields are ENCRYPT_AND_SIGN; the table's
//! key attributes, the type attribute, the index keys and every other attribute the entities
//! write are SIGN_ONLY. Items are DB-ESDK's format: any DB-ESDK client (Java, Python, .NET,
//! Rust) with the same keyring and attribute actions reads them.

use std::collections::HashMap;
use std::sync::Arc;

use aws_db_esdk::CryptoAction;
use aws_db_esdk::DynamoDbTablesEncryptionConfig;
use aws_db_esdk::dynamodb::types::DynamoDbTableEncryptionConfig;
use aws_db_esdk::dynamodb::types::PlaintextOverride;
use aws_db_esdk::intercept::DbEsdkInterceptor;
use aws_sdk_dynamodb::config::SharedInterceptor;

use crate::model::entity::EntitySchema;

use crate::error::Error;
use crate::table::Table;

mod pool;
mod size;
mod stream;

/// AWS's Database Encryption SDK, as this crate builds on it: for configuring a plain SDK
/// client that reads the same items (its `DbEsdkInterceptor`).
pub use aws_db_esdk;
/// AWS's KMS client, as [`Keyring::kms_with_client`] takes it.
pub use aws_sdk_kms;

mod key_store;
mod keyring;
pub use key_store::KeyStore;
pub use keyring::{BranchKeys, Keyring};

pub use crate::table::encryption::Suite;
pub(crate) use crate::table::encryption::{Configured, Encryption};

/// The attribute actions of `schemas`: `#[encrypt]` attributes ENCRYPT_AND_SIGN, every other
/// attribute their items hold SIGN_ONLY. An attribute encrypted by one entity and not by
/// another is an error (one table, one action per attribute name).
fn actions(schemas: &[EntitySchema]) -> Result<HashMap<String, CryptoAction>, Error> {
    let mut out: HashMap<String, (CryptoAction, &'static str)> = HashMap::new();
    let mut put = |attr: &str, action: CryptoAction, entity: &'static str| -> Result<(), Error> {
        if attr.is_empty() {
            return Ok(());
        }
        match out.get(attr) {
            Some((a, other)) if *a != action => Err(Error::Validation(format!(
                "attribute `{attr}` is encrypted by {} and only signed by {}: DB-ESDK keeps one action per attribute \
                 name of a table; rename one of them",
                if action == CryptoAction::EncryptAndSign { entity } else { other },
                if action == CryptoAction::EncryptAndSign { other } else { entity },
            ))),
            Some(_) => Ok(()),
            None => {
                out.insert(attr.to_owned(), (action, entity));
                Ok(())
            }
        }
    };
    for s in schemas {
        let e = s.entity_type;
        put(s.pk.attr, CryptoAction::SignOnly, e)?;
        if let Some(sk) = s.sk {
            put(sk.attr, CryptoAction::SignOnly, e)?;
        }
        put(s.type_attr, CryptoAction::SignOnly, e)?;
        for index in s.indexes {
            for k in index.pk.iter().chain(index.sk.iter()) {
                put(k.attr, CryptoAction::SignOnly, e)?;
            }
        }
        if !s.unique.is_empty() {
            put(crate::ops::unique::OWNER_PK, CryptoAction::SignOnly, e)?;
            put(crate::ops::unique::OWNER_SK, CryptoAction::SignOnly, e)?;
        }
        for a in s.attributes {
            let action = if s.encrypted.contains(a) { CryptoAction::EncryptAndSign } else { CryptoAction::SignOnly };
            put(a, action, e)?;
        }
    }
    Ok(out.into_iter().map(|(k, (a, _))| (k, a)).collect())
}

/// Runs `fut` to completion on a runtime of its own (DB-ESDK's builders are async, but do no
/// I/O for a raw AES keyring; a KMS keyring makes its client).
fn block_on<F: std::future::Future + Send>(fut: F) -> Result<F::Output, Error>
where
    F::Output: Send,
{
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map(|rt| rt.block_on(fut))
                .map_err(|e| Error::Validation(format!("cannot start a runtime to build the DB-ESDK keyring: {e}")))
        })
        .join()
        .unwrap_or_else(|_| Err(Error::Validation("building the DB-ESDK keyring panicked".to_owned())))
    })
}

impl Table {
    /// This table with client-side encryption of `schemas`' items: its client carries AWS's
    /// Database Encryption SDK interceptor, which encrypts and signs items on the way out and
    /// decrypts and verifies them on the way in (the handle's other settings are kept).
    /// `#[encrypt]` fields are encrypted and signed; keys, the type attribute and the other
    /// attributes are signed.
    ///
    /// Every entity whose items this handle reads or writes must be among `schemas`: DB-ESDK
    /// refuses to write an attribute it has no action for, and to read an item it did not
    /// write. Updates of their items are refused ([`Error::Validation`]): DB-ESDK forbids
    /// update expressions on signed attributes.
    pub fn with_encryption(&self, schemas: &[EntitySchema], keyring: Keyring) -> Result<Table, Error> {
        self.encrypting(schemas, keyring, PlaintextOverride::ForbidPlaintextWriteForbidPlaintextRead)
    }

    /// [`Table::with_encryption`] for a table whose items of `schemas` were written before they
    /// were encrypted (DB-ESDK's `FORBID_PLAINTEXT_WRITE_ALLOW_PLAINTEXT_READ`): it also reads
    /// items DB-ESDK did not write, as they are (plaintext, nothing verified), while everything
    /// it writes is encrypted and signed. Run a migration through it that rewrites every item
    /// (`table.migrate(|v: Visit| v)`), then read through [`Table::with_encryption`], which
    /// refuses unencrypted items again. Until then, anyone who can write the table can write an
    /// item this handle accepts: keep it for the migration.
    pub fn with_encryption_reading_plaintext(
        &self,
        schemas: &[EntitySchema],
        keyring: Keyring,
    ) -> Result<Table, Error> {
        self.encrypting(schemas, keyring, PlaintextOverride::ForbidPlaintextWriteAllowPlaintextRead)
    }

    fn encrypting(
        &self,
        schemas: &[EntitySchema],
        keyring: Keyring,
        plaintext: PlaintextOverride,
    ) -> Result<Table, Error> {
        let Some(first) = schemas.first() else {
            return Err(Error::Validation("`with_encryption` needs at least one entity schema".to_owned()));
        };
        for s in schemas {
            if s.pk.attr != first.pk.attr || s.sk.map(|k| k.attr) != first.sk.map(|k| k.attr) {
                return Err(Error::Validation(format!(
                    "{} and {} have different key attributes: one table, one key schema",
                    first.entity_type, s.entity_type
                )));
            }
        }
        let actions = actions(schemas)?;
        let keyring = block_on(keyring.build(schemas))?
            .map_err(|e| Error::Validation(format!("cannot make the DB-ESDK keyring: {e}")))?;
        let configure = |suite: Suite| -> Result<Configured, Error> {
            let items =
                stream::item_encryptor(&self.name, first, actions.clone(), keyring.clone(), plaintext, suite.id())?;
            let mut table_config = DynamoDbTableEncryptionConfig::builder()
                .logical_table_name(self.name.to_string())
                .partition_key_name(first.pk.attr)
                .attribute_actions_on_encrypt(actions.clone())
                .plaintext_override(plaintext)
                .algorithm_suite_id(suite.id())
                .keyring(keyring.clone());
            if let Some(sk) = first.sk {
                table_config = table_config.sort_key_name(sk.attr);
            }
            let table_config =
                table_config.build().map_err(|e| Error::Validation(format!("DB-ESDK table configuration: {e:?}")))?;
            let configs = DynamoDbTablesEncryptionConfig::builder()
                .table_encryption_configs(HashMap::from([(self.name.to_string(), table_config)]))
                .build()
                .map_err(|e| Error::Validation(format!("DB-ESDK configuration: {e:?}")))?;
            let interceptor = DbEsdkInterceptor::new(configs)
                .map_err(|e| Error::Validation(format!("DB-ESDK interceptor: {e:?}")))?;
            let interceptor = pool::Decrypting {
                inner: interceptor,
                items: items.clone(),
                table: self.name.to_string(),
                entities: schemas.iter().map(|s| (s.entity_type, s.type_attr)).collect(),
                keys: (first.pk.attr, first.sk.map(|k| k.attr)),
            };
            // Never disabled: the SDK asks no configuration whether it is (see `send::attempts`).
            Ok(Configured { interceptor: SharedInterceptor::permanent(interceptor), items })
        };
        let configured = Arc::new([configure(Suite::Default)?, configure(Suite::SymmetricSignatures)?]);
        let encryption = Encryption {
            entities: schemas.iter().map(|s| (s.entity_type, s.type_attr)).collect(),
            suite: Suite::Default,
            configured,
        };
        let mut table = self.clone();
        table.client = encryption.client_for(&self.client);
        table.encryption = Some(Arc::new(encryption));
        Ok(table)
    }

    /// This handle encrypting and signing the items it writes with `suite` (DB-ESDK's default,
    /// with an ECDSA P-384 signature per item, until this is called); its other settings are
    /// kept. What it reads is decrypted as DB-ESDK allows under `suite` (see the guide,
    /// `dynamo_entity::guide::encryption`: an item written under one suite is not read under the
    /// other). On a handle without encryption (not made by [`Table::with_encryption`]), the same
    /// handle.
    #[must_use]
    pub fn encryption_suite(&self, suite: Suite) -> Table {
        let mut table = self.clone();
        if let Some(enc) = &self.encryption {
            let enc = Encryption { entities: enc.entities.clone(), suite, configured: enc.configured.clone() };
            table.client = enc.client_for(&self.client);
            table.encryption = Some(Arc::new(enc));
        }
        table
    }
}
