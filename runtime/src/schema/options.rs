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

/// Table-wide options of a [`TableDefinition`]. The stream, point-in-time recovery, deletion
/// protection and encryption at rest are each stated (on, or off) or not stated (`None`): what
/// a definition does not state, `Table::apply` leaves as the live table has it, and a table
/// created from it (`Table::create_table_from`, the exports) gets DynamoDB's default for a new
/// table (no stream, no point-in-time recovery, no deletion protection, the AWS owned key).
/// The billing mode too: not stated, `apply` keeps the live table's mode and capacity, and a
/// new table is on demand. The default states none of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// The stream: `None` not stated (kept), `Some(None)` off ([`TableDefinition::no_stream`]),
    /// `Some(Some(view))` on with `view` records ([`TableDefinition::stream`]).
    pub stream: Option<Option<StreamView>>,
    /// Point-in-time recovery (continuous backups): `None` not stated (kept).
    pub point_in_time_recovery: Option<bool>,
    /// Deletion protection: `None` not stated (kept).
    pub deletion_protection: Option<bool>,
    /// TTL stated off ([`TableDefinition::no_ttl`]): `apply` disables the table's TTL. Otherwise
    /// TTL is on for [`TableDefinition::ttl_attr`] when an entity has a `#[ttl]` field, and not
    /// stated (kept) when none has.
    pub ttl_off: bool,
    /// On demand, or provisioned capacity: `None` not stated (kept; on demand for a new table).
    pub billing: Option<Billing>,
    /// The key of encryption at rest: `None` not stated (kept; the AWS owned key for a new
    /// table).
    pub sse: Option<super::Sse>,
}

/// The options of a table created from a definition: what is not stated is DynamoDB's default
/// for a new table.
#[derive(Debug, Clone)]
pub(super) struct NewTableOptions {
    pub(super) stream: Option<StreamView>,
    pub(super) point_in_time_recovery: bool,
    pub(super) deletion_protection: bool,
    pub(super) billing: Billing,
    pub(super) sse: super::Sse,
}

impl TableOptions {
    /// The options a table created from the definition gets (`create_table_from`, exports).
    pub(super) fn for_new_table(&self) -> NewTableOptions {
        NewTableOptions {
            stream: self.stream.flatten(),
            point_in_time_recovery: self.point_in_time_recovery.unwrap_or(false),
            deletion_protection: self.deletion_protection.unwrap_or(false),
            billing: self.billing.unwrap_or_default(),
            sse: self.sse.clone().unwrap_or_default(),
        }
    }
}

impl TableDefinition {
    /// With a stream of `view` records (on a live table with another view type, `apply` turns
    /// the stream off, then on again: a new stream ARN).
    pub fn stream(mut self, view: StreamView) -> Self {
        self.options.stream = Some(Some(view));
        self
    }

    /// With no stream: `apply` turns a live table's stream off (every reader of it stops, and
    /// a stream turned on later has a new ARN). Without this or [`TableDefinition::stream`],
    /// `apply` leaves the stream as it is.
    pub fn no_stream(mut self) -> Self {
        self.options.stream = Some(None);
        self
    }

    /// With point-in-time recovery on or off (not stated unless called: `apply` leaves it).
    pub fn point_in_time_recovery(mut self, on: bool) -> Self {
        self.options.point_in_time_recovery = Some(on);
        self
    }

    /// With deletion protection on or off (not stated unless called: `apply` leaves it).
    pub fn deletion_protection(mut self, on: bool) -> Self {
        self.options.deletion_protection = Some(on);
        self
    }

    /// With TTL off: `apply` disables the table's TTL (items stop expiring). Without it, TTL
    /// is on for the entities' `#[ttl]` attribute, or, when none has one, left as it is.
    pub fn no_ttl(mut self) -> Self {
        self.ttl_attr = None;
        self.options.ttl_off = true;
        self
    }

    /// With this billing mode (not stated unless called: `apply` leaves the live table's mode
    /// and capacity as they are; a new table is on demand).
    pub fn billing(mut self, billing: Billing) -> Self {
        self.options.billing = Some(billing);
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
        match self.options.billing.unwrap_or_default() {
            Billing::OnDemand => None,
            Billing::Provisioned(table) => Some(i.throughput.unwrap_or(table)),
        }
    }
}
