//! The bounded invariant soak (issue 39): a few seeds of the engine in `tests/soak/`, each a
//! fresh table on DynamoDB Local, six concurrent clients, faults injected; the checker must
//! find no violation. `cargo run --example soak -- --seconds 600 --clients 16` is the long run.

#[path = "soak/mod.rs"]
mod soak;

async fn bounded(seed: u64) {
    let report = soak::run(soak::workload::Config::bounded(seed)).await;
    println!("{report}");
    assert!(report.verdict.violations.is_empty(), "seed {seed:#x}: {} violations:\n{}", report.verdict.violations.len(), report.verdict.violations.join("\n"));
    assert!(report.verdict.checks > 500, "{report}");
    assert!(report.faults > 0, "{report}");
}

// Three seeds, each its own table, run side by side on the binary's DynamoDB Local.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_1() {
    bounded(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_2() {
    bounded(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_3() {
    bounded(3).await;
}
