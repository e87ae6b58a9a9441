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
        out.push_str(&crate::model::key_attr::hex(self));
        Ok(())
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        crate::model::key_attr::unhex(text).map(serde_bytes::ByteBuf::from).ok_or_else(|| KeyPartError::Invalid {
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
