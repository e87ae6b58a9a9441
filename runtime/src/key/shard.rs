//! Sharded partition keys: the shard of an item, and its text in the key.
//!
//! # The shard contract
//!
//! A partition-key template with `<shard>` and `shards = N` spreads one logical partition over
//! `N` partitions. The shard of an item whose key names `shard_by = "a, b"` is
//!
//! ```text
//! shard = FNV-1a-64(text(a) + "#" + text(b)) mod N
//! ```
//!
//! where `text(f)` is the key text field `f` has in the keys (as `KeyPart` writes it: strings
//! escaped, integers zero-padded to the width of their placeholder), and FNV-1a-64 is the
//! standard 64-bit FNV-1a hash of the UTF-8 bytes (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`). `<shard>` is written as the shard number in decimal, zero-padded to the
//! digits of `N - 1` (`03` of 16 shards, `007` of 512). Any language can compute it, so items
//! written by other code land in the shard a query reads:
//!
//! ```
//! use dynamo_entity_runtime::{fnv1a64, shard_of};
//!
//! assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
//! assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
//! assert_eq!(fnv1a64(b"sensor-1"), 0xa093_1a06_6672_0f29);
//! // `shard_by = "sensor_id"`, 8 shards: `<shard>` is `1`.
//! assert_eq!(shard_of(&["sensor-1"], 8), 1);
//! // `shard_by = "sensor_id, at"` with `<at:19>`: the texts joined by `#`.
//! assert_eq!(fnv1a64(b"sensor-1#0000001764000000000"), 0xc0a9_2128_ac8f_2ecc);
//! assert_eq!(shard_of(&["sensor-1", "0000001764000000000"], 8), 4);
//! // 512 shards: `<shard>` is `204`, three digits.
//! assert_eq!(shard_of(&["sensor-1", "0000001764000000000"], 512), 204);
//! ```
//!
//! Without `shard_by` (indexes only) the shard is random per write.

use std::cell::Cell;
use std::hash::{BuildHasher, RandomState};

use super::{KeyBuilder, KeyReader};
use crate::error::KeyError;

/// FNV-1a, 64 bits, of `bytes`.
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_more(0xcbf2_9ce4_8422_2325, bytes)
}

/// [`fnv1a64`] continued: the hash `h` of some bytes, of those bytes followed by `bytes` (a text
/// hashed piece by piece, as it is written).
pub(crate) const fn fnv1a64_more(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// The shard (`0..shards`) of an item whose `shard_by` fields have these key texts, in order.
///
/// # Panics
/// Never: a `shards` of 0 is read as 1 (shard 0).
pub fn shard_of(texts: &[&str], shards: u16) -> u16 {
    let mut joined = String::with_capacity(texts.iter().map(|t| t.len() + 1).sum());
    for (i, t) in texts.iter().enumerate() {
        if i > 0 {
            joined.push('#');
        }
        joined.push_str(t);
    }
    shard_of_text(&joined, shards)
}

/// A `shard_fn`: the shard (`0..shards`) of an item whose `shard_by` fields have these key
/// texts, in order. [`fnv1a_shard`] is the default.
pub type ShardFn = fn(texts: &[&str], shards: u32) -> u32;

/// The default [`ShardFn`]: [`shard_of`] (FNV-1a 64 of the texts joined by `#`, modulo `shards`).
pub fn fnv1a_shard(texts: &[&str], shards: u32) -> u32 {
    u32::from(shard_of(texts, u16::try_from(shards).unwrap_or(u16::MAX)))
}

/// The shard `f` (a `shard_fn`) gives the key texts `texts` of key attribute `key`; a number
/// not below `shards` is [`KeyError::Format`], never a partition no query reads. Called by
/// generated code.
#[doc(hidden)]
pub fn shard_with(f: ShardFn, texts: &[&str], shards: u16, key: &'static str) -> Result<u16, KeyError> {
    let n = f(texts, u32::from(shards));
    match u16::try_from(n) {
        Ok(n) if n < shards => Ok(n),
        _ => Err(KeyError::Format {
            key,
            field: "<shard>",
            source: crate::key::KeyPartError::OutOfRange {
                expected: "a shard number below `shards` (the `shard_fn` returned one)",
                value: format!("{n} of {shards} shards"),
            },
        }),
    }
}

/// The shard of the `#`-joined key texts `text`.
pub(crate) fn shard_of_text(text: &str, shards: u16) -> u16 {
    // The remainder is below `shards`, a `u16`.
    (fnv1a64(text.as_bytes()) % u64::from(shards.max(1))) as u16
}

/// The shard of the key texts written on `h` (a [`KeyBuilder::scratch`], handed back).
/// Called by generated code.
#[doc(hidden)]
#[inline]
pub fn shard_of_builder(h: KeyBuilder, shards: u16) -> Result<u16, crate::error::KeyError> {
    let text = h.finish()?;
    let shard = shard_of_text(&text, shards);
    KeyBuilder::recycle(text);
    Ok(shard)
}

thread_local! {
    /// The state of this thread's shard picker (xorshift64*, seeded from the OS's randomness).
    static PICK: Cell<u64> = Cell::new(RandomState::new().hash_one(0u64) | 1);
}

/// A random shard (`0..shards`), for an index sharded without `shard_by`. Called by generated
/// code.
#[doc(hidden)]
pub fn random_shard(shards: u16) -> u16 {
    let x = PICK.with(|s| {
        let mut x = s.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    });
    // The remainder is below `shards`, a `u16`.
    ((x >> 32) % u64::from(shards.max(1))) as u16
}

/// The digits of the shard numbers of a key with `shards` shards (those of `shards - 1`).
pub(crate) fn shard_digits(shards: u16) -> usize {
    let mut n = shards.saturating_sub(1);
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

impl KeyBuilder {
    /// Appends shard number `shard` of `shards`, zero-padded to the digits of `shards - 1`.
    #[inline]
    pub fn shard(&mut self, shard: u16, shards: u16) {
        use std::fmt::Write;
        let width = shard_digits(shards);
        // Writing to a `String` cannot fail.
        let _ = write!(self.buffer(), "{shard:0width$}");
    }

    /// Appends shard number `shard` without padding (`<shard:unpadded>`: `3` of 12 shards).
    #[inline]
    pub fn shard_unpadded(&mut self, shard: u16) {
        use std::fmt::Write;
        // Writing to a `String` cannot fail.
        let _ = write!(self.buffer(), "{shard}");
    }
}

/// The shard number `text` says, if it is one of `shards` as written (`unpadded`: in its
/// shortest form; else zero-padded to the digits of `shards - 1`).
pub(crate) fn shard_text(text: &str, shards: u16, unpadded: bool) -> Option<u16> {
    let canonical = if unpadded {
        !text.is_empty() && text.len() <= 5 && (text == "0" || !text.starts_with('0'))
    } else {
        text.len() == shard_digits(shards)
    };
    if !canonical || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|n| *n < shards)
}

impl<'a> KeyReader<'a> {
    /// Reads a shard number of a key with `shards` shards.
    pub fn shard(&mut self, shards: u16) -> Result<u16, KeyError> {
        self.shard_number(shards, false)
    }

    /// Reads a shard number of a key with `shards` shards, zero-padded or (`unpadded`) not.
    pub fn shard_number(&mut self, shards: u16, unpadded: bool) -> Result<u16, KeyError> {
        let len = if unpadded {
            self.remaining().bytes().take_while(u8::is_ascii_digit).count()
        } else {
            shard_digits(shards)
        };
        match self.take_bytes(len).and_then(|t| shard_text(t, shards, unpadded)) {
            Some(n) => Ok(n),
            None => Err(self.mismatch_at(shard_expected(shards, unpadded))),
        }
    }

    /// `<field><sep><shard>` (`<date>.<shard>`): checks the shard number after the last `sep`
    /// before the next `#` (or the end), moves past it, and gives a reader of the text before
    /// `sep` (the field's, which may hold `sep` itself: shard numbers never do).
    pub fn joined_shard(&mut self, sep: u8, shards: u16, unpadded: bool) -> Result<KeyReader<'a>, KeyError> {
        let rest = self.remaining();
        let end = rest.bytes().position(|b| b == b'#').unwrap_or(rest.len());
        let segment = &rest[..end];
        let Some(at) = segment.bytes().rposition(|b| b == sep) else {
            return Err(self.mismatch_at(format!(
                "expected `{}` and {}",
                char::from(sep),
                shard_expected(shards, unpadded)
            )));
        };
        if shard_text(&segment[at + 1..], shards, unpadded).is_none() {
            return Err(self.mismatch_at(shard_expected(shards, unpadded)));
        }
        let field = self.sub(&segment[..at]);
        self.take_bytes(end);
        Ok(field)
    }
}

#[cold]
fn shard_expected(shards: u16, unpadded: bool) -> String {
    if unpadded {
        format!("expected a shard number below {shards} (unpadded)")
    } else {
        format!("expected a shard number of {} digits below {shards}", shard_digits(shards))
    }
}

/// The partitions of a sharded partition key that a query has not narrowed to one.
#[derive(Debug, Clone)]
pub(crate) struct Shards {
    /// Every shard's partition-key text, by shard number.
    pub(crate) partitions: Vec<String>,
    /// The `shard_by` fields, and the key texts of those the query fixes.
    by: &'static [&'static str],
    known: Vec<Option<String>>,
    /// The shard of the `shard_by` fields' key texts (`shard_fn`, else FNV-1a).
    hash: ShardFn,
    /// The partition-key attribute, for errors.
    attr: &'static str,
}

impl Shards {
    /// Every shard's partition (`partition(s)`), and the texts of the `shard_by` fields known;
    /// `hash` computes a shard from them.
    pub(crate) fn build<const K: usize>(
        shards: u16,
        partition: impl Fn(u16) -> Result<String, KeyError>,
        by: &'static [&'static str],
        known: [Option<Result<String, KeyError>>; K],
        hash: ShardFn,
        attr: &'static str,
    ) -> Result<Shards, KeyError> {
        let partitions = (0..shards).map(partition).collect::<Result<Vec<_>, _>>()?;
        let known = known.into_iter().map(Option::transpose).collect::<Result<Vec<_>, _>>()?;
        Ok(Shards { partitions, by, known, hash, attr })
    }

    /// `shard_by` field `field` has key text `text`; whether it is one.
    pub(crate) fn fix(&mut self, field: &str, text: &str) -> bool {
        match self.by.iter().position(|b| *b == field) {
            Some(i) => {
                self.known[i] = Some(text.to_owned());
                true
            }
            None => false,
        }
    }

    /// The partition to read (the one the known fields name, else the first shard's, for
    /// display), and the shards unless one is fixed.
    pub(crate) fn start(self) -> Result<(String, Option<Box<Shards>>), KeyError> {
        Ok(match self.fixed()? {
            Some(pk) => (pk, None),
            None => (self.partitions.first().cloned().unwrap_or_default(), Some(Box::new(self))),
        })
    }

    /// The one partition that every `shard_by` field, known, names (an error if a `shard_fn`
    /// names a shard out of range).
    pub(crate) fn fixed(&self) -> Result<Option<String>, KeyError> {
        if self.by.is_empty() || self.known.iter().any(Option::is_none) {
            return Ok(None);
        }
        let texts: Vec<&str> = self.known.iter().flatten().map(String::as_str).collect();
        let count = u16::try_from(self.partitions.len()).unwrap_or(u16::MAX);
        let shard = shard_with(self.hash, &texts, count, self.attr)?;
        Ok(self.partitions.get(usize::from(shard)).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_published_vectors() {
        // From the FNV reference (Fowler, Noll, Vo): FNV-1a 64 of "", "a" and "foobar".
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn shards_are_padded_to_the_digits_of_the_last() {
        for (shards, shard, text) in [(2, 1, "1"), (10, 9, "9"), (11, 3, "03"), (100, 7, "07"), (512, 7, "007")] {
            let mut b = KeyBuilder::new();
            b.start("PK", 4);
            b.shard(shard, shards);
            assert_eq!(b.finish().as_deref(), Ok(text));
            let mut r = KeyReader::new("PK", "<shard>", text);
            assert_eq!(r.shard(shards).unwrap(), shard);
        }
        assert!(KeyReader::new("PK", "<shard>", "8").shard(8).is_err());
        assert!(KeyReader::new("PK", "<shard>", "x").shard(8).is_err());
        assert!(KeyReader::new("PK", "<shard>", "1").shard(16).is_err());
    }

    #[test]
    fn unpadded_and_joined_shards_read_back_exactly() {
        let mut b = KeyBuilder::new();
        b.start("pk", 4);
        b.shard_unpadded(3);
        assert_eq!(b.finish().as_deref(), Ok("3"));
        for (text, shards, ok) in
            [("3", 12, Some(3)), ("10", 12, Some(10)), ("03", 12, None), ("12", 12, None), ("", 12, None)]
        {
            assert_eq!(KeyReader::new("pk", "<shard:unpadded>", text).shard_number(shards, true).ok(), ok, "{text}");
        }
        // `<date>-<shard:unpadded>`: the date holds `-` too; the shard follows the last one.
        let mut r = KeyReader::new("pk", "<date>-<shard:unpadded>#X", "2026-11-26-11#X");
        let mut date = r.joined_shard(b'-', 12, true).unwrap();
        assert_eq!(date.rest(), "2026-11-26");
        r.literal("#X").unwrap();
        r.end().unwrap();
        // Padded, and refused when the digits are not a shard number of this key.
        let mut r = KeyReader::new("pk", "<date>.<shard>", "d.07");
        assert_eq!(r.joined_shard(b'.', 16, false).unwrap().rest(), "d");
        for (text, unpadded) in [("d.7", false), ("d.16", true), ("d", true), ("d.x", true), ("d.07", true)] {
            assert!(KeyReader::new("pk", "<date>.<shard>", text).joined_shard(b'.', 16, unpadded).is_err(), "{text}");
        }
    }

    #[test]
    fn a_shard_fn_out_of_range_is_a_key_error() {
        assert_eq!(shard_with(|t, n| t[0].len() as u32 % n, &["abc"], 2, "pk"), Ok(1));
        assert!(matches!(shard_with(|_, n| n, &["abc"], 2, "pk"), Err(KeyError::Format { key: "pk", .. })));
        assert_eq!(fnv1a_shard(&["sensor-1"], 8), 1);
    }

    #[test]
    fn random_shards_cover_every_shard() {
        let mut seen = [0u32; 8];
        for _ in 0..8000 {
            seen[usize::from(random_shard(8))] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }
}
