//! Options of a [`TableDefinition`] beyond its keys: stream, backups, deletion protection,
//! billing, index projections.

use super::TableDefinition;
use crate::error::Error;

/// What a table's stream records hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamView {
    /// Only the key attributes.
    KeysOnly,
    /// The item after the change.
    NewImage,
    /// The item before the change.
    OldImage,
    /// Both: what typed changes ([`crate::stream`]) need, and what the seeds' guideline advises.
    NewAndOldImages,
}

impl StreamView {
    /// The name DynamoDB uses, such as `NEW_AND_OLD_IMAGES`.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }
}

/// Provisioned read and write capacity units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Throughput {
    /// Read capacity units.
    pub read: u64,
    /// Write capacity units.
    pub write: u64,
}

/// How the table is billed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Billing {
    /// On demand (`PAY_PER_REQUEST`): the default.
    #[default]
    OnDemand,
    /// Provisioned capacity for the table; each global index has its own
    /// ([`TableDefinition::index_throughput`]) or, if not set, the table's.
    Provisioned(Throughput),
}

/// Which attributes an index holds besides the keys.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Projection {
    /// Every attribute: the default.
    #[default]
    All,
    /// The table's and the index's keys only.
    KeysOnly,
    /// The keys and these attributes.
    Include(Vec<String>),
}

impl Projection {
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Projection::All => "ALL",
            Projection::KeysOnly => "KEYS_ONLY",
            Projection::Include(_) => "INCLUDE",
        }
    }

    /// The attributes of an `INCLUDE` projection (empty for the others).
    pub fn attributes(&self) -> &[String] {
        match self {
            Projection::Include(a) => a,
            _ => &[],
        }
    }
}

/// Table-wide options of a [`TableDefinition`]. The default is the table `create_table` has
/// always made: on demand, no stream, no point-in-time recovery, no deletion protection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// The stream and its view type (`None`: no stream).
    pub stream: Option<StreamView>,
    /// Point-in-time recovery (continuous backups).
    pub point_in_time_recovery: bool,
    /// Deletion protection.
    pub deletion_protection: bool,
    /// On demand, or provisioned capacity.
    pub billing: Billing,
    /// The key of encryption at rest ([`super::Sse::AwsOwned`] by default).
    pub sse: super::Sse,
}

impl TableDefinition {
    /// With a stream of `view` records.
    pub fn stream(mut self, view: StreamView) -> Self {
        self.options.stream = Some(view);
        self
    }

    /// With point-in-time recovery on or off.
    pub fn point_in_time_recovery(mut self, on: bool) -> Self {
        self.options.point_in_time_recovery = on;
        self
    }

    /// With deletion protection on or off.
    pub fn deletion_protection(mut self, on: bool) -> Self {
        self.options.deletion_protection = on;
        self
    }

    /// With this billing mode.
    pub fn billing(mut self, billing: Billing) -> Self {
        self.options.billing = billing;
        self
    }

    /// With `projection` on `index`; an index the entities do not use is [`Error::Validation`],
    /// as is an `INCLUDE` of no attribute, of a key attribute, or of more than 100 attributes.
    pub fn projection(mut self, index: &str, projection: Projection) -> Result<Self, Error> {
        if let Projection::Include(attrs) = &projection {
            if attrs.is_empty() || attrs.len() > 100 {
                return Err(Error::Validation(format!(
                    "index {index}: an INCLUDE projection names 1 to 100 attributes, not {}",
                    attrs.len()
                )));
            }
            let keys = self.key_attributes();
            if let Some(a) = attrs.iter().find(|a| keys.contains(a)) {
                return Err(Error::Validation(format!(
                    "index {index}: `{a}` is a key attribute, projected always; INCLUDE names other attributes"
                )));
            }
        }
        self.index_mut(index)?.projection = projection;
        Ok(self)
    }

    /// With provisioned capacity for global index `index` (used when billing is provisioned).
    pub fn index_throughput(mut self, index: &str, throughput: Throughput) -> Result<Self, Error> {
        let i = self.index_mut(index)?;
        if i.kind == crate::model::entity::IndexKind::Local {
            return Err(Error::Validation(format!(
                "index {index} is local: it shares the table's capacity and has none of its own"
            )));
        }
        i.throughput = Some(throughput);
        Ok(self)
    }

    fn index_mut(&mut self, name: &str) -> Result<&mut super::IndexDefinition, Error> {
        let known: Vec<String> = self.indexes.iter().map(|i| i.name.clone()).collect();
        self.indexes
            .iter_mut()
            .find(|i| i.name == name)
            .ok_or_else(|| Error::Validation(format!("no entity of this table uses index {name} (it has {known:?})")))
    }

    /// The capacity of global index `i` when billing is provisioned: its own, or the table's.
    pub fn effective_throughput(&self, i: &super::IndexDefinition) -> Option<Throughput> {
        match self.options.billing {
            Billing::OnDemand => None,
            Billing::Provisioned(table) => Some(i.throughput.unwrap_or(table)),
        }
    }
}
