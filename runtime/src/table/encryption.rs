//! What a handle that encrypts (feature `encryption`, `Table::with_encryption` in `encryption/`)
//! knows and tells the operations: the entities it encrypts, its suite, DB-ESDK as configured for
//! it, and what it refuses or reads differently. Building DB-ESDK's configuration, keyrings and
//! decrypting stream records are `encryption/`'s.

use std::collections::HashMap;
use std::sync::Arc;

use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId;
use aws_sdk_dynamodb::config::{Intercept, SharedInterceptor};

use super::Table;
use super::reads::{Reads, Rendered};
use crate::error::Error;
use crate::model::entity::EntitySchema;

/// DB-ESDK's item encryptor (it decrypts stream images).
pub(crate) type ItemEncryptor = aws_db_esdk::item_encryptor::client::Client;

/// The algorithm suite DB-ESDK encrypts and signs a handle's items with
/// ([`Table::encryption_suite`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Suite {
    /// AWS's default, `ALG_AES_256_GCM_HKDF_SHA512_COMMIT_KEY_ECDSA_P384_SYMSIG_HMAC_SHA384`:
    /// AES-256-GCM with key commitment, an HMAC-SHA384 per data key, and an ECDSA P-384
    /// signature over each item, which a reader verifies with the public key the item carries
    /// (a reader who can decrypt cannot forge an item that verifies as the writer's).
    #[default]
    Default,
    /// `ALG_AES_256_GCM_HKDF_SHA512_COMMIT_KEY_SYMSIG_HMAC_SHA384`: the same without the ECDSA
    /// signature (the item is authenticated by the HMAC only, which anyone who can decrypt it
    /// can also compute). For readers and writers inside one trust boundary; several times
    /// cheaper per item.
    SymmetricSignatures,
}

impl Suite {
    pub(crate) fn id(self) -> DbeAlgorithmSuiteId {
        match self {
            Suite::Default => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeyEcdsaP384SymsigHmacSha384,
            Suite::SymmetricSignatures => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384,
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Suite::Default => 0,
            Suite::SymmetricSignatures => 1,
        }
    }
}

/// DB-ESDK configured for one suite: the interceptor of the handle's client, and the item
/// encryptor with the same configuration (it decrypts stream images).
#[derive(Debug)]
pub(crate) struct Configured {
    pub(crate) interceptor: SharedInterceptor,
    pub(crate) items: ItemEncryptor,
}

/// What the handle encrypts: the entities given to [`Table::with_encryption`].
#[derive(Debug)]
pub(crate) struct Encryption {
    /// The entity types whose items go through DB-ESDK, and their type attributes.
    pub(crate) entities: Vec<(&'static str, &'static str)>,
    /// The suite the handle encrypts with ([`Table::encryption_suite`]).
    pub(crate) suite: Suite,
    /// DB-ESDK configured for each suite (indexed by [`Suite::index`]), built once by
    /// `with_encryption` so that choosing a suite cannot fail.
    pub(crate) configured: Arc<[Configured; 2]>,
}

impl Encryption {
    /// DB-ESDK's item encryptor for the handle's suite: decrypts stream images.
    pub(crate) fn items(&self) -> &ItemEncryptor {
        &self.configured[self.suite.index()].items
    }

    /// Refuses an update expression on `schema`'s items: DB-ESDK signs every attribute of
    /// them, and forbids update expressions on signed attributes (the signature covers the
    /// whole item, which only the client can recompute).
    pub(crate) fn refuse_update(&self, schema: &EntitySchema) -> Result<(), Error> {
        if self.encrypts(schema.entity_type) {
            return Err(Error::Validation(format!(
                "cannot update {} items in place: the table handle encrypts them (`with_encryption`), and AWS's \
                 Database Encryption SDK signs every attribute of an item and forbids update expressions on signed \
                 attributes; read the item, change it and `put` it (with a `#[version]` to detect conflicts)",
                schema.entity_type
            )));
        }
        Ok(())
    }

    /// Whether the handle encrypts `entity_type`'s items.
    pub(crate) fn encrypts(&self, entity_type: &str) -> bool {
        self.entities.iter().any(|(e, _)| *e == entity_type)
    }

    /// Refuses a read of `name` (an entity, or a collection of `schemas`) that would return
    /// items of an entity the handle does not encrypt: DB-ESDK fails the whole response on an
    /// item it did not write (no `aws_dbe_head`/`aws_dbe_foot`).
    pub(crate) fn refuse_unencrypted(&self, name: &str, schemas: &[&EntitySchema]) -> Result<(), Error> {
        match schemas.iter().find(|s| !self.encrypts(s.entity_type)) {
            Some(s) => Err(Error::Validation(format!(
                "cannot read {name} through a handle that encrypts {}: it reads {} items, which the handle does \
                 not encrypt, and AWS's Database Encryption SDK fails a whole response holding an item it did not \
                 write; give {} to `with_encryption` too, or read it through a handle without encryption",
                self.names(),
                s.entity_type,
                s.entity_type
            ))),
            None => Ok(()),
        }
    }

    /// Refuses a backfill of `schema`'s items (`updates_in_place`): it writes with update
    /// expressions, which DB-ESDK forbids on signed attributes. Refuses a migration of them if
    /// the entity has no `#[version]`: its check that an item is unchanged since it was read
    /// cannot name encrypted attributes (DB-ESDK forbids conditions on them), so the version,
    /// which every write changes, stands for them.
    pub(crate) fn refuse_evolve(&self, schema: &EntitySchema, updates_in_place: bool) -> Result<(), Error> {
        if !self.encrypts(schema.entity_type) {
            return Ok(());
        }
        if !updates_in_place && schema.version_attr.is_none() && !schema.encrypted.is_empty() {
            return Err(Error::Validation(format!(
                "cannot migrate {} through a handle that encrypts it without a #[version]: the migration checks \
                 that each item is unchanged since it was read, and AWS's Database Encryption SDK forbids \
                 conditions on encrypted attributes; a #[version] (which every write changes) stands for them",
                schema.entity_type
            )));
        }
        if updates_in_place {
            return Err(Error::Validation(format!(
                "cannot backfill {} through a handle that encrypts it: a backfill writes with update expressions, \
                 and AWS's Database Encryption SDK signs every attribute and forbids update expressions on signed \
                 attributes; use `migrate` (which puts whole items) with a function that fills the new fields",
                schema.entity_type
            )));
        }
        Ok(())
    }

    /// How the handle reads `name` (an entity, or a collection of `schemas`): refused if it
    /// reads an entity the handle does not encrypt; whole items (DB-ESDK verifies a signature
    /// over them, so a view reads the whole item and then keeps its fields); and only items of
    /// `schemas`, by their type attribute, so that other entities' plaintext items in the same
    /// key range stay on the server rather than fail DB-ESDK's whole response.
    pub(crate) fn reads(&self, name: &str, schemas: &[&EntitySchema]) -> Result<Reads, Error> {
        self.refuse_unencrypted(name, schemas)?;
        Ok(Reads { guard: type_guard(schemas), whole_items: true })
    }

    fn names(&self) -> String {
        self.entities.iter().map(|(e, _)| *e).collect::<Vec<_>>().join(", ")
    }
}

/// A filter keeping only items of `schemas` (by their type attribute); `None` if an entity has
/// no type attribute (`type_attr = false`: its key alone tells it).
fn type_guard(schemas: &[&EntitySchema]) -> Option<Rendered> {
    if schemas.is_empty() || schemas.iter().any(|s| s.type_attr.is_empty()) {
        return None;
    }
    let mut names = HashMap::new();
    let mut values = crate::model::Item::new();
    let mut parts = Vec::with_capacity(schemas.len());
    for (i, s) in schemas.iter().enumerate() {
        names.insert(format!("#enc_t{i}"), s.type_attr.to_owned());
        values.insert(format!(":enc_t{i}"), aws_sdk_dynamodb::types::AttributeValue::S(s.entity_type.to_owned()));
        parts.push(format!("#enc_t{i} = :enc_t{i}"));
    }
    Some((parts.join(" OR "), names, values))
}

/// `old` without its encrypted attributes, if `table` encrypts `schema`'s items.
pub(crate) fn signed_attributes(
    table: &Table,
    schema: &EntitySchema,
    old: &crate::model::Item,
) -> Option<crate::model::Item> {
    let enc = table.encryption.as_ref()?;
    enc.encrypts(schema.entity_type).then(|| {
        let mut signed = old.clone();
        signed.retain(|a, _| !schema.encrypted.contains(&a.as_str()));
        signed
    })
}

impl Encryption {
    /// `client` with DB-ESDK's interceptor for the handle's suite, in the place of the one it
    /// carries (or last, if it carries none); its other interceptors and settings kept.
    pub(crate) fn client_for(&self, client: &aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
        let ours = self.configured[self.suite.index()].interceptor.clone();
        let name = ours.name();
        let mut replaced = false;
        let mut interceptors: Vec<SharedInterceptor> = client
            .config()
            .interceptors()
            .map(|i| {
                if i.name() == name {
                    replaced = true;
                    ours.clone()
                } else {
                    i
                }
            })
            .collect();
        if !replaced {
            interceptors.push(ours);
        }
        let mut config = client.config().to_builder();
        config.set_interceptors(interceptors);
        aws_sdk_dynamodb::Client::from_conf(config.build())
    }
}
