//! The keyrings of [`Table::with_encryption`](crate::table::Table::with_encryption): what wraps
//! each item's data key, built with AWS's Material Providers Library (part of `aws-db-esdk`).

use aws_db_esdk::material_providers::client as mpl_client;
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
}

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
