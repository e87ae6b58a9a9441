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
use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId;
use aws_sdk_dynamodb::config::{Intercept, SharedInterceptor};

use crate::model::entity::EntitySchema;

use crate::error::Error;
use crate::ops::policy::{Reads, Rendered};
use crate::table::Table;

mod pool;
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
    fn id(self) -> DbeAlgorithmSuiteId {
        match self {
            Suite::Default => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeyEcdsaP384SymsigHmacSha384,
            Suite::SymmetricSignatures => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384,
        }
    }

    fn index(self) -> usize {
        match self {
            Suite::Default => 0,
            Suite::SymmetricSignatures => 1,
        }
    }
}

/// DB-ESDK configured for one suite: the interceptor of the handle's client, and the item
/// encryptor with the same configuration (it decrypts stream images).
#[derive(Debug)]
struct Configured {
    interceptor: SharedInterceptor,
    items: stream::ItemEncryptor,
}

/// What the handle encrypts: the entities given to [`Table::with_encryption`].
#[derive(Debug)]
pub(crate) struct Encryption {
    /// The entity types whose items go through DB-ESDK, and their type attributes.
    entities: Vec<(&'static str, &'static str)>,
    /// The suite the handle encrypts with ([`Table::encryption_suite`]).
    suite: Suite,
    /// DB-ESDK configured for each suite (indexed by [`Suite::index`]), built once by
    /// `with_encryption` so that choosing a suite cannot fail.
    configured: Arc<[Configured; 2]>,
}

impl Encryption {
    /// DB-ESDK's item encryptor for the handle's suite: decrypts stream images.
    fn items(&self) -> &stream::ItemEncryptor {
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

/// [`Error::Encryption`] if `e` is DB-ESDK's interceptor refusing a request or a response
/// (the SDK reports it as an unhandled error whose source is the interceptor's).
pub(crate) fn refusal(e: &aws_sdk_dynamodb::Error) -> Option<Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        let text = err.to_string();
        if let Some(hook) = text.strip_prefix("DbEsdkInterceptor ") {
            let reading = hook.contains("completion") || hook.contains("deserialization");
            let mut said = Vec::new();
            let mut inner = err.source();
            while let Some(i) = inner {
                said.push(i.to_string());
                inner = i.source();
            }
            let said = said.join(": ");
            // DB-ESDK's errors are nested structures, each with a `message`: the outermost
            // first, then what caused it.
            let mut messages = quoted_messages(&said);
            messages.reverse();
            let message = if messages.is_empty() { said } else { messages.join(": ") };
            return Some(Error::Encryption { reading, message });
        }
        source = err.source();
    }
    None
}

/// The texts of the `message: "..."` fields in a `Debug` rendering, in order.
fn quoted_messages(text: &str) -> Vec<String> {
    const FIELD: &str = "message: \"";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(FIELD) {
        rest = &rest[at + FIELD.len()..];
        let mut message = String::new();
        let mut end = rest.len();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => message.push('\n'),
                    Some((_, 't')) => message.push('\t'),
                    Some((_, c)) => message.push(c),
                    None => {}
                },
                '"' => {
                    end = i + 1;
                    break;
                }
                c => message.push(c),
            }
        }
        out.push(message);
        rest = &rest[end..];
    }
    out
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
            let interceptor =
                pool::Decrypting { inner: interceptor, items: items.clone(), table: self.name.to_string() };
            Ok(Configured { interceptor: SharedInterceptor::new(interceptor), items })
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
    /// kept. What it reads is decrypted as DB-ESDK allows under `suite` (see the README: an item
    /// written under one suite is not read under the other). On a handle without encryption
    /// (not made by [`Table::with_encryption`]), the same handle.
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

impl Encryption {
    /// `client` with DB-ESDK's interceptor for the handle's suite, in the place of the one it
    /// carries (or last, if it carries none); its other interceptors and settings kept.
    fn client_for(&self, client: &aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
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

#[cfg(test)]
mod tests {
    #[test]
    fn db_esdk_messages_are_taken_from_its_nested_errors() {
        let said = r#"DynamoDbItemEncryptorError { error: CollectionOfErrors { list: [X { message: "inner \"quoted\"\n2" }], message: "outer" } }"#;
        assert_eq!(super::quoted_messages(said), ["inner \"quoted\"\n2", "outer"]);
        assert!(super::quoted_messages("no messages").is_empty());
        assert_eq!(super::quoted_messages(r#"message: "cut off"#), ["cut off"]);
    }
}
