//! `#[version]` fields: the types an optimistic-locking version number may have.

/// A type a `#[version]` field may have: an unsigned integer.
///
/// The version is stored as a Number, starts at 0 and grows by one on every write. An item
/// without the attribute (written before versioning, or by other code) reads as version 0. A signed
/// type could hold a negative version, which no stored item has (every write would be a
/// conflict); a string or a float is no counter at all. So only unsigned integers qualify.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[version]` field: a version is an unsigned integer",
    label = "`#[version]` needs `u64` (or `u32`, `u16`, `u8`)",
    note = "the version starts at 0 and grows by one on every write; use `u64`"
)]
pub trait Version: Copy {
    /// The version as the number stored in the item.
    fn to_version(self) -> u64;
}

impl Version for u8 {
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u16 {
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u32 {
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u64 {
    #[inline]
    fn to_version(self) -> u64 {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn unsigned_integers_keep_their_value() {
        assert_eq!(7u8.to_version(), 7);
        assert_eq!(u16::MAX.to_version(), 65_535);
        assert_eq!(u32::MAX.to_version(), 4_294_967_295);
        assert_eq!(u64::MAX.to_version(), u64::MAX);
    }
}
