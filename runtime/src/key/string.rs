//! `KeyPart` for `String`: bytes from 0x00 to `%` (0x25) are escaped as `%XX`.
//!
//! Every byte from 0x00 to 0x25 (control characters, space, `!`, `"`, `#`, `$` and `%` itself)
//! is written as `%` followed by two upper-case hex digits; every other byte, including all of
//! non-ASCII UTF-8, is copied as is. An escape starts with `%`, which sorts below every copied
//! byte, and its hex digits sort as the byte they stand for, so escaped strings compare as the
//! original strings do. Only this canonical form is parsed back.

use super::scan::{FIRST_PLAIN_BYTE, find_below_plain as find_escape};
use super::{KeyPart, KeyPartError};

/// Upper-case hex digits.
const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Appends the escaped form of `s` to `out`.
#[inline]
fn escape_into(s: &str, out: &mut String) {
    match find_escape(s.as_bytes(), 0) {
        None => out.push_str(s),
        Some(next) => escape_from(s, next, out),
    }
}

/// [`escape_into`] from the first byte to escape, `next`: kept apart so that the common case,
/// nothing to escape, is a scan and a copy.
#[inline(never)]
fn escape_from(s: &str, mut next: usize, out: &mut String) {
    let bytes = s.as_bytes();
    out.reserve(s.len() + 8);
    let mut start = 0;
    loop {
        // `start` and `next` are at ASCII bytes (or the ends), so they are char boundaries.
        out.push_str(s.get(start..next).unwrap_or_default());
        let b = bytes.get(next).copied().unwrap_or_default();
        out.push('%');
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
        start = next + 1;
        match find_escape(bytes, start) {
            Some(i) => next = i,
            None => {
                out.push_str(s.get(start..).unwrap_or_default());
                return;
            }
        }
    }
}

const EXPECTED: &str = "an escaped string (bytes up to `%` written as `%XX` in upper-case hex, `%XX` at most `%25`)";

#[cold]
#[inline(never)]
fn invalid(text: &str) -> KeyPartError {
    KeyPartError::Invalid { expected: EXPECTED, text: text.to_owned() }
}

/// The value of an upper-case hex digit.
#[inline]
fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// Reverses [`escape_into`], accepting only its canonical output.
#[inline]
fn unescape(text: &str) -> Result<String, KeyPartError> {
    let bytes = text.as_bytes();
    let Some(mut next) = find_escape(bytes, 0) else {
        return Ok(text.to_owned());
    };
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    loop {
        if bytes.get(next) != Some(&b'%') {
            return Err(invalid(text));
        }
        let (Some(&hi), Some(&lo)) = (bytes.get(next + 1), bytes.get(next + 2)) else {
            return Err(invalid(text));
        };
        let byte = match (hex_value(hi), hex_value(lo)) {
            (Some(hi), Some(lo)) => (hi << 4) | lo,
            _ => return Err(invalid(text)),
        };
        if byte >= FIRST_PLAIN_BYTE {
            return Err(invalid(text));
        }
        // `start` and `next` are at ASCII bytes (or the start), so they are char boundaries.
        out.push_str(text.get(start..next).unwrap_or_default());
        out.push(char::from(byte));
        start = next + 3;
        match find_escape(bytes, start) {
            Some(i) => next = i,
            None => {
                out.push_str(text.get(start..).unwrap_or_default());
                return Ok(out);
            }
        }
    }
}

/// Written with every byte from 0x00 to `%` escaped as `%XX` (upper-case hex), the rest as is:
/// `"a#b%c d"` becomes `a%23b%25c%20d`. Escaped strings sort as the strings do.
impl KeyPart for String {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        escape_into(self, out);
        Ok(())
    }

    #[inline]
    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        unescape(text)
    }

    #[inline]
    fn __parse_plain(text: &str) -> Result<Self, KeyPartError> {
        // No byte below `&`: no escape, and the text is its own value.
        Ok(text.to_owned())
    }
}
