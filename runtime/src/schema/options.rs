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

/// Which keys Contributor Insights reports on ([`TableDefinition::contributor_insights`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InsightsMode {
    /// The most accessed and the most throttled keys (`ACCESSED_AND_THROTTLED_KEYS`).
    AccessedAndThrottledKeys,
    /// The most throttled keys only (`THROTTLED_KEYS`).
    ThrottledKeys,
}

impl InsightsMode {
    /// The name DynamoDB uses, such as `THROTTLED_KEYS`.
    pub fn as_str(self) -> &'static str {
        match self {
            InsightsMode::AccessedAndThrottledKeys => "ACCESSED_AND_THROTTLED_KEYS",
            InsightsMode::ThrottledKeys => "THROTTLED_KEYS",
        }
    }
}

/// The storage class of a table (or of one replica of a global table): DynamoDB's `TableClass`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TableClass {
    /// DynamoDB Standard: the default.
    #[default]
    Standard,
    /// DynamoDB Standard-Infrequent Access: storage about 60% cheaper, reads and writes about
    /// 25% dearer (the guideline's choice for tables read rarely, such as last year's months).
    StandardInfrequentAccess,
}

impl TableClass {
    /// The name DynamoDB uses: `STANDARD` or `STANDARD_INFREQUENT_ACCESS`.
    pub fn as_str(self) -> &'static str {
        match self {
            TableClass::Standard => "STANDARD",
            TableClass::StandardInfrequentAccess => "STANDARD_INFREQUENT_ACCESS",
        }
    }
}

/// The most tags DynamoDB keeps on one table.
const MAX_TAGS: usize = 50;

/// The most a resource-based policy document may hold: DynamoDB refuses one above 20 KB.
const MAX_RESOURCE_POLICY_BYTES: usize = 20 * 1024;

/// The longest and shortest point-in-time recovery period DynamoDB takes, in days.
const RECOVERY_PERIOD_DAYS: std::ops::RangeInclusive<u32> = 1..=35;

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
    /// Warm throughput, read and write units per second the table is ready to serve at once
    /// ([`TableDefinition::warm_throughput`]): `None` not stated (kept; DynamoDB's base values
    /// for a new table). DynamoDB only raises it.
    pub warm_throughput: Option<Throughput>,
    /// The most read and write request units per second an on-demand table may take
    /// ([`TableDefinition::max_on_demand`]): `None` not stated (kept; no maximum for a new
    /// table).
    pub max_on_demand: Option<Throughput>,
    /// The point-in-time recovery period in days, 1 to 35 ([`TableDefinition::recovery_period_days`]):
    /// `None` not stated (kept; 35 for recovery turned on).
    pub recovery_period_days: Option<u32>,
    /// Contributor Insights: `None` not stated (kept), `Some(None)` off
    /// ([`TableDefinition::no_contributor_insights`]), `Some(Some(mode))` on in `mode`.
    pub contributor_insights: Option<Option<InsightsMode>>,
    /// The table's resource-based policy, a JSON document ([`TableDefinition::resource_policy`]):
    /// `None` not stated (kept; none for a new table).
    pub resource_policy: Option<String>,
    /// The storage class ([`TableDefinition::table_class`]): `None` not stated (kept; Standard for
    /// a new table).
    pub table_class: Option<TableClass>,
    /// Tags the table must have, by key ([`TableDefinition::tag`]): `apply` adds them or sets
    /// their values; the table's other tags are kept (other tools add tags of their own).
    pub tags: std::collections::BTreeMap<String, String>,
    /// The global table: `None` not stated (kept), `Some(None)` a table of one Region
    /// ([`TableDefinition::no_global_table`]), `Some(Some(global))` its replicas
    /// ([`TableDefinition::global_table`]).
    pub global_table: Option<Option<super::GlobalTable>>,
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
    pub(super) warm_throughput: Option<Throughput>,
    pub(super) max_on_demand: Option<Throughput>,
    pub(super) recovery_period_days: Option<u32>,
    pub(super) contributor_insights: Option<InsightsMode>,
    pub(super) resource_policy: Option<String>,
    pub(super) table_class: TableClass,
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
            warm_throughput: self.warm_throughput,
            max_on_demand: self.max_on_demand,
            recovery_period_days: self.recovery_period_days,
            contributor_insights: self.contributor_insights.flatten(),
            resource_policy: self.resource_policy.clone(),
            table_class: self.table_class.unwrap_or_default(),
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
    /// Off forgets a [`TableDefinition::recovery_period_days`] stated before.
    pub fn point_in_time_recovery(mut self, on: bool) -> Self {
        self.options.point_in_time_recovery = Some(on);
        if !on {
            self.options.recovery_period_days = None;
        }
        self
    }

    /// With point-in-time recovery on, restorable to any second of the last `days` days
    /// (DynamoDB takes 1 to 35; 35 is its default). A period outside 1-35 is
    /// [`Error::Validation`] naming the setting.
    pub fn recovery_period_days(mut self, days: u32) -> Result<Self, Error> {
        if !RECOVERY_PERIOD_DAYS.contains(&days) {
            return Err(Error::Validation(format!(
                "recovery_period_days: {days} days; DynamoDB keeps point-in-time recovery for 1 to 35 days"
            )));
        }
        self.options.point_in_time_recovery = Some(true);
        self.options.recovery_period_days = Some(days);
        Ok(self)
    }

    /// With warm throughput: the table ready to serve at least `reads` read units and `writes`
    /// write units per second at once (not stated unless called: `apply` leaves it). It is a
    /// floor: DynamoDB raises a table's warm throughput by itself as traffic grows and never
    /// lowers it, so a table at or above it is in step (`plan` says so in its kept lines) and
    /// only a rise is a change. Zero is refused here ([`Error::Validation`] naming the setting).
    pub fn warm_throughput(mut self, reads: u64, writes: u64) -> Result<Self, Error> {
        self.options.warm_throughput = Some(positive("warm_throughput", reads, writes)?);
        Ok(self)
    }

    /// With at most `reads` read and `writes` write request units per second for the on-demand
    /// table (not stated unless called: `apply` leaves it). Zero is [`Error::Validation`]; so
    /// is a maximum on a table whose billing is stated provisioned (checked by
    /// `create_table_from`, `plan` and `apply`).
    pub fn max_on_demand(mut self, reads: u64, writes: u64) -> Result<Self, Error> {
        self.options.max_on_demand = Some(positive("max_on_demand", reads, writes)?);
        Ok(self)
    }

    /// With at most `reads` read and `writes` write request units per second for global index
    /// `index` of the on-demand table (not stated unless called). An index the entities do not
    /// use, a local index (it shares the table's) and zero are [`Error::Validation`].
    pub fn index_max_on_demand(mut self, index: &str, reads: u64, writes: u64) -> Result<Self, Error> {
        let units = positive("max_on_demand", reads, writes)?;
        let i = self.index_mut(index)?;
        if i.kind == crate::model::entity::IndexKind::Local {
            return Err(Error::Validation(format!(
                "max_on_demand: index {index} is local, it shares the table's throughput and has no maximum of its own"
            )));
        }
        i.max_on_demand = Some(units);
        Ok(self)
    }

    /// With Contributor Insights on, reporting the keys of `mode` (not stated unless called:
    /// `apply` leaves it).
    pub fn contributor_insights(mut self, mode: InsightsMode) -> Self {
        self.options.contributor_insights = Some(Some(mode));
        self
    }

    /// With Contributor Insights off: `apply` turns it off on the live table.
    pub fn no_contributor_insights(mut self) -> Self {
        self.options.contributor_insights = Some(None);
        self
    }

    /// With this resource-based policy (an IAM policy document, JSON) attached to the table
    /// (not stated unless called: `apply` leaves the table's). Text that is not a JSON object,
    /// or longer than DynamoDB's 20 KB, is [`Error::Validation`] naming the setting.
    pub fn resource_policy(mut self, json: impl Into<String>) -> Result<Self, Error> {
        let json = json.into();
        if json.len() > MAX_RESOURCE_POLICY_BYTES {
            return Err(Error::Validation(format!(
                "resource_policy: {} bytes; DynamoDB takes a policy document of at most 20 KB",
                json.len()
            )));
        }
        match serde_json::from_str::<serde_json::Value>(&json) {
            Ok(serde_json::Value::Object(_)) => {}
            Ok(_) => {
                return Err(Error::Validation(
                    "resource_policy: not a policy document, which is a JSON object".to_owned(),
                ));
            }
            Err(e) => return Err(Error::Validation(format!("resource_policy: not JSON ({e})"))),
        }
        self.options.resource_policy = Some(json);
        Ok(self)
    }

    /// What DynamoDB would refuse in the settings taken together, before any request: a
    /// maximum on-demand throughput (the table's or an index's) on a table whose billing is
    /// stated provisioned; what a global table may not be with the other settings
    /// (`check_global`).
    pub(super) fn check_settings(&self) -> Result<(), Error> {
        self.check_global()?;
        if let Some(Billing::Provisioned(_)) = self.options.billing {
            let index = self.indexes.iter().find(|i| i.max_on_demand.is_some());
            if self.options.max_on_demand.is_some() || index.is_some() {
                return Err(Error::Validation(format!(
                    "max_on_demand{}: the billing is provisioned; a maximum on-demand throughput is for on-demand \
                     tables",
                    index.map(|i| format!(" of index {}", i.name)).unwrap_or_default()
                )));
            }
        }
        Ok(())
    }

    /// In storage class `class` (not stated unless called: `apply` leaves the table's; a new
    /// table is Standard).
    pub fn table_class(mut self, class: TableClass) -> Self {
        self.options.table_class = Some(class);
        self
    }

    /// With tag `key` = `value`: created with the table, and set by `apply` where the table lacks
    /// it or holds another value. Tags the table has and the definition does not name are kept
    /// (cost allocation and other tools add their own). DynamoDB's rules are checked here
    /// ([`Error::Validation`] naming the tag): a key of 1 to 128 characters and a value of at
    /// most 256, both of letters, digits, spaces and `_ . : / = + - @`, a key not starting with
    /// `aws:`, at most 50 tags.
    pub fn tag(mut self, key: impl Into<String>, value: impl Into<String>) -> Result<Self, Error> {
        let (key, value) = (key.into(), value.into());
        let allowed = |t: &str| t.chars().all(|c| c.is_alphanumeric() || c.is_whitespace() || "_.:/=+-@".contains(c));
        let why = if !(1..=128).contains(&key.chars().count()) {
            Some("a key has 1 to 128 characters")
        } else if value.chars().count() > 256 {
            Some("a value has at most 256 characters")
        } else if !allowed(&key) || !allowed(&value) {
            Some("keys and values hold letters, digits, spaces and `_ . : / = + - @` only")
        } else if key.starts_with("aws:") {
            Some("keys starting with `aws:` are AWS's")
        } else if !self.options.tags.contains_key(&key) && self.options.tags.len() >= MAX_TAGS {
            Some("DynamoDB keeps at most 50 tags on a table")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Error::Validation(format!("tag {key:?} = {value:?}: {why}")));
        }
        self.options.tags.insert(key, value);
        Ok(self)
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

    pub(super) fn index_mut(&mut self, name: &str) -> Result<&mut super::IndexDefinition, Error> {
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

/// `reads` and `writes` as units of `setting`, both at least 1.
fn positive(setting: &str, reads: u64, writes: u64) -> Result<Throughput, Error> {
    if reads == 0 || writes == 0 {
        return Err(Error::Validation(format!(
            "{setting}: {reads} reads and {writes} writes per second; DynamoDB takes at least 1 of each"
        )));
    }
    Ok(Throughput { read: reads, write: writes })
}
