//! Opaque pagination cursors: the key of the last item returned, bound to the query it came
//! from. See [`Cursor`].

pub(crate) mod bind;
pub(crate) mod encode;
pub(crate) mod scan;
pub(crate) mod seal;

use encode::*;
pub use seal::CursorSecret;
use seal::*;

use std::fmt;

use chacha20poly1305::XNonce;
use chacha20poly1305::aead::{Aead, Payload};
use hmac::Mac;

use crate::error::Error;

/// The longest cursor text accepted, in bytes: more than the largest cursor of one partition this
/// crate writes (keys at DynamoDB's size limits), and room for every shard's position of a
/// sharded query; checked before anything is decoded. A scan or sharded query whose cursor would
/// be longer is refused with [`Error::Validation`] rather than given a cursor that could not be
/// read back.
pub const MAX_CURSOR_LEN: usize = 256 * 1024;

/// Format byte: body and an FNV-1a checksum.
const PLAIN: u8 = 2;
/// Format byte: body and an HMAC-SHA256 tag.
const SIGNED: u8 = 3;
/// Format byte: nonce and the XChaCha20-Poly1305 ciphertext of the body.
const SEALED: u8 = 4;
const CHECKSUM_LEN: usize = 8;
const TAG_LEN: usize = 32;
const NONCE_LEN: usize = 24;
const AEAD_TAG_LEN: usize = 16;

/// Where a query resumes: right after the last item of the previous page.
///
/// A cursor prints as a URL-safe string (base64url, no padding) that a web client can hand back.
/// It holds the entity type, the index, the partition key, the direction (ascending or
/// descending), a hash of the query's sort-key condition and filter, and the key attributes of
/// the last item returned (of a sharded query: every shard's position). A cursor is valid only
/// for the query that made it, whatever its limit: on use it is checked against the query, and
/// a cursor of another entity, index, partition (or set of shards), direction, sort-key
/// condition or filter, one whose key does not satisfy the query's key condition (every
/// partition attribute of a multi-attribute index, the sort attributes fixed by `eq`, the sort
/// condition), one whose key holds a value DynamoDB would refuse for its attribute (a number
/// key that holds no number, an empty or oversized key), or one that was altered, is
/// [`Error::InvalidCursor`](crate::Error::InvalidCursor) and never reaches DynamoDB. Text longer
/// than [`MAX_CURSOR_LEN`] is refused before it is decoded.
///
/// # What a cursor reveals, and who can forge one
///
/// - **Without a secret** (the default), a cursor is *encoded, not protected*: whoever holds it
///   can decode it and read the entity type, the index name, the partition key and the key
///   attribute values of the last item of the page (`PK`, `SK` and the index's keys: user ids,
///   timestamps, whatever your keys hold). A checksum catches accidental damage, but anyone can
///   forge a cursor for any position *inside the same query*: the checks above still keep it
///   from reaching another partition, entity, index, direction or key range.
/// - **Signed** ([`Table::with_cursor_secret`](crate::Table::with_cursor_secret) with a
///   [`CursorSecret`]): an HMAC-SHA256 tag makes every altered or forged cursor invalid. The
///   content is still readable as above.
/// - **Encrypted** ([`CursorSecret::encrypted`]): XChaCha20-Poly1305 hides the content too;
///   only its length, and whether two cursors are equal (the same position gives the same
///   text), can be seen. A signed-only table also accepts encrypted cursors of the same
///   secret and the other way round, so encryption can be switched on without breaking the
///   cursors in flight. A table with a secret refuses unsigned cursors, and one without refuses
///   signed ones.
///
/// Cursors of earlier versions of this crate (which recorded no direction) are refused.
#[derive(Clone, PartialEq, Eq)]
pub struct Cursor {
    /// Format byte, then the format's content.
    bytes: Vec<u8>,
}

impl fmt::Debug for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Cursor").field(&self.to_string()).finish()
    }
}

impl Cursor {
    /// Checks the cursor's integrity with `secret` (a table's) and reads its position.
    pub(crate) fn open(&self, secret: Option<&CursorSecret>) -> Result<Position, Error> {
        Position::decode(&self.open_body(secret)?)
    }

    /// Checks the cursor's integrity with `secret` (a table's) and gives its body.
    pub(crate) fn open_body(&self, secret: Option<&CursorSecret>) -> Result<Vec<u8>, Error> {
        let (&format, rest) = self.bytes.split_first().ok_or_else(|| invalid("empty"))?;
        match (format, secret) {
            (PLAIN, None) => {
                let (body, sum) = rest.split_at(rest.len().saturating_sub(CHECKSUM_LEN));
                let mut expected = [0u8; CHECKSUM_LEN];
                expected.copy_from_slice(sum);
                if checksum(&self.bytes[..1 + body.len()]) != u64::from_be_bytes(expected) {
                    return Err(invalid("checksum mismatch: the cursor was altered"));
                }
                Ok(body.to_vec())
            }
            (PLAIN, Some(_)) => Err(invalid("an unsigned cursor, but this table signs its cursors")),
            (SIGNED | SEALED, None) => Err(invalid("a signed cursor, but this table has no cursor secret")),
            (SIGNED, Some(s)) => {
                let (body, tag) = rest.split_at(rest.len().saturating_sub(TAG_LEN));
                hmac(&s.sign, &[&[SIGNED], body])
                    .verify_slice(tag)
                    .map_err(|_| invalid("signature mismatch: altered, forged, or signed with another secret"))?;
                Ok(body.to_vec())
            }
            (SEALED, Some(s)) => {
                let (nonce, sealed) = rest.split_at(NONCE_LEN.min(rest.len()));
                let body = s
                    .cipher()
                    .decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad: &[SEALED] })
                    .map_err(|_| invalid("decryption failed: altered, forged, or sealed with another secret"))?;
                Ok(body)
            }
            _ => Err(invalid("unknown cursor format (or a cursor of an earlier version)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Position {
        Position {
            entity: "Message".into(),
            index: String::new(),
            partition: "CHATROOM#user-4711".into(),
            descending: true,
            query: 0x0123_4567_89ab_cdef,
            key: vec![("PK".into(), "CHATROOM#user-4711".into()), ("SK".into(), "MESSAGE#0000000000001#é".into())],
        }
    }

    fn secrets() -> [Option<CursorSecret>; 3] {
        let secret = CursorSecret::new([7u8; 32]).unwrap();
        [None, Some(secret.clone()), Some(secret.encrypted())]
    }

    #[test]
    fn round_trips_through_its_string_in_every_mode() {
        for secret in secrets() {
            let c = sample().seal(secret.as_ref()).unwrap();
            let s = c.to_string();
            assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{s}");
            let parsed = s.parse::<Cursor>().unwrap();
            assert_eq!(parsed, c);
            assert_eq!(parsed.open(secret.as_ref()).unwrap(), sample());
            // The same position gives the same text.
            assert_eq!(sample().seal(secret.as_ref()).unwrap().to_string(), s);
        }
        for len in 0..7 {
            let bytes: Vec<u8> = (0..len).map(|i| i * 37).collect();
            assert_eq!(unbase64url(&base64url(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn every_altered_character_is_detected_in_every_mode() {
        for secret in secrets() {
            let s = sample().seal(secret.as_ref()).unwrap().to_string();
            let usable = |t: &str| t.parse::<Cursor>().and_then(|c| c.open(secret.as_ref())).is_ok();
            assert!(usable(&s));
            for i in 0..s.len() {
                for replacement in ['A', 'z', '0', '-'] {
                    let mut t: Vec<char> = s.chars().collect();
                    if t[i] == replacement {
                        continue;
                    }
                    t[i] = replacement;
                    let t: String = t.into_iter().collect();
                    assert!(!usable(&t), "altered at {i}: {t}");
                }
            }
            assert!(!usable(""));
            assert!(!usable("not a cursor!"));
            assert!(!usable(&s[..s.len() - 1]));
            assert!(!usable(&s[..s.len() - 4]));
        }
        // An altered plain cursor is refused as soon as it is parsed, not only when used.
        let s = sample().seal(None).unwrap().to_string();
        let altered = format!("{}{}", &s[..s.len() - 2], if s.ends_with("AA") { "BA" } else { "AA" });
        assert!(altered.parse::<Cursor>().is_err());
    }

    #[test]
    fn secrets_must_match_and_unsigned_cursors_are_refused_by_signing_tables() {
        let [none, signed, sealed] = secrets();
        let other = CursorSecret::new([8u8; 32]).unwrap();
        let plain = sample().seal(None).unwrap();
        assert!(plain.open(signed.as_ref()).is_err());
        assert!(plain.open(sealed.as_ref()).is_err());
        for secret in [&signed, &sealed] {
            let c = sample().seal(secret.as_ref()).unwrap();
            assert!(c.open(none.as_ref()).is_err());
            assert!(c.open(Some(&other)).is_err());
            assert!(c.open(Some(&other.clone().encrypted())).is_err());
        }
        // Switching encryption on or off keeps the cursors of the same secret valid.
        let c = sample().seal(signed.as_ref()).unwrap();
        assert_eq!(c.open(sealed.as_ref()).unwrap(), sample());
        let c = sample().seal(sealed.as_ref()).unwrap();
        assert_eq!(c.open(signed.as_ref()).unwrap(), sample());
    }

    #[test]
    fn an_encrypted_cursor_reveals_no_key_value() {
        let [_, signed, sealed] = secrets();
        let readable = |c: &Cursor| String::from_utf8_lossy(&c.bytes).contains("user-4711");
        assert!(readable(&sample().seal(None).unwrap()));
        assert!(readable(&sample().seal(signed.as_ref()).unwrap()));
        assert!(!readable(&sample().seal(sealed.as_ref()).unwrap()));
        assert_eq!(format!("{:?}", sealed.unwrap()), "CursorSecret { encrypted: true, .. }");
    }

    #[test]
    fn long_text_and_old_formats_are_refused_before_decoding() {
        assert!("A".repeat(MAX_CURSOR_LEN + 1).parse::<Cursor>().is_err());
        // The largest cursor this crate writes fits: keys at DynamoDB's limits.
        let mut big = sample();
        big.partition = "p".repeat(2048);
        big.key = vec![
            ("GSI1PK".into(), "g".repeat(2048)),
            ("GSI1SK".into(), "h".repeat(1024)),
            ("PK".into(), "p".repeat(2048)),
            ("SK".into(), "s".repeat(1024)),
        ];
        big.index = "i".repeat(255);
        let sealed = big.seal(Some(&CursorSecret::new([1u8; 40]).unwrap().encrypted())).unwrap().to_string();
        assert!(sealed.len() <= MAX_CURSOR_LEN, "{}", sealed.len());
        assert!(sealed.parse::<Cursor>().is_ok());
        // Version 1 (no direction recorded).
        let mut v1 = sample().seal(None).unwrap();
        v1.bytes[0] = 1;
        assert!(v1.to_string().parse::<Cursor>().is_err());
        assert!(v1.open(None).is_err());
        assert!(CursorSecret::new([0u8; 31]).is_err());
    }
}
