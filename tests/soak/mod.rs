//! The invariant soak (issue 39): seeded random concurrent clients over one DynamoDB Local
//! table, faults injected by an SDK interceptor, a history of every operation, and a checker
//! that reads the whole table raw afterwards. Included by `tests/soak.rs` and by
//! `examples/soak/main.rs` (`#[path]`), so the bounded run and the long run share one engine.
#![allow(dead_code)]

pub mod check;
pub mod faults;
pub mod fourth;
pub mod history;
pub mod model;
pub mod rng;
pub mod workload;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use workload::{Config, World};

/// What a run did and what the checker found.
#[derive(Debug)]
pub struct Report {
    pub seed: u64,
    pub clients: usize,
    pub ops: u64,
    pub acked: u64,
    pub failed: u64,
    pub unknown: u64,
    /// Requests the SDK sent again within the clients' operations.
    pub resent: u64,
    pub seconds: f64,
    pub faults: u64,
    pub fault_summary: String,
    pub tenant_requests: u64,
    pub background: Vec<String>,
    /// The operation names that took the most wall time in total.
    pub slowest: String,
    /// Every operation name with its count (acknowledged/failed/indeterminate).
    pub counts: String,
    /// Read and write units reported by DynamoDB to the clients' handle.
    pub units: (f64, f64),
    pub verdict: check::Verdict,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "seed {:#x}: {} clients, {} operations in {:.1} s ({:.0} ops/s)",
            self.seed,
            self.clients,
            self.ops,
            self.seconds,
            self.ops as f64 / self.seconds.max(1e-9)
        )?;
        writeln!(
            f,
            "  outcomes: {} acknowledged, {} failed, {} indeterminate; {} requests resent by the SDK",
            self.acked, self.failed, self.unknown, self.resent
        )?;
        writeln!(f, "  faults injected: {} ({})", self.faults, self.fault_summary)?;
        writeln!(
            f,
            "  tenant requests watched: {}; transactions ended by a throttling cancellation: {}",
            self.tenant_requests, self.verdict.throttled_cancels
        )?;
        writeln!(f, "  units DynamoDB reported: {:.0} read, {:.0} write", self.units.0, self.units.1)?;
        writeln!(f, "  slowest operations (total s, count): {}", self.slowest)?;
        writeln!(f, "  operations run: {}", self.counts)?;
        for b in &self.background {
            writeln!(f, "  {b}")?;
        }
        writeln!(
            f,
            "  indeterminate ADDs (may or may not have applied, each at most once): {}",
            self.verdict.indeterminate_adds
        )?;
        write!(f, "  invariants checked: {}, violations: {}", self.verdict.checks, self.verdict.violations.len())?;
        for v in self.verdict.violations.iter().take(40) {
            write!(f, "\n    VIOLATION {v}")?;
        }
        Ok(())
    }
}

/// Runs the workload of `config` on a fresh table, then the checker.
pub async fn run(config: Config) -> Report {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!("soak-{:x}-{}-{}", config.seed, std::process::id(), N.fetch_add(1, Ordering::Relaxed));
    let (seed, clients) = (config.seed, config.clients);
    let world = World::new(config, name).await;
    workload::setup(&world).await;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        tasks.push(tokio::spawn(workload::client(world.clone(), c)));
    }
    let background = tokio::spawn(workload::background(world.clone()));
    for t in tasks {
        t.await.expect("client task");
    }
    background.await.expect("background task");
    let seconds = start.elapsed().as_secs_f64();
    let raw = raw_items(&world.base).await;
    let index_items = fourth::index_items(&world.base).await;
    let history = world.history.lock().unwrap().clone();
    let answers = world.meter.answers.lock().unwrap().clone();
    let exempt = world.backfill_failed.lock().unwrap().clone();
    let tenant_violations = world.tenant_violations.lock().unwrap().clone();
    let inputs = check::Inputs {
        history: &history,
        exempt: &exempt,
        tenant_violations: &tenant_violations,
        throttled_transactions: world.config.check_throttled_transactions,
        rate_limit: world.config.rate_limit,
        answers: &answers,
        index_items: &index_items,
        exact_counters: world.config.exact_counters,
    };
    let verdict = check::check(&raw, &inputs);
    let count = |o| history.iter().filter(|op| op.client != usize::MAX && op.outcome == o).count() as u64;
    let mut by_name: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
    for op in &history {
        let e = by_name.entry(op.name).or_default();
        e.0 += op.micros;
        e.1 += 1;
    }
    let mut by_name: Vec<_> = by_name.into_iter().collect();
    by_name.sort_by_key(|(_, (micros, _))| std::cmp::Reverse(*micros));
    let slowest = by_name
        .iter()
        .take(6)
        .map(|(n, (us, c))| format!("{n} {:.1} ({c})", *us as f64 / 1e6))
        .collect::<Vec<_>>()
        .join(", ");
    let mut counts: std::collections::BTreeMap<&str, [u64; 3]> = Default::default();
    for op in history.iter().filter(|op| op.client != usize::MAX) {
        counts.entry(op.name).or_default()[op.outcome as usize] += 1;
    }
    let counts = counts.iter().map(|(n, [a, f, u])| format!("{n} {a}/{f}/{u}")).collect::<Vec<_>>().join(", ");
    let report = Report {
        counts,
        slowest,
        units: answers.iter().fold((0.0, 0.0), |(r, w), a| (r + a.1, w + a.2)),
        seed,
        clients,
        ops: history.len() as u64 - 1,
        acked: count(history::Outcome::Acked),
        failed: count(history::Outcome::Failed),
        unknown: count(history::Outcome::Unknown),
        resent: history.iter().map(|op| op.resent).sum(),
        seconds,
        faults: world.faults.total(),
        fault_summary: world.faults.summary(),
        tenant_requests: world.tenant_requests.load(Ordering::Relaxed),
        background: world.background.lock().unwrap().clone(),
        verdict,
    };
    let _ = world.base.client().delete_table().table_name(world.base.name()).send().await;
    drop(Arc::clone(&world));
    report
}

/// Every item of the table, as stored (a raw scan, every page).
pub async fn raw_items(table: &dynamo_entity::Table) -> Vec<dynamo_entity::Item> {
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page =
            table.client().scan().table_name(table.name()).set_exclusive_start_key(start).send().await.expect("scan");
        out.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            return out;
        }
    }
}
