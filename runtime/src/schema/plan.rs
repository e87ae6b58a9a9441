//! `Table::plan`: how the live table differs from a [`TableDefinition`], as the changes
//! `Table::apply` would make, read with DescribeTable, DescribeTimeToLive and
//! DescribeContinuousBackups only.

use std::fmt;

use aws_sdk_dynamodb::types::{
    BillingMode, ContributorInsightsMode, ContributorInsightsStatus, IndexStatus, PointInTimeRecoveryStatus,
    ReplicaStatus, SseStatus, SseType, StreamViewType, TableDescription, TableStatus, TimeToLiveStatus, WitnessStatus,
};

use super::{
    Billing, IndexDefinition, InsightsMode, MultiRegionConsistency, Projection, Replica, Sse, StreamView, TableClass,
    TableDefinition, Throughput,
};
use super::{all_keys, key_names, lacks, show_all, show_keys};
use crate::error::{Error, sdk_error};
use crate::model::entity::IndexKind;
use crate::send::send;
use crate::table::Table;

/// What `Table::apply` would change to bring the live table to a [`TableDefinition`]; see
/// [`Table::plan`]. `Display` prints one line per change, `+` added, `-` removed, `~` changed,
/// `-/+` removed and added again, `!` impossible in place, then what it keeps as `=` lines
/// and the notes as `#` lines.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePlan {
    /// The table name.
    pub table: String,
    /// The changes, in the order `apply` makes them.
    pub changes: Vec<TableChange>,
    /// The settings the definition does not state, which `apply` leaves as the table has them
    /// (`stream NEW_AND_OLD_IMAGES (kept: not in the definition)`); not changes.
    pub kept: Vec<String>,
    /// What the plan could not compare (an option the endpoint does not report, such as
    /// DynamoDB Local's encryption and backups) and what stays as it is; not changes.
    pub notes: Vec<String>,
}

/// One change of a [`TablePlan`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TableChange {
    /// `+` The table does not exist: `apply` creates it as `Table::create_table_from` does.
    CreateTable,
    /// `*` DynamoDB is still making something of the table (`what`: the table `UPDATING`, a global
    /// or vector index `CREATING`, backfilling, or `DELETING`): requests through such an index
    /// fail until it is `ACTIVE`. Nothing to send: `apply` waits until the table and every index
    /// are `ACTIVE` before any other change.
    NotReady {
        /// What is not ready, and its status.
        what: String,
    },
    /// `+` A global index of the definition the table lacks: created by `apply`. If its keys
    /// are written for it ([`IndexDefinition::needs_backfill`]), `backfill` then writes them to
    /// the items that predate it; an index keyed on attributes the items hold (a
    /// multi-attribute index, a field's own attribute) holds them as soon as it is ACTIVE.
    AddIndex(IndexDefinition),
    /// `+` A vector index of the definition the table does not report: created by `apply`
    /// (`UpdateTable` with `VectorIndexUpdates`); DynamoDB indexes the items' vectors itself.
    AddVectorIndex(crate::model::vector::VectorIndexSchema),
    /// `-` A global index of the table the definition does not have: `apply` deletes it only
    /// after `.remove_unknown_indexes()`, else leaves it (and it stays in the plan).
    UnknownIndex {
        /// The index name.
        name: String,
    },
    /// `-/+` A global index whose keys differ, or which lacks attributes the entities read
    /// through it: DynamoDB cannot change either in place, so `apply` deletes it and creates it
    /// again (queries through it fail in between; then `backfill` if its keys are written for
    /// it), and only after `.rebuild_changed_indexes()`: without it `apply` refuses the plan.
    ReplaceIndex {
        /// The index as the definition has it.
        index: IndexDefinition,
        /// What differs.
        why: String,
    },
    /// `~` The billing mode, or the table's provisioned capacity.
    Billing {
        /// As the table has it.
        from: Billing,
        /// As the definition has it.
        to: Billing,
    },
    /// `~` The provisioned capacity of a global index (provisioned tables).
    IndexThroughput {
        /// The index name.
        index: String,
        /// As the table has it.
        from: Option<Throughput>,
        /// As the definition has it.
        to: Throughput,
    },
    /// `~` The stream: on, off, or another view type (turned off, then on again: a new stream,
    /// with a new ARN, which readers must move to).
    Stream {
        /// As the table has it (`None`: off).
        from: Option<StreamView>,
        /// As the definition has it.
        to: Option<StreamView>,
    },
    /// `~` The TTL attribute (`None`: TTL off). Another attribute is disabling, then enabling:
    /// AWS refuses the second call for up to an hour after the first.
    Ttl {
        /// As the table has it.
        from: Option<String>,
        /// As the definition has it.
        to: Option<String>,
    },
    /// `~` Point-in-time recovery on or off.
    PointInTimeRecovery {
        /// As the definition has it.
        to: bool,
    },
    /// `~` Deletion protection on or off.
    DeletionProtection {
        /// As the definition has it.
        to: bool,
    },
    /// `~` The key of encryption at rest.
    Sse {
        /// As the table has it.
        from: Sse,
        /// As the definition has it.
        to: Sse,
    },
    /// `~` Warm throughput, read and write units per second: a rise of either (the definition's
    /// is a floor; DynamoDB raises it by itself and never lowers it, so `to` keeps the table's
    /// where that is higher).
    WarmThroughput {
        /// As the table has it (`None`: not reported).
        from: Option<Throughput>,
        /// As the definition has it.
        to: Throughput,
    },
    /// `~` The maximum on-demand throughput of the table (`index` `None`) or of a global index.
    MaxOnDemand {
        /// The index (`None`: the table).
        index: Option<String>,
        /// As the table has it (`None`: no maximum).
        from: Option<Throughput>,
        /// As the definition has it.
        to: Throughput,
    },
    /// `~` The point-in-time recovery period, in days.
    RecoveryPeriod {
        /// As the table has it (`None`: recovery off, or the period not reported).
        from: Option<u32>,
        /// As the definition has it.
        to: u32,
    },
    /// `~` Contributor Insights: on in a mode, or off (`None`).
    ContributorInsights {
        /// As the table has it.
        from: Option<InsightsMode>,
        /// As the definition has it.
        to: Option<InsightsMode>,
    },
    /// `~` The table's resource-based policy (compared as JSON, not as text).
    ResourcePolicy {
        /// As the table has it (`None`: no policy).
        from: Option<String>,
        /// As the definition has it.
        to: String,
    },
    /// `~` The storage class.
    TableClass {
        /// As the table has it.
        from: TableClass,
        /// As the definition has it.
        to: TableClass,
    },
    /// `~` Tags the table lacks, or holds with another value: `apply` sets them (TagResource);
    /// the table's other tags are kept.
    Tags {
        /// The values the table holds for those keys (a key it lacks is absent).
        from: std::collections::BTreeMap<String, String>,
        /// The values the definition gives them.
        to: std::collections::BTreeMap<String, String>,
    },
    /// `+` Replicas the table lacks, added by an `UpdateTable` (`ReplicaUpdates`) after which
    /// `apply` waits until they are `ACTIVE`: with multi-Region eventual consistency one replica
    /// per change, as DynamoDB adds them; with strong consistency every replica and the witness
    /// in one change, which makes the table MRSC (DynamoDB does so only while it holds no items).
    AddReplicas {
        /// The consistency of the global table they make.
        consistency: MultiRegionConsistency,
        /// The replicas, with their own settings.
        replicas: Vec<Replica>,
        /// The witness Region (MRSC).
        witness: Option<String>,
    },
    /// `-` Replicas the definition lacks (and, of an MRSC table, its witness with them): `apply`
    /// deletes them, and every item they hold in their Regions, only after
    /// `.remove_replicas()`; otherwise they stay, and stay in the plan.
    RemoveReplicas {
        /// Their Regions.
        regions: Vec<String>,
        /// The witness Region deleted with them.
        witness: Option<String>,
    },
    /// `~` The settings DynamoDB keeps with one replica (table class, read maximum, KMS key).
    UpdateReplica {
        /// The replica as the table has it.
        from: Replica,
        /// The replica as the definition has it (only its stated settings are compared).
        to: Replica,
    },
    /// `!` A setting DynamoDB refuses for this table (a maximum on-demand throughput on a
    /// provisioned table): [`Table::plan`] and
    /// [`Table::apply`] return [`Error::Validation`] naming the setting, before any request but
    /// the Describe* of the plan.
    Refused {
        /// The setting, as the definition's builder method names it (`warm_throughput`).
        setting: &'static str,
        /// Why DynamoDB refuses it.
        why: String,
    },
    /// `!` A change DynamoDB cannot make to an existing table (its key schema, a key
    /// attribute's type, a local index): `apply` refuses the whole plan while one is listed.
    Impossible {
        /// What differs.
        what: String,
        /// What to do instead.
        instead: String,
    },
}

/// What to do instead of a change of the table's keys or local indexes.
const NEW_TABLE: &str = "create a new table from the definition and move the items with `migrate`";

impl TablePlan {
    /// Whether the table is as the definition says (no change listed, notes aside).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The changes `apply` refuses to make ([`TableChange::Impossible`]).
    pub fn impossible(&self) -> impl Iterator<Item = &TableChange> {
        self.changes.iter().filter(|c| matches!(c, TableChange::Impossible { .. }))
    }
}

fn billing(b: &Billing) -> String {
    match b {
        Billing::OnDemand => "on demand".to_owned(),
        Billing::Provisioned(t) => format!("provisioned ({} RCU, {} WCU)", t.read, t.write),
    }
}

/// Read and write units per second, in words.
fn per_second(t: Throughput) -> String {
    format!("{} reads/s, {} writes/s", t.read, t.write)
}

/// What an index holds once created: the items already written, or only those with its keys.
fn backfill_note(i: &IndexDefinition) -> &'static str {
    match (i.needs_backfill, i.is_multi_attribute()) {
        (true, _) => "then backfill its keys",
        (false, true) => {
            "no backfill: a multi-attribute index is keyed on attributes the items hold, DynamoDB indexes the items \
             already written"
        }
        (false, false) => "no backfill: keyed on attributes the items hold, DynamoDB indexes the items already written",
    }
}

fn index_line(i: &IndexDefinition) -> String {
    let keys = if i.is_multi_attribute() {
        let pk = i.pk_attrs.iter().map(String::as_str).collect();
        show_all(&(pk, i.sk_attrs.iter().map(String::as_str).collect()))
    } else {
        show_keys((Some(&i.pk_attr), i.sk_attr.as_deref()))
    };
    let projection = match &i.projection {
        Projection::Include(a) => format!("INCLUDE {}", a.join(", ")),
        p => p.type_name().to_owned(),
    };
    format!("global index {} {keys}, projection {projection}", i.name)
}

/// What differs between a replica as the table has it and as the definition states it, in
/// words (only the settings the definition states).
pub(super) fn replica_changes(from: &Replica, to: &Replica) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(class) = to.table_class.filter(|c| from.table_class.unwrap_or_default() != *c) {
        out.push(format!("table class {} -> {}", from.table_class.unwrap_or_default().as_str(), class.as_str()));
    }
    if let Some(reads) = to.max_reads.filter(|r| from.max_reads != Some(*r)) {
        let was = from.max_reads.map_or("none".to_owned(), |r| format!("{r} reads/s"));
        out.push(format!("maximum reads {was} -> {reads} reads/s"));
    }
    if let Some(key) = to.kms_key.as_ref().filter(|k| from.kms_key.as_ref() != Some(*k)) {
        out.push(format!("KMS key {} -> {key}", from.kms_key.as_deref().unwrap_or("none")));
    }
    out
}

impl fmt::Display for TableChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on_off = |b: bool| if b { "on" } else { "off" };
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "off".to_owned());
        match self {
            TableChange::CreateTable => write!(f, "+ table (it does not exist)"),
            TableChange::NotReady { what } => {
                write!(f, "* {what}: not ready (requests through it fail until it is ACTIVE); apply waits for it")
            }
            TableChange::AddIndex(i) => write!(f, "+ {} ({})", index_line(i), backfill_note(i)),
            TableChange::AddVectorIndex(v) => write!(
                f,
                "+ vector index {} ({}, {} dimensions, {})",
                v.name,
                v.attr,
                v.dimensions,
                v.distance.as_str()
            ),
            TableChange::UnknownIndex { name } => {
                write!(f, "- global index {name} (not in the definition; deleted only with remove_unknown_indexes)")
            }
            TableChange::ReplaceIndex { index, why } => write!(
                f,
                "-/+ {}: {why}; deleted and created again, only with rebuild_changed_indexes (queries through it fail \
                 until it is ACTIVE; {})",
                index_line(index),
                backfill_note(index)
            ),
            TableChange::Billing { from, to } => write!(f, "~ billing: {} -> {}", billing(from), billing(to)),
            TableChange::IndexThroughput { index, from, to } => write!(
                f,
                "~ global index {index} capacity: {} -> {} RCU, {} WCU",
                from.map_or("none".to_owned(), |t| format!("{} RCU, {} WCU", t.read, t.write)),
                to.read,
                to.write
            ),
            TableChange::Stream { from, to } => {
                let v = |v: &Option<StreamView>| v.map_or("off", |v| v.as_str());
                write!(f, "~ stream: {} -> {}", v(from), v(to))?;
                if from.is_some() && to.is_some() {
                    write!(f, " (turned off, then on: a new stream ARN)")?;
                }
                Ok(())
            }
            TableChange::Ttl { from, to } => write!(f, "~ ttl: {} -> {}", opt(from), opt(to)),
            TableChange::PointInTimeRecovery { to } => {
                write!(f, "~ point-in-time recovery: {} -> {}", on_off(!to), on_off(*to))
            }
            TableChange::DeletionProtection { to } => {
                write!(f, "~ deletion protection: {} -> {}", on_off(!to), on_off(*to))
            }
            TableChange::Sse { from, to } => write!(f, "~ encryption at rest: {from} -> {to}"),
            TableChange::WarmThroughput { from, to } => {
                write!(
                    f,
                    "~ warm throughput: {} -> {}",
                    from.map_or("not reported".to_owned(), per_second),
                    per_second(*to)
                )
            }
            TableChange::MaxOnDemand { index, from, to } => write!(
                f,
                "~ {} maximum on-demand throughput: {} -> {}",
                index.as_ref().map_or("table".to_owned(), |i| format!("global index {i}")),
                from.map_or("none".to_owned(), per_second),
                per_second(*to)
            ),
            TableChange::RecoveryPeriod { from, to } => write!(
                f,
                "~ point-in-time recovery period: {} -> {to} days",
                from.map_or("not set".to_owned(), |d| format!("{d} days"))
            ),
            TableChange::ContributorInsights { from, to } => {
                let v = |v: &Option<InsightsMode>| v.map_or("off", InsightsMode::as_str);
                write!(f, "~ contributor insights: {} -> {}", v(from), v(to))
            }
            TableChange::ResourcePolicy { from, .. } => {
                write!(f, "~ resource policy: {}", if from.is_some() { "replaced" } else { "none -> attached" })
            }
            TableChange::TableClass { from, to } => write!(f, "~ table class: {} -> {}", from.as_str(), to.as_str()),
            TableChange::Tags { from, to } => {
                let tags: Vec<String> = to
                    .iter()
                    .map(|(k, v)| match from.get(k) {
                        Some(old) => format!("{k}={v} (was {old})"),
                        None => format!("{k}={v} (new)"),
                    })
                    .collect();
                write!(f, "~ tags: {}", tags.join(", "))
            }
            TableChange::AddReplicas { consistency, replicas, witness } => {
                let regions: Vec<&str> = replicas.iter().map(|r| r.region.as_str()).collect();
                let s = if regions.len() == 1 { "" } else { "s" };
                write!(f, "+ replica{s} {}", regions.join(", "))?;
                if let Some(w) = witness {
                    write!(f, " and witness {w}")?;
                }
                match consistency {
                    MultiRegionConsistency::Eventual => {
                        write!(f, " (multi-Region eventual consistency; apply waits until it is ACTIVE)")
                    }
                    MultiRegionConsistency::Strong => write!(
                        f,
                        " with multi-Region strong consistency (one UpdateTable, while the table holds no items; \
                         apply waits until they are ACTIVE)"
                    ),
                }
            }
            TableChange::RemoveReplicas { regions, witness } => {
                let s = if regions.len() == 1 { "" } else { "s" };
                write!(f, "- replica{s} {}", regions.join(", "))?;
                if let Some(w) = witness {
                    write!(f, " and witness {w}")?;
                }
                write!(
                    f,
                    " (not in the definition; deleted, with the items in their Regions, only with remove_replicas)"
                )
            }
            TableChange::UpdateReplica { from, to } => {
                write!(f, "~ replica {}: {}", to.region, replica_changes(from, to).join(", "))
            }
            TableChange::Refused { setting, why } => write!(f, "! {setting}: {why}"),
            TableChange::Impossible { what, instead } => write!(f, "! {what}: not possible in place; {instead}"),
        }
    }
}

impl fmt::Display for TablePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            writeln!(f, "table {}: no changes", self.table)?;
        }
        for c in &self.changes {
            writeln!(f, "{c}")?;
        }
        for k in &self.kept {
            writeln!(f, "= {k}")?;
        }
        for n in &self.notes {
            writeln!(f, "# {n}")?;
        }
        Ok(())
    }
}

/// What DescribeTimeToLive and DescribeContinuousBackups said (`None`: not reported).
#[derive(Debug, Clone, Default)]
pub(super) struct Extras {
    /// The TTL attribute while TTL is enabled (or enabling).
    pub(super) ttl: Option<String>,
    /// Point-in-time recovery, `None` where the endpoint has no backups (DynamoDB Local).
    pub(super) pitr: Option<bool>,
    /// The recovery period in days, while recovery is on (`None`: not reported).
    pub(super) pitr_days: Option<u32>,
    /// Contributor Insights (`None`: not read, or not reported by the endpoint).
    pub(super) insights: Option<Option<InsightsMode>>,
    /// The resource-based policy (`None`: not read, or not reported by the endpoint).
    pub(super) policy: Option<Option<String>>,
    /// The table's tags (`None`: not read, or not reported by the endpoint).
    pub(super) tags: Option<std::collections::BTreeMap<String, String>>,
    /// The Region of the handle that planned (its client's).
    pub(super) region: Option<String>,
}

/// Throughput as DescribeTable reports it: `None` unless both sides are positive (DynamoDB
/// writes -1 for "no maximum").
fn reported(read: Option<i64>, write: Option<i64>) -> Option<Throughput> {
    let units = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).filter(|v| *v > 0);
    Some(Throughput { read: units(read)?, write: units(write)? })
}

/// Whether two policy documents say the same (as JSON values; text that is not JSON, as text).
fn same_policy(a: &str, b: &str) -> bool {
    match (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The billing of a table as DescribeTable reports it (a table without a billing summary is
/// provisioned, as AWS reports tables older than on-demand billing).
pub(super) fn live_billing(t: &TableDescription) -> Billing {
    let on_demand = t.billing_mode_summary().and_then(|b| b.billing_mode()) == Some(&BillingMode::PayPerRequest);
    if on_demand {
        return Billing::OnDemand;
    }
    let p = t.provisioned_throughput();
    let units = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
    Billing::Provisioned(Throughput {
        read: units(p.and_then(|p| p.read_capacity_units())),
        write: units(p.and_then(|p| p.write_capacity_units())),
    })
}

fn stream_view(v: &StreamViewType) -> Option<StreamView> {
    Some(match v {
        StreamViewType::KeysOnly => StreamView::KeysOnly,
        StreamViewType::NewImage => StreamView::NewImage,
        StreamViewType::OldImage => StreamView::OldImage,
        StreamViewType::NewAndOldImages => StreamView::NewAndOldImages,
        _ => return None,
    })
}

/// What DynamoDB is still making of `table`: the table when it is not `ACTIVE`, each global and
/// vector index not `ACTIVE` (or still backfilling), first, for `apply` to wait for.
fn not_ready(table: &TableDescription) -> Vec<TableChange> {
    let mut out = Vec::new();
    if let Some(status) = table.table_status().filter(|s| **s != TableStatus::Active) {
        out.push(TableChange::NotReady { what: format!("table {}", status.as_str()) });
    }
    let status = |s: Option<&IndexStatus>, backfilling: Option<bool>| {
        let s = s.map_or("(no status)", IndexStatus::as_str);
        if backfilling == Some(true) { format!("{s}, backfilling") } else { s.to_owned() }
    };
    for g in table.global_secondary_indexes() {
        if g.index_status() != Some(&IndexStatus::Active) || g.backfilling() == Some(true) {
            let name = g.index_name().unwrap_or_default();
            out.push(TableChange::NotReady {
                what: format!("global index {name} {}", status(g.index_status(), g.backfilling())),
            });
        }
    }
    for v in table.vector_indexes() {
        if v.index_status() != Some(&IndexStatus::Active) || v.backfilling() == Some(true) {
            let name = v.index_name().unwrap_or_default();
            out.push(TableChange::NotReady {
                what: format!("vector index {name} {}", status(v.index_status(), v.backfilling())),
            });
        }
    }
    for r in table.replicas() {
        if let Some(status) = r.replica_status().filter(|s| **s != ReplicaStatus::Active) {
            let region = r.region_name().unwrap_or_default();
            out.push(TableChange::NotReady { what: format!("replica {region} {}", status.as_str()) });
        }
    }
    for w in table.global_table_witnesses() {
        if let Some(status) = w.witness_status().filter(|s| **s != WitnessStatus::Active) {
            let region = w.region_name().unwrap_or_default();
            out.push(TableChange::NotReady { what: format!("witness {region} {}", status.as_str()) });
        }
    }
    out
}

/// Whether the table is DynamoDB Local's (its ARNs name the region `ddblocal`).
pub(super) fn is_local(t: &TableDescription) -> bool {
    t.table_arn().is_some_and(|a| a.starts_with("arn:aws:dynamodb:ddblocal:"))
}

impl TableDefinition {
    /// The plan that brings `table` (DescribeTable's description, with `extras`) to this
    /// definition. `differences` words the same comparison of keys and indexes for
    /// `create_table_if_not_exists`.
    pub(super) fn plan_against(&self, name: &str, table: &TableDescription, extras: &Extras) -> TablePlan {
        let mut changes = not_ready(table);
        let mut notes = Vec::new();
        let mut kept = Vec::new();
        let keep = |what: String| format!("{what} (kept: not in the definition)");
        let on_off = |b: bool| if b { "on" } else { "off" };
        let impossible = |what: String| TableChange::Impossible { what, instead: NEW_TABLE.to_owned() };
        let wanted = (Some(self.pk_attr.as_str()), self.sk_attr.as_deref());
        let found = key_names(table.key_schema());
        if found != wanted {
            changes.push(impossible(format!("table keys {} -> {}", show_keys(found), show_keys(wanted))));
        }
        // A key attribute of another type: the table's keys and local indexes cannot change in
        // place; a global index keyed on it is deleted and created again with the new type.
        let mut retyped: Vec<(String, String)> = Vec::new();
        for attr in self.key_attributes() {
            let wanted = self.attribute_type(&attr).as_str();
            let def = table.attribute_definitions().iter().find(|d| d.attribute_name() == attr);
            if let Some(found) = def.map(|d| d.attribute_type().as_str()).filter(|f| *f != wanted) {
                let table_key = attr == self.pk_attr || self.sk_attr.as_deref() == Some(attr.as_str());
                let local_key = table
                    .local_secondary_indexes()
                    .iter()
                    .any(|l| l.key_schema().iter().any(|k| k.attribute_name() == attr));
                if table_key || local_key {
                    changes.push(impossible(format!("key attribute `{attr}` type {found} -> {wanted}")));
                } else {
                    retyped.push((attr.clone(), format!("key attribute `{attr}` type {found} -> {wanted}")));
                }
            }
        }
        let live_billing = live_billing(table);
        match self.options.billing {
            None => kept.push(keep(format!("billing {}", billing(&live_billing)))),
            Some(to) if to != live_billing => changes.push(TableChange::Billing { from: live_billing, to }),
            Some(_) => {}
        }
        // The billing a new index is created under: the definition's, or the live table's.
        let wanted_billing = self.options.billing.unwrap_or(live_billing);
        // An index as it is created: with the capacity it is created with (none on demand; under
        // the live table's provisioned billing, not stated in the definition, its own or the
        // table's).
        let created = |index: &IndexDefinition| {
            let mut index = index.clone();
            index.throughput = match (self.options.billing, live_billing) {
                (None, Billing::Provisioned(units)) => Some(index.throughput.unwrap_or(units)),
                (None, Billing::OnDemand) => None,
                (Some(_), _) => self.effective_throughput(&index),
            };
            index
        };
        let (mut add, mut replace, mut throughput) = (Vec::new(), Vec::new(), Vec::new());
        for index in &self.indexes {
            let global = table.global_secondary_indexes().iter().find(|i| i.index_name() == Some(&index.name));
            let local = table.local_secondary_indexes().iter().find(|i| i.index_name() == Some(&index.name));
            let wanted = (Some(index.pk_attr.as_str()), index.sk_attr.as_deref());
            match (index.kind, global, local) {
                (IndexKind::Global, Some(g), _) => {
                    let found = key_names(g.key_schema());
                    let found_all = all_keys(g.key_schema());
                    let wanted_all = (
                        index.pk_attrs.iter().map(String::as_str).collect::<Vec<_>>(),
                        index.sk_attrs.iter().map(String::as_str).collect::<Vec<_>>(),
                    );
                    let multi = index.is_multi_attribute() || found_all.0.len() > 1 || found_all.1.len() > 1;
                    let retype = retyped.iter().find(|(a, _)| index.pk_attrs.contains(a) || index.sk_attrs.contains(a));
                    let why = if let Some((_, why)) = retype {
                        Some(why.clone())
                    } else if multi && found_all != wanted_all {
                        Some(format!("keys {} -> {}", show_all(&found_all), show_all(&wanted_all)))
                    } else if !multi && found != wanted {
                        Some(format!("keys {} -> {}", show_keys(found), show_keys(wanted)))
                    } else {
                        g.projection().and_then(|p| lacks(p, &index.projection))
                    };
                    if let Some(why) = why {
                        replace.push(TableChange::ReplaceIndex { index: created(index), why });
                        continue;
                    }
                    // Capacity of an index, once the table is provisioned already (a change of
                    // billing sets every index's capacity itself).
                    if let (Billing::Provisioned(_), Billing::Provisioned(_)) = (live_billing, wanted_billing)
                        && let Some(to) =
                            self.options.billing.map_or(index.throughput, |_| self.effective_throughput(index))
                    {
                        let p = g.provisioned_throughput();
                        let units = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok()).unwrap_or(0);
                        let from = p.map(|p| Throughput {
                            read: units(p.read_capacity_units()),
                            write: units(p.write_capacity_units()),
                        });
                        if from != Some(to) {
                            throughput.push(TableChange::IndexThroughput { index: index.name.clone(), from, to });
                        }
                    }
                }
                (IndexKind::Global, None, None) => add.push(TableChange::AddIndex(created(index))),
                (IndexKind::Global, None, Some(_)) => changes
                    .push(impossible(format!("index {} is local in the table, global in the definition", index.name))),
                (IndexKind::Local, Some(_), _) => changes
                    .push(impossible(format!("index {} is global in the table, local in the definition", index.name))),
                (IndexKind::Local, None, None) => changes.push(impossible(format!(
                    "local index {} is missing (local indexes are made with the table only)",
                    index.name
                ))),
                (IndexKind::Local, None, Some(l)) => {
                    let found = key_names(l.key_schema());
                    if found != wanted {
                        changes.push(impossible(format!(
                            "local index {} keys {} -> {}",
                            index.name,
                            show_keys(found),
                            show_keys(wanted)
                        )));
                    } else if let Some(why) = l.projection().and_then(|p| lacks(p, &index.projection)) {
                        changes.push(impossible(format!("local index {} {why}", index.name)));
                    }
                }
            }
        }
        changes.extend(throughput);
        // What the definition does not state is kept as the table has it: a default is never
        // a reason to turn a protection (or a stream that readers follow) off.
        let live_protection = table.deletion_protection_enabled().unwrap_or(false);
        match self.options.deletion_protection {
            None => kept.push(keep(format!("deletion protection {}", on_off(live_protection)))),
            Some(to) if to != live_protection => changes.push(TableChange::DeletionProtection { to }),
            Some(_) => {}
        }
        let live_stream = table
            .stream_specification()
            .filter(|s| s.stream_enabled())
            .and_then(|s| s.stream_view_type())
            .and_then(stream_view);
        match self.options.stream {
            None => kept.push(keep(format!("stream {}", live_stream.map_or("off", StreamView::as_str)))),
            Some(to) if to != live_stream => changes.push(TableChange::Stream { from: live_stream, to }),
            Some(_) => {}
        }
        match (&self.options.sse, is_local(table)) {
            (Some(sse), true) if *sse != Sse::AwsOwned => notes.push(
                "encryption at rest not compared: DynamoDB Local accepts the key but neither keeps nor reports it"
                    .to_owned(),
            ),
            // DynamoDB Local reports no encryption: there is nothing known to keep.
            (_, true) => {}
            (None, false) => kept.push(keep(format!("encryption at rest {}", live_sse(table, &Sse::AwsOwned)))),
            (Some(wanted), false) => {
                let live_sse = live_sse(table, wanted);
                if live_sse != *wanted {
                    changes.push(TableChange::Sse { from: live_sse, to: wanted.clone() });
                }
            }
        }
        for g in table.global_secondary_indexes() {
            let name = g.index_name().unwrap_or_default();
            if !self.indexes.iter().any(|i| i.name == name) && g.index_status() != Some(&IndexStatus::Deleting) {
                changes.push(TableChange::UnknownIndex { name: name.to_owned() });
            }
        }
        for l in table.local_secondary_indexes() {
            let name = l.index_name().unwrap_or_default();
            if !self.indexes.iter().any(|i| i.name == name) {
                notes.push(format!("local index {name} is not in the definition: it stays as long as the table"));
            }
        }
        changes.extend(replace);
        changes.extend(add);
        for v in &self.vector_indexes {
            if !table.vector_indexes().iter().any(|l| l.index_name() == Some(v.name)) {
                changes.push(TableChange::AddVectorIndex(*v));
            }
        }
        self.plan_settings(table, extras, live_billing, &mut changes, &mut kept, &mut notes);
        if self.ttl_attr.is_none() && !self.options.ttl_off {
            kept.push(keep(format!("ttl {}", extras.ttl.as_deref().unwrap_or("off"))));
        } else if extras.ttl != self.ttl_attr {
            changes.push(TableChange::Ttl { from: extras.ttl.clone(), to: self.ttl_attr.clone() });
        }
        match (self.options.point_in_time_recovery, extras.pitr) {
            (None, Some(live)) => kept.push(keep(format!("point-in-time recovery {}", on_off(live)))),
            (Some(to), Some(live)) if to != live => changes.push(TableChange::PointInTimeRecovery { to }),
            (Some(_), Some(_)) | (None, None) => {}
            (Some(_), None) => {
                notes.push("point-in-time recovery not compared: this endpoint has no backups".to_owned())
            }
        }
        // The period, once recovery is (or is being turned) on.
        match (self.options.recovery_period_days, extras.pitr) {
            (Some(to), Some(live)) if !live || extras.pitr_days != Some(to) => {
                changes.push(TableChange::RecoveryPeriod { from: extras.pitr_days.filter(|_| live), to });
            }
            (None, Some(true)) => {
                if let Some(days) = extras.pitr_days {
                    kept.push(keep(format!("point-in-time recovery period {days} days")));
                }
            }
            _ => {}
        }
        self.plan_global(table, extras.region.as_deref(), &mut changes, &mut kept, &mut notes);
        if let Some(restore) = table.restore_summary() {
            let from = restore.source_table_arn().or(restore.source_backup_arn()).unwrap_or("another table");
            notes.push(format!(
                "restored from {from}: DynamoDB restores the keys, indexes, billing and encryption, not the TTL, \
                 stream, point-in-time recovery, tags, resource-based policy or auto scaling; apply sets those the \
                 definition states (auto scaling is not part of it)"
            ));
        }
        TablePlan { table: name.to_owned(), changes, kept, notes }
    }

    /// The settings of 2024-2026: warm throughput, maximum on-demand throughput (table and
    /// indexes), Contributor Insights, resource-based policy.
    fn plan_settings(
        &self,
        table: &TableDescription,
        extras: &Extras,
        live_billing: Billing,
        changes: &mut Vec<TableChange>,
        kept: &mut Vec<String>,
        notes: &mut Vec<String>,
    ) {
        let keep = |what: String| format!("{what} (kept: not in the definition)");
        let live_class = match table.table_class_summary().and_then(|c| c.table_class()) {
            Some(aws_sdk_dynamodb::types::TableClass::StandardInfrequentAccess) => TableClass::StandardInfrequentAccess,
            _ => TableClass::Standard,
        };
        match self.options.table_class {
            // The default class is nothing to keep (as no maximum on-demand throughput).
            None if live_class != TableClass::Standard => {
                kept.push(keep(format!("table class {}", live_class.as_str())))
            }
            Some(to) if to != live_class => changes.push(TableChange::TableClass { from: live_class, to }),
            _ => {}
        }
        match (&extras.tags, self.options.tags.is_empty()) {
            (_, true) => {}
            (Some(live), false) => {
                let to: std::collections::BTreeMap<String, String> = self
                    .options
                    .tags
                    .iter()
                    .filter(|(k, v)| live.get(*k) != Some(v))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let from = to.keys().filter_map(|k| Some((k.clone(), live.get(k)?.clone()))).collect();
                if !to.is_empty() {
                    changes.push(TableChange::Tags { from, to });
                }
                let others: Vec<String> = live
                    .iter()
                    .filter(|(k, _)| !self.options.tags.contains_key(*k))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                if !others.is_empty() {
                    kept.push(keep(format!("tags {}", others.join(", "))));
                }
            }
            (None, false) => notes.push("tags not compared: this endpoint has no tags".to_owned()),
        }
        let live_warm =
            table.warm_throughput().and_then(|w| reported(w.read_units_per_second(), w.write_units_per_second()));
        match (self.options.warm_throughput, live_warm) {
            (None, Some(live)) => kept.push(keep(format!("warm throughput {}", per_second(live)))),
            (None, None) => {}
            // The definition's warm throughput is a floor: DynamoDB raises a table's by itself as
            // its traffic grows and never lowers it, so a table at or above it is in step; a rise
            // of either is sent with the other kept where the table has it.
            (Some(to), Some(live)) if to.read > live.read || to.write > live.write => {
                let to = Throughput { read: to.read.max(live.read), write: to.write.max(live.write) };
                changes.push(TableChange::WarmThroughput { from: Some(live), to })
            }
            (Some(to), Some(live)) if to != live => kept.push(format!(
                "warm throughput {} (at or above the definition's {}: DynamoDB raised it)",
                per_second(live),
                per_second(to)
            )),
            (Some(_), Some(_)) => {}
            (Some(_), None) => notes.push("warm throughput not compared: this endpoint does not report it".to_owned()),
        }
        let billing = self.options.billing.unwrap_or(live_billing);
        let stated = self.options.max_on_demand.is_some() || self.indexes.iter().any(|i| i.max_on_demand.is_some());
        if stated && billing != Billing::OnDemand {
            changes.push(TableChange::Refused {
                setting: "max_on_demand",
                why: "the table is provisioned; a maximum on-demand throughput is for on-demand tables".to_owned(),
            });
        } else if billing == Billing::OnDemand {
            let live = table
                .on_demand_throughput()
                .and_then(|o| reported(o.max_read_request_units(), o.max_write_request_units()));
            match self.options.max_on_demand {
                // No maximum is nothing to keep (as the table's default).
                None => {
                    kept.extend(live.map(|live| keep(format!("maximum on-demand throughput {}", per_second(live)))))
                }
                Some(to) if Some(to) != live => changes.push(TableChange::MaxOnDemand { index: None, from: live, to }),
                Some(_) => {}
            }
            for index in self.indexes.iter().filter(|i| i.max_on_demand.is_some()) {
                let Some(g) = table.global_secondary_indexes().iter().find(|g| g.index_name() == Some(&index.name))
                else {
                    continue; // created with its maximum
                };
                let live = g
                    .on_demand_throughput()
                    .and_then(|o| reported(o.max_read_request_units(), o.max_write_request_units()));
                if let Some(to) = index.max_on_demand.filter(|to| Some(*to) != live) {
                    changes.push(TableChange::MaxOnDemand { index: Some(index.name.clone()), from: live, to });
                }
            }
        }
        let mode = |m: &InsightsMode| m.as_str();
        match (self.options.contributor_insights, &extras.insights) {
            (None, _) => {}
            (Some(to), Some(live)) if to != *live => changes.push(TableChange::ContributorInsights { from: *live, to }),
            (Some(_), Some(_)) => {}
            (Some(to), None) => notes.push(format!(
                "contributor insights {} not compared: this endpoint has no Contributor Insights",
                to.as_ref().map_or("off", mode)
            )),
        }
        match (&self.options.resource_policy, &extras.policy) {
            (None, _) => {}
            (Some(to), Some(live)) if !live.as_deref().is_some_and(|l| same_policy(l, to)) => {
                changes.push(TableChange::ResourcePolicy { from: live.clone(), to: to.clone() });
            }
            (Some(_), Some(_)) => {}
            (Some(_), None) => {
                notes.push("resource policy not compared: this endpoint has no resource-based policies".to_owned())
            }
        }
    }
}

/// The key of encryption at rest as DescribeTable reports it. A KMS key is told apart only by
/// its ARN: the AWS managed key counts as `wanted` when `wanted` is [`Sse::AwsManaged`] (telling
/// it from a customer managed key takes a KMS request, which `plan` does not make).
fn live_sse(t: &TableDescription, wanted: &Sse) -> Sse {
    let Some(d) = t.sse_description() else { return Sse::AwsOwned };
    let enabled = matches!(d.status(), Some(SseStatus::Enabled | SseStatus::Enabling | SseStatus::Updating));
    if !enabled || d.sse_type() != Some(&SseType::Kms) {
        return Sse::AwsOwned;
    }
    match (d.kms_master_key_arn(), wanted) {
        (_, Sse::AwsManaged) | (None, _) => Sse::AwsManaged,
        (Some(arn), _) => Sse::CustomerManaged(arn.to_owned()),
    }
}

/// `None` for an `UnknownOperationException` (an operation the endpoint does not have: a local
/// engine's backups, Contributor Insights, resource policies),
/// else the error.
fn unknown_operation<T, E, R>(e: aws_sdk_dynamodb::error::SdkError<E, R>) -> Result<Option<T>, Error>
where
    aws_sdk_dynamodb::Error: From<aws_sdk_dynamodb::error::SdkError<E, R>>,
{
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    let e = aws_sdk_dynamodb::Error::from(e);
    if e.code() == Some("UnknownOperationException") { Ok(None) } else { Err(Error::Sdk(Box::new(e))) }
}

/// [`Error::Validation`] for the settings DynamoDB refuses that `plan` lists
/// ([`TableChange::Refused`]).
fn refuse(table: &str, plan: &TablePlan) -> Result<(), Error> {
    let refused: Vec<String> = plan
        .changes
        .iter()
        .filter_map(|c| match c {
            TableChange::Refused { setting, why } => Some(format!("{setting}: {why}")),
            _ => None,
        })
        .collect();
    if refused.is_empty() { Ok(()) } else { Err(Error::Validation(format!("table {table}: {}", refused.join("; ")))) }
}

impl Table {
    /// How this table differs from `definition`, as the changes [`Table::apply`] would make:
    /// global indexes to add, to delete and add again (keys changed, or lacking attributes the
    /// entities read through them), or that the definition lacks (listed, deleted only on
    /// request); billing mode and capacity (the table's and each index's); the stream and its
    /// view type; the TTL attribute; point-in-time recovery; deletion protection; encryption at
    /// rest. What DynamoDB cannot change in place (the table's keys, a key attribute's type,
    /// local indexes) is listed as [`TableChange::Impossible`], with what to do instead. A
    /// table that does not exist is [`TableChange::CreateTable`].
    ///
    /// What the definition does not state (stream, point-in-time recovery, deletion protection,
    /// TTL, encryption at rest) is no change: the plan lists it in [`TablePlan::kept`], as the
    /// table has it, and `apply` leaves it.
    ///
    /// The settings of 2024-2026 too: warm throughput, maximum on-demand throughput (table and
    /// indexes), the point-in-time recovery period, Contributor Insights and the resource-based
    /// policy. A setting DynamoDB refuses for this table (warm throughput below the live
    /// table's, a maximum on-demand throughput on a provisioned table) is [`Error::Validation`]
    /// naming it. Where the endpoint does not report a stated setting (DynamoDB Local has no
    /// backups, Contributor Insights or resource policies, and reports no warm throughput), the
    /// plan says so in a note and lists no change for it.
    ///
    /// The storage class and tags too (tags the table has and the definition does not name are
    /// kept), and a global table's replicas ([`TableDefinition::global_table`]): replicas to add
    /// or remove, each replica's own settings, and a change of consistency mode or of an MRSC
    /// table's replicas, impossible in place. The settings each Region keeps for its own replica
    /// are compared for this handle's Region ([`Table::region`]), with that replica's own values;
    /// a global definition whose replicas do not include it is [`Error::Validation`]. A restored
    /// table's plan notes what DynamoDB does not restore.
    ///
    /// Sends DescribeTable, DescribeTimeToLive and DescribeContinuousBackups, and
    /// DescribeContributorInsights, GetResourcePolicy and ListTagsOfResource when the definition
    /// states those settings; nothing else: it changes nothing. An index that projects more than the entities need is not a change
    /// (other code may read it).
    pub async fn plan(&self, definition: &TableDefinition) -> Result<TablePlan, Error> {
        Ok(self.plan_described(definition).await?.0)
    }

    /// [`Table::plan`], with the description it compared (`None`: no such table).
    pub(super) async fn plan_described(
        &self,
        definition: &TableDefinition,
    ) -> Result<(TablePlan, Option<TableDescription>), Error> {
        definition.check_settings()?;
        // The replica of this handle's Region: its own deletion protection and Contributor Insights.
        let definition = &*definition.for_region(self.region());
        let Some(described) = self.describe_existing().await? else {
            let mut plan = TablePlan {
                table: self.name.to_string(),
                changes: vec![TableChange::CreateTable],
                kept: vec![],
                notes: vec![],
            };
            // A global table's replicas are added to the table once created.
            let created = TableDescription::builder().build();
            definition.plan_global(&created, self.region(), &mut plan.changes, &mut plan.kept, &mut plan.notes);
            refuse(&self.name, &plan)?;
            return Ok((plan, None));
        };
        let call = crate::send::call("DescribeTimeToLive", &self.name, "", None);
        let ttl = send(&self.meter, &call, self.client.describe_time_to_live().table_name(&*self.name))
            .await
            .map_err(sdk_error)?;
        let ttl = ttl.time_to_live_description().filter(|d| {
            matches!(d.time_to_live_status(), Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling))
        });
        let call = crate::send::call("DescribeContinuousBackups", &self.name, "", None);
        let request = self.client.describe_continuous_backups().table_name(&*self.name);
        let pitr = match send(&self.meter, &call, request).await {
            Ok(out) => {
                let d = out.continuous_backups_description().and_then(|d| d.point_in_time_recovery_description());
                let on = d.and_then(|p| p.point_in_time_recovery_status()) == Some(&PointInTimeRecoveryStatus::Enabled);
                let days = d.and_then(|p| p.recovery_period_in_days()).and_then(|d| u32::try_from(d).ok());
                Some((on, days))
            }
            Err(e) => {
                use aws_sdk_dynamodb::error::ProvideErrorMetadata;
                let e = aws_sdk_dynamodb::Error::from(e);
                // DynamoDB Local has no backups (as `create_table_from` finds).
                if e.code() != Some("UnknownOperationException") {
                    return Err(Error::Sdk(Box::new(e)));
                }
                None
            }
        };
        let extras = Extras {
            ttl: ttl.and_then(|d| d.attribute_name()).map(str::to_owned),
            pitr: pitr.map(|(on, _)| on),
            pitr_days: pitr.and_then(|(_, days)| days),
            insights: match definition.options.contributor_insights {
                Some(_) => self.live_insights().await?,
                None => None,
            },
            policy: match (&definition.options.resource_policy, described.table_arn()) {
                (Some(_), Some(arn)) => self.live_policy(arn).await?,
                _ => None,
            },
            tags: match (definition.options.tags.is_empty(), described.table_arn()) {
                (false, Some(arn)) => self.live_tags(arn).await?,
                _ => None,
            },
            region: self.region().map(str::to_owned),
        };
        let plan = definition.plan_against(&self.name, &described, &extras);
        refuse(&self.name, &plan)?;
        Ok((plan, Some(described)))
    }

    /// The table's tags as ListTagsOfResource reports them, every page (`None`: no such
    /// operation at this endpoint).
    async fn live_tags(&self, arn: &str) -> Result<Option<std::collections::BTreeMap<String, String>>, Error> {
        let mut tags = std::collections::BTreeMap::new();
        let mut next: Option<String> = None;
        loop {
            let call = crate::send::call("ListTagsOfResource", &self.name, "", None);
            let request = self.client.list_tags_of_resource().resource_arn(arn).set_next_token(next.take());
            match send(&self.meter, &call, request).await {
                Ok(out) => {
                    tags.extend(out.tags().iter().map(|t| (t.key().to_owned(), t.value().to_owned())));
                    match out.next_token() {
                        Some(token) => next = Some(token.to_owned()),
                        None => return Ok(Some(tags)),
                    }
                }
                Err(e) => return unknown_operation(e),
            }
        }
    }

    /// Contributor Insights as DescribeContributorInsights reports it (`None`: no such operation,
    /// as in DynamoDB Local).
    async fn live_insights(&self) -> Result<Option<Option<InsightsMode>>, Error> {
        let call = crate::send::call("DescribeContributorInsights", &self.name, "", None);
        let request = self.client.describe_contributor_insights().table_name(&*self.name);
        match send(&self.meter, &call, request).await {
            Ok(out) => {
                let on = matches!(
                    out.contributor_insights_status(),
                    Some(ContributorInsightsStatus::Enabled | ContributorInsightsStatus::Enabling)
                );
                let mode = match out.contributor_insights_mode() {
                    Some(ContributorInsightsMode::ThrottledKeys) => InsightsMode::ThrottledKeys,
                    // Before modes, Contributor Insights reported both kinds of keys.
                    _ => InsightsMode::AccessedAndThrottledKeys,
                };
                Ok(Some(on.then_some(mode)))
            }
            Err(e) => unknown_operation(e),
        }
    }

    /// The table's resource-based policy as GetResourcePolicy reports it (`Some(None)`: none
    /// attached; `None`: no such operation, as in DynamoDB Local).
    async fn live_policy(&self, arn: &str) -> Result<Option<Option<String>>, Error> {
        let call = crate::send::call("GetResourcePolicy", &self.name, "", None);
        match send(&self.meter, &call, self.client.get_resource_policy().resource_arn(arn)).await {
            Ok(out) => Ok(Some(out.policy().map(str::to_owned))),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_policy_not_found_exception()) => Ok(Some(None)),
            Err(e) => unknown_operation(e),
        }
    }
}

#[cfg(test)]
mod tests {
    //! What DynamoDB Local cannot show: a description as AWS gives it (encryption, a table
    //! without billing summary, index capacity, a projection lacking attributes).
    use super::*;
    use aws_sdk_dynamodb::types::{
        GlobalSecondaryIndexDescription, KeySchemaElement, KeyType, Projection as SdkProjection, ProjectionType,
        ProvisionedThroughputDescription, SseDescription,
    };

    const KEY: &str = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

    fn key(attr: &str, kind: KeyType) -> KeySchemaElement {
        KeySchemaElement::builder().attribute_name(attr).key_type(kind).build().unwrap()
    }

    fn definition() -> TableDefinition {
        TableDefinition {
            pk_attr: "PK".into(),
            sk_attr: Some("SK".into()),
            indexes: vec![IndexDefinition {
                name: "GSI1".into(),
                kind: IndexKind::Global,
                pk_attr: "GSI1PK".into(),
                sk_attr: None,
                pk_attrs: vec!["GSI1PK".into()],
                sk_attrs: vec![],
                projection: Projection::Include(vec!["total".into()]),
                throughput: Some(Throughput { read: 3, write: 2 }),
                max_on_demand: None,
                needs_backfill: true,
            }],
            ttl_attr: None,
            options: Default::default(),
            entities: vec![],
            attribute_types: Default::default(),
            iam_policies: vec![],
            vector_indexes: Vec::new(),
        }
    }

    fn table(projection: ProjectionType, sse: Option<SseDescription>) -> TableDescription {
        let units =
            |r, w| ProvisionedThroughputDescription::builder().read_capacity_units(r).write_capacity_units(w).build();
        TableDescription::builder()
            .table_arn("arn:aws:dynamodb:eu-west-1:123456789012:table/orders")
            .key_schema(key("PK", KeyType::Hash))
            .key_schema(key("SK", KeyType::Range))
            .provisioned_throughput(units(5, 5))
            .global_secondary_indexes(
                GlobalSecondaryIndexDescription::builder()
                    .index_name("GSI1")
                    .key_schema(key("GSI1PK", KeyType::Hash))
                    .projection(SdkProjection::builder().projection_type(projection).build())
                    .provisioned_throughput(units(5, 5))
                    .index_status(IndexStatus::Active)
                    .build(),
            )
            .set_sse_description(sse)
            .build()
    }

    fn kms(arn: &str) -> SseDescription {
        SseDescription::builder().status(SseStatus::Enabled).sse_type(SseType::Kms).kms_master_key_arn(arn).build()
    }

    #[test]
    fn encryption_is_compared_by_key_arn() {
        let extras = Extras { ttl: None, pitr: Some(false), ..Extras::default() };
        let def = definition().billing(Billing::Provisioned(Throughput { read: 5, write: 5 }));
        let mine = def.clone().sse(Sse::CustomerManaged(KEY.into()));
        // The AWS owned key (no description) -> a customer managed key.
        let plan = mine.plan_against("orders", &table(ProjectionType::All, None), &extras);
        assert!(plan.changes.contains(&TableChange::Sse { from: Sse::AwsOwned, to: Sse::CustomerManaged(KEY.into()) }));
        assert!(plan.to_string().contains(&format!("~ encryption at rest: AWS owned key -> KMS key {KEY}")), "{plan}");
        // The same key: nothing; another key: a change.
        let same = mine.plan_against("orders", &table(ProjectionType::All, Some(kms(KEY))), &extras);
        assert!(!same.changes.iter().any(|c| matches!(c, TableChange::Sse { .. })), "{same}");
        let other = mine.plan_against("orders", &table(ProjectionType::All, Some(kms("arn:other"))), &extras);
        assert!(other.changes.contains(&TableChange::Sse {
            from: Sse::CustomerManaged("arn:other".into()),
            to: Sse::CustomerManaged(KEY.into())
        }));
        // A KMS key is the AWS managed one when that is what the definition says; back to the
        // AWS owned key is a change (from the key DescribeTable names).
        let managed = def.clone().sse(Sse::AwsManaged);
        let plan = managed.plan_against("orders", &table(ProjectionType::All, Some(kms(KEY))), &extras);
        assert!(!plan.changes.iter().any(|c| matches!(c, TableChange::Sse { .. })), "{plan}");
        let owned = def.clone().sse(Sse::AwsOwned);
        let plan = owned.plan_against("orders", &table(ProjectionType::All, Some(kms(KEY))), &extras);
        assert!(
            plan.changes.contains(&TableChange::Sse { from: Sse::CustomerManaged(KEY.into()), to: Sse::AwsOwned }),
            "{plan}"
        );
        // Not stated: the table's key is kept, and the plan says so.
        let plan = def.plan_against("orders", &table(ProjectionType::All, Some(kms(KEY))), &extras);
        assert!(!plan.changes.iter().any(|c| matches!(c, TableChange::Sse { .. })), "{plan}");
        assert!(
            plan.to_string()
                .lines()
                .any(|l| l == format!("= encryption at rest KMS key {KEY} (kept: not in the definition)")),
            "{plan}"
        );
    }

    #[test]
    fn provisioned_tables_index_capacity_and_projections() {
        let extras = Extras { ttl: None, pitr: Some(true), ..Extras::default() };
        let def =
            definition().billing(Billing::Provisioned(Throughput { read: 5, write: 5 })).point_in_time_recovery(false);
        // No billing summary: provisioned, as AWS reports older tables; GSI1 has 5/5, wants 3/2.
        let plan = def.plan_against("orders", &table(ProjectionType::All, None), &extras);
        assert_eq!(
            plan.changes,
            [
                TableChange::IndexThroughput {
                    index: "GSI1".into(),
                    from: Some(Throughput { read: 5, write: 5 }),
                    to: Throughput { read: 3, write: 2 }
                },
                TableChange::PointInTimeRecovery { to: false },
            ],
            "{plan}"
        );
        // A KEYS_ONLY index lacks `total`: deleted and created again.
        let plan = def.plan_against("orders", &table(ProjectionType::KeysOnly, None), &extras);
        let text = plan.to_string();
        assert!(
            text.lines().any(|l| l.starts_with(
                "-/+ global index GSI1 (GSI1PK), projection INCLUDE total: projects KEYS_ONLY without total"
            )),
            "{text}"
        );
        // Billing not stated: the live table's is kept, and an index's stated capacity compared.
        let plan = definition().plan_against("orders", &table(ProjectionType::All, None), &extras);
        assert!(!plan.changes.iter().any(|c| matches!(c, TableChange::Billing { .. })), "{plan}");
        assert!(plan.kept.iter().any(|k| k.starts_with("billing provisioned (5 RCU, 5 WCU)")), "{plan}");
        // On demand: the capacity of indexes is not compared.
        let plan =
            definition().billing(Billing::OnDemand).plan_against("orders", &table(ProjectionType::All, None), &extras);
        assert_eq!(
            plan.changes[0],
            TableChange::Billing {
                from: Billing::Provisioned(Throughput { read: 5, write: 5 }),
                to: Billing::OnDemand
            }
        );
        assert!(!plan.changes.iter().any(|c| matches!(c, TableChange::IndexThroughput { .. })), "{plan}");
    }
}
