//! The keyrings of [`Table::with_encryption`](crate::table::Table::with_encryption): what wraps
//! each item's data key, built with AWS's Material Providers Library (part of `aws-db-esdk`).

use std::sync::OnceLock;
use std::time::Duration;

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

#[derive(Clone, Debug)]
enum BranchKeysKind {
    Single(String),
}

impl BranchKeys {
    /// One branch key (an id [`KeyStore::create_branch_key`] returned) for every item.
    pub fn single(branch_key_id: impl Into<String>) -> BranchKeys {
        BranchKeys(BranchKeysKind::Single(branch_key_id.into()))
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

    /// The Material Providers Library's keyring.
    pub(super) async fn build(&self) -> Result<KeyringRef, String> {
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
                let BranchKeysKind::Single(id) = &branch_keys.0;
                mpl.create_aws_kms_hierarchical_keyring()
                    .key_store(store.key_store.clone())
                    .branch_key_id(id)
                    .ttl_seconds(i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX))
                    .cache(CacheType::Shared(cache))
                    .partition_id(PARTITION)
                    .send()
                    .await
                    .map_err(|e| format!("{e:?}"))
            }
            KeyringKind::Kms { key_arn, client: Some(client) } => mpl
                .create_aws_kms_mrk_keyring()
                .kms_key_id(key_arn)
                .kms_client(client.clone())
                .send()
                .await
                .map_err(|e| format!("{e:?}")),
        }
    }
}
