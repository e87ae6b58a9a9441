//! What a `#[unique]` field costs a write, against the embedded engine: the same entity with and
//! without one, for create, put (the value changed), an update that changes the value, an update
//! of another field, and delete. Wall time, requests, units (read + write) and this process's
//! CPU time per operation.
//!
//! `cargo bench --bench unique` (see BENCHMARKS.md). Each round runs the five phases on fresh
//! items for both variants, in alternating order. Environment: `UNIQUE_ROUNDS` (default 5),
//! `UNIQUE_OPS` (items per phase, default 40). Without `--bench` (`cargo test --benches`) it only
//! checks that both variants end with the same items.

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/stats.rs"]
mod stats;

use std::time::{Duration, Instant};

use cpu::self_cpu_ns;
use stats::{env, median};

use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MEMBER#<id>"]
#[sk = "PROFILE"]
pub struct Member {
    pub id: String,
    #[unique]
    pub email: String,
    pub name: String,
}

/// The same without the unique field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAIN#<id>"]
#[sk = "PROFILE"]
pub struct PlainMember {
    pub id: String,
    pub email: String,
    pub name: String,
}

const PHASES: [&str; 5] = ["create", "put (value changed)", "update of the value", "update of another field", "delete"];

struct Segment {
    wall: Duration,
    cpu_ns: u64,
    requests: u64,
    units: f64,
}

async fn phase(table: &Table, unique: bool, phase: usize, round: usize, ops: usize) -> Segment {
    table.reset_capacity();
    let cpu = self_cpu_ns();
    let started = Instant::now();
    for i in 0..ops {
        let id = format!("r{round}-{i}");
        let email = |v: usize| format!("{id}-v{v}@x.io");
        match (unique, phase) {
            (true, 0) => table.create(&Member { id: id.clone(), email: email(0), name: "n".into() }).await,
            (false, 0) => table.create(&PlainMember { id: id.clone(), email: email(0), name: "n".into() }).await,
            (true, 1) => table.put(&Member { id: id.clone(), email: email(1), name: "n".into() }).await,
            (false, 1) => table.put(&PlainMember { id: id.clone(), email: email(1), name: "n".into() }).await,
            (true, 2) => table
                .update(Member::update(Member::key(id.clone())).set(Member::fields().email, email(2)))
                .await
                .map(drop),
            (false, 2) => table
                .update(PlainMember::update(PlainMember::key(id.clone())).set(PlainMember::fields().email, email(2)))
                .await
                .map(drop),
            (true, 3) => {
                table.update(Member::update(Member::key(id.clone())).set(Member::fields().name, "m")).await.map(drop)
            }
            (false, 3) => table
                .update(PlainMember::update(PlainMember::key(id.clone())).set(PlainMember::fields().name, "m"))
                .await
                .map(drop),
            (true, _) => table.delete(Member::key(id.clone())).await,
            (false, _) => table.delete(PlainMember::key(id.clone())).await,
        }
        .expect("write");
    }
    let wall = started.elapsed();
    let cpu_ns = self_cpu_ns().saturating_sub(cpu);
    let total = table.capacity().total();
    Segment { wall, cpu_ns, requests: total.requests, units: total.read_units + total.write_units }
}

async fn run(full: bool) {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let table = Table::new(client, format!("bench-unique-{}", std::process::id()));
    table.create_table(&[Member::SCHEMA, PlainMember::SCHEMA]).await.expect("create table");
    if !full {
        // One round of three items: both variants end empty, no guard left behind.
        for p in 0..PHASES.len() {
            phase(&table, true, p, 0, 3).await;
            phase(&table, false, p, 0, 3).await;
        }
        let left = table.client().scan().table_name(table.name()).send().await.unwrap().count;
        assert_eq!(left, 0, "every item and guard deleted");
        println!("unique: smoke test passed (run with `cargo bench --bench unique`)");
        return;
    }
    let rounds = env("UNIQUE_ROUNDS", 5);
    let ops = env("UNIQUE_OPS", 40);
    let mut results: Vec<[Vec<Segment>; 2]> = (0..PHASES.len()).map(|_| [Vec::new(), Vec::new()]).collect();
    // Warm-up round (not counted).
    for p in 0..PHASES.len() {
        phase(&table, true, p, usize::MAX, 5).await;
        phase(&table, false, p, usize::MAX, 5).await;
    }
    for round in 0..rounds {
        let order = if round % 2 == 0 { [true, false] } else { [false, true] };
        for unique in order {
            for (p, r) in results.iter_mut().enumerate() {
                r[usize::from(!unique)].push(phase(&table, unique, p, round, ops).await);
            }
        }
    }
    println!("| write | entity | wall per op | requests per op | units per op (RCU + WCU) | client CPU per op |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (p, name) in PHASES.iter().enumerate() {
        for (i, variant) in ["`#[unique] email`", "no unique field"].iter().enumerate() {
            let r = &results[p][i];
            let per = |f: &dyn Fn(&Segment) -> f64| median(r.iter().map(|s| f(s) / ops as f64).collect());
            println!(
                "| {name} | {variant} | {:.2} ms | {:.1} | {:.1} | {:.0} µs |",
                per(&|s| s.wall.as_secs_f64() * 1000.0),
                per(&|s| s.requests as f64),
                per(&|s| s.units),
                per(&|s| s.cpu_ns as f64 / 1000.0),
            );
        }
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(run(full));
}
