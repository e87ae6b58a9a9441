//! End to end against the embedded engine (`dynamo_entity::local::Engine`) served by a child
//! process of this benchmark (the same binary, run with `E2E_SERVE=1`), so that this process's
//! CPU time and callgrind's counts are the client's alone: `Table` against raw
//! `aws-sdk-dynamodb` calls sending the same requests (put, get, query of 50, batch put of 25),
//! at concurrency 1 and 16. With `AWS_ENDPOINT_URL_DYNAMODB` set, that endpoint instead.
//!
//! `cargo bench --bench e2e` (see BENCHMARKS.md). The variants run interleaved, in balanced
//! order: for each operation and concurrency, every round first runs a settling segment (a
//! quarter of the operations, not recorded: at concurrency 1, the first segment after the switch
//! from 16 read several percent more CPU than the second), then A, B, B, A with half the operations
//! each, A being Table in even rounds and raw in odd ones; each variant's two halves make its
//! segment of the round. A segment's position (first or second of a pair) moved its CPU time by
//! about ±6% at concurrency 16 (BENCHMARKS.md, "Issue 51, part 4"), more than the differences
//! measured: in this order each variant holds each position once per round, and drift of the server
//! or of the machine hits both alike. Per segment it records wall time, the
//! latency of every operation, the CPU time of this process (the sum of
//! `/proc/self/task/*/schedstat`, nanoseconds) and the CPU time of the server process
//! (`/proc/<pid>/stat`, when it is the child).
//!
//! Environment: `E2E_OPS` (operations per segment for put and get; query and batch put do a
//! fifth of it; default 300), `E2E_ROUNDS` (default 5), `E2E_WARMUP` (warm-up puts and gets per
//! variant, default 2000), `E2E_ONLY` (a comma-separated subset of `put,get,query,batch`, to
//! profile one operation), `E2E_VIA` (`table` or `raw`: run only one variant, for profiles;
//! no ratios then). `cargo bench -- FILTER` runs it only if FILTER is part of `e2e` or of an
//! operation's name. Without `--bench` (`cargo test --benches`) it only checks, with a handful
//! of requests, that both variants run and read the same items.

mod common;
#[path = "common/cpu.rs"]
mod cpu;

use dynamo_entity::prelude::*;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, ReturnConsumedCapacity, WriteRequest};
use common::{Message, hand_from_item, hand_pk, hand_sk, hand_to_item, sample};
use cpu::self_cpu_ns;
use dynamo_entity::{Entity, Item, Table};

const QUERY_ROOM: &str = "room-query";
const QUERY_ITEMS: usize = 200;
const PAGE: usize = 50;
const BATCH: usize = 25;
const POOL: usize = 1000;
const BATCH_SETS: usize = 40;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Put,
    Get,
    Query,
    BatchPut,
}

impl Op {
    const ALL: [Op; 4] = [Op::Put, Op::Get, Op::Query, Op::BatchPut];

    fn key(self) -> &'static str {
        match self {
            Op::Put => "put",
            Op::Get => "get",
            Op::Query => "query",
            Op::BatchPut => "batch",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::Put => "put",
            Op::Get => "get",
            Op::Query => "query 50",
            Op::BatchPut => "batch put 25",
        }
    }

    /// Items written or read by one operation.
    fn items(self) -> usize {
        match self {
            Op::Put | Op::Get => 1,
            Op::Query => PAGE,
            Op::BatchPut => BATCH,
        }
    }

    /// Operations per segment, from the put/get count.
    fn count(self, base: usize) -> usize {
        match self {
            Op::Put | Op::Get => base,
            Op::Query | Op::BatchPut => (base / 5).max(1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Table,
    Raw,
}

struct Ctx {
    table: Table,
    client: Client,
    name: String,
    /// Written by the put benchmark and read by the get benchmark (always the same values).
    pool: Vec<Message>,
    batches: Vec<Vec<Message>>,
}

// ---------------------------------------------------------------------------------------------
// One operation, both ways. The raw calls send exactly what `Table` sends (same expressions,
// `ReturnConsumedCapacity::Indexes`) and decode with the hand-written codec.
// ---------------------------------------------------------------------------------------------

async fn table_op(ctx: &Ctx, op: Op, i: usize) -> usize {
    match op {
        Op::Put => {
            ctx.table.put(&ctx.pool[i % POOL]).await.expect("put");
            1
        }
        Op::Get => {
            let m = &ctx.pool[i % POOL];
            let key = Message::key(m.chat_room_id.as_str(), m.timestamp, m.message_id.as_str());
            let got = ctx.table.get(key).await.expect("get").expect("item present");
            usize::from(got.timestamp == m.timestamp)
        }
        Op::Query => {
            let page =
                ctx.table.query(Message::query_messages(QUERY_ROOM).descending().limit(PAGE as u32)).await.expect("q");
            page.items.len()
        }
        Op::BatchPut => {
            let set = &ctx.batches[i % ctx.batches.len()];
            ctx.table.batch_put(set).await.expect("batch_put");
            set.len()
        }
    }
}

fn raw_key(m: &Message) -> Item {
    let mut key = HashMap::with_capacity(2);
    key.insert("PK".to_owned(), AttributeValue::S(hand_pk(&m.chat_room_id)));
    key.insert("SK".to_owned(), AttributeValue::S(hand_sk(m.timestamp, &m.message_id)));
    key
}

async fn raw_query(ctx: &Ctx) -> Vec<Message> {
    let out = ctx
        .client
        .query()
        .table_name(&ctx.name)
        .key_condition_expression("#pk = :pk AND begins_with(#sk, :sk)")
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#sk", "SK")
        .expression_attribute_values(":pk", AttributeValue::S(hand_pk(QUERY_ROOM)))
        .expression_attribute_values(":sk", AttributeValue::S("MESSAGE#".to_owned()))
        .scan_index_forward(false)
        .consistent_read(false)
        .limit(PAGE as i32)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("query");
    out.items.unwrap_or_default().into_iter().map(|i| hand_from_item(i).expect("decode")).collect()
}

async fn raw_get(ctx: &Ctx, m: &Message) -> Option<Message> {
    let out = ctx
        .client
        .get_item()
        .table_name(&ctx.name)
        .set_key(Some(raw_key(m)))
        .consistent_read(false)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("get");
    out.item.map(|i| hand_from_item(i).expect("decode"))
}

async fn raw_batch_put(ctx: &Ctx, set: &[Message]) {
    let mut requests: Vec<WriteRequest> = set
        .iter()
        .map(|m| {
            let put = PutRequest::builder().set_item(Some(hand_to_item(m))).build().expect("put request");
            WriteRequest::builder().put_request(put).build()
        })
        .collect();
    // Retry what DynamoDB leaves unprocessed, as any correct caller must (Local never does).
    while !requests.is_empty() {
        let out = ctx
            .client
            .batch_write_item()
            .request_items(&ctx.name, requests)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .expect("batch_write_item");
        requests = out.unprocessed_items.and_then(|mut m| m.remove(&ctx.name)).unwrap_or_default();
    }
}

async fn raw_op(ctx: &Ctx, op: Op, i: usize) -> usize {
    match op {
        Op::Put => {
            ctx.client
                .put_item()
                .table_name(&ctx.name)
                .set_item(Some(hand_to_item(&ctx.pool[i % POOL])))
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                .send()
                .await
                .expect("put");
            1
        }
        Op::Get => {
            let m = &ctx.pool[i % POOL];
            let got = raw_get(ctx, m).await.expect("item present");
            usize::from(got.timestamp == m.timestamp)
        }
        Op::Query => raw_query(ctx).await.len(),
        Op::BatchPut => {
            let set = &ctx.batches[i % ctx.batches.len()];
            raw_batch_put(ctx, set).await;
            set.len()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// CPU time from /proc (no unsafe, no libc).
// ---------------------------------------------------------------------------------------------

/// utime + stime of a process, in clock ticks (`/proc/<pid>/stat`); includes exited threads.
fn proc_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may contain spaces), starting at field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// The child serving the engine: started from this binary with `E2E_SERVE=1`, it prints its port
/// and serves until its standard input closes (this process ending, whatever way it ends).
struct Server {
    child: std::process::Child,
    endpoint: String,
}

impl Server {
    fn start() -> Server {
        use std::io::BufRead;
        let exe = std::env::current_exe().expect("the benchmark's binary");
        let mut child = std::process::Command::new(exe)
            .env("E2E_SERVE", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the engine's process");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("its output")).read_line(&mut line).expect("its port");
        let port = line.trim().strip_prefix("PORT ").expect("PORT <n>").to_owned();
        Server { child, endpoint: format!("http://127.0.0.1:{port}") }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// `E2E_SERVE=1`: serve an engine, say its port, and stop when standard input closes.
fn serve() {
    let engine = dynamo_entity::local::Engine::start().expect("the engine");
    println!("PORT {}", engine.port());
    let mut sink = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    drop(engine);
}

/// Clock ticks per second of `/proc/<pid>/stat` (`USER_HZ`, 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

// ---------------------------------------------------------------------------------------------
// Segments and rounds.
// ---------------------------------------------------------------------------------------------

struct Segment {
    wall: Duration,
    ops: usize,
    items: usize,
    latencies: Vec<Duration>,
    client_cpu_ns: u64,
    server_ticks: Option<u64>,
}

impl Segment {
    /// Two segments of one variant as one: their operations, times and latencies together.
    fn join(mut self, other: Segment) -> Segment {
        self.wall += other.wall;
        self.ops += other.ops;
        self.items += other.items;
        self.latencies.extend(other.latencies);
        self.client_cpu_ns += other.client_cpu_ns;
        self.server_ticks = match (self.server_ticks, other.server_ticks) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        self
    }
}

async fn segment(ctx: &Arc<Ctx>, server: Option<&str>, op: Op, via: Via, conc: usize, n: usize) -> Segment {
    let next = Arc::new(AtomicUsize::new(0));
    let server_before = server.and_then(proc_ticks);
    let cpu_before = self_cpu_ns();
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(conc);
    for _ in 0..conc {
        let ctx = Arc::clone(ctx);
        let next = Arc::clone(&next);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(n / conc + 1);
            let mut items = 0;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let t = Instant::now();
                items += match via {
                    Via::Table => table_op(&ctx, op, i).await,
                    Via::Raw => raw_op(&ctx, op, i).await,
                };
                latencies.push(t.elapsed());
            }
            (latencies, items)
        }));
    }
    let mut latencies = Vec::with_capacity(n);
    let mut items = 0;
    for task in tasks {
        let (l, i) = task.await.expect("task");
        latencies.extend(l);
        items += i;
    }
    let wall = start.elapsed();
    let client_cpu_ns = self_cpu_ns().saturating_sub(cpu_before);
    let server_ticks = match (server_before, server.and_then(proc_ticks)) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    assert_eq!(items, n * op.items(), "{op:?} via {via:?}: every operation must return its items");
    Segment { wall, ops: n, items, latencies, client_cpu_ns, server_ticks }
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Median, min and max of per-round values.
#[derive(Clone, Copy)]
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

fn spread(mut v: Vec<f64>) -> Spread {
    v.sort_by(f64::total_cmp);
    Spread { median: quantile(&v, 0.5), min: v[0], max: v[v.len() - 1] }
}

impl Spread {
    fn show(self, decimals: usize) -> String {
        format!("{:.d$} [{:.d$}–{:.d$}]", self.median, self.min, self.max, d = decimals)
    }
}

struct Summary {
    ops_per_s: Spread,
    items_per_s: Spread,
    p50_ms: Spread,
    p99_ms: f64,
    cpu_us_per_op: Spread,
    server_ms_per_op: Option<Spread>,
}

fn summarize(segments: &[Segment]) -> Summary {
    let secs = |s: &Segment| s.wall.as_secs_f64();
    let mut all: Vec<f64> = segments.iter().flat_map(|s| s.latencies.iter().map(|l| l.as_secs_f64() * 1e3)).collect();
    all.sort_by(f64::total_cmp);
    let p50s = segments
        .iter()
        .map(|s| {
            let mut l: Vec<f64> = s.latencies.iter().map(|l| l.as_secs_f64() * 1e3).collect();
            l.sort_by(f64::total_cmp);
            quantile(&l, 0.5)
        })
        .collect();
    let server: Option<Vec<f64>> =
        segments.iter().map(|s| s.server_ticks.map(|t| t as f64 / TICKS_PER_SEC * 1e3 / s.ops as f64)).collect();
    Summary {
        ops_per_s: spread(segments.iter().map(|s| s.ops as f64 / secs(s)).collect()),
        items_per_s: spread(segments.iter().map(|s| s.items as f64 / secs(s)).collect()),
        p50_ms: spread(p50s),
        p99_ms: quantile(&all, 0.99),
        cpu_us_per_op: spread(segments.iter().map(|s| s.client_cpu_ns as f64 / 1e3 / s.ops as f64).collect()),
        server_ms_per_op: server.map(spread),
    }
}

/// Per-round ratio Table/raw of a quantity (paired: the two ran back to back).
fn paired(table: &[Segment], raw: &[Segment], f: impl Fn(&Segment) -> f64) -> Spread {
    spread(table.iter().zip(raw).map(|(t, r)| f(t) / f(r)).collect())
}

/// `((operation, concurrency), Table segments, raw segments)`, one segment per round.
type Results = ((Op, usize), Vec<Segment>, Vec<Segment>);

struct Config {
    ops: usize,
    rounds: usize,
    warmup: usize,
    full: bool,
    only: Vec<Op>,
    via: Vec<Via>,
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v}: expected a number")),
        Err(_) => default,
    }
}

fn config() -> Config {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then only a smoke test.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--bench");
    // `cargo bench -- FILTER`: run only if a filter names this benchmark or one of its operations.
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let selected = filters.is_empty()
        || filters.iter().any(|f| "e2e".contains(f.as_str()) || Op::ALL.iter().any(|op| op.key().contains(f.as_str())));
    let only = match std::env::var("E2E_ONLY") {
        Ok(list) => list
            .split(',')
            .map(|name| {
                Op::ALL.into_iter().find(|op| op.key() == name.trim()).unwrap_or_else(|| panic!("E2E_ONLY: `{name}`?"))
            })
            .collect(),
        Err(_) => Op::ALL.to_vec(),
    };
    let via = match std::env::var("E2E_VIA").as_deref() {
        Ok("table") => vec![Via::Table],
        Ok("raw") => vec![Via::Raw],
        Ok(other) => panic!("E2E_VIA={other}: expected `table` or `raw`"),
        Err(_) => vec![Via::Table, Via::Raw],
    };
    if full && !selected {
        Config { ops: 0, rounds: 0, warmup: 0, full, only: Vec::new(), via }
    } else if full {
        Config {
            ops: env_usize("E2E_OPS", 300).max(1),
            rounds: env_usize("E2E_ROUNDS", 5).max(1),
            warmup: env_usize("E2E_WARMUP", 2000),
            full,
            only,
            via,
        }
    } else {
        Config { ops: 20, rounds: 1, warmup: 0, full, only, via }
    }
}

async fn setup() -> (Arc<Ctx>, Option<Server>) {
    let (client, server) = match std::env::var_os(dynamo_entity::local::ENDPOINT_ENV).filter(|v| !v.is_empty()) {
        Some(_) => (dynamo_entity::local::client().await.expect("the endpoint"), None),
        None => {
            let server = Server::start();
            (dynamo_entity::local::client_at(&server.endpoint), Some(server))
        }
    };
    let name = format!("bench-e2e-{}", std::process::id());
    let table = Table::new(client.clone(), name.clone());
    table.create_table(&[Message::SCHEMA]).await.expect("create table");

    let t0 = 1_709_234_567_000u64;
    let pool: Vec<Message> =
        (0..POOL).map(|i| sample(&format!("room-{:02}", i % 50), t0 + i as u64, &format!("msg-{i:05}"))).collect();
    let batches: Vec<Vec<Message>> = (0..BATCH_SETS)
        .map(|b| {
            (0..BATCH)
                .map(|j| sample(&format!("room-batch-{b:02}"), t0 + j as u64, &format!("msg-{b:02}-{j:02}")))
                .collect()
        })
        .collect();
    let query_items: Vec<Message> =
        (0..QUERY_ITEMS).map(|i| sample(QUERY_ROOM, t0 + i as u64 * 1000, &format!("msg-{i:05}"))).collect();
    table.batch_put(&pool).await.expect("seed pool");
    table.batch_put(&query_items).await.expect("seed query room");
    let ctx = Arc::new(Ctx { table, client, name, pool, batches });

    // Both variants read and write the same thing.
    let m = &ctx.pool[7];
    let via_table = ctx.table.get(m.primary_key()).await.expect("get");
    assert_eq!(via_table.as_ref(), Some(m));
    assert_eq!(raw_get(&ctx, m).await.as_ref(), Some(m));
    let page = ctx.table.query(Message::query_messages(QUERY_ROOM).descending().limit(PAGE as u32)).await.expect("q");
    assert_eq!(page.items, raw_query(&ctx).await);
    assert_eq!(page.items.first(), query_items.last());
    (ctx, server)
}

fn main() {
    if std::env::var_os("E2E_SERVE").is_some() {
        return serve();
    }
    let cfg = config();
    if cfg.rounds == 0 {
        println!("e2e: skipped (not selected by the filter)");
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(run(cfg));
}

async fn run(cfg: Config) {
    let started = Instant::now();
    let (ctx, child) = setup().await;
    let server_pid = child.as_ref().map(Server::pid);
    let server = server_pid.as_deref();
    let concurrencies = [1usize, 16];

    if cfg.warmup > 0 {
        let t = Instant::now();
        for &op in &cfg.only {
            for &via in &cfg.via {
                segment(&ctx, None, op, via, 16, op.count(cfg.warmup)).await;
            }
        }
        eprintln!("warm-up: {:.1} s", t.elapsed().as_secs_f64());
    }

    let mut results: Vec<Results> =
        cfg.only.iter().flat_map(|&op| concurrencies.map(|c| ((op, c), Vec::new(), Vec::new()))).collect();
    for round in 0..cfg.rounds {
        let t = Instant::now();
        for ((op, conc), table, raw) in &mut results {
            let n = op.count(cfg.ops);
            let (a, b) = if round % 2 == 0 { (Via::Table, Via::Raw) } else { (Via::Raw, Via::Table) };
            if cfg.via.len() == 1 {
                // One variant (a profile): one segment, nothing to balance.
                let s = segment(&ctx, server, *op, cfg.via[0], *conc, n).await;
                if cfg.via[0] == Via::Table {
                    table.push(s)
                } else {
                    raw.push(s)
                }
                continue;
            }
            segment(&ctx, None, *op, a, *conc, n.div_ceil(4)).await;
            let half = n.div_ceil(2);
            let mut run = Vec::with_capacity(4);
            for via in [a, b, b, a] {
                run.push((via, segment(&ctx, server, *op, via, *conc, half).await));
            }
            let (t, r): (Vec<_>, Vec<_>) = run.into_iter().partition(|(via, _)| *via == Via::Table);
            let joined = |halves: Vec<(Via, Segment)>| halves.into_iter().map(|(_, s)| s).reduce(Segment::join);
            table.extend(joined(t));
            raw.extend(joined(r));
        }
        eprintln!("round {}/{}: {:.1} s", round + 1, cfg.rounds, t.elapsed().as_secs_f64());
    }
    ctx.table.client().delete_table().table_name(ctx.table.name()).send().await.expect("delete table");

    if !cfg.full {
        println!(
            "e2e smoke test: put, get, query and batch put ran through Table and raw SDK calls, which read the same items: 1 passed, 0 failed"
        );
        return;
    }
    report(&cfg, &results, server.is_some());
    eprintln!("total: {:.1} s", started.elapsed().as_secs_f64());
}

fn report(cfg: &Config, results: &[Results], server: bool) {
    println!(
        "\nE2E_OPS={} E2E_ROUNDS={} E2E_WARMUP={}; median [min–max] over rounds; p99 over all operations\n",
        cfg.ops, cfg.rounds, cfg.warmup
    );
    println!(
        "| operation | conc | via | ops/s | items/s | p50 ms | p99 ms | client CPU µs/op |{}",
        if server { " server CPU ms/op |" } else { "" }
    );
    println!("|---|---|---|---|---|---|---|---|{}", if server { "---|" } else { "" });
    for ((op, conc), table, raw) in results {
        for (via, segs) in [("Table", table), ("raw", raw)] {
            if segs.is_empty() {
                continue;
            }
            let s = summarize(segs);
            let server_col = match (server, s.server_ms_per_op) {
                (true, Some(sp)) => format!(" {} |", sp.show(2)),
                (true, None) => " – |".to_owned(),
                _ => String::new(),
            };
            println!(
                "| {} | {conc} | {via} | {} | {} | {} | {:.2} | {} |{server_col}",
                op.name(),
                s.ops_per_s.show(0),
                s.items_per_s.show(0),
                s.p50_ms.show(2),
                s.p99_ms,
                s.cpu_us_per_op.show(1),
            );
        }
    }

    println!("\nTable/raw, paired per round: median [min–max]\n");
    println!("| operation | conc | throughput Table/raw | client CPU per op Table/raw | p50 latency Table/raw |");
    println!("|---|---|---|---|---|");
    for ((op, conc), table, raw) in results {
        if table.is_empty() || raw.is_empty() {
            continue;
        }
        let thr = paired(table, raw, |s| s.ops as f64 / s.wall.as_secs_f64());
        let cpu = paired(table, raw, |s| s.client_cpu_ns as f64 / s.ops as f64);
        let p50 = paired(table, raw, |s| {
            let mut l: Vec<f64> = s.latencies.iter().map(Duration::as_secs_f64).collect();
            l.sort_by(f64::total_cmp);
            quantile(&l, 0.5)
        });
        println!("| {} | {conc} | {} | {} | {} |", op.name(), thr.show(3), cpu.show(3), p50.show(3));
    }

    println!("\nBatch put of 25 against 25 sequential puts (items/s, Table, median over rounds)\n");
    println!("| conc | put items/s | batch put items/s | batch/sequential |");
    println!("|---|---|---|---|");
    for conc in [1, 16] {
        let find = |op: Op| {
            results
                .iter()
                .find(|((o, c), t, _)| *o == op && *c == conc && !t.is_empty())
                .map(|(_, t, _)| summarize(t).items_per_s)
        };
        if let (Some(put), Some(batch)) = (find(Op::Put), find(Op::BatchPut)) {
            println!("| {conc} | {:.0} | {:.0} | {:.1}x |", put.median, batch.median, batch.median / put.median);
        }
    }
}
