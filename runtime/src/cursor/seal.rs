//! Sealing a cursor's body: the table's [`CursorSecret`], its derived keys, the MAC or the
//! authenticated encryption, and the checksum of unsealed cursors.

use super::*;

use std::fmt;

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::Error;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// A secret that signs (and optionally encrypts) the cursors of a [`Table`](crate::Table).
///
/// ```
/// use dynamo_entity_runtime::CursorSecret;
///
/// let secret = CursorSecret::new(b"at least 32 bytes, from a secret store!").unwrap();
/// assert!(!secret.is_encrypted());
/// assert!(secret.encrypted().is_encrypted());
/// assert!(CursorSecret::new(b"too short").is_err());
/// ```
///
/// The secret itself is not kept: three keys are derived from it with HMAC-SHA256 (signing,
/// encryption, nonces), and `Debug` prints none of them.
#[derive(Clone)]
pub struct CursorSecret {
    pub(crate) sign: [u8; 32],
    pub(crate) encrypt: [u8; 32],
    pub(crate) nonce: [u8; 32],
    pub(crate) encrypted: bool,
}

impl fmt::Debug for CursorSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CursorSecret").field("encrypted", &self.encrypted).finish_non_exhaustive()
    }
}

pub(crate) fn hmac(key: &[u8], parts: &[&[u8]]) -> HmacSha256 {
    // HMAC takes keys of any length: this cannot fail.
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    for p in parts {
        mac.update(p);
    }
    mac
}

pub(crate) fn derive(secret: &[u8], label: &str) -> [u8; 32] {
    hmac(secret, &[label.as_bytes()]).finalize().into_bytes().into()
}

impl CursorSecret {
    /// The fewest bytes a secret may have.
    pub const MIN_LEN: usize = 32;

    /// A secret that signs cursors. It must have at least [`CursorSecret::MIN_LEN`] bytes
    /// (random bytes from a secret store, shared by every process that serves the same
    /// clients); a shorter one is [`Error::Validation`].
    pub fn new(secret: impl AsRef<[u8]>) -> Result<CursorSecret, Error> {
        let secret = secret.as_ref();
        if secret.len() < Self::MIN_LEN {
            return Err(Error::Validation(format!(
                "a cursor secret needs at least {} bytes, this one has {}",
                Self::MIN_LEN,
                secret.len()
            )));
        }
        Ok(CursorSecret {
            sign: derive(secret, "dynamo-entity cursor signing v1"),
            encrypt: derive(secret, "dynamo-entity cursor encryption v1"),
            nonce: derive(secret, "dynamo-entity cursor nonce v1"),
            encrypted: false,
        })
    }

    /// The same secret, also encrypting cursors so that their content cannot be read.
    #[must_use]
    pub fn encrypted(mut self) -> CursorSecret {
        self.encrypted = true;
        self
    }

    /// Whether cursors are encrypted (not only signed).
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    pub(crate) fn cipher(&self) -> XChaCha20Poly1305 {
        <XChaCha20Poly1305 as chacha20poly1305::KeyInit>::new(&self.encrypt.into())
    }
}

pub(crate) fn invalid(why: &str) -> Error {
    tracing::debug!(target: "dynamo_entity::cursor", reason = why, "invalid cursor");
    Error::InvalidCursor
}

/// FNV-1a, 64 bits: a checksum that catches damaged cursors (not a MAC; see the module docs).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    crate::key::shard::fnv1a64(bytes)
}

/// The cursor of `body` (a query's or a scan's position): plain, signed or encrypted as
/// `secret` says.
pub(crate) fn seal_body(body: Vec<u8>, secret: Option<&CursorSecret>) -> Result<Cursor, Error> {
    let bytes = match secret {
        None => {
            let mut out = Vec::with_capacity(1 + body.len() + CHECKSUM_LEN);
            out.push(PLAIN);
            out.extend_from_slice(&body);
            let sum = checksum(&out);
            out.extend_from_slice(&sum.to_be_bytes());
            out
        }
        Some(s) if !s.encrypted => {
            let tag = hmac(&s.sign, &[&[SIGNED], &body]).finalize().into_bytes();
            let mut out = Vec::with_capacity(1 + body.len() + TAG_LEN);
            out.push(SIGNED);
            out.extend_from_slice(&body);
            out.extend_from_slice(&tag);
            out
        }
        Some(s) => {
            // A synthetic nonce (a keyed hash of the content): no randomness needed, never
            // reused for different content, and the same position gives the same text.
            let digest = hmac(&s.nonce, &[&body]).finalize().into_bytes();
            let nonce = XNonce::from_slice(&digest[..NONCE_LEN]);
            let sealed = s
                .cipher()
                .encrypt(nonce, Payload { msg: &body, aad: &[SEALED] })
                .map_err(|_| Error::Validation("cannot encrypt the cursor".into()))?;
            let mut out = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
            out.push(SEALED);
            out.extend_from_slice(nonce);
            out.extend_from_slice(&sealed);
            out
        }
    };
    Ok(Cursor { bytes })
}
