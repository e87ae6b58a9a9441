//! `Table::apply`: makes the changes of a [`TablePlan`], one DynamoDB allows at a time, and
//! waits until the table and its indexes are ACTIVE after each.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ContributorInsightsAction, CreateGlobalSecondaryIndexAction,
    DeleteGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, IndexStatus, ReplicaStatus, ScalarAttributeType,
    SseSpecification, StreamSpecification, TableDescription, TableStatus, TimeToLiveSpecification,
    UpdateGlobalSecondaryIndexAction, WitnessStatus,
};
use aws_sdk_dynamodb::types::{
    CreateGlobalTableWitnessGroupMemberAction, DeleteGlobalTableWitnessGroupMemberAction,
    DeleteReplicationGroupMemberAction, GlobalTableWitnessGroupUpdate, ReplicationGroupUpdate,
};

use super::create::{
    build_error, index_keys, insights_mode, on_demand, pitr_specification, projection, sse_specification, throughput,
    view, warm_throughput,
};
use super::plan::{TableChange, TablePlan};
use super::{Billing, IndexDefinition, Sse, TableDefinition, Throughput};
use crate::error::Error;
use crate::send::{Request, send};
use crate::table::Table;

/// The default of [`Apply::time_limit`]: one hour.
pub const DEFAULT_APPLY_TIME_LIMIT: Duration = Duration::from_secs(3600);

/// The callback of [`Apply::on_progress`].
type ProgressFn<'a> = Box<dyn Fn(&ApplyProgress) + Send + Sync + 'a>;

/// `table.apply(&definition)`: makes the changes [`Table::plan`] lists, then returns the plan
/// it applied; see [`Table::apply`]. Await it.
#[must_use = "an apply does nothing until awaited"]
pub struct Apply<'a> {
    table: &'a Table,
    definition: &'a TableDefinition,
    on_progress: Option<ProgressFn<'a>>,
    remove_unknown: bool,
    rebuild_changed: bool,
    remove_replicas: bool,
    time_limit: Duration,
    poll: Duration,
}

impl fmt::Debug for Apply<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Apply")
            .field("table", &self.table.name)
            .field("remove_unknown_indexes", &self.remove_unknown)
            .field("rebuild_changed_indexes", &self.rebuild_changed)
            .field("remove_replicas", &self.remove_replicas)
            .field("time_limit", &self.time_limit)
            .field("poll_interval", &self.poll)
            .finish_non_exhaustive()
    }
}

/// Where an apply is: reported by [`Apply::on_progress`] when a change starts, at every
/// DescribeTable while it waits, and when a request is sent again.
#[derive(Debug, Clone)]
pub struct ApplyProgress {
    /// The change being made (1-based) and how many the apply makes.
    pub step: usize,
    /// How many changes the apply makes.
    pub steps: usize,
    /// The change being made.
    pub change: TableChange,
    /// The table's status (`ACTIVE`, `UPDATING`, ...), once described.
    pub table_status: Option<String>,
    /// The status of the index the change creates or deletes (`CREATING`, `ACTIVE`,
    /// `DELETING`; `None` once deleted or for other changes).
    pub index_status: Option<String>,
    /// Whether DynamoDB is filling a new index from the table's items (it reports this while
    /// the index is `CREATING`; DynamoDB Local always says `false`).
    pub backfilling: Option<bool>,
    /// The status of the (first) replica the change adds or removes (`CREATING`, `ACTIVE`,
    /// `DELETING`; `None` once deleted or for other changes).
    pub replica_status: Option<String>,
    /// What happened last (`sent`, `waiting`, `done`, or a retried error code).
    pub event: String,
    /// Since the apply started.
    pub elapsed: Duration,
}

impl fmt::Display for ApplyProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}/{}] {}: {}", self.step, self.steps, self.change, self.event)?;
        if let Some(s) = &self.table_status {
            write!(f, ", table {s}")?;
        }
        if let Some(s) = &self.index_status {
            write!(f, ", index {s}")?;
        }
        if self.backfilling == Some(true) {
            write!(f, " (backfilling)")?;
        }
        if let Some(s) = &self.replica_status {
            write!(f, ", replica {s}")?;
        }
        write!(f, ", {:.1}s", self.elapsed.as_secs_f64())
    }
}

pub use crate::error::apply::ApplyError;

/// The two plans an [`ApplyError`] holds (the error floor holds them without their type).
struct Halves {
    applied: TablePlan,
    not_applied: TablePlan,
}

impl ApplyError {
    fn new(applied: TablePlan, not_applied: TablePlan, source: Error) -> Self {
        ApplyError { plans: Box::new(Halves { applied, not_applied }), source }
    }

    fn halves(&self) -> &Halves {
        self.plans.downcast_ref().expect("an ApplyError holds the plans Table::apply gave it")
    }

    /// The changes made, in order; each is complete.
    pub fn applied(&self) -> &TablePlan {
        &self.halves().applied
    }

    /// The changes not made, in order (the first may have been sent and not finished: see
    /// [`source`](ApplyError::source)). Planning again lists them.
    pub fn not_applied(&self) -> &TablePlan {
        &self.halves().not_applied
    }

    /// The changes made, the changes not made, and why it stopped, taken out.
    pub fn into_parts(self) -> (TablePlan, TablePlan, Error) {
        let halves = self.plans.downcast::<Halves>().expect("an ApplyError holds the plans Table::apply gave it");
        (halves.applied, halves.not_applied, self.source)
    }
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Halves { applied, not_applied } = self.halves();
        write!(
            f,
            "apply of table {} stopped: {}; applied {} of {} changes",
            applied.table,
            self.source,
            applied.changes.len(),
            applied.changes.len() + not_applied.changes.len()
        )?;
        match not_applied.changes.first() {
            Some(c) => write!(f, ", not applied from `{c}` on"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Halves { applied, not_applied } = self.halves();
        f.debug_struct("ApplyError")
            .field("applied", applied)
            .field("not_applied", not_applied)
            .field("source", &self.source)
            .finish()
    }
}

impl Table {
    /// Makes the changes [`Table::plan`] lists for `definition`, in the order DynamoDB requires:
    /// first it waits until the table and every index DynamoDB is still making are ACTIVE
    /// ([`TableChange::NotReady`]), then billing and capacity, deletion protection, stream,
    /// encryption at rest (each its own UpdateTable), then each index deleted or created in an
    /// UpdateTable of its own (with the attribute definitions its keys need), then the storage
    /// class (UpdateTable), tags (TagResource), warm throughput and maximum on-demand throughput
    /// (an UpdateTable each), Contributor Insights (UpdateContributorInsights), the resource-based
    /// policy (PutResourcePolicy), TTL (UpdateTimeToLive), point-in-time recovery and its period
    /// (UpdateContinuousBackups), and last a global table's replicas (with multi-Region eventual
    /// consistency an UpdateTable for each replica added or removed, with strong consistency one
    /// for all of them and the witness; an UpdateTable for each replica's own settings). After
    /// each UpdateTable it waits until the table, every index, every replica and the witness are
    /// ACTIVE (and a deleted index or replica gone), reporting the index's or replica's status
    /// and DynamoDB's backfilling flag through [`Apply::on_progress`]. A missing table is created
    /// (`create_table_from`).
    ///
    /// - A setting DynamoDB refuses for this table ([`TableChange::Refused`]: a maximum
    ///   on-demand throughput on a provisioned table) is
    ///   [`Error::Validation`] naming it, before any request but the Describe* of the plan.
    /// - A plan with a [`TableChange::Impossible`] change is refused whole, before any request
    ///   but the Describe* of the plan: [`Error::TableMismatch`] listing them.
    /// - What the definition does not state (stream, point-in-time recovery, deletion
    ///   protection, TTL, encryption at rest) is left as the table has it: only an explicit
    ///   `.no_stream()`, `.deletion_protection(false)`, ... turns a setting off.
    /// - An index the definition lacks is deleted only after [`Apply::remove_unknown_indexes`];
    ///   a replica, only after [`Apply::remove_replicas`].
    /// - An index whose keys or projection changed ([`TableChange::ReplaceIndex`]) is rebuilt
    ///   (deleted, then created: queries through it fail meanwhile) only after
    ///   [`Apply::rebuild_changed_indexes`]; without it the whole plan is refused before any
    ///   request but the Describe* of the plan: [`Error::TableMismatch`] naming each such index
    ///   and the opt-in.
    /// - Throttling, `LimitExceededException` (another index being built) and
    ///   `ResourceInUseException` (the table being updated) are retried with a backoff until
    ///   [`Apply::time_limit`] (one hour by default); each request is bounded by the table's
    ///   timeouts. Any other failure, or the time limit, is [`Error::Apply`]: the plan of what
    ///   was applied and of what was not ([`ApplyError::applied`], [`ApplyError::not_applied`]).
    ///
    /// Returns the plan it applied (without the unknown indexes it left). Run again, it finds
    /// nothing to do; `plan` is then empty, unknown indexes left in place aside.
    pub fn apply<'a>(&'a self, definition: &'a TableDefinition) -> Apply<'a> {
        Apply {
            table: self,
            definition,
            on_progress: None,
            remove_unknown: false,
            rebuild_changed: false,
            remove_replicas: false,
            time_limit: DEFAULT_APPLY_TIME_LIMIT,
            poll: Duration::from_secs(1),
        }
    }
}

impl<'a> Apply<'a> {
    /// Calls `f` with the progress of the apply (see [`ApplyProgress`]).
    pub fn on_progress(mut self, f: impl Fn(&ApplyProgress) + Send + Sync + 'a) -> Self {
        self.on_progress = Some(Box::new(f));
        self
    }

    /// Also deletes the global indexes the table has and the definition lacks
    /// ([`TableChange::UnknownIndex`]); without it they are left as they are.
    pub fn remove_unknown_indexes(mut self) -> Self {
        self.remove_unknown = true;
        self
    }

    /// Also rebuilds the global indexes whose keys or projection changed
    /// ([`TableChange::ReplaceIndex`]): each is deleted, then created with the definition's keys,
    /// and queries through it fail until it is ACTIVE again (then `backfill`, if its keys are
    /// written for it). Without it, `apply` refuses a plan that holds such a change.
    pub fn rebuild_changed_indexes(mut self) -> Self {
        self.rebuild_changed = true;
        self
    }

    /// Also deletes the replicas of a global table that the definition lacks
    /// ([`TableChange::RemoveReplicas`]; of an MRSC table, with its witness): each with every item
    /// it holds in its Region, one `UpdateTable` at a time (an MRSC table's together), waiting until
    /// they are gone. Without it they are left as they are, and stay in the plan.
    pub fn remove_replicas(mut self) -> Self {
        self.remove_replicas = true;
        self
    }

    /// The most the whole apply may take, waits and retries included ([`DEFAULT_APPLY_TIME_LIMIT`]
    /// unless set); past it, the apply stops with [`Error::Apply`].
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = limit;
        self
    }

    /// How often the table is described while the apply waits for it (one second unless set).
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll = every.max(Duration::from_millis(10));
        self
    }
}

impl<'a> IntoFuture for Apply<'a> {
    type Output = Result<TablePlan, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<TablePlan, Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// One change being made.
struct Step<'s> {
    step: usize,
    steps: usize,
    change: &'s TableChange,
    start: Instant,
    deadline: Instant,
}

/// The error codes an UpdateTable (or UpdateTimeToLive, UpdateContinuousBackups) is sent again
/// for: nothing was changed, and later it may pass.
fn retryable(code: &str) -> bool {
    matches!(
        code,
        "LimitExceededException"
            | "ResourceInUseException"
            | "ThrottlingException"
            | "ProvisionedThroughputExceededException"
            | "RequestLimitExceeded"
    )
}

/// The wait before the next attempt: 200 ms doubling, up to 20 s.
fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((200u64 << attempt.min(7)).min(20_000))
}

impl Apply<'_> {
    async fn run(self) -> Result<TablePlan, Error> {
        let start = Instant::now();
        let deadline = start + self.time_limit;
        let (plan, described) = self.table.plan_described(self.definition).await?;
        let impossible: Vec<String> = plan.impossible().map(ToString::to_string).collect();
        if !impossible.is_empty() {
            return Err(Error::TableMismatch {
                table: self.table.name.to_string(),
                differences: format!("apply refused, nothing changed: {}", impossible.join("; ")),
            });
        }
        let rebuilds: Vec<String> = plan
            .changes
            .iter()
            .filter_map(|c| match c {
                TableChange::ReplaceIndex { index, why } if !self.rebuild_changed => Some(format!(
                    "index {} must be rebuilt ({why}): deleted, then created, queries through it failing until it \
                     is ACTIVE again; call .rebuild_changed_indexes() to allow it",
                    index.name
                )),
                _ => None,
            })
            .collect();
        if !rebuilds.is_empty() {
            return Err(Error::TableMismatch {
                table: self.table.name.to_string(),
                differences: format!("apply refused, nothing changed: {}", rebuilds.join("; ")),
            });
        }
        let todo: Vec<TableChange> = plan
            .changes
            .iter()
            .filter(|c| self.remove_unknown || !matches!(c, TableChange::UnknownIndex { .. }))
            .filter(|c| self.remove_replicas || !matches!(c, TableChange::RemoveReplicas { .. }))
            .cloned()
            .collect();
        let of = |changes: &[TableChange]| TablePlan {
            table: plan.table.clone(),
            changes: changes.to_vec(),
            kept: plan.kept.clone(),
            notes: plan.notes.clone(),
        };
        for (k, change) in todo.iter().enumerate() {
            let step = Step { step: k + 1, steps: todo.len(), change, start, deadline };
            self.report(&step, None, "sent");
            if let Err(source) = self.make(&step, described.as_ref()).await {
                return Err(Error::Apply(Box::new(ApplyError::new(of(&todo[..k]), of(&todo[k..]), source))));
            }
        }
        Ok(of(&todo))
    }

    fn report(&self, step: &Step<'_>, described: Option<(&TableDescription, Awaited<'_>)>, event: &str) {
        let Some(f) = &self.on_progress else { return };
        let table_status = described.and_then(|(d, _)| d.table_status()).map(|s| s.as_str().to_owned());
        let index = described.and_then(|(d, awaited)| {
            let Awaited::Index(name, _) = awaited else { return None };
            d.global_secondary_indexes().iter().find(|g| g.index_name() == Some(name))
        });
        let replica = described.and_then(|(d, awaited)| {
            let Awaited::Replicas(regions, _, _) = awaited else { return None };
            let first = regions.first()?;
            d.replicas().iter().find(|r| r.region_name() == Some(first.as_str()))
        });
        f(&ApplyProgress {
            step: step.step,
            steps: step.steps,
            change: step.change.clone(),
            table_status,
            index_status: index.and_then(|g| g.index_status()).map(|s| s.as_str().to_owned()),
            backfilling: index.and_then(|g| g.backfilling()),
            replica_status: replica.and_then(|r| r.replica_status()).map(|s| s.as_str().to_owned()),
            event: event.to_owned(),
            elapsed: step.start.elapsed(),
        });
    }

    /// Makes one change, and waits until the table has settled.
    async fn make(&self, step: &Step<'_>, described: Option<&TableDescription>) -> Result<(), Error> {
        let t = self.table;
        let def = self.definition;
        let update = || t.client.update_table().table_name(&*t.name);
        match step.change {
            TableChange::CreateTable => {
                t.create_table_from(def).await?;
                self.report(step, None, "done");
                return Ok(());
            }
            TableChange::NotReady { .. } => self.settle(step, Awaited::Table).await?,
            TableChange::AddIndex(index) => {
                self.send(step, self.create_index(update(), index)?).await?;
                self.settle(step, Awaited::Index(&index.name, false)).await?;
            }
            TableChange::AddVectorIndex(v) => {
                let index = super::create::vector_index(v)?;
                let action = aws_sdk_dynamodb::types::CreateVectorIndexAction::builder()
                    .index_name(index.index_name)
                    .set_vector_attribute(index.vector_attribute)
                    .set_search_schema(index.search_schema)
                    .set_projection(index.projection)
                    .dimensions(index.dimensions)
                    .distance_function(index.distance_function)
                    .build()
                    .map_err(super::create::build_error)?;
                // The search schema's attributes are declared as CreateTable declares them.
                let mut request = update();
                for (attr, ty) in v.search_attributes() {
                    request = request.attribute_definitions(
                        AttributeDefinition::builder()
                            .attribute_name(attr)
                            .attribute_type(ScalarAttributeType::from(ty.as_str()))
                            .build()
                            .map_err(build_error)?,
                    );
                }
                let request = request
                    .vector_index_updates(aws_sdk_dynamodb::types::VectorIndexUpdate::builder().create(action).build());
                self.send(step, request).await?;
                self.settle(step, Awaited::Index(v.name, false)).await?;
            }
            TableChange::UnknownIndex { name } => {
                self.send(step, delete_index(update(), name)?).await?;
                self.settle(step, Awaited::Index(name, true)).await?;
            }
            TableChange::ReplaceIndex { index, .. } => {
                self.send(step, delete_index(update(), &index.name)?).await?;
                self.settle(step, Awaited::Index(&index.name, true)).await?;
                self.send(step, self.create_index(update(), index)?).await?;
                self.settle(step, Awaited::Index(&index.name, false)).await?;
            }
            TableChange::Billing { to: Billing::OnDemand, .. } => {
                self.send(step, update().billing_mode(BillingMode::PayPerRequest)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::Billing { to: Billing::Provisioned(units), from } => {
                let mut request =
                    update().billing_mode(BillingMode::Provisioned).provisioned_throughput(throughput(*units)?);
                // From on demand, DynamoDB wants the capacity of every global index too.
                if *from == Billing::OnDemand {
                    let live = described.map(TableDescription::global_secondary_indexes).unwrap_or_default();
                    for g in live.iter().filter(|g| g.index_status() != Some(&IndexStatus::Deleting)) {
                        let name = g.index_name().unwrap_or_default();
                        let index = def.indexes.iter().find(|i| i.name == name);
                        let units = index.and_then(|i| i.throughput).unwrap_or(*units);
                        request = request.global_secondary_index_updates(index_capacity(name, units)?);
                    }
                }
                self.send(step, request).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::IndexThroughput { index, to, .. } => {
                self.send(step, update().global_secondary_index_updates(index_capacity(index, *to)?)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::DeletionProtection { to } => {
                self.send(step, update().deletion_protection_enabled(*to)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::Stream { from, to } => {
                if from.is_some() {
                    let off = StreamSpecification::builder().stream_enabled(false).build().map_err(build_error)?;
                    self.send(step, update().stream_specification(off)).await?;
                    self.settle(step, Awaited::Table).await?;
                }
                if let Some(v) = to {
                    let on = StreamSpecification::builder()
                        .stream_enabled(true)
                        .stream_view_type(view(*v))
                        .build()
                        .map_err(build_error)?;
                    self.send(step, update().stream_specification(on)).await?;
                    self.settle(step, Awaited::Table).await?;
                }
            }
            TableChange::Sse { to, .. } => {
                let spec = match to {
                    Sse::AwsOwned => SseSpecification::builder().enabled(false).build(),
                    other => sse_specification(other)?.unwrap_or_else(|| SseSpecification::builder().build()),
                };
                self.send(step, update().sse_specification(spec)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::Ttl { from, to } => {
                let ttl = |on: bool, attr: &str| {
                    TimeToLiveSpecification::builder().enabled(on).attribute_name(attr).build().map_err(build_error)
                };
                if let Some(attr) = from {
                    let off = t
                        .client
                        .update_time_to_live()
                        .table_name(&*t.name)
                        .time_to_live_specification(ttl(false, attr)?);
                    self.send(step, off).await?;
                }
                if let Some(attr) = to {
                    let on = t
                        .client
                        .update_time_to_live()
                        .table_name(&*t.name)
                        .time_to_live_specification(ttl(true, attr)?);
                    self.send(step, on).await?;
                }
            }
            TableChange::WarmThroughput { to, .. } => {
                self.send(step, update().warm_throughput(warm_throughput(*to)?)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::MaxOnDemand { index: None, to, .. } => {
                self.send(step, update().on_demand_throughput(on_demand(*to)?)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::MaxOnDemand { index: Some(index), to, .. } => {
                let action = UpdateGlobalSecondaryIndexAction::builder()
                    .index_name(index)
                    .on_demand_throughput(on_demand(*to)?)
                    .build()
                    .map_err(build_error)?;
                let update_index = GlobalSecondaryIndexUpdate::builder().update(action).build();
                self.send(step, update().global_secondary_index_updates(update_index)).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::RecoveryPeriod { to, .. } => {
                let request = t
                    .client
                    .update_continuous_backups()
                    .table_name(&*t.name)
                    .point_in_time_recovery_specification(pitr_specification(true, Some(*to))?);
                self.send(step, request).await?;
            }
            TableChange::ContributorInsights { to, .. } => {
                let request = t.client.update_contributor_insights().table_name(&*t.name);
                let request = match to {
                    Some(mode) => request
                        .contributor_insights_action(ContributorInsightsAction::Enable)
                        .contributor_insights_mode(insights_mode(*mode)),
                    None => request.contributor_insights_action(ContributorInsightsAction::Disable),
                };
                self.send(step, request).await?;
            }
            TableChange::ResourcePolicy { to, .. } => {
                let arn = described.and_then(TableDescription::table_arn).ok_or_else(|| {
                    Error::Validation(format!("resource_policy: DescribeTable gave no ARN for table {}", t.name))
                })?;
                self.send(step, t.client.put_resource_policy().resource_arn(arn).policy(to)).await?;
            }
            TableChange::Refused { setting, why } => {
                return Err(Error::Validation(format!("{setting}: {why}")));
            }
            TableChange::PointInTimeRecovery { to } => {
                let spec = pitr_specification(*to, None)?;
                let request = t
                    .client
                    .update_continuous_backups()
                    .table_name(&*t.name)
                    .point_in_time_recovery_specification(spec);
                self.send(step, request).await?;
            }
            TableChange::TableClass { to, .. } => {
                self.send(step, update().table_class(super::create::table_class(*to))).await?;
                self.settle(step, Awaited::Table).await?;
            }
            TableChange::Tags { to, .. } => {
                let arn = described.and_then(TableDescription::table_arn).ok_or_else(|| {
                    Error::Validation(format!("tags: DescribeTable gave no ARN for table {}", t.name))
                })?;
                let request = t.client.tag_resource().resource_arn(arn).set_tags(Some(super::create::tags(to)?));
                self.send(step, request).await?;
            }
            TableChange::AddReplicas { consistency, replicas, witness } => {
                let mut request = update();
                for r in replicas {
                    request = request.replica_updates(super::create::replica_create(r)?);
                }
                if *consistency == super::MultiRegionConsistency::Strong {
                    request = request.multi_region_consistency(aws_sdk_dynamodb::types::MultiRegionConsistency::Strong);
                }
                if let Some(w) = witness {
                    request = request.global_table_witness_updates(witness_update(w, false)?);
                }
                self.send(step, request).await?;
                let regions: Vec<String> = replicas.iter().map(|r| r.region.clone()).collect();
                self.settle(step, Awaited::Replicas(&regions, witness.as_deref(), false)).await?;
            }
            TableChange::RemoveReplicas { regions, witness } => {
                let mut request = update();
                for r in regions {
                    let delete =
                        DeleteReplicationGroupMemberAction::builder().region_name(r).build().map_err(build_error)?;
                    request = request.replica_updates(ReplicationGroupUpdate::builder().delete(delete).build());
                }
                if let Some(w) = witness {
                    request = request.global_table_witness_updates(witness_update(w, true)?);
                }
                self.send(step, request).await?;
                self.settle(step, Awaited::Replicas(regions, witness.as_deref(), true)).await?;
            }
            TableChange::UpdateReplica { from, to } => {
                let request = update().replica_updates(super::create::replica_update(from, to)?);
                self.send(step, request).await?;
                let regions = [to.region.clone()];
                self.settle(step, Awaited::Replicas(&regions, None, false)).await?;
            }
            TableChange::Impossible { what, .. } => {
                return Err(Error::Validation(format!("{what}: not possible in place")));
            }
        }
        self.report(step, None, "done");
        Ok(())
    }

    /// UpdateTable creating global index `index`, with the attribute definitions of its keys.
    fn create_index(
        &self,
        mut request: aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
        index: &IndexDefinition,
    ) -> Result<aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder, Error> {
        let def = self.definition;
        for attr in index.pk_attrs.iter().chain(&index.sk_attrs) {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name(attr)
                    .attribute_type(ScalarAttributeType::from(def.attribute_type(attr).as_str()))
                    .build()
                    .map_err(build_error)?,
            );
        }
        let create = CreateGlobalSecondaryIndexAction::builder()
            .index_name(&index.name)
            .set_key_schema(Some(index_keys(index)?))
            .projection(projection(&index.projection))
            .set_provisioned_throughput(index.throughput.map(throughput).transpose()?)
            .set_on_demand_throughput(index.max_on_demand.map(on_demand).transpose()?)
            .build()
            .map_err(build_error)?;
        Ok(request.global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().create(create).build()))
    }

    /// Sends `request`, again after a backoff while DynamoDB answers with a [`retryable`] code.
    async fn send<R>(&self, step: &Step<'_>, request: R) -> Result<R::Output, Error>
    where
        R: Request + Clone,
        aws_sdk_dynamodb::Error: From<R::Error>,
    {
        let mut attempt = 0;
        loop {
            let call = crate::send::call(R::OPERATION, &self.table.name, "", None);
            let e = match send(&self.table.meter, &call, request.clone()).await {
                Ok(out) => return Ok(out),
                Err(e) => aws_sdk_dynamodb::Error::from(e),
            };
            let code = e.code().unwrap_or_default().to_owned();
            let wait = backoff(attempt);
            if !retryable(&code) || Instant::now() + wait > step.deadline {
                return Err(Error::Sdk(Box::new(e)));
            }
            attempt += 1;
            self.report(step, None, &format!("{} answered {code}: sent again in {wait:?}", R::OPERATION));
            tokio::time::sleep(wait).await;
        }
    }

    /// Waits until the table, every global and vector index, every replica and the witness are
    /// ACTIVE, and what `awaited` names exists (or no longer does), reporting each description. A
    /// replica DynamoDB could not create (`CREATION_FAILED`) ends the wait with its reason.
    async fn settle(&self, step: &Step<'_>, awaited: Awaited<'_>) -> Result<(), Error> {
        loop {
            let d = self.table.describe_existing().await?.ok_or_else(|| {
                Error::Validation(format!("table {} was deleted while the apply waited for it", self.table.name))
            })?;
            let indexes = d.global_secondary_indexes();
            let vectors = d.vector_indexes();
            let replicas = d.replicas();
            let witnesses = d.global_table_witnesses();
            if let Some(failed) = replicas.iter().find(|r| r.replica_status() == Some(&ReplicaStatus::CreationFailed)) {
                return Err(Error::Validation(format!(
                    "replica {} of table {}: CREATION_FAILED ({})",
                    failed.region_name().unwrap_or_default(),
                    self.table.name,
                    failed.replica_status_description().unwrap_or("DynamoDB gave no reason")
                )));
            }
            let there = match awaited {
                Awaited::Table => true,
                Awaited::Index(n, gone) => {
                    let found = indexes.iter().any(|g| g.index_name() == Some(n))
                        || vectors.iter().any(|v| v.index_name() == Some(n));
                    found != gone
                }
                Awaited::Replicas(regions, witness, gone) => {
                    let found = |r: &str| replicas.iter().any(|x| x.region_name() == Some(r));
                    let witness_found = |w: &str| witnesses.iter().any(|x| x.region_name() == Some(w));
                    regions.iter().all(|r| found(r) != gone) && witness.is_none_or(|w| witness_found(w) != gone)
                }
            };
            let settled = d.table_status() == Some(&TableStatus::Active)
                && indexes.iter().all(|g| g.index_status() == Some(&IndexStatus::Active))
                && vectors.iter().all(|v| v.index_status() == Some(&IndexStatus::Active))
                && replicas.iter().all(|r| r.replica_status() == Some(&ReplicaStatus::Active))
                && witnesses.iter().all(|w| w.witness_status() == Some(&WitnessStatus::Active))
                && there;
            self.report(step, Some((&d, awaited)), if settled { "settled" } else { "waiting" });
            if settled {
                return Ok(());
            }
            if Instant::now() + self.poll > step.deadline {
                return Err(Error::Validation(format!(
                    "table {} was not ACTIVE (with every index and replica) within the apply's time limit of {:?}",
                    self.table.name, self.time_limit
                )));
            }
            tokio::time::sleep(self.poll).await;
        }
    }
}

/// What an apply waits for after a change, besides the table and everything it holds being
/// `ACTIVE`.
#[derive(Debug, Clone, Copy)]
enum Awaited<'a> {
    /// Nothing more.
    Table,
    /// A global or vector index to exist (`true`: to be gone).
    Index(&'a str, bool),
    /// Replicas in these Regions, and the witness, to exist (`true`: to be gone).
    Replicas(&'a [String], Option<&'a str>, bool),
}

/// The witness update creating (or, if `delete`, deleting) the witness in `region`.
fn witness_update(region: &str, delete: bool) -> Result<GlobalTableWitnessGroupUpdate, Error> {
    let update = GlobalTableWitnessGroupUpdate::builder();
    Ok(if delete {
        let action = DeleteGlobalTableWitnessGroupMemberAction::builder().region_name(region).build();
        update.delete(action.map_err(build_error)?).build()
    } else {
        let action = CreateGlobalTableWitnessGroupMemberAction::builder().region_name(region).build();
        update.create(action.map_err(build_error)?).build()
    })
}

/// UpdateTable deleting global index `name`.
fn delete_index(
    request: aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
    name: &str,
) -> Result<aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder, Error> {
    let delete = DeleteGlobalSecondaryIndexAction::builder().index_name(name).build().map_err(build_error)?;
    Ok(request.global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().delete(delete).build()))
}

/// The update of global index `name`'s capacity.
fn index_capacity(name: &str, units: Throughput) -> Result<GlobalSecondaryIndexUpdate, Error> {
    let update = UpdateGlobalSecondaryIndexAction::builder()
        .index_name(name)
        .provisioned_throughput(throughput(units)?)
        .build()
        .map_err(build_error)?;
    Ok(GlobalSecondaryIndexUpdate::builder().update(update).build())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(changes: Vec<TableChange>) -> TablePlan {
        TablePlan { table: "Orders".into(), changes, kept: Vec::new(), notes: Vec::new() }
    }

    /// The error floor holds the plans without their type; `applied`, `not_applied` and
    /// `into_parts` give them back typed, and the message says how far the apply got.
    #[test]
    fn an_apply_error_gives_back_its_plans_typed() {
        let stream = TableChange::Stream { from: None, to: Some(crate::schema::StreamView::NewImage) };
        let ttl = TableChange::Ttl { from: None, to: Some("expires".into()) };
        let e = ApplyError::new(plan(vec![stream.clone()]), plan(vec![ttl.clone()]), Error::Validation("no".into()));
        assert_eq!(e.applied().changes, std::slice::from_ref(&stream));
        assert_eq!(e.not_applied().changes, std::slice::from_ref(&ttl));
        assert_eq!(
            e.to_string(),
            "apply of table Orders stopped: invalid request: no; applied 1 of 2 changes, not applied from `~ ttl: \
             off -> expires` on"
        );
        let debug = format!("{e:?}");
        assert!(debug.starts_with("ApplyError { applied: TablePlan {") && debug.contains("not_applied"), "{debug}");
        let source = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("invalid request: no"));
        let wrapped = Error::Apply(Box::new(e));
        assert!(wrapped.to_string().starts_with("apply of table Orders stopped"), "{wrapped}");
        let Error::Apply(e) = wrapped else { unreachable!() };
        let (applied, not_applied, source) = e.into_parts();
        assert_eq!((applied.changes, not_applied.changes), (vec![stream], vec![ttl]));
        assert!(matches!(source, Error::Validation(m) if m == "no"));
    }
}
