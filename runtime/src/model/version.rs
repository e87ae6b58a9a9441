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
    /// The largest version the type holds: a write that would store a larger one is refused
    /// before sending (the item could no longer be read back).
    const MAX: u64;
    /// The version as the number stored in the item.
    fn to_version(self) -> u64;
}

impl Version for u8 {
    const MAX: u64 = u8::MAX as u64;
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u16 {
    const MAX: u64 = u16::MAX as u64;
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u32 {
    const MAX: u64 = u32::MAX as u64;
    #[inline]
    fn to_version(self) -> u64 {
        u64::from(self)
    }
}

impl Version for u64 {
    const MAX: u64 = u64::MAX;
    #[inline]
    fn to_version(self) -> u64 {
        self
    }
}

/// The error of a write that would store a version past the largest its field holds.
pub(crate) fn overflow(schema: &crate::model::entity::EntitySchema, version: u64) -> crate::error::Error {
    crate::error::Error::Validation(format!(
        "the `#[version]` of {} is {version}, the largest its type holds: the next write would store {}, which no \
         item of {} could read back; widen the field's type (`u64`)",
        schema.entity_type,
        u128::from(version) + 1,
        schema.entity_type,
    ))
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
