//! CPU cost of the generated code for the chat `Message` entity (8 fields, `<timestamp:13>`, a
//! `Vec<String>`), against a hand-written codec and serde_dynamo on the whole struct.
//!
//! `cargo bench --bench codec` (see BENCHMARKS.md). Under `cargo test --benches` every
//! benchmark runs once, as a test.

mod common;

use dynamo_entity::prelude::*;
use std::hint::black_box;
use std::time::Duration;

use common::{
    Message, MessageKey, SerdeMessage, hand_from_item, hand_parse, hand_pk, hand_sk, hand_to_item, sample,
    serde_from_item, serde_to_item,
};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dynamo_entity::Entity;

const TS: u64 = 1_709_234_567_000;
/// Iterations per batch of `iter_batched`.
const BATCH: u64 = 64;

fn message() -> Message {
    sample("room-7f3a2c", TS, "msg-01HQ3K8Z9X")
}

/// The three codecs produce the same item and read it back to the same value: checked once,
/// outside any measurement.
fn check_same_work(m: &Message, serde_m: &SerdeMessage) {
    let generated = m.to_item().expect("to_item");
    assert_eq!(generated, hand_to_item(m), "hand-written item differs from the generated one");
    assert_eq!(generated, serde_to_item(serde_m).expect("serde"), "serde item differs from the generated one");
    assert_eq!(&Message::from_item(generated.clone()).expect("from_item"), m);
    assert_eq!(&hand_from_item(generated.clone()).expect("hand_from_item"), m);
    assert_eq!(&serde_from_item(generated).expect("serde_from_item"), serde_m);

    let key = m.primary_key();
    let (pk, sk) = (key.try_pk().unwrap(), key.try_sk().unwrap().unwrap_or_default());
    assert_eq!((pk.as_str(), sk.as_str()), (hand_pk(&m.chat_room_id).as_str(), hand_sk(TS, &m.message_id).as_str()));
    assert_eq!(MessageKey::parse(&pk, &sk).unwrap(), key);
    assert_eq!(hand_parse(&pk, &sk).unwrap(), (m.chat_room_id.clone(), TS, m.message_id.clone()));
}

fn codec(c: &mut Criterion) {
    let m = message();
    let serde_m = SerdeMessage::from(&m);
    check_same_work(&m, &serde_m);
    let item = m.to_item().unwrap();

    // Batches of a fixed, small size: the inputs are cloned, and the outputs dropped, outside the
    // measurement, without piling up thousands of items (`SmallInput` keeps a tenth of a sample's
    // inputs and outputs alive, megabytes of heap, which made whichever benchmark ran first in a
    // process up to 2x slower from heap growth).
    let batch = BatchSize::NumIterations(BATCH);

    let mut g = c.benchmark_group("to_item");
    g.bench_function("generated", |b| b.iter_batched(|| (), |()| black_box(&m).to_item().unwrap(), batch));
    g.bench_function("hand_written", |b| b.iter_batched(|| (), |()| hand_to_item(black_box(&m)), batch));
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(|| (), |()| serde_to_item(black_box(&serde_m)).unwrap(), batch)
    });
    g.finish();

    let mut g = c.benchmark_group("from_item");
    g.bench_function("generated", |b| {
        b.iter_batched(|| item.clone(), |i| Message::from_item(black_box(i)).unwrap(), batch)
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(|| item.clone(), |i| hand_from_item(black_box(i)).unwrap(), batch)
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(|| item.clone(), |i| serde_from_item(black_box(i)).unwrap(), batch)
    });
    // The same item read through the chat design's `RoomItems` collection: dispatch on the type
    // attribute, then the member's own decoder (target: at most 1.10x `generated`).
    g.bench_function("collection", |b| {
        b.iter_batched(
            || item.clone(),
            |i| <common::model::RoomItems as dynamo_entity::Readable>::read(black_box(i)).unwrap().unwrap(),
            batch,
        )
    });
    g.finish();
}

fn keys(c: &mut Criterion) {
    let key = message().primary_key();
    let (pk, sk) = (key.try_pk().unwrap(), key.try_sk().unwrap().unwrap_or_default());

    let mut g = c.benchmark_group("key");
    g.bench_function("format_generated", |b| {
        b.iter(|| {
            let k = black_box(&key);
            (k.try_pk().unwrap(), k.try_sk().unwrap().unwrap_or_default())
        })
    });
    g.bench_function("format_hand_written", |b| {
        b.iter(|| {
            let k = black_box(&key);
            (hand_pk(&k.chat_room_id), hand_sk(k.timestamp, &k.message_id))
        })
    });
    g.bench_function("parse_generated", |b| b.iter(|| MessageKey::parse(black_box(&pk), black_box(&sk)).unwrap()));
    g.bench_function("parse_hand_written", |b| b.iter(|| hand_parse(black_box(&pk), black_box(&sk)).unwrap()));
    g.bench_function("format_parse_generated", |b| {
        b.iter(|| {
            let k = black_box(&key);
            let (pk, sk) = (k.try_pk().unwrap(), k.try_sk().unwrap().unwrap_or_default());
            MessageKey::parse(black_box(&pk), black_box(&sk)).unwrap()
        })
    });
    g.finish();
}

fn query(c: &mut Criterion) {
    let t = TS - 3_600_000;
    let mut g = c.benchmark_group("query_request");
    g.bench_function("gt_descending_limit", |b| {
        b.iter(|| {
            Message::query_messages(black_box("room-7f3a2c"))
                .timestamp()
                .gt(black_box(t))
                .descending()
                .limit(50)
                .request()
                .unwrap()
        })
    });
    g.bench_function("no_condition_descending_limit", |b| {
        b.iter(|| Message::query_messages(black_box("room-7f3a2c")).descending().limit(50).request().unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(4));
    targets = codec, keys, query
}
criterion_main!(benches);
