//! The promises of a write that DynamoDB keeps only within the Region that takes it, on a global
//! table with multi-Region eventual consistency (MREC): the payload of
//! [`Error::RegionLocalWrite`](super::Error::RegionLocalWrite).

use std::fmt;

/// A promise of a write that holds only within one Region of an MREC global table. DynamoDB
/// evaluates a write's condition against the copy of the item in the Region that takes the write,
/// then replicates the item to the other Regions, where the last writer wins: two Regions can
/// both keep the promise for the same item at the same time, and one of the two writes is lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RegionLocal {
    /// A `create`'s check that no item has the key: two Regions can both create the item.
    Create,
    /// A `#[version]` check: two Regions can both write version n + 1 of the same item.
    Version,
    /// A `#[unique]` guard: two Regions can both give the same value to two items.
    Unique,
    /// An `.idempotent()` update applied once: its idempotency token is known to the Region that
    /// took it only, so the update sent again to another Region (after a failover) is applied
    /// again.
    Idempotent,
    /// A condition (`.condition(..)`, `.if_version(..)`, a transaction's `check`): evaluated on
    /// the Region's copy of the item, which may not hold another Region's latest write.
    Condition,
}

impl RegionLocal {
    /// The promise in a few words, as errors and the plan's notes say it.
    pub fn describe(self) -> &'static str {
        match self {
            RegionLocal::Create => "a create's check that no item has the key",
            RegionLocal::Version => "a #[version] check",
            RegionLocal::Unique => "a #[unique] guard",
            RegionLocal::Idempotent => "an idempotent update's applied-once",
            RegionLocal::Condition => "a condition on the stored item",
        }
    }
}

impl fmt::Display for RegionLocal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
