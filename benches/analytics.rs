//! Reading a table export and writing Parquet (feature `analytics`): items per second of
//! `TableExport::items` over a generated export of the chat design (`examples/analytics`), and
//! of `write_parquet::<Message>`. Memory is not measured here: see BENCHMARKS.md for the peak
//! RSS of the example on an export of 1.5 million items (`/usr/bin/time -v`).
//!
//! `cargo bench --bench analytics --features analytics`. Under `cargo test --benches` every
//! benchmark runs once, as a test.

#[allow(dead_code)]
#[path = "../examples/analytics/export.rs"]
mod export;
#[allow(dead_code)]
#[path = "../examples/chat/model.rs"]
mod model;

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dynamo_entity::export::TableExport;
use model::{ChatRoom, Message};

const ITEMS: usize = 50_000;

fn bench(c: &mut Criterion) {
    let out = std::env::temp_dir().join(format!("dynamo-entity-bench-analytics-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let dir = export::write_export(&out, ITEMS).expect("write the export");
    let export = TableExport::open(&dir).expect("open the export");
    let lines = export.item_count().expect("itemCount");

    let mut group = c.benchmark_group("analytics");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    // Every line is read and decoded as far as its type attribute; Messages whole.
    group.throughput(Throughput::Elements(lines));
    group.bench_function("items::<Message> (all threads)", |b| {
        b.iter(|| {
            export.items::<Message>().fold(0usize, |n, r| {
                r.expect("decodes");
                n + 1
            })
        })
    });
    let one = export.clone().threads(1);
    group.bench_function("items::<Message> (one thread)", |b| {
        b.iter(|| {
            one.items::<Message>().fold(0usize, |n, r| {
                r.expect("decodes");
                n + 1
            })
        })
    });
    let path = out.join("Message.parquet");
    group.bench_function("write_parquet::<Message>", |b| {
        b.iter(|| export.write_parquet::<Message>(&path).expect("written"))
    });
    let rooms = out.join("ChatRoom.parquet");
    group.bench_function("write_parquet::<ChatRoom> (few rows, whole export read)", |b| {
        b.iter(|| export.write_parquet::<ChatRoom>(&rooms).expect("written"))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
