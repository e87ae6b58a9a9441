//! A backfill's throughput against the embedded engine by segment count: items per second, and this
//! process's CPU time per item (the SDK's and, since the sixth stage, the in-process engine's
//! included), for 4,000 items lacking an index key.
//!
//! `cargo bench --bench backfill` (see BENCHMARKS.md). Each segment count runs on a fresh copy
//! of the items (one table per run); `BACKFILL_ITEMS` (default 4000) sets the count. Without
//! `--bench` (`cargo test --benches`) it only checks, with 200 items, that one run writes every
//! item and a second writes none.

#[path = "common/cpu.rs"]
mod cpu;

use std::time::Instant;

use cpu::self_cpu_ns;
use dynamo_entity::{Entity, Table};

/// Day one: no index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "C#<customer>"]
#[sk = "O#<id>"]
#[entity(type_name = "Order")]
pub struct OrderV0 {
    pub customer: String,
    pub id: String,
    pub status: String,
    pub total: u64,
}

/// Day two: an index by status.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "C#<customer>"]
#[sk = "O#<id>"]
#[gsi1(pk = "S#<status>", sk = "<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
    pub total: u64,
}

async fn seeded(client: &dynamo_entity::aws_sdk_dynamodb::Client, name: String, n: usize) -> Table {
    let table = Table::new(client.clone(), name);
    table.create_table(&[Order::SCHEMA]).await.expect("create table");
    let items: Vec<OrderV0> = (0..n)
        .map(|i| OrderV0 {
            customer: format!("c{}", i % 100),
            id: format!("o{i:06}"),
            status: format!("S{}", i % 4),
            total: i as u64,
        })
        .collect();
    table.batch_put(&items).await.expect("seed");
    table
}

async fn run(full: bool) {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let n: usize =
        if full { std::env::var("BACKFILL_ITEMS").ok().and_then(|v| v.parse().ok()).unwrap_or(4000) } else { 200 };
    if !full {
        let table = seeded(&client, format!("bench-backfill-smoke-{}", std::process::id()), n).await;
        let first = table.backfill::<Order>().segments(2).run().await.unwrap();
        let second = table.backfill::<Order>().segments(2).run().await.unwrap();
        assert_eq!((first.written, second.written), (n as u64, 0));
        println!("backfill: smoke test passed (run with `cargo bench --bench backfill`)");
        return;
    }
    println!("| segments | items | wall | items/s | client CPU per item | requests |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for segments in [1u32, 2, 4, 8] {
        let table = seeded(&client, format!("bench-backfill-{segments}-{}", std::process::id()), n).await;
        table.reset_capacity();
        let cpu = self_cpu_ns();
        let started = Instant::now();
        let report = table.backfill::<Order>().segments(segments).run().await.unwrap();
        let wall = started.elapsed();
        let cpu_ns = self_cpu_ns().saturating_sub(cpu);
        assert_eq!(report.written, n as u64);
        println!(
            "| {segments} | {n} | {:.2} s | {:.0} | {:.0} µs | {} |",
            wall.as_secs_f64(),
            n as f64 / wall.as_secs_f64(),
            cpu_ns as f64 / 1000.0 / n as f64,
            table.capacity().total().requests
        );
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(run(full));
}
