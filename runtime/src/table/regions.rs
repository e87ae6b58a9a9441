//! What a handle knows of the global table it writes to (`Table::on_global_table`): the table's
//! multi-Region consistency, its replicas, and how the application writes to it. The handle's
//! writes consult it in `ops/policy.rs`, where they decide their conditions.

use crate::error::Error;

/// How the replicas of a global table agree: DynamoDB's `MultiRegionConsistency`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum MultiRegionConsistency {
    /// Multi-Region eventual consistency (MREC, `EVENTUAL`): a write is acknowledged by its
    /// Region and replicated to the others, typically within a second; conflicting writes of one
    /// item in two Regions are settled by the last writer. DynamoDB's default.
    #[default]
    Eventual,
    /// Multi-Region strong consistency (MRSC, `STRONG`): a write is acknowledged once another
    /// Region holds it; strongly consistent reads and conditional writes see every Region's
    /// latest write. Three replicas, or two and a witness, in one Region set.
    Strong,
}

impl MultiRegionConsistency {
    /// The name DynamoDB uses: `EVENTUAL` or `STRONG`.
    pub fn as_str(self) -> &'static str {
        match self {
            MultiRegionConsistency::Eventual => "EVENTUAL",
            MultiRegionConsistency::Strong => "STRONG",
        }
    }

    /// The short name: `MREC` or `MRSC`.
    pub fn short(self) -> &'static str {
        match self {
            MultiRegionConsistency::Eventual => "MREC",
            MultiRegionConsistency::Strong => "MRSC",
        }
    }
}

/// How an application writes to a global table with multi-Region eventual consistency (MREC): the
/// three write modes of AWS's guidance for global tables. It decides which writes a handle sends
/// when they carry a promise DynamoDB keeps only within one Region
/// ([`RegionLocal`](crate::RegionLocal): a create, a `#[version]` check, a `#[unique]`
/// guard, an idempotent update, a condition). Writes without such a promise (a plain put, a delete,
/// an update without condition) are sent in every mode: on MREC the last writer wins for them
/// anyway. On a table with multi-Region strong consistency (MRSC) every promise holds across
/// Regions, and no mode refuses anything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum WriteMode {
    /// Write to any Region: every Region takes writes of any item. A write carrying a
    /// Region-local promise is refused ([`Error::RegionLocalWrite`]): two Regions could both
    /// keep it. The default of a handle on an MREC table.
    #[default]
    AnyRegion,
    /// Write to one Region: every write goes through this Region (the home Region; the others
    /// serve reads, and take over after a failover, when the application names a new home).
    /// A write carrying a Region-local promise is sent only by a handle whose client is in the
    /// home Region, and refused by any other ([`Error::RegionLocalWrite`]).
    OneRegion(String),
    /// Write to your Region: each item is written through one Region only, its own (a user's
    /// home Region, say), so no two Regions write the same item. The library cannot check that:
    /// this mode is the application's word for it, and every write is sent.
    YourRegion,
}

/// What a handle knows of its global table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Regions {
    pub(crate) consistency: MultiRegionConsistency,
    /// Every replica's Region.
    pub(crate) replicas: Vec<String>,
    pub(crate) writes: WriteMode,
}

impl Regions {
    /// Why a handle whose client is in `region` may not send a write carrying a Region-local
    /// promise; `None` when it may.
    pub(crate) fn refusal(&self, region: Option<&str>) -> Option<String> {
        if self.consistency == MultiRegionConsistency::Strong {
            return None;
        }
        match &self.writes {
            WriteMode::YourRegion => None,
            WriteMode::OneRegion(home) if region == Some(home.as_str()) => None,
            WriteMode::OneRegion(home) => Some(format!(
                "this handle writes through {}, not the home Region {home} of its write mode \
                 (WriteMode::OneRegion): send it through the home Region, or name the new home after a failover",
                region.unwrap_or("no Region")
            )),
            WriteMode::AnyRegion => Some(
                "this handle writes to any Region (WriteMode::AnyRegion): another Region may take a write of the \
                 same item at the same time; write such items through one Region (WriteMode::OneRegion) or each \
                 through its own (WriteMode::YourRegion)"
                    .to_owned(),
            ),
        }
    }
}

/// `name` as a Region name DynamoDB takes (`eu-west-1`, `us-gov-west-1`): lowercase letters and
/// digits in at least three parts joined by `-`, the last a number; else [`Error::Validation`]
/// naming `what`.
pub(crate) fn check_region(what: &str, name: &str) -> Result<(), Error> {
    let parts: Vec<&str> = name.split('-').collect();
    let letters = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    let ok = parts.len() >= 3
        && parts[..parts.len() - 1].iter().all(letters)
        && parts.last().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if ok {
        Ok(())
    } else {
        Err(Error::Validation(format!(
            "{what}: {name:?} is not a Region name (such as \"eu-west-1\": lowercase parts joined by `-`, the last \
             a number)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_names() {
        for good in ["eu-west-1", "us-gov-west-1", "ap-southeast-5", "cn-north-1"] {
            assert!(check_region("r", good).is_ok(), "{good}");
        }
        for bad in ["", "eu-west", "EU-west-1", "eu_west_1", "eu-west-1a", "eu--1", "west-1", "eu-west-1 "] {
            assert!(matches!(check_region("r", bad), Err(Error::Validation(_))), "{bad:?}");
        }
    }

    #[test]
    fn which_handles_refuse() {
        let mrec = |writes| Regions {
            consistency: MultiRegionConsistency::Eventual,
            replicas: vec!["eu-west-1".into(), "us-east-1".into()],
            writes,
        };
        assert!(mrec(WriteMode::AnyRegion).refusal(Some("eu-west-1")).is_some());
        assert!(mrec(WriteMode::YourRegion).refusal(Some("eu-west-1")).is_none());
        let home = mrec(WriteMode::OneRegion("eu-west-1".into()));
        assert!(home.refusal(Some("eu-west-1")).is_none());
        let away = home.refusal(Some("us-east-1")).unwrap();
        assert!(away.contains("us-east-1") && away.contains("home Region eu-west-1"), "{away}");
        assert!(home.refusal(None).is_some());
        let mrsc = Regions { consistency: MultiRegionConsistency::Strong, ..mrec(WriteMode::AnyRegion) };
        assert!(mrsc.refusal(Some("us-east-1")).is_none());
    }
}
