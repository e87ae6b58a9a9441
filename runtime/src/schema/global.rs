//! A global table in the definition: its replicas (one per Region), their multi-Region
//! consistency (MREC, or MRSC with three replicas or two and a witness) and the settings DynamoDB
//! allows per replica; a handle that knows it writes to one (`Table::on_global_table`).

use aws_sdk_dynamodb::types::TableDescription;

use super::plan::TableChange;
use super::{InsightsMode, TableClass, TableDefinition};
use crate::error::Error;
use crate::table::Table;
use crate::table::regions::{Regions, check_region};

pub use crate::table::regions::{MultiRegionConsistency, WriteMode};

/// The Region sets of a global table with multi-Region strong consistency, as DynamoDB's model
/// (`aws-sdk-dynamodb` 1.136) lists them: an MRSC table's replicas and witness are in one of them.
const MRSC_REGION_SETS: [(&str, &[&str]); 3] = [
    ("US", &["us-east-1", "us-east-2", "us-west-2"]),
    ("EU", &["eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"]),
    ("AP", &["ap-northeast-1", "ap-northeast-2", "ap-northeast-3"]),
];

/// One replica of a global table: its Region, and what DynamoDB allows it to hold apart from the
/// table's settings. Each setting left unstated is the table's ([`TableDefinition::table_class`],
/// [`TableDefinition::max_on_demand`], [`TableDefinition::sse`],
/// [`TableDefinition::deletion_protection`], [`TableDefinition::contributor_insights`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replica {
    /// The Region (`eu-west-1`).
    pub region: String,
    /// Its own storage class (DynamoDB's `TableClassOverride`).
    pub table_class: Option<TableClass>,
    /// Its own maximum of read request units per second (DynamoDB's
    /// `OnDemandThroughputOverride`): reads are served, and paid, per Region.
    pub max_reads: Option<u64>,
    /// The customer managed KMS key of its Region, for a table encrypted with one
    /// ([`Sse::CustomerManaged`](super::Sse::CustomerManaged)): a KMS key serves one Region.
    pub kms_key: Option<String>,
    /// Its own deletion protection.
    pub deletion_protection: Option<bool>,
    /// Its own Contributor Insights: `Some(None)` off, `Some(Some(mode))` on.
    pub contributor_insights: Option<Option<InsightsMode>>,
}

impl Replica {
    /// A replica in `region`, with the table's settings.
    pub fn new(region: impl Into<String>) -> Replica {
        Replica {
            region: region.into(),
            table_class: None,
            max_reads: None,
            kms_key: None,
            deletion_protection: None,
            contributor_insights: None,
        }
    }

    /// In storage class `class`.
    pub fn table_class(mut self, class: TableClass) -> Replica {
        self.table_class = Some(class);
        self
    }

    /// With at most `reads` read request units per second (an on-demand table; at least 1,
    /// checked by [`TableDefinition::global_table`]).
    pub fn max_reads(mut self, reads: u64) -> Replica {
        self.max_reads = Some(reads);
        self
    }

    /// Encrypted with customer managed KMS key `arn`, a key of its Region.
    pub fn kms_key(mut self, arn: impl Into<String>) -> Replica {
        self.kms_key = Some(arn.into());
        self
    }

    /// With deletion protection on or off.
    pub fn deletion_protection(mut self, on: bool) -> Replica {
        self.deletion_protection = Some(on);
        self
    }

    /// With Contributor Insights on, in `mode`.
    pub fn contributor_insights(mut self, mode: InsightsMode) -> Replica {
        self.contributor_insights = Some(Some(mode));
        self
    }

    /// With Contributor Insights off.
    pub fn no_contributor_insights(mut self) -> Replica {
        self.contributor_insights = Some(None);
        self
    }

    /// Whether it states a setting of its own that DynamoDB keeps with the replica (table class,
    /// read maximum, KMS key): what `UpdateTable`'s `ReplicaUpdates` sets.
    pub(super) fn overrides(&self) -> bool {
        self.table_class.is_some() || self.max_reads.is_some() || self.kms_key.is_some()
    }
}

impl From<&str> for Replica {
    fn from(region: &str) -> Replica {
        Replica::new(region)
    }
}

impl From<String> for Replica {
    fn from(region: String) -> Replica {
        Replica::new(region)
    }
}

/// A global table: replicas of the table in several Regions, kept in step by DynamoDB (global
/// tables version 2019.11.21), and how they agree ([`MultiRegionConsistency`]). The first replica
/// is the Region the table is created in: where `create_table_from` and the exports (the
/// CloudFormation stack, the Terraform provider) make it, the others being added to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalTable {
    /// MREC or MRSC.
    pub consistency: MultiRegionConsistency,
    /// Every replica, the first where the table is created.
    pub replicas: Vec<Replica>,
    /// The witness Region of an MRSC table of two replicas: it holds the replicated changes, so
    /// that a Region may fail, and serves no reads or writes.
    pub witness: Option<String>,
}

impl GlobalTable {
    /// Replicas with multi-Region eventual consistency (MREC): each Region takes writes and
    /// replicates them to the others, typically within a second; of two writes of one item in two
    /// Regions the last wins. At least two Regions.
    pub fn eventual<R: Into<Replica>>(replicas: impl IntoIterator<Item = R>) -> GlobalTable {
        GlobalTable {
            consistency: MultiRegionConsistency::Eventual,
            replicas: replicas.into_iter().map(Into::into).collect(),
            witness: None,
        }
    }

    /// Replicas with multi-Region strong consistency (MRSC): three, or two and a
    /// [`GlobalTable::witness`], in one Region set (US: us-east-1, us-east-2, us-west-2; EU:
    /// eu-west-1, eu-west-2, eu-west-3, eu-central-1; AP: ap-northeast-1, ap-northeast-2,
    /// ap-northeast-3).
    pub fn strong<R: Into<Replica>>(replicas: impl IntoIterator<Item = R>) -> GlobalTable {
        GlobalTable { consistency: MultiRegionConsistency::Strong, ..GlobalTable::eventual(replicas) }
    }

    /// With witness Region `region` (MRSC with two replicas).
    pub fn witness(mut self, region: impl Into<String>) -> GlobalTable {
        self.witness = Some(region.into());
        self
    }

    /// Every replica's Region, the first where the table is created.
    pub fn regions(&self) -> impl Iterator<Item = &str> {
        self.replicas.iter().map(|r| r.region.as_str())
    }

    /// The replica in `region`.
    pub fn replica(&self, region: &str) -> Option<&Replica> {
        self.replicas.iter().find(|r| r.region == region)
    }

    /// What DynamoDB refuses of the global table itself ([`Error::Validation`] naming the
    /// setting): a Region name that is no Region's, a Region twice, fewer than two replicas, a
    /// witness on MREC, an MRSC table that is not three replicas or two and a witness in one
    /// Region set, a read maximum of 0.
    fn check(&self) -> Result<(), Error> {
        let refuse = |why: String| Err(Error::Validation(format!("global_table: {why}")));
        for r in &self.replicas {
            check_region("global_table", &r.region)?;
            if r.max_reads == Some(0) {
                return refuse(format!("replica {}: max_reads of 0; DynamoDB takes at least 1", r.region));
            }
        }
        let mut regions: Vec<&str> = self.regions().collect();
        regions.extend(self.witness.as_deref());
        if let Some(w) = &self.witness {
            check_region("global_table", w)?;
        }
        let mut seen = regions.clone();
        seen.sort_unstable();
        if let Some(twice) = seen.windows(2).find(|w| w[0] == w[1]) {
            return refuse(format!(
                "{} is named twice; a global table has one replica (or witness) per Region",
                twice[0]
            ));
        }
        match (self.consistency, self.replicas.len(), &self.witness) {
            (MultiRegionConsistency::Eventual, _, Some(w)) => {
                refuse(format!("a witness ({w}) is for multi-Region strong consistency (GlobalTable::strong)"))
            }
            (MultiRegionConsistency::Eventual, n, None) if n < 2 => refuse(format!(
                "{n} replica(s); a global table has at least two (a table of one Region: no_global_table)"
            )),
            (MultiRegionConsistency::Eventual, _, None) => Ok(()),
            (MultiRegionConsistency::Strong, 3, None) | (MultiRegionConsistency::Strong, 2, Some(_)) => {
                match MRSC_REGION_SETS.iter().find(|(_, set)| regions.iter().all(|r| set.contains(r))) {
                    Some(_) => Ok(()),
                    None => refuse(format!(
                        "{} are not in one Region set; an MRSC table's replicas and witness are all in the US \
                         (us-east-1, us-east-2, us-west-2), the EU (eu-west-1, eu-west-2, eu-west-3, eu-central-1) \
                         or AP (ap-northeast-1, ap-northeast-2, ap-northeast-3) set",
                        regions.join(", ")
                    )),
                }
            }
            (MultiRegionConsistency::Strong, n, w) => refuse(format!(
                "{n} replica(s){}; multi-Region strong consistency takes three replicas, or two and a witness",
                w.as_ref().map(|w| format!(" and witness {w}")).unwrap_or_default()
            )),
        }
    }
}

impl TableDefinition {
    /// As global table `global`: `apply` adds the replicas the table lacks (MREC: one
    /// `UpdateTable` each, waiting until it is `ACTIVE`; MRSC: all with the witness in one, as
    /// DynamoDB requires), sets each replica's own settings, and deletes a replica the definition
    /// lacks only after `.remove_replicas()`. A change of consistency mode is impossible in place
    /// (`plan` says so).
    ///
    /// A global table replicates through its stream: the stream is stated `NEW_AND_OLD_IMAGES`
    /// unless the definition states it already (another view, or none, is
    /// [`Error::Validation`]). Its billing is on demand (a provisioned global table needs write
    /// auto scaling, which this library does not manage): billing stated provisioned is refused.
    /// What [`GlobalTable`] itself may not be is refused here too ([`Error::Validation`] naming
    /// `global_table`): see its constructors.
    pub fn global_table(mut self, global: GlobalTable) -> Result<Self, Error> {
        global.check()?;
        if self.options.stream.is_none() {
            self.options.stream = Some(Some(super::StreamView::NewAndOldImages));
        }
        self.options.global_table = Some(Some(global));
        self.check_global()?;
        Ok(self)
    }

    /// As a table of one Region: `apply` deletes the replicas of a global table, once
    /// `.remove_replicas()` allows it (and, of an MRSC table, the witness with them).
    pub fn no_global_table(mut self) -> Self {
        self.options.global_table = Some(None);
        self
    }

    /// The global table the definition states, if any.
    pub(super) fn stated_global(&self) -> Option<&GlobalTable> {
        self.options.global_table.as_ref().and_then(Option::as_ref)
    }

    /// What DynamoDB refuses of a global table together with the other settings: a stream other
    /// than `NEW_AND_OLD_IMAGES`, provisioned billing, a replica's KMS key on a table not
    /// encrypted with a customer managed key, a replica outside the customer managed key's
    /// Region without a key of its own.
    pub(super) fn check_global(&self) -> Result<(), Error> {
        let Some(global) = self.stated_global() else { return Ok(()) };
        let refuse = |why: String| Err(Error::Validation(format!("global_table: {why}")));
        if self.options.stream != Some(Some(super::StreamView::NewAndOldImages)) {
            return refuse(
                "a global table replicates through its stream, which must be on with NEW_AND_OLD_IMAGES".to_owned(),
            );
        }
        if let Some(super::Billing::Provisioned(_)) = self.options.billing {
            return refuse(
                "the billing is provisioned; a provisioned global table needs write auto scaling, which this \
                 library does not manage: use Billing::OnDemand"
                    .to_owned(),
            );
        }
        let key = match &self.options.sse {
            Some(super::Sse::CustomerManaged(arn)) => Some(arn.as_str()),
            _ => None,
        };
        for r in &global.replicas {
            match (key, &r.kms_key) {
                (None, Some(_)) => {
                    return refuse(format!(
                        "replica {} names a KMS key, but the table is not encrypted with a customer managed key \
                         (Sse::CustomerManaged)",
                        r.region
                    ));
                }
                (Some(arn), None) if kms_region(arn) != Some(r.region.as_str()) => {
                    return refuse(format!(
                        "replica {}: the table's KMS key {arn} serves another Region; give the replica a key of \
                         its Region (Replica::kms_key)",
                        r.region
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// This definition as the replica in `region` has it: the replica's own storage class,
    /// deletion protection and Contributor Insights in place of the table's (the settings a
    /// handle in that Region compares and sets as the table's).
    pub(super) fn for_region(&self, region: Option<&str>) -> std::borrow::Cow<'_, TableDefinition> {
        let replica = region.and_then(|r| self.stated_global()?.replica(r));
        match replica {
            Some(r)
                if r.table_class.is_some() || r.deletion_protection.is_some() || r.contributor_insights.is_some() =>
            {
                let mut def = self.clone();
                def.options.table_class = r.table_class.or(def.options.table_class);
                def.options.deletion_protection = r.deletion_protection.or(def.options.deletion_protection);
                def.options.contributor_insights = r.contributor_insights.or(def.options.contributor_insights);
                std::borrow::Cow::Owned(def)
            }
            _ => std::borrow::Cow::Borrowed(self),
        }
    }
}

/// What to do instead of a change of an MRSC table's replicas or witness.
const MRSC_INSTEAD: &str = "DynamoDB sets an MRSC table's replicas and witness together, when the table becomes global: \
                            make it a table of one Region (no_global_table, remove_replicas), then apply this \
                            definition, or create a new table from it and move the items with `migrate`";

/// The regions of `global`, and its witness, in words: `eu-west-1, us-east-1 (MREC)`.
fn show(global: &GlobalTable) -> String {
    let witness = global.witness.as_ref().map(|w| format!(", witness {w}")).unwrap_or_default();
    format!("{}{witness} ({})", global.regions().collect::<Vec<_>>().join(", "), global.consistency.short())
}

impl TableDefinition {
    /// The changes that bring the replicas of `table` (as DescribeTable reports it to a handle in
    /// `region`) to this definition's global table, and the notes of a global definition.
    pub(super) fn plan_global(
        &self,
        table: &TableDescription,
        region: Option<&str>,
        changes: &mut Vec<TableChange>,
        kept: &mut Vec<String>,
        notes: &mut Vec<String>,
    ) {
        if table.global_table_version() == Some("2017.11.29") && self.options.global_table.is_some() {
            changes.push(TableChange::Impossible {
                what: "a global table of version 2017.11.29 (legacy)".to_owned(),
                instead: "update it to version 2019.11.21 (the DynamoDB console does), then apply".to_owned(),
            });
            return;
        }
        let live = described(table);
        let wanted = match (&self.options.global_table, &live) {
            (None, Some(live)) => {
                kept.push(format!("replicas {} (kept: not in the definition)", show(live)));
                return;
            }
            (None, None) | (Some(None), None) => return,
            (Some(None), Some(live)) => {
                let others: Vec<String> = live.regions().filter(|r| Some(*r) != region).map(str::to_owned).collect();
                match live.consistency {
                    MultiRegionConsistency::Eventual => changes.extend(
                        others.into_iter().map(|r| TableChange::RemoveReplicas { regions: vec![r], witness: None }),
                    ),
                    MultiRegionConsistency::Strong => {
                        changes.push(TableChange::RemoveReplicas { regions: others, witness: live.witness.clone() })
                    }
                }
                return;
            }
            (Some(Some(wanted)), _) => wanted,
        };
        let Some(here) = region.filter(|r| wanted.replica(r).is_some()) else {
            changes.push(TableChange::Refused {
                setting: "global_table",
                why: format!(
                    "this handle's Region ({}) is not one of the replicas ({}): plan and apply through a handle in one \
                     of them (Table::in_region)",
                    region.unwrap_or("none named"),
                    wanted.regions().collect::<Vec<_>>().join(", ")
                ),
            });
            return;
        };
        let others: Vec<Replica> = wanted.replicas.iter().filter(|r| r.region != here).cloned().collect();
        match &live {
            None => match wanted.consistency {
                MultiRegionConsistency::Eventual => {
                    changes.extend(others.into_iter().map(|r| TableChange::AddReplicas {
                        consistency: MultiRegionConsistency::Eventual,
                        replicas: vec![r],
                        witness: None,
                    }))
                }
                MultiRegionConsistency::Strong => changes.push(TableChange::AddReplicas {
                    consistency: MultiRegionConsistency::Strong,
                    replicas: others,
                    witness: wanted.witness.clone(),
                }),
            },
            Some(live) if live.consistency != wanted.consistency => changes.push(TableChange::Impossible {
                what: format!(
                    "multi-Region consistency {} -> {}",
                    live.consistency.as_str(),
                    wanted.consistency.as_str()
                ),
                instead: "DynamoDB cannot change a global table's consistency mode: create a new table from the \
                          definition and move the items with `migrate`"
                    .to_owned(),
            }),
            Some(live) if wanted.consistency == MultiRegionConsistency::Strong => {
                let mut a: Vec<&str> = live.regions().collect();
                let mut b: Vec<&str> = wanted.regions().collect();
                a.sort_unstable();
                b.sort_unstable();
                if a != b || live.witness != wanted.witness {
                    changes.push(TableChange::Impossible {
                        what: format!("MRSC replicas {} -> {}", show(live), show(wanted)),
                        instead: MRSC_INSTEAD.to_owned(),
                    });
                }
            }
            Some(live) => {
                for r in others.into_iter().filter(|r| live.replica(&r.region).is_none()) {
                    changes.push(TableChange::AddReplicas {
                        consistency: MultiRegionConsistency::Eventual,
                        replicas: vec![r],
                        witness: None,
                    });
                }
                for r in live.regions().filter(|r| wanted.replica(r).is_none() && Some(*r) != region) {
                    changes.push(TableChange::RemoveReplicas { regions: vec![r.to_owned()], witness: None });
                }
            }
        }
        // The settings DynamoDB keeps with each replica: compared where the replica exists (a new
        // one is created with them), the handle's own too once the table is global.
        for to in wanted.replicas.iter().filter(|r| r.overrides()) {
            let from = match &live {
                Some(live) => live.replica(&to.region).cloned(),
                None if to.region == here => Some(Replica::new(here)),
                None => None,
            };
            if let Some(from) = from
                && !super::plan::replica_changes(&from, to).is_empty()
            {
                changes.push(TableChange::UpdateReplica { from, to: to.clone() });
            }
        }
        let elsewhere: Vec<&str> = wanted.regions().filter(|r| *r != here).collect();
        notes.push(format!(
            "the settings each Region keeps for its replica (point-in-time recovery, deletion protection, Contributor \
             Insights, resource-based policy, tags) are compared for {here} only: apply the definition through a \
             handle in {} too (Table::in_region)",
            elsewhere.join(", ")
        ));
        notes.push(self.guarantees(wanted.consistency));
    }

    /// What the global table promises per Region, for the plan's notes and the Markdown export.
    pub(super) fn guarantees(&self, consistency: MultiRegionConsistency) -> String {
        if consistency == MultiRegionConsistency::Strong {
            return "MRSC: strongly consistent reads and conditional writes see every Region's latest write; each write \
                    waits for another Region (more latency), and a write of an item another Region writes at the same \
                    time is refused (ReplicatedWriteConflictException) and sent again by a handle made by \
                    Table::on_global_table, as a transaction cancelled by a conflict is"
                .to_owned();
        }
        let mut own: Vec<String> = Vec::new();
        for e in &self.entities {
            if e.version_attr.is_some() {
                own.push(format!("{}'s #[version]", e.entity_type));
            }
            for u in e.unique {
                own.push(format!("{}'s #[unique] {}", e.entity_type, u.field));
            }
        }
        let own = if own.is_empty() { String::new() } else { format!(" ({})", own.join(", ")) };
        format!(
            "MREC: creates, #[version] checks, #[unique] guards{own}, idempotent updates and conditions hold only \
             within the Region that takes the write; a handle made by Table::on_global_table refuses such writes \
             unless its WriteMode sends them through one Region"
        )
    }
}

/// The Region of a KMS key ARN (`arn:aws:kms:<region>:..`).
pub(super) fn kms_region(arn: &str) -> Option<&str> {
    arn.split(':').nth(3).filter(|r| !r.is_empty())
}

/// The global table DescribeTable reports (`None`: a table of one Region): its consistency, every
/// replica with the settings DynamoDB keeps for it, its witness.
pub(super) fn described(table: &TableDescription) -> Option<GlobalTable> {
    if table.replicas().is_empty() {
        return None;
    }
    let consistency = match table.multi_region_consistency() {
        Some(aws_sdk_dynamodb::types::MultiRegionConsistency::Strong) => MultiRegionConsistency::Strong,
        _ => MultiRegionConsistency::Eventual,
    };
    let replicas = table
        .replicas()
        .iter()
        .map(|r| Replica {
            region: r.region_name().unwrap_or_default().to_owned(),
            table_class: r.replica_table_class_summary().and_then(|s| s.table_class()).map(|c| match c {
                aws_sdk_dynamodb::types::TableClass::StandardInfrequentAccess => TableClass::StandardInfrequentAccess,
                _ => TableClass::Standard,
            }),
            max_reads: r
                .on_demand_throughput_override()
                .and_then(|o| o.max_read_request_units())
                .and_then(|n| u64::try_from(n).ok())
                .filter(|n| *n > 0),
            kms_key: r.kms_master_key_id().map(str::to_owned),
            deletion_protection: None,
            contributor_insights: None,
        })
        .collect();
    let witness = table.global_table_witnesses().first().and_then(|w| w.region_name()).map(str::to_owned);
    Some(GlobalTable { consistency, replicas, witness })
}

impl Table {
    /// A handle of this table that knows it is global table `global` (from its definition, or
    /// from [`Table::described_global_table`]) and writes to it as `writes` says; clones share it,
    /// and so do the handles [`Table::in_region`] makes of it.
    ///
    /// On multi-Region eventual consistency (MREC), a write whose promise DynamoDB keeps only
    /// within the Region that takes it ([`RegionLocal`](crate::RegionLocal): a create, a write
    /// of a `#[version]` or `#[unique]` entity, an `.idempotent()` update or a transaction with a
    /// token, a condition) is sent only if `writes` sends such writes through one Region:
    /// [`WriteMode::OneRegion`] from a handle whose client is in the home Region, or
    /// [`WriteMode::YourRegion`]; otherwise it is [`Error::RegionLocalWrite`] before anything is
    /// sent. Other writes, and every read, are sent as on any handle.
    ///
    /// On multi-Region strong consistency (MRSC) nothing is refused, and a single-item write that
    /// DynamoDB refuses because another Region wrote the same item at the same time
    /// (`ReplicatedWriteConflictException`) is sent again as a transaction cancelled by a
    /// conflict is: after 25 ms (doubling, with jitter), up to
    /// [`DEFAULT_CONFLICT_RETRIES`](crate::DEFAULT_CONFLICT_RETRIES) times, then
    /// [`Error::ReplicatedWriteConflict`].
    ///
    /// A home Region that is not one of `global`'s replicas is [`Error::Validation`].
    pub fn on_global_table(&self, global: &GlobalTable, writes: WriteMode) -> Result<Table, Error> {
        if let WriteMode::OneRegion(home) = &writes
            && global.replica(home).is_none()
        {
            return Err(Error::Validation(format!(
                "on_global_table: the home Region {home} is not one of the replicas ({})",
                global.regions().collect::<Vec<_>>().join(", ")
            )));
        }
        let regions = Regions {
            consistency: global.consistency,
            replicas: global.regions().map(str::to_owned).collect(),
            writes,
        };
        let mut table = Table { regions: Some(std::sync::Arc::new(regions)), ..self.clone() };
        if global.consistency == MultiRegionConsistency::Strong && table.meter.conflict_retries() == 0 {
            table.client = crate::send::conflicts::retried_by_send(&table.client);
            table.meter = table.meter.with_conflict_retries(crate::send::DEFAULT_CONFLICT_RETRIES);
        }
        Ok(table)
    }

    /// The global table this table is, as DescribeTable reports it (`None`: a table of one
    /// Region): its consistency mode, its replicas with the settings DynamoDB keeps per replica
    /// (table class, read maximum, KMS key), its witness. For [`Table::on_global_table`] when the
    /// definition is not at hand.
    pub async fn described_global_table(&self) -> Result<Option<GlobalTable>, Error> {
        let table = self
            .describe_existing()
            .await?
            .ok_or_else(|| Error::Validation(format!("described_global_table: there is no table {}", self.name)))?;
        Ok(described(&table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(r: Result<(), Error>) -> String {
        match r {
            Err(Error::Validation(m)) => m,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn what_dynamodb_refuses_of_a_global_table() {
        assert!(GlobalTable::eventual(["eu-west-1", "us-east-1"]).check().is_ok());
        assert!(message(GlobalTable::eventual(["eu-west-1"]).check()).contains("at least two"));
        assert!(message(GlobalTable::eventual(["eu-west-1", "eu-west-1"]).check()).contains("named twice"));
        assert!(message(GlobalTable::eventual(["eu-west-1", "Mars"]).check()).contains("not a Region name"));
        let witness = GlobalTable::eventual(["eu-west-1", "us-east-1"]).witness("us-west-2");
        assert!(message(witness.check()).contains("a witness (us-west-2) is for multi-Region strong consistency"));
        assert!(GlobalTable::strong(["us-east-1", "us-east-2", "us-west-2"]).check().is_ok());
        assert!(GlobalTable::strong(["eu-west-1", "eu-central-1"]).witness("eu-west-3").check().is_ok());
        let two = message(GlobalTable::strong(["us-east-1", "us-east-2"]).check());
        assert!(two.contains("three replicas, or two and a witness"), "{two}");
        let apart = message(GlobalTable::strong(["us-east-1", "us-east-2"]).witness("eu-west-1").check());
        assert!(apart.contains("not in one Region set"), "{apart}");
        let same = message(GlobalTable::strong(["us-east-1", "us-east-2"]).witness("us-east-1").check());
        assert!(same.contains("us-east-1 is named twice"), "{same}");
        let zero = GlobalTable::eventual([Replica::new("eu-west-1"), Replica::new("us-east-1").max_reads(0)]);
        assert!(message(zero.check()).contains("max_reads of 0"));
    }

    #[test]
    fn a_legacy_global_table_is_said_impossible_and_a_replica_keeps_its_own_settings() {
        use aws_sdk_dynamodb::types::{ReplicaDescription, ReplicaStatus};
        let def = TableDefinition {
            pk_attr: "PK".into(),
            sk_attr: None,
            indexes: vec![],
            ttl_attr: None,
            options: Default::default(),
            entities: vec![],
            attribute_types: Default::default(),
            iam_policies: vec![],
            vector_indexes: vec![],
        };
        let global = GlobalTable::eventual([
            Replica::new("us-east-1").table_class(TableClass::StandardInfrequentAccess).deletion_protection(true),
            Replica::new("eu-west-1"),
        ]);
        let def = def.global_table(global).unwrap();
        let replica =
            |r: &str| ReplicaDescription::builder().region_name(r).replica_status(ReplicaStatus::Active).build();
        let legacy = TableDescription::builder()
            .global_table_version("2017.11.29")
            .replicas(replica("us-east-1"))
            .replicas(replica("eu-west-1"))
            .build();
        let (mut changes, mut kept, mut notes) = (Vec::new(), Vec::new(), Vec::new());
        def.plan_global(&legacy, Some("us-east-1"), &mut changes, &mut kept, &mut notes);
        assert!(
            matches!(&changes[..], [TableChange::Impossible { what, .. }] if what.contains("2017.11.29")),
            "{changes:?}"
        );
        // The handle's own replica: its class and protection are the table's there, not elsewhere.
        let here = def.for_region(Some("us-east-1"));
        assert_eq!(here.options.table_class, Some(TableClass::StandardInfrequentAccess));
        assert_eq!(here.options.deletion_protection, Some(true));
        let there = def.for_region(Some("eu-west-1"));
        assert_eq!((there.options.table_class, there.options.deletion_protection), (None, None));
    }

    #[test]
    fn kms_keys_name_their_region() {
        assert_eq!(kms_region("arn:aws:kms:eu-west-1:123456789012:key/abc"), Some("eu-west-1"));
        assert_eq!(kms_region("alias/x"), None);
    }
}
