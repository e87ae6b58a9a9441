//! A cursor's bytes: the position (key attributes and their values) written and read back, and
//! the URL-safe text form.

#[cfg(test)]
use super::CursorSecret;
#[cfg(test)]
use super::seal::seal_body;
use super::{AEAD_TAG_LEN, CHECKSUM_LEN, Cursor, MAX_CURSOR_LEN, NONCE_LEN, PLAIN, SEALED, SIGNED, TAG_LEN, invalid};

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// What a cursor says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) entity: String,
    pub(crate) index: String,
    pub(crate) partition: String,
    pub(crate) descending: bool,
    /// The hash of the query's sort-key condition and filter ([`super::bind::query_hash`]): a
    /// cursor resumes only the query that made it.
    pub(crate) query: u64,
    /// The key attributes of the last item returned, sorted by name, as text (numbers in
    /// decimal, binary in hex: the schema tells their types).
    pub(crate) key: Vec<(String, String)>,
}

/// The bytes of a [`Position`] made of these parts (a query's cursor is written from its request
/// without building one: no copy of its strings).
pub(crate) fn encode_position<'a>(
    entity: &str,
    index: &str,
    partition: &str,
    descending: bool,
    query: u64,
    key: impl ExactSizeIterator<Item = (&'a str, &'a str)> + Clone,
) -> Vec<u8> {
    // Its size, so that it is allocated once (it grew five times for a query's cursor).
    let keys: usize = key.clone().map(|(k, v)| k.len() + v.len() + 8).sum();
    let mut out = Vec::with_capacity(entity.len() + index.len() + partition.len() + 12 + 10 + keys);
    put_str(&mut out, entity);
    put_str(&mut out, index);
    put_str(&mut out, partition);
    out.push(u8::from(descending));
    out.extend_from_slice(&query.to_be_bytes());
    out.push(u8::try_from(key.len()).unwrap_or(u8::MAX));
    for (k, v) in key {
        put_str(&mut out, k);
        put_str(&mut out, v);
    }
    out
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
    /// Its bytes ([`encode_position`], which a query's cursor is written with).
    #[cfg(test)]
    pub(crate) fn encode(&self) -> Vec<u8> {
        encode_position(
            &self.entity,
            &self.index,
            &self.partition,
            self.descending,
            self.query,
            self.key.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )
    }

    pub(crate) fn decode(body: &[u8]) -> Result<Position, Error> {
        let mut r = Reader(body);
        let entity = r.str()?;
        let index = r.str()?;
        let partition = r.str()?;
        let descending = match r.take(1)? {
            [0] => false,
            [1] => true,
            _ => return Err(invalid("bad direction")),
        };
        let query = u64::from_be_bytes(r.take(8)?.try_into().map_err(|_| invalid("truncated"))?);
        let n = r.take(1)?[0];
        let mut key = Vec::with_capacity(usize::from(n).min(8));
        for _ in 0..n {
            key.push((r.str()?, r.str()?));
        }
        if !r.0.is_empty() {
            return Err(invalid("trailing bytes"));
        }
        Ok(Position { entity, index, partition, descending, query, key })
    }

    /// The cursor of this position: plain, signed or encrypted as `secret` says.
    #[cfg(test)]
    pub(crate) fn seal(&self, secret: Option<&CursorSecret>) -> Result<Cursor, Error> {
        seal_body(self.encode(), secret)
    }
}

pub(crate) const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub(crate) fn base64url(bytes: &[u8]) -> String {
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

pub(crate) fn unbase64url(text: &str) -> Result<Vec<u8>, Error> {
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
