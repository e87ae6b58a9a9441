//! The keyrings of [`Table::with_encryption`](crate::table::Table::with_encryption): what wraps
//! each item's data key, built with AWS's Material Providers Library (part of `aws-db-esdk`).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_db_esdk::dynamodb::client as dbesdk_client;
use aws_db_esdk::dynamodb::operation::get_branch_key_id_from_ddb_key::{
    GetBranchKeyIdFromDdbKeyInput, GetBranchKeyIdFromDdbKeyOutput,
};
use aws_db_esdk::dynamodb::types::DynamoDbKeyBranchKeyIdSupplier;
use aws_db_esdk::dynamodb::types::dynamo_db_encryption_config::DynamoDbEncryptionConfig;
use aws_db_esdk::dynamodb::types::error::Error as DbEsdkError;

use crate::key::attr::AttributeType;
use crate::model::entity::{EntitySchema, KeySchema};
use crate::model::tenant::{self, Tenancy};

use aws_db_esdk::material_providers::client as mpl_client;
use aws_db_esdk::material_providers::types::cryptographic_materials_cache::CryptographicMaterialsCacheRef;
use aws_db_esdk::material_providers::types::{CacheType, StormTrackingCache};

use super::KeyStore;
use aws_db_esdk::material_providers::types::AesWrappingAlg;
use aws_db_esdk::material_providers::types::keyring::KeyringRef;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;

/// What protects the data keys of the items: a 256-bit AES key the caller holds
/// ([`Keyring::raw_aes`]) or an AWS KMS key ([`Keyring::kms`], [`Keyring::kms_with_client`]).
/// Its `Debug` shows no key.
#[derive(Clone)]
pub struct Keyring(KeyringKind);

#[derive(Clone)]
enum KeyringKind {
    RawAes { namespace: String, name: String, key: [u8; 32] },
    Kms { key_arn: String, client: Option<aws_sdk_kms::Client> },
    Hierarchical { store: KeyStore, branch_keys: BranchKeys, ttl: Duration },
}

/// Which branch key of the key store a [`Keyring::hierarchical`] uses.
#[derive(Clone, Debug)]
pub struct BranchKeys(BranchKeysKind);

/// The function of [`BranchKeys::per_tenant`]: a tenant's branch key id.
type TenantBranchKey = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

#[derive(Clone)]
enum BranchKeysKind {
    Single(String),
    PerTenant(TenantBranchKey),
}

impl core::fmt::Debug for BranchKeysKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BranchKeysKind::Single(id) => f.debug_tuple("Single").field(id).finish(),
            BranchKeysKind::PerTenant(_) => f.write_str("PerTenant(..)"),
        }
    }
}

impl BranchKeys {
    /// One branch key (an id [`KeyStore::create_branch_key`] returned) for every item.
    pub fn single(branch_key_id: impl Into<String>) -> BranchKeys {
        BranchKeys(BranchKeysKind::Single(branch_key_id.into()))
    }

    /// One branch key per tenant: `branch_key(tenant)` is the id of tenant `tenant`'s branch
    /// key (`None`: the tenant has none, and its items are neither written nor read, an
    /// [`Error::Encryption`](crate::error::Error::Encryption)). The tenant of an item is the one its partition key names
    /// (`#[entity(tenant = "field")]`), which on a tenant handle ([`Table::for_tenant`](crate::table::Table::for_tenant)) is the
    /// handle's tenant: a tenant handle refuses other tenants' keys before sending, so its items
    /// are encrypted under its tenant's branch key and it reads no other. DB-ESDK asks for the
    /// branch key of each item it encrypts or decrypts through its branch key id supplier,
    /// given the item's key; the materials of each branch key are cached once per process,
    /// whatever the number of handles. Items of entities without a tenant in their partition
    /// key (`tenant_shared`, untenanted) have no branch key: an error, before sending.
    pub fn per_tenant(branch_key: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> BranchKeys {
        BranchKeys(BranchKeysKind::PerTenant(Arc::new(branch_key)))
    }
}

/// DB-ESDK's branch key id supplier for [`BranchKeys::per_tenant`]: the tenant named by the
/// partition key of the item (its key as DB-ESDK gives it), then the caller's function.
struct TenantSupplier {
    /// The table's partition-key attribute.
    pk_attr: &'static str,
    /// The partition keys of the handle's entities with a tenant field (string keys only).
    tenant_keys: Vec<(&'static str, KeySchema)>,
    branch_key: TenantBranchKey,
}

impl TenantSupplier {
    /// The supplier of `schemas`' items; an error if two of their partition keys name the tenant
    /// at different places of one key text (`ORG#<org>#PROJECTS` beside `ORG#AUDIT#<org>`: tenant
    /// `AUDIT`'s projects would be read as tenant `PROJECTS`'s audit, and encrypted under its
    /// branch key), see [`tenant::check_tenants_apart`].
    fn new(schemas: &[EntitySchema], branch_key: TenantBranchKey) -> Result<TenantSupplier, String> {
        tenant::check_tenants_apart(&schemas.iter().collect::<Vec<_>>(), true).map_err(|e| e.to_string())?;
        let tenant_keys = schemas
            .iter()
            .filter(|s| matches!(s.tenant, Tenancy::Field(_)) && s.pk.ty == AttributeType::S)
            .map(|s| (s.entity_type, s.pk))
            .collect();
        Ok(TenantSupplier { pk_attr: schemas.first().map_or("", |s| s.pk.attr), tenant_keys, branch_key })
    }

    /// The tenant that `pk` names: by the entity whose partition-key template's literal prefix
    /// is the longest that `pk` starts with; a template that is the tenant alone last. The
    /// entities' templates name the tenant at one place of any key ([`TenantSupplier::new`]),
    /// so every entity whose prefix `pk` starts with reads the same tenant in it.
    fn tenant<'p>(&self, pk: &'p str) -> Option<&'p str> {
        let templated = self
            .tenant_keys
            .iter()
            .filter(|(_, k)| !tenant::key_is_tenant_alone(k) && pk.starts_with(tenant::leading_literal(k.template)))
            .max_by_key(|(_, k)| tenant::leading_literal(k.template).len())
            .and_then(|(_, k)| tenant::tenant_component(k, pk));
        templated
            .or_else(|| self.tenant_keys.iter().any(|(_, k)| tenant::key_is_tenant_alone(k)).then_some(pk))
            .filter(|t| !t.is_empty())
    }

    fn branch_key_id(&self, key: &crate::model::Item) -> Result<String, String> {
        let pk = match key.get(self.pk_attr) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(pk)) => pk.as_str(),
            Some(other) => {
                return Err(format!(
                    "BranchKeys::per_tenant: the partition key `{}` is {other:?}, which names no tenant (a tenant \
                     entity's partition key is key text)",
                    self.pk_attr
                ));
            }
            None => return Err(format!("BranchKeys::per_tenant: the item has no partition key `{}`", self.pk_attr)),
        };
        let Some(tenant) = self.tenant(pk) else {
            let entities = self.tenant_keys.iter().map(|(e, _)| *e).collect::<Vec<_>>().join(", ");
            return Err(format!(
                "BranchKeys::per_tenant: the partition key `{pk}` names no tenant (it is not a key of {}): items \
                 of entities without a tenant field have no tenant's branch key; encrypt them through a handle \
                 with another keyring",
                if entities.is_empty() { "any entity with `#[entity(tenant = ..)]`".to_owned() } else { entities }
            ));
        };
        (self.branch_key)(tenant)
            .filter(|id| !id.is_empty())
            .ok_or_else(|| format!("BranchKeys::per_tenant: tenant `{tenant}` has no branch key"))
    }
}

impl DynamoDbKeyBranchKeyIdSupplier for TenantSupplier {
    fn get_branch_key_id_from_ddb_key(
        &self,
        input: GetBranchKeyIdFromDdbKeyInput,
    ) -> Result<GetBranchKeyIdFromDdbKeyOutput, DbEsdkError> {
        let key = input.ddb_key.unwrap_or_default();
        let id = self.branch_key_id(&key).map_err(|message| DbEsdkError::DynamoDbEncryptionException { message })?;
        GetBranchKeyIdFromDdbKeyOutput::builder()
            .branch_key_id(id)
            .build()
            .map_err(|e| DbEsdkError::DynamoDbEncryptionException { message: format!("{e:?}") })
    }
}

/// The hierarchical keyrings' cache of branch key materials, one per process, shared by every
/// handle's keyring (entries are keyed by key store and branch key: a keyring finds only the
/// branch keys of its own key store).
static CACHE: OnceLock<CryptographicMaterialsCacheRef> = OnceLock::new();

/// The partition of [`CACHE`] every keyring of this crate uses: with one partition, keyrings of
/// several handles share each other's entries.
const PARTITION: &str = "dynamo-entity";

/// How long a branch key's materials are cached unless [`Keyring::cache_ttl`] says otherwise.
const DEFAULT_TTL: Duration = Duration::from_secs(600);

impl core::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.0 {
            KeyringKind::RawAes { namespace, name, .. } => f
                .debug_struct("Keyring::RawAes")
                .field("namespace", namespace)
                .field("name", name)
                .finish_non_exhaustive(),
            KeyringKind::Kms { key_arn, client } => f
                .debug_struct("Keyring::Kms")
                .field("key_arn", key_arn)
                .field("client", &if client.is_some() { "given" } else { "from the environment" })
                .finish(),
            KeyringKind::Hierarchical { store, branch_keys, ttl } => f
                .debug_struct("Keyring::Hierarchical")
                .field("store", store)
                .field("branch_keys", branch_keys)
                .field("ttl", ttl)
                .finish(),
        }
    }
}

impl Keyring {
    /// DB-ESDK's raw AES keyring: `key` (256 bits, AES-GCM) wraps each item's data key;
    /// `namespace` and `name` identify the key in the items (a reader needs the same three).
    pub fn raw_aes(namespace: impl Into<String>, name: impl Into<String>, key: [u8; 32]) -> Keyring {
        Keyring(KeyringKind::RawAes { namespace: namespace.into(), name: name.into(), key })
    }

    /// DB-ESDK's AWS KMS keyring (multi-Region aware) on the key `key_arn`: KMS wraps each
    /// item's data key (`GenerateDataKey` on write, `Decrypt` on read). Its KMS client is made
    /// by the Material Providers Library from the environment (`aws_config`'s defaults:
    /// credentials, `AWS_ENDPOINT_URL_KMS`), in the key's Region, with the SDK's default
    /// timeouts. To choose the client (endpoint, credentials, timeouts, retries), use
    /// [`Keyring::kms_with_client`].
    pub fn kms(key_arn: impl Into<String>) -> Keyring {
        Keyring(KeyringKind::Kms { key_arn: key_arn.into(), client: None })
    }

    /// DB-ESDK's AWS KMS keyring (multi-Region aware) on the key `key_arn`, calling KMS through
    /// `client` (its endpoint, Region, credentials, timeouts and retries: an unreachable KMS is
    /// an error of the write or read after the client's timeouts and retries). The client is
    /// used from the runtime of the operation that needs a data key. Name its type through
    /// [`aws_sdk_kms`](crate::encryption::aws_sdk_kms).
    pub fn kms_with_client(key_arn: impl Into<String>, client: aws_sdk_kms::Client) -> Keyring {
        Keyring(KeyringKind::Kms { key_arn: key_arn.into(), client: Some(client) })
    }

    /// DB-ESDK's hierarchical keyring on `store`: each item's data key is derived from a branch
    /// key of the key store (`branch_keys` says which), whose materials are fetched from the key
    /// store's table and decrypted by KMS once, then cached for [`Keyring::cache_ttl`] (10
    /// minutes unless set). KMS is called once per branch key per TTL, not once per item. The
    /// cache is one per process, shared by every handle's hierarchical keyring.
    pub fn hierarchical(store: &KeyStore, branch_keys: BranchKeys) -> Keyring {
        Keyring(KeyringKind::Hierarchical { store: store.clone(), branch_keys, ttl: DEFAULT_TTL })
    }

    /// This keyring with branch key materials cached for `ttl` (whole seconds, at least two),
    /// for a [`Keyring::hierarchical`]; other keyrings cache nothing and are returned as they
    /// are. In the last second of an entry's TTL, one caller a second refreshes it from the key
    /// store while the others keep using it (DB-ESDK's storm tracking cache, its grace period
    /// and interval set to one second), so that a busy process does not call KMS once per
    /// waiting request when it expires.
    #[must_use]
    pub fn cache_ttl(mut self, ttl: Duration) -> Keyring {
        if let KeyringKind::Hierarchical { ttl: t, .. } = &mut self.0 {
            *t = ttl.max(Duration::from_secs(2));
        }
        self
    }

    /// The Material Providers Library's keyring, for a handle encrypting `schemas`' items.
    pub(super) async fn build(&self, schemas: &[EntitySchema]) -> Result<KeyringRef, String> {
        let mpl =
            mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().map_err(|e| format!("{e:?}"))?)
                .map_err(|e| format!("{e:?}"))?;
        match &self.0 {
            KeyringKind::RawAes { namespace, name, key } => mpl
                .create_raw_aes_keyring()
                .key_namespace(namespace)
                .key_name(name)
                .wrapping_key(key.to_vec())
                .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
                .send()
                .await
                .map_err(|e| format!("{e:?}")),
            KeyringKind::Kms { key_arn, client: None } => {
                mpl.create_aws_kms_mrk_multi_keyring().generator(key_arn).send().await.map_err(|e| format!("{e:?}"))
            }
            KeyringKind::Hierarchical { store, branch_keys, ttl } => {
                let cache = match CACHE.get() {
                    Some(cache) => cache.clone(),
                    None => {
                        let storm = StormTrackingCache::builder()
                            .entry_capacity(1000)
                            .entry_pruning_tail_size(1)
                            .fan_out(20)
                            .grace_period(1)
                            .grace_interval(1)
                            .in_flight_ttl(1)
                            .sleep_milli(20)
                            .build()
                            .map_err(|e| format!("{e:?}"))?;
                        let made = mpl
                            .create_cryptographic_materials_cache()
                            .cache(CacheType::StormTracking(storm))
                            .send()
                            .await
                            .map_err(|e| format!("{e:?}"))?;
                        CACHE.get_or_init(|| made).clone()
                    }
                };
                let keyring = mpl.create_aws_kms_hierarchical_keyring().key_store(store.key_store.clone());
                let keyring = match &branch_keys.0 {
                    BranchKeysKind::Single(id) => keyring.branch_key_id(id),
                    BranchKeysKind::PerTenant(f) => {
                        let supplier = TenantSupplier::new(schemas, f.clone())?;
                        let dbesdk = dbesdk_client::Client::from_conf(
                            DynamoDbEncryptionConfig::builder().build().map_err(|e| format!("{e:?}"))?,
                        )
                        .map_err(|e| format!("{e:?}"))?;
                        let supplier = dbesdk
                            .create_dynamo_db_encryption_branch_key_id_supplier()
                            .ddb_key_branch_key_id_supplier(supplier)
                            .send()
                            .await
                            .map_err(|e| format!("{e:?}"))?
                            .branch_key_id_supplier
                            .ok_or("DB-ESDK made no branch key id supplier")?;
                        keyring.branch_key_id_supplier(supplier)
                    }
                };
                keyring
                    .ttl_seconds(i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX))
                    .cache(CacheType::Shared(cache))
                    .partition_id(PARTITION)
                    .send()
                    .await
                    .map_err(|e| format!("{e:?}"))
            }
            // A client of its own (the same configuration, its own connections), as the key
            // store's: see `KeyStore::new`.
            KeyringKind::Kms { key_arn, client: Some(client) } => mpl
                .create_aws_kms_mrk_keyring()
                .kms_key_id(key_arn)
                .kms_client(aws_sdk_kms::Client::from_conf(client.config().clone()))
                .send()
                .await
                .map_err(|e| format!("{e:?}")),
        }
    }
}
