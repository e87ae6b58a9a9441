//! Opaque pagination cursors: the key of the last item returned, bound to the query it came
//! from. See [`Cursor`].

pub(crate) mod scan;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;
use crate::model::entity::EntitySchema;
use crate::model::entity::IndexKind;
use crate::model::key_attr::AttributeType;
use crate::ops::query::Query;
use crate::ops::query::QueryRequest;

/// The longest cursor text accepted, in bytes: more than the largest cursor this crate writes
/// (keys at DynamoDB's size limits), checked before anything is decoded.
pub const MAX_CURSOR_LEN: usize = 16 * 1024;

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

type HmacSha256 = Hmac<Sha256>;

/// Where a query resumes: right after the last item of the previous page.
///
/// A cursor prints as a URL-safe string (base64url, no padding) that a web client can hand back.
/// It holds the entity type, the index, the partition key, the direction (ascending or
/// descending) and the key attributes of the last item returned. On use it is checked against
/// the query: a cursor of another entity, index, partition or direction, one whose key does not
/// satisfy the query's sort condition, or one that was altered, is
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

/// What a cursor says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) entity: String,
    pub(crate) index: String,
    pub(crate) partition: String,
    pub(crate) descending: bool,
    /// The key attributes of the last item returned, sorted by name, as text (numbers in
    /// decimal, binary in hex: the schema tells their types).
    pub(crate) key: Vec<(String, String)>,
}

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
    sign: [u8; 32],
    encrypt: [u8; 32],
    nonce: [u8; 32],
    encrypted: bool,
}

impl fmt::Debug for CursorSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CursorSecret").field("encrypted", &self.encrypted).finish_non_exhaustive()
    }
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> HmacSha256 {
    // HMAC takes keys of any length: this cannot fail.
    let mut mac = <HmacSha256 as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    for p in parts {
        mac.update(p);
    }
    mac
}

fn derive(secret: &[u8], label: &str) -> [u8; 32] {
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

    fn cipher(&self) -> XChaCha20Poly1305 {
        <XChaCha20Poly1305 as chacha20poly1305::KeyInit>::new(&self.encrypt.into())
    }
}

pub(crate) fn invalid(why: &str) -> Error {
    tracing::debug!(target: "dynamo_entity::cursor", reason = why, "invalid cursor");
    Error::InvalidCursor
}

/// FNV-1a, 64 bits: a checksum that catches damaged cursors (not a MAC; see the module docs).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    // Lengths are bounded by DynamoDB's key sizes, far below u32::MAX.
    out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if self.0.len() < n {
            return Err(invalid("truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(crate) fn str(&mut self) -> Result<String, Error> {
        let len = self.take(4)?;
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| invalid("not UTF-8"))
    }
}

impl Position {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_str(&mut out, &self.entity);
        put_str(&mut out, &self.index);
        put_str(&mut out, &self.partition);
        out.push(u8::from(self.descending));
        out.push(u8::try_from(self.key.len()).unwrap_or(u8::MAX));
        for (k, v) in &self.key {
            put_str(&mut out, k);
            put_str(&mut out, v);
        }
        out
    }

    fn decode(body: &[u8]) -> Result<Position, Error> {
        let mut r = Reader(body);
        let entity = r.str()?;
        let index = r.str()?;
        let partition = r.str()?;
        let descending = match r.take(1)? {
            [0] => false,
            [1] => true,
            _ => return Err(invalid("bad direction")),
        };
        let n = r.take(1)?[0];
        let mut key = Vec::with_capacity(usize::from(n).min(8));
        for _ in 0..n {
            key.push((r.str()?, r.str()?));
        }
        if !r.0.is_empty() {
            return Err(invalid("trailing bytes"));
        }
        Ok(Position { entity, index, partition, descending, key })
    }

    /// The cursor of this position: plain, signed or encrypted as `secret` says.
    pub(crate) fn seal(&self, secret: Option<&CursorSecret>) -> Result<Cursor, Error> {
        seal_body(self.encode(), secret)
    }
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

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

fn unbase64url(text: &str) -> Result<Vec<u8>, Error> {
    let digit = |c: u8| -> Result<u32, Error> {
        Ok(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return Err(invalid("not base64url")),
        }))
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for chunk in text.as_bytes().chunks(4) {
        if chunk.len() == 1 {
            return Err(invalid("bad length"));
        }
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= digit(*c)? << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        // Canonical form only: the bits past the last byte must be zero.
        if n & (0x00FF_FFFF >> (8 * bytes)) != 0 {
            return Err(invalid("not canonical base64url"));
        }
        out.extend_from_slice(&n.to_be_bytes()[1..=bytes]);
    }
    Ok(out)
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&base64url(&self.bytes))
    }
}

impl FromStr for Cursor {
    type Err = Error;

    /// Reads a cursor's text. Its length, encoding and framing are checked here (and a plain
    /// cursor's checksum); the signature or encryption when a table uses it.
    fn from_str(s: &str) -> Result<Cursor, Error> {
        if s.len() > MAX_CURSOR_LEN {
            return Err(invalid("longer than any cursor this crate writes"));
        }
        let bytes = unbase64url(s)?;
        let shortest = match bytes.first() {
            Some(&PLAIN) => 1 + CHECKSUM_LEN,
            Some(&SIGNED) => 1 + TAG_LEN,
            Some(&SEALED) => 1 + NONCE_LEN + AEAD_TAG_LEN,
            _ => return Err(invalid("unknown cursor format (or a cursor of an earlier version)")),
        };
        if bytes.len() < shortest {
            return Err(invalid("too short"));
        }
        let cursor = Cursor { bytes };
        if cursor.bytes[0] == PLAIN {
            cursor.open_body(None)?;
        }
        Ok(cursor)
    }
}

/// The key attributes a cursor of a query on `index` holds: the table's keys and the index's.
pub(crate) fn cursor_attrs(schema: &EntitySchema, index: Option<&str>) -> Vec<&'static str> {
    let mut attrs = vec![schema.pk.attr];
    attrs.extend(schema.sk.map(|k| k.attr));
    if let Some(i) = index.and_then(|n| schema.index(n)) {
        attrs.extend(i.pk.map(|k| k.attr));
        attrs.extend(i.sk.map(|k| k.attr));
    }
    attrs.sort_unstable();
    attrs.dedup();
    attrs
}

/// The type of key attribute `attr` (S unless an index keys on a field's own attribute).
pub(crate) fn attr_type(schema: &EntitySchema, attr: &str) -> AttributeType {
    schema
        .indexes
        .iter()
        .flat_map(|i| i.pk.iter().chain(i.sk.iter()))
        .chain(std::iter::once(&schema.pk))
        .chain(schema.sk.iter())
        .find(|k| k.attr == attr)
        .map_or(AttributeType::S, |k| k.ty)
}

/// The partition-key and sort-key attributes a query on `index` reads.
fn query_key_attrs(schema: &EntitySchema, index: Option<&str>) -> (&'static str, Option<&'static str>) {
    match index.and_then(|n| schema.index(n)) {
        Some(i) if i.kind == IndexKind::Global => (i.pk.map_or(schema.pk.attr, |k| k.attr), i.sk.map(|k| k.attr)),
        Some(i) => (schema.pk.attr, i.sk.map(|k| k.attr)),
        None => (schema.pk.attr, schema.sk.map(|k| k.attr)),
    }
}

/// The cursor of a query of `entity` (an entity or a collection) that resumes `request` right
/// after `item` (an item, or a `LastEvaluatedKey`); `None` if it lacks a key attribute as a
/// string (it cannot be resumed after).
pub(crate) fn after_item(
    secret: Option<&Arc<CursorSecret>>,
    entity: &str,
    schema: &EntitySchema,
    request: &QueryRequest,
    item: &Item,
) -> Result<Option<Cursor>, Error> {
    let attrs = cursor_attrs(schema, request.index_name);
    let mut key = Vec::with_capacity(attrs.len());
    for a in attrs {
        match item.get(a).and_then(|v| attr_type(schema, a).text_of(v)) {
            Some(text) => key.push((a.to_owned(), text)),
            None => return Ok(None),
        }
    }
    let position = Position {
        entity: entity.to_owned(),
        index: request.index_name.unwrap_or("").to_owned(),
        partition: request.partition_key.clone(),
        descending: !request.scan_index_forward,
        key,
    };
    position.seal(secret.map(|s| &**s)).map(Some)
}

/// Checks a cursor against the query it is used with; the `ExclusiveStartKey` it stands for.
pub(crate) fn check<T: Readable>(
    secret: Option<&Arc<CursorSecret>>,
    query: &Query<T>,
    cursor: &Cursor,
) -> Result<Item, Error> {
    let position = cursor.open(secret.map(|s| &**s))?;
    let schema = T::schema(query.index).ok_or_else(|| invalid("no member has this index"))?;
    check_position(T::NAME, schema, query, &position)?;
    position
        .key
        .into_iter()
        .map(|(k, v)| {
            let value = attr_type(schema, &k).value(&v).ok_or_else(|| invalid("a key value of the wrong type"))?;
            Ok((k, value))
        })
        .collect()
}

fn check_position<T>(entity: &str, schema: &EntitySchema, query: &Query<T>, position: &Position) -> Result<(), Error> {
    let index = query.index;
    let wrong = |what: &str| Err(invalid(&format!("this cursor belongs to another {what}")));
    if position.entity != entity {
        return wrong("entity");
    }
    if position.index != index.unwrap_or("") {
        return wrong("index");
    }
    if position.partition != query.pk {
        return wrong("partition");
    }
    if position.descending != query.descending {
        return wrong("direction (ascending or descending)");
    }
    let attrs = cursor_attrs(schema, index);
    if !position.key.iter().map(|(k, _)| k.as_str()).eq(attrs.iter().copied()) {
        return wrong("table or index (its key attributes differ)");
    }
    let value = |attr: &str| position.key.iter().find(|(k, _)| k == attr).map(|(_, v)| v.as_str());
    let (pk_attr, sk_attr) = query_key_attrs(schema, index);
    if value(pk_attr) != Some(query.pk.as_str()) {
        return wrong("partition");
    }
    if let Some(sk_attr) = sk_attr
        && !query.sort.matches_as(value(sk_attr).unwrap_or(""), query.key_types.1)
    {
        return Err(invalid("the cursor's item is outside this query's sort-key condition"));
    }
    Ok(())
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
