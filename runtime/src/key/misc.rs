//! `KeyPart` for `bool` and, with their features, `uuid::Uuid` and `ulid::Ulid`.

use super::{KeyPart, KeyPartError};

/// Written as `false` or `true`.
impl KeyPart for bool {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(KeyPartError::Invalid { expected: "`true` or `false`", text: text.to_owned() }),
        }
    }
}

/// Bytes (`serde_bytes::ByteBuf`, stored as binary): written as lower-case hex, two digits a
/// byte, whose string order is the bytes' order (a prefix sorts first, as in DynamoDB's binary
/// comparison). Only lower-case hex of whole bytes parses back.
impl KeyPart for serde_bytes::ByteBuf {
    trusted_key_part!();

    #[inline]
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(&hex(self));
        Ok(())
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        unhex(text).map(serde_bytes::ByteBuf::from).ok_or_else(|| KeyPartError::Invalid {
            expected: "lower-case hex, two digits a byte",
            text: text.to_owned(),
        })
    }
}

#[cfg(feature = "uuid")]
mod uuid_impl {
    use uuid::Uuid;

    use crate::key::KeyPart;
    use crate::key::KeyPartError;

    /// Written lower-case and hyphenated (36 characters), which sorts as the UUID's bytes do.
    impl KeyPart for Uuid {
        trusted_key_part!();

        #[inline]
        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            out.push_str(self.hyphenated().encode_lower(&mut Uuid::encode_buffer()));
            Ok(())
        }

        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            // `Uuid::try_parse` also takes upper case, braces, URNs and the simple form: accept
            // only what `write_key` writes.
            match Uuid::try_parse(text) {
                Ok(id) if id.hyphenated().encode_lower(&mut Uuid::encode_buffer()) == text => Ok(id),
                _ => Err(KeyPartError::Invalid {
                    expected: "a lower-case hyphenated UUID (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`)",
                    text: text.to_owned(),
                }),
            }
        }
    }
}

#[cfg(feature = "ulid")]
mod ulid_impl {
    use ulid::Ulid;

    use crate::key::KeyPart;
    use crate::key::KeyPartError;

    /// Written as its canonical 26 upper-case Crockford base32 characters, which sort as the
    /// ULIDs do.
    impl KeyPart for Ulid {
        trusted_key_part!();

        #[inline]
        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            let mut buf = [0u8; ulid::ULID_LEN];
            out.push_str(self.array_to_str(&mut buf));
            Ok(())
        }

        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            // `Ulid::from_string` also takes lower case and silently drops overflowing bits:
            // accept only what `write_key` writes.
            let mut buf = [0u8; ulid::ULID_LEN];
            match Ulid::from_string(text) {
                Ok(id) if id.array_to_str(&mut buf) == text => Ok(id),
                _ => Err(KeyPartError::Invalid {
                    expected: "a ULID in upper-case Crockford base32 (26 characters)",
                    text: text.to_owned(),
                }),
            }
        }
    }
}

/// Lower-case hex of `bytes`, two digits a byte: the key text of binary (and of a binary key
/// attribute's value, `key::attr`).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The bytes of lower-case hex text, two digits a byte; `None` for any other text.
pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.as_bytes().chunks(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}
