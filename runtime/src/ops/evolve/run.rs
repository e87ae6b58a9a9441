//! The run shared by backfills and migrations: parallel scan segments, each page's items
//! handled concurrently by the job, positions kept per segment (the cursor), counts, progress.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use futures_util::StreamExt;

use super::report::{FailedItem, MigrationReport, Progress, Resume};
use crate::cursor::Cursor;
use crate::cursor::scan::{Binding, EVOLVE, ScanPosition, SegmentPosition, key_of, start_key};
use crate::error::{Error, sdk_error};
use crate::model::Item;
use crate::model::entity::EntitySchema;
use crate::ops::scan::MAX_SCAN_SEGMENTS;
use crate::send::{call, send};
use crate::table::Table;

/// What a job did with one item. Crate-internal in all but name.
#[doc(hidden)]
#[derive(Debug)]
pub enum Outcome {
    /// Written (with `dry_run()`: would be).
    Written,
    /// Of the entity, and needed nothing.
    Current,
    /// Another entity's item.
    SteppedOver,
    /// Could not be handled.
    Failed(FailedItem),
    /// Written in part: what did not depend on the failure (a duplicate unique value).
    WrittenInPart(FailedItem),
}

/// A backfill or a migration: what it scans for, and what it does with each item. Implemented
/// by [`super::BackfillJob`] and [`super::MigrateJob`] only.
#[doc(hidden)]
pub trait Job: Send + Sync + 'static {
    /// The name a run's cursor is bound to (the entity, or `Old->New`).
    fn name(&self) -> &'static str;
    /// The schema of the scanned entity (its table keys name the positions).
    fn schema(&self) -> &'static EntitySchema;
    /// Handles `item`: the outcome, and how many times a write was retried because the item
    /// changed after it was read.
    fn handle(&self, table: &Table, item: Item, dry_run: bool) -> impl Future<Output = (Outcome, u64)> + Send;
    /// Whether it writes with update expressions (a backfill), which an encrypting handle refuses.
    #[doc(hidden)]
    fn updates_in_place(&self) -> bool {
        false
    }
}

/// How many items a scan request reads (DynamoDB's `Limit`), unless `page_size` says otherwise:
/// small enough that a cursor is never far behind, large enough to keep requests few.
pub const DEFAULT_PAGE_SIZE: u32 = 100;

/// How many items of a page are written at once, unless `concurrency` says otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// A backfill or a migration being set up: [`Evolution::run`] runs it.
#[must_use = "a backfill or migration does nothing until `run().await`"]
pub struct Evolution<J> {
    table: Table,
    job: Arc<J>,
    segments: u32,
    only: Option<u32>,
    after: Option<Cursor>,
    dry_run: bool,
    page: u32,
    concurrency: usize,
    progress: Option<OnProgress>,
}

/// The `on_progress` callback.
type OnProgress = Arc<dyn Fn(&Progress) + Send + Sync>;

impl<J> core::fmt::Debug for Evolution<J> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Evolution")
            .field("table", &self.table.name())
            .field("segments", &self.segments)
            .field("only", &self.only)
            .field("after", &self.after)
            .field("dry_run", &self.dry_run)
            .finish_non_exhaustive()
    }
}

impl<J: Job> Evolution<J> {
    pub(crate) fn new(table: &Table, job: J) -> Self {
        Evolution {
            table: table.clone(),
            job: Arc::new(job),
            segments: 1,
            only: None,
            after: None,
            dry_run: false,
            page: DEFAULT_PAGE_SIZE,
            concurrency: DEFAULT_CONCURRENCY,
            progress: None,
        }
    }

    /// Scans in `n` parallel segments (1 to 1,000,000; 1 by default).
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n;
        self.only = None;
        self
    }

    /// Runs only segment `k` of `n` (`0 <= k < n`): each of `n` workers (processes, Lambda
    /// invocations, Kubernetes jobs) runs one, with its own cursor and report; reports add up
    /// with [`MigrationReport::merge`].
    pub fn segment(mut self, k: u32, n: u32) -> Self {
        self.segments = n;
        self.only = Some(k);
        self
    }

    /// Resumes a run that stopped (its report's cursor, or the last [`Progress::cursor`]):
    /// every item before the cursor's positions is skipped.
    pub fn after(mut self, cursor: Cursor) -> Self {
        self.after = Some(cursor);
        self
    }

    /// Counts what would be written (as `written`) and writes nothing.
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// Items read per scan request (100 by default): a stopped run resumes at most one page
    /// behind.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page = n.max(1);
        self
    }

    /// Items of a page handled at once (8 by default).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Calls `f` after every page of every segment with the run's [`Progress`] (its `Display`
    /// is one line: items read, written, failed, rate, time left); save `progress.cursor` to
    /// resume after a crash.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Runs it to the end of its segments: the report of what it did. A request that fails
    /// (not an item: those are in `failed`) ends the run with its error; the last progress
    /// cursor resumes it.
    pub async fn run(self) -> Result<MigrationReport, Error> {
        self.table.refuse_on_tenant("backfill and migrate: they scan every tenant's items")?;
        let n = self.segments;
        if n == 0 || n > MAX_SCAN_SEGMENTS {
            return Err(Error::Validation(format!("{n} segments: a scan has 1 to {MAX_SCAN_SEGMENTS}")));
        }
        if let Some(k) = self.only
            && k >= n
        {
            return Err(Error::Validation(format!("segment {k} of {n}: segments are numbered 0 to {}", n - 1)));
        }
        let schema = self.job.schema();
        self.table.check_evolve(schema, self.job.updates_in_place())?;
        let reads = self.table.reads(self.job.name(), &[schema])?;
        let binding =
            || Binding { kind: EVOLVE, entity: self.job.name(), index: None, filter: 0, segments: n as usize };
        let positions = match &self.after {
            Some(c) => ScanPosition::open(c, self.table.cursor_secret.as_deref(), schema, binding())?.segments,
            None => vec![SegmentPosition::Start; n as usize],
        };
        let covered: Vec<u32> = match self.only {
            Some(k) => vec![k],
            None => (0..n).collect(),
        };
        let estimated_items = match &self.progress {
            Some(_) => item_count(&self.table, self.job.name()).await.map(|c| c / u64::from(n) * covered.len() as u64),
            None => None,
        };
        let ctx = Ctx {
            run: &self,
            schema,
            positions: Mutex::new(positions),
            counts: Counts::default(),
            failed: Mutex::new(Vec::new()),
            started: Instant::now(),
            estimated_items,
            reads,
        };
        let segments = covered.iter().map(|&k| ctx.segment(k));
        let results: Vec<Result<(), Error>> = futures_util::future::join_all(segments).await;
        results.into_iter().collect::<Result<Vec<()>, Error>>()?;
        let cursor = ctx.cursor(&covered)?;
        let positions = ctx.positions.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let resume = Resume {
            entity: self.job.name().to_owned(),
            covered: (0..n).map(|k| covered.contains(&k)).collect(),
            positions,
            secret: self.table.cursor_secret.clone(),
        };
        let c = &ctx.counts;
        Ok(MigrationReport {
            scanned: c.scanned.load(Ordering::Relaxed),
            written: c.written.load(Ordering::Relaxed),
            already_current: c.current.load(Ordering::Relaxed),
            stepped_over: c.stepped_over.load(Ordering::Relaxed),
            failed: ctx.failed.into_inner().unwrap_or_else(PoisonError::into_inner),
            retried: c.retried.load(Ordering::Relaxed),
            cursor,
            resume: Some(resume),
        })
    }
}

#[derive(Default)]
struct Counts {
    scanned: AtomicU64,
    written: AtomicU64,
    current: AtomicU64,
    stepped_over: AtomicU64,
    failed: AtomicU64,
    retried: AtomicU64,
}

/// A run in progress.
struct Ctx<'r, J> {
    run: &'r Evolution<J>,
    schema: &'static EntitySchema,
    positions: Mutex<Vec<SegmentPosition>>,
    counts: Counts,
    failed: Mutex<Vec<FailedItem>>,
    started: Instant,
    estimated_items: Option<u64>,
    /// What the handle adds to each scan request (through an encrypting handle: only the
    /// entity's items, as DB-ESDK fails a response holding an item it did not write).
    reads: crate::ops::policy::Reads,
}

impl<J: Job> Ctx<'_, J> {
    fn position(&self, k: u32) -> SegmentPosition {
        self.positions.lock().unwrap_or_else(PoisonError::into_inner)[k as usize].clone()
    }

    async fn segment(&self, k: u32) -> Result<(), Error> {
        let run = self.run;
        let n = run.segments;
        loop {
            let start = match self.position(k) {
                SegmentPosition::Done => return Ok(()),
                SegmentPosition::Start => None,
                SegmentPosition::After(key) => Some(start_key(self.schema, None, &key)?),
            };
            let request = run
                .table
                .client
                .scan()
                .table_name(&*run.table.name)
                .set_segment((n > 1).then_some(k as i32))
                .set_total_segments((n > 1).then_some(n as i32))
                .limit(i32::try_from(run.page).unwrap_or(i32::MAX))
                .set_exclusive_start_key(start)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
            let request = match self.reads.filter(None) {
                Some((text, names, values)) => request
                    .filter_expression(text)
                    .set_expression_attribute_names(Some(names))
                    .set_expression_attribute_values(Some(values)),
                None => request,
            };
            let call = call("Scan", &run.table.name, run.job.name(), None);
            let out = send(&run.table.meter, &call, request).await.map_err(sdk_error)?;
            let items = out.items.unwrap_or_default();
            self.counts.scanned.fetch_add(items.len() as u64, Ordering::Relaxed);
            let job = &run.job;
            let table = &run.table;
            let outcomes: Vec<(Outcome, u64)> = futures_util::stream::iter(items)
                .map(|item| job.handle(table, item, run.dry_run))
                .buffer_unordered(run.concurrency)
                .collect()
                .await;
            for (outcome, retried) in outcomes {
                let c = &self.counts;
                c.retried.fetch_add(retried, Ordering::Relaxed);
                match outcome {
                    Outcome::Written => c.written.fetch_add(1, Ordering::Relaxed),
                    Outcome::Current => c.current.fetch_add(1, Ordering::Relaxed),
                    Outcome::SteppedOver => c.stepped_over.fetch_add(1, Ordering::Relaxed),
                    Outcome::Failed(f) => {
                        tracing::warn!(entity = run.job.name(), key = ?f.key, "not handled: {}", f.error);
                        self.failed.lock().unwrap_or_else(PoisonError::into_inner).push(f);
                        c.failed.fetch_add(1, Ordering::Relaxed)
                    }
                    Outcome::WrittenInPart(f) => {
                        tracing::warn!(entity = run.job.name(), key = ?f.key, "written in part: {}", f.error);
                        self.failed.lock().unwrap_or_else(PoisonError::into_inner).push(f);
                        c.written.fetch_add(1, Ordering::Relaxed);
                        c.failed.fetch_add(1, Ordering::Relaxed)
                    }
                };
            }
            let next = match out.last_evaluated_key.as_ref().and_then(|key| key_of(self.schema, None, key)) {
                Some(key) => SegmentPosition::After(key),
                None => SegmentPosition::Done,
            };
            self.positions.lock().unwrap_or_else(PoisonError::into_inner)[k as usize] = next;
            self.progress()?;
        }
    }

    /// The cursor of the positions; `None` when every covered segment is done.
    fn cursor(&self, covered: &[u32]) -> Result<Option<Cursor>, Error> {
        let segments = self.positions.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if covered.iter().all(|&k| segments[k as usize] == SegmentPosition::Done) {
            return Ok(None);
        }
        let position = ScanPosition {
            kind: EVOLVE,
            entity: self.run.job.name().to_owned(),
            index: String::new(),
            filter: 0,
            segments,
            floor: None,
        };
        position.seal(self.run.table.cursor_secret.as_deref()).map(Some)
    }

    fn progress(&self) -> Result<(), Error> {
        let Some(f) = &self.run.progress else { return Ok(()) };
        let covered: Vec<u32> = match self.run.only {
            Some(k) => vec![k],
            None => (0..self.run.segments).collect(),
        };
        let c = &self.counts;
        let scanned = c.scanned.load(Ordering::Relaxed);
        let elapsed = self.started.elapsed();
        let rate = scanned as f64 / elapsed.as_secs_f64().max(1e-3);
        let remaining = self
            .estimated_items
            .filter(|_| rate > 0.0)
            .map(|total| Duration::from_secs_f64(total.saturating_sub(scanned) as f64 / rate));
        f(&Progress {
            scanned,
            written: c.written.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            elapsed,
            items_per_second: rate,
            estimated_items: self.estimated_items,
            remaining,
            cursor: self.cursor(&covered)?,
        });
        Ok(())
    }
}

/// The table's item count as DynamoDB last computed it (`None` if it cannot say).
async fn item_count(table: &Table, entity: &str) -> Option<u64> {
    let request = table.client.describe_table().table_name(&*table.name);
    let out = send(&table.meter, &call("DescribeTable", &table.name, entity, None), request).await.ok()?;
    out.table?.item_count.and_then(|c| u64::try_from(c).ok())
}

/// The key texts of `item` (for reports).
pub(crate) fn key_texts(schema: &EntitySchema, item: &Item) -> (String, Option<String>) {
    crate::error::key_texts(item, (schema.pk.attr, schema.sk.map(|k| k.attr))).unwrap_or_default()
}
