//! A merged read of a partition sharded 8 ways against the same items in one unsharded
//! partition, against the embedded engine: wall time, requests, read units and this process's CPU
//! time per operation (the engine's included: it serves from this process since the sixth
//! stage), for a page of 25, a page of 100 and every item (800).
//!
//! `cargo bench --bench shards` (see BENCHMARKS.md). The variants run interleaved (sharded then
//! single in even rounds, the other way in odd ones). The engine does not throttle, so the
//! write gain of sharding (8 partitions of 1,000 WCU each instead of one) cannot be shown
//! here: this measures what the reads cost the client instead. Environment: `SHARDS_ROUNDS`
//! (default 5), `SHARDS_OPS` (operations per segment, default 40). Without `--bench`
//! (`cargo test --benches`) it only checks that both read the same items.

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/stats.rs"]
mod stats;

use dynamo_entity::prelude::*;
use std::time::{Duration, Instant};

use cpu::self_cpu_ns;
use stats::{env, median};

use dynamo_entity::{Entity, Table};

const ITEMS: u64 = 800;

/// The sharded partition: `FEED#<feed>#<shard>`, shard by `id`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "FEED#<feed>#<shard>"]
#[sk = "POST#<at:13>#<id>"]
#[entity(shards = 8, shard_by = "id")]
pub struct Post {
    pub feed: String,
    pub at: u64,
    pub id: String,
    pub body: String,
}

/// The same items in one partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "FLAT#<feed>"]
#[sk = "POST#<at:13>#<id>"]
pub struct FlatPost {
    pub feed: String,
    pub at: u64,
    pub id: String,
    pub body: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Read {
    Page(u32),
    All,
}

struct Segment {
    wall: Duration,
    cpu_ns: u64,
    requests: u64,
    read_units: f64,
    items: usize,
}

async fn segment(table: &Table, sharded: bool, read: Read, ops: usize) -> Segment {
    table.reset_capacity();
    let cpu = self_cpu_ns();
    let started = Instant::now();
    let mut items = 0;
    for _ in 0..ops {
        items += match (sharded, read) {
            (true, Read::Page(n)) => {
                table.query(Post::query_by_feed("f").descending().limit(n)).await.unwrap().items.len()
            }
            (false, Read::Page(n)) => {
                table.query(FlatPost::query_by_feed("f").descending().limit(n)).await.unwrap().items.len()
            }
            (true, Read::All) => table.query_all(Post::query_by_feed("f")).await.unwrap().len(),
            (false, Read::All) => table.query_all(FlatPost::query_by_feed("f")).await.unwrap().len(),
        };
    }
    let wall = started.elapsed();
    let cpu_ns = self_cpu_ns().saturating_sub(cpu);
    let total = table.capacity().total();
    Segment { wall, cpu_ns, requests: total.requests, read_units: total.read_units, items }
}

async fn run(full: bool) {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let table = Table::new(client, format!("bench-shards-{}", std::process::id()));
    table.create_table(&[Post::SCHEMA, FlatPost::SCHEMA]).await.expect("create table");
    let posts: Vec<Post> = (0..ITEMS)
        .map(|i| Post {
            feed: "f".into(),
            at: 1_764_000_000_000 + i * 997 % 5000,
            id: format!("p{i:04}"),
            body: "x".repeat(200),
        })
        .collect();
    let flat: Vec<FlatPost> = posts
        .iter()
        .map(|p| FlatPost { feed: p.feed.clone(), at: p.at, id: p.id.clone(), body: p.body.clone() })
        .collect();
    table.batch_put(&posts).await.expect("seed");
    table.batch_put(&flat).await.expect("seed");

    // Both read the same items, in the same order.
    let a: Vec<(u64, String)> =
        table.query_all(Post::query_by_feed("f")).await.unwrap().into_iter().map(|p| (p.at, p.id)).collect();
    let b: Vec<(u64, String)> =
        table.query_all(FlatPost::query_by_feed("f")).await.unwrap().into_iter().map(|p| (p.at, p.id)).collect();
    assert_eq!(a, b);
    assert_eq!(a.len(), ITEMS as usize);
    if !full {
        println!("shards: smoke test passed (run with `cargo bench --bench shards`)");
        return;
    }
    let rounds = env("SHARDS_ROUNDS", 5);
    let ops = env("SHARDS_OPS", 40);
    println!("| read | layout | wall per op | requests per op | RCU per op | client CPU per op |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for read in [Read::Page(25), Read::Page(100), Read::All] {
        let ops = if read == Read::All { (ops / 8).max(1) } else { ops };
        let mut results: [Vec<Segment>; 2] = [Vec::new(), Vec::new()];
        // Warm-up of both.
        segment(&table, true, read, ops.min(5)).await;
        segment(&table, false, read, ops.min(5)).await;
        for round in 0..rounds {
            let order = if round % 2 == 0 { [true, false] } else { [false, true] };
            for sharded in order {
                results[usize::from(!sharded)].push(segment(&table, sharded, read, ops).await);
            }
        }
        for (i, layout) in ["8 shards, merged", "1 partition"].iter().enumerate() {
            let r = &results[i];
            let per = |f: &dyn Fn(&Segment) -> f64| median(r.iter().map(|s| f(s) / ops as f64).collect());
            let name = match read {
                Read::Page(n) => format!("page of {n}"),
                Read::All => format!("all {ITEMS}"),
            };
            println!(
                "| {name} | {layout} | {:.2} ms | {:.1} | {:.1} | {:.0} µs |",
                per(&|s| s.wall.as_secs_f64() * 1000.0),
                per(&|s| s.requests as f64),
                per(&|s| s.read_units),
                per(&|s| s.cpu_ns as f64 / 1000.0),
            );
            assert!(r.iter().all(|s| s.items > 0));
        }
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(run(full));
}
