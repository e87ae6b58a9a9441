//! Opaque pagination cursors: the key of the last item returned, bound to the query it came from.
//!
//! A cursor prints as a URL-safe string (base64url, no padding) that a web client can hand back.
//! It holds the entity type, the index, the partition key and the key attributes of the last item
//! returned, plus a checksum. On use it is checked against the query: a cursor of another entity,
//! index or partition, one whose key does not satisfy the query's sort condition, or one that was
//! altered, is [`Error::InvalidCursor`](crate::Error::InvalidCursor) and never reaches DynamoDB.
//! Even a forged cursor with a valid checksum can therefore only move within the results of
//! the query it is used with.

use std::fmt;
use std::str::FromStr;

use crate::{AttributeValue, Error, Item};

const VERSION: u8 = 1;

/// Where a query resumes: right after the last item of the previous page.
#[derive(Clone, PartialEq, Eq)]
pub struct Cursor {
    pub(crate) entity: String,
    pub(crate) index: String,
    pub(crate) partition: String,
    /// The key attributes of the last item returned (all strings), sorted by name.
    pub(crate) key: Vec<(String, String)>,
}

impl fmt::Debug for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Cursor").field(&self.to_string()).finish()
    }
}

pub(crate) fn invalid(why: &str) -> Error {
    tracing::debug!(target: "dynamo_entity::cursor", reason = why, "invalid cursor");
    Error::InvalidCursor
}

/// FNV-1a, 64 bits: a checksum that catches edited cursors (not a secret MAC; see the module docs).
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    // Lengths are bounded by DynamoDB's key sizes, far below u32::MAX.
    out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if self.0.len() < n {
            return Err(invalid("truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn str(&mut self) -> Result<String, Error> {
        let len = self.take(4)?;
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| invalid("not UTF-8"))
    }
}

impl Cursor {
    pub(crate) fn from_key(
        entity: &str,
        index: Option<&str>,
        partition: &str,
        item: &Item,
        attrs: &[&str],
    ) -> Option<Cursor> {
        let mut key = Vec::with_capacity(attrs.len());
        for a in attrs {
            match item.get(*a) {
                Some(AttributeValue::S(s)) => key.push(((*a).to_owned(), s.clone())),
                _ => return None,
            }
        }
        key.sort();
        Some(Cursor {
            entity: entity.to_owned(),
            index: index.unwrap_or("").to_owned(),
            partition: partition.to_owned(),
            key,
        })
    }

    pub(crate) fn to_start_key(&self) -> Item {
        self.key.iter().map(|(k, v)| (k.clone(), AttributeValue::S(v.clone()))).collect()
    }

    pub(crate) fn value(&self, attr: &str) -> Option<&str> {
        self.key.iter().find(|(k, _)| k == attr).map(|(_, v)| v.as_str())
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        put_str(&mut out, &self.entity);
        put_str(&mut out, &self.index);
        put_str(&mut out, &self.partition);
        out.push(u8::try_from(self.key.len()).unwrap_or(u8::MAX));
        for (k, v) in &self.key {
            put_str(&mut out, k);
            put_str(&mut out, v);
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_be_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Result<Cursor, Error> {
        if bytes.len() < 9 {
            return Err(invalid("too short"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut expected = [0u8; 8];
        expected.copy_from_slice(sum);
        if checksum(body) != u64::from_be_bytes(expected) {
            return Err(invalid("checksum mismatch: the cursor was altered"));
        }
        let mut r = Reader(body);
        if r.take(1)? != [VERSION] {
            return Err(invalid("unknown cursor version"));
        }
        let entity = r.str()?;
        let index = r.str()?;
        let partition = r.str()?;
        let n = r.take(1)?[0];
        let mut key = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            key.push((r.str()?, r.str()?));
        }
        if !r.0.is_empty() {
            return Err(invalid("trailing bytes"));
        }
        Ok(Cursor { entity, index, partition, key })
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
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let digits: Vec<u32> = text
        .bytes()
        .map(|c| ALPHABET.iter().position(|a| *a == c).map(|p| p as u32).ok_or_else(|| invalid("not base64url")))
        .collect::<Result<_, _>>()?;
    for chunk in digits.chunks(4) {
        if chunk.len() == 1 {
            return Err(invalid("bad length"));
        }
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= d << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    // Canonical form only: re-encoding must give the same text.
    if base64url(&out) != text {
        return Err(invalid("not canonical base64url"));
    }
    Ok(out)
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&base64url(&self.encode()))
    }
}

impl FromStr for Cursor {
    type Err = Error;

    fn from_str(s: &str) -> Result<Cursor, Error> {
        Cursor::decode(&unbase64url(s)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Cursor {
        Cursor {
            entity: "Message".into(),
            index: String::new(),
            partition: "CHATROOM#r".into(),
            key: vec![("PK".into(), "CHATROOM#r".into()), ("SK".into(), "MESSAGE#0000000000001#é".into())],
        }
    }

    #[test]
    fn round_trips_through_its_string() {
        let c = sample();
        let s = c.to_string();
        assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{s}");
        assert_eq!(s.parse::<Cursor>().unwrap(), c);
        for len in 0..7 {
            let bytes: Vec<u8> = (0..len).map(|i| i * 37).collect();
            assert_eq!(unbase64url(&base64url(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn every_altered_character_is_detected() {
        let s = sample().to_string();
        for i in 0..s.len() {
            for replacement in ['A', 'z', '0', '-'] {
                let mut t: Vec<char> = s.chars().collect();
                if t[i] == replacement {
                    continue;
                }
                t[i] = replacement;
                let t: String = t.into_iter().collect();
                assert!(t.parse::<Cursor>().is_err(), "altered at {i}: {t}");
            }
        }
        assert!("".parse::<Cursor>().is_err());
        assert!("not a cursor!".parse::<Cursor>().is_err());
        assert!(s[..s.len() - 1].parse::<Cursor>().is_err());
    }
}
