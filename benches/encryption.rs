//! What client-side encryption (feature `encryption`, AWS's Database Encryption SDK) costs per
//! item, against the same entity without it.
//!
//! - **CPU only**: `to_item` alone against `to_item` followed by DB-ESDK's item encryptor
//!   (`encrypt_item`); `from_item` alone against `decrypt_item` followed by `from_item`. The
//!   encryptor is configured by hand as `Table::with_encryption` configures its interceptor: a
//!   raw AES keyring, DB-ESDK's default algorithm suite, `#[encrypt]` fields ENCRYPT_AND_SIGN and
//!   every other attribute SIGN_ONLY (a check before measuring decrypts, with it, an item that
//!   `with_encryption` wrote to the engine, and the other way round).
//! - **End to end** against the embedded engine: put and get of one item, and a query of 50, through
//!   a plain `Table` and through `table.with_encryption(..)` (two tables, the same items). Wall
//!   time from criterion; the process's CPU time per operation (all threads, from /proc) is
//!   printed at the end, as the engine's own work dominates the wall time.
//!
//! Two entities: `Visit` (keys, type and three fields signed, one encrypted ~100-byte String) and
//! `Chart` (the same signed fields, three encrypted Strings).
//!
//! `cargo bench --features encryption --bench encryption` (see BENCHMARKS.md). Under
//! `cargo test --benches --features encryption` every benchmark runs once, as a test.

#[path = "common/cpu.rs"]
mod cpu;
#[path = "common/visit.rs"]
mod visit;

use dynamo_entity::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::{Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dynamo_entity::encryption::{Keyring, aws_db_esdk};
use dynamo_entity::{Entity, EntityKey, Item, Table};
use visit::Visit;

use aws_db_esdk::CryptoAction;
use aws_db_esdk::item_encryptor::client::Client as ItemEncryptor;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::material_providers::client as mpl_client;
use aws_db_esdk::material_providers::types::AesWrappingAlg;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;

/// Three encrypted fields.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "CHART#<at>"]
#[entity(query = "charts")]
pub struct Chart {
    pub patient_id: String,
    pub at: String,
    pub ward: String,
    pub doctor: String,
    #[encrypt]
    pub diagnosis: String,
    #[encrypt]
    pub notes: String,
    #[encrypt]
    pub medication: String,
}

const KEY: [u8; 32] = [7u8; 32];
const PAGE: usize = 50;
const POOL: usize = 100;
/// Iterations per batch of `iter_batched` (as in benches/codec.rs).
const BATCH: u64 = 64;

/// 72 to 96 bytes each.
const DIAGNOSIS: &str = "Community-acquired pneumonia, right lower lobe; started on amoxicillin, review in 48 hours.";
const NOTES: &str = "Afebrile since morning, saturation 96% on room air; eating and walking; family informed of plan.";
const MEDICATION: &str = "amoxicillin 1 g three times daily for 5 days; paracetamol 1 g as needed.";

fn visit(patient: &str, i: usize) -> Visit {
    Visit {
        patient_id: patient.to_owned(),
        at: format!("2026-03-{:02}T{:02}:{:02}:00Z", 1 + i / 1440 % 28, i / 60 % 24, i % 60),
        ward: "north-3".to_owned(),
        doctor: "dr-5f2b9c41".to_owned(),
        diagnosis: DIAGNOSIS.to_owned(),
    }
}

fn chart(patient: &str, i: usize) -> Chart {
    let v = visit(patient, i);
    Chart {
        patient_id: v.patient_id,
        at: v.at,
        ward: v.ward,
        doctor: v.doctor,
        diagnosis: DIAGNOSIS.to_owned(),
        notes: NOTES.to_owned(),
        medication: MEDICATION.to_owned(),
    }
}

/// The encrypted table's name: also the logical table name of the hand-configured encryptor
/// (DB-ESDK binds it into each item's encryption context).
fn table_name() -> String {
    format!("bench-encryption-{}", std::process::id())
}

/// Runs a future that never waits (DB-ESDK's operations with a raw AES keyring do no I/O: its
/// `async` API wraps synchronous code).
fn now<F: Future>(fut: F) -> F::Output {
    let mut fut = pin!(fut);
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("DB-ESDK's operation waited: it must be run on a runtime"),
    }
}

/// DB-ESDK's item encryptor, configured by hand for `encrypted` (ENCRYPT_AND_SIGN) and `signed`
/// (SIGN_ONLY, with the keys and the type attribute): what `with_encryption` gives its
/// interceptor for these entities.
fn encryptor(signed: &[&str], encrypted: &[&str]) -> ItemEncryptor {
    let mpl = mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().unwrap()).unwrap();
    let keyring = now(mpl
        .create_raw_aes_keyring()
        .key_namespace("app")
        .key_name("key-1")
        .wrapping_key(KEY.to_vec())
        .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
        .send())
    .unwrap();
    let actions: HashMap<String, CryptoAction> = ["PK", "SK", "entity_type"]
        .iter()
        .chain(signed)
        .map(|a| ((*a).to_owned(), CryptoAction::SignOnly))
        .chain(encrypted.iter().map(|a| ((*a).to_owned(), CryptoAction::EncryptAndSign)))
        .collect();
    let config = DynamoDbItemEncryptorConfig::builder()
        .logical_table_name(table_name())
        .partition_key_name("PK")
        .sort_key_name("SK")
        .attribute_actions_on_encrypt(actions)
        .keyring(keyring)
        .build()
        .unwrap();
    ItemEncryptor::from_conf(config).unwrap()
}

fn encrypt(enc: &ItemEncryptor, item: Item) -> Item {
    now(enc.encrypt_item().plaintext_item(item).send()).expect("encrypt_item").encrypted_item.expect("encrypted item")
}

fn decrypt(enc: &ItemEncryptor, item: Item) -> Item {
    now(enc.decrypt_item().encrypted_item(item).send()).expect("decrypt_item").plaintext_item.expect("plaintext item")
}

const SIGNED: [&str; 4] = ["patient_id", "at", "ward", "doctor"];

/// `to_item` with and without `encrypt_item`, `from_item` with and without `decrypt_item`.
fn cpu_entity<E: Entity + PartialEq + std::fmt::Debug>(c: &mut Criterion, name: &str, value: &E, encrypted: &[&str]) {
    let enc = encryptor(&SIGNED, encrypted);
    let item = value.to_item().unwrap();
    let sealed = encrypt(&enc, item.clone());
    // The encrypted fields hold ciphertext; the item reads back to the value.
    for a in encrypted {
        assert!(sealed[*a].is_b(), "{a} is not encrypted: {sealed:?}");
    }
    assert_eq!(&E::from_item(decrypt(&enc, sealed.clone())).unwrap(), value);

    let batch = BatchSize::NumIterations(BATCH);
    let mut g = c.benchmark_group(format!("{name}/write"));
    g.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function("to_item", |b| b.iter_batched(|| (), |()| black_box(value).to_item().unwrap(), batch));
    g.bench_function("to_item+encrypt_item", |b| {
        b.iter_batched(|| (), |()| encrypt(&enc, black_box(value).to_item().unwrap()), batch)
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{name}/read"));
    g.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    g.bench_function("from_item", |b| b.iter_batched(|| item.clone(), |i| E::from_item(black_box(i)).unwrap(), batch));
    g.bench_function("decrypt_item+from_item", |b| {
        b.iter_batched(|| sealed.clone(), |i| E::from_item(decrypt(&enc, black_box(i))).unwrap(), batch)
    });
    g.finish();
}

fn cpu(c: &mut Criterion) {
    cpu_entity(c, "visit", &visit("p-0001", 0), &["diagnosis"]);
    cpu_entity(c, "chart", &chart("p-0001", 0), &["diagnosis", "notes", "medication"]);
}

// ---------------------------------------------------------------------------------------------
// End to end against the embedded engine (in this process: its CPU time is part of the wall time).
// ---------------------------------------------------------------------------------------------

/// This process's CPU time and iterations per end-to-end benchmark (all of criterion's
/// iterations, warm-up included), printed at the end.
static CPU: Mutex<BTreeMap<String, (u64, u64)>> = Mutex::new(BTreeMap::new());

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime"))
}

/// Measures `iters` sequential calls of `op` (wall time for criterion, CPU time on the side).
/// `put <name>` and `get <name>` through `table`, cycling over `items` (the get checks it read
/// the item it asked for).
fn put_and_get<E: Entity + PartialEq + core::fmt::Debug + Sync>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    via: &str,
    table: &Table,
    name: &str,
    items: &[E],
) {
    let put = format!("put {name}");
    g.bench_function(&put, |b| {
        b.iter_custom(|n| {
            timed(&format!("e2e/{via}/{put}"), n, |i| async move {
                table.put(&items[i as usize % items.len()]).await.expect("put");
            })
        })
    });
    let get = format!("get {name}");
    g.bench_function(&get, |b| {
        b.iter_custom(|n| {
            timed(&format!("e2e/{via}/{get}"), n, |i| {
                let item = &items[i as usize % items.len()];
                async move {
                    let got = table.get(item.primary_key()).await.expect("get").expect("present");
                    assert_eq!(&got, item);
                }
            })
        })
    });
}

fn timed<F: Future<Output = ()>>(id: &str, iters: u64, mut op: impl FnMut(u64) -> F) -> Duration {
    let rt = runtime();
    let cpu = cpu::self_cpu_ns();
    let start = Instant::now();
    rt.block_on(async {
        for i in 0..iters {
            op(i).await;
        }
    });
    let wall = start.elapsed();
    let spent = cpu::self_cpu_ns().saturating_sub(cpu);
    let mut map = CPU.lock().unwrap();
    let e = map.entry(id.to_owned()).or_default();
    e.0 += spent;
    e.1 += iters;
    wall
}

struct Tables {
    plain: Table,
    encrypted: Table,
}

async fn setup() -> Tables {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let plain = Table::new(client.clone(), format!("bench-plain-{}", std::process::id()));
    let raw = Table::new(client, table_name());
    for t in [&plain, &raw] {
        t.create_table(&[Visit::SCHEMA, Chart::SCHEMA]).await.expect("create table");
    }
    let encrypted =
        raw.with_encryption(&[Visit::SCHEMA, Chart::SCHEMA], Keyring::raw_aes("app", "key-1", KEY)).unwrap();
    for t in [&plain, &encrypted] {
        for i in 0..POOL {
            t.put(&visit("p-pool", i)).await.expect("seed visit");
            t.put(&chart("p-pool", i)).await.expect("seed chart");
        }
        for i in 0..PAGE {
            t.put(&visit("p-query", i)).await.expect("seed query visit");
            t.put(&chart("p-query", i)).await.expect("seed query chart");
        }
    }

    // The hand-configured encryptor of the CPU benchmarks and `with_encryption` agree: each
    // reads what the other wrote.
    let enc = encryptor(&SIGNED, &["diagnosis"]);
    let v = visit("p-pool", 3);
    let stored = raw
        .client()
        .get_item()
        .table_name(raw.name())
        .set_key(Some(v.primary_key().to_key_item().unwrap()))
        .send()
        .await
        .unwrap()
        .item
        .expect("stored item");
    assert!(stored["diagnosis"].is_b(), "{stored:?}");
    assert_eq!(Visit::from_item(decrypt(&enc, stored)).unwrap(), v);
    let mine = visit("p-hand", 0);
    raw.client()
        .put_item()
        .table_name(raw.name())
        .set_item(Some(encrypt(&enc, mine.to_item().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(encrypted.get(mine.primary_key()).await.unwrap(), Some(mine));

    let page = encrypted.query(Visit::query_visits("p-query").limit(PAGE as u32)).await.unwrap();
    assert_eq!(page.items.len(), PAGE);
    assert_eq!(page.items, plain.query(Visit::query_visits("p-query").limit(PAGE as u32)).await.unwrap().items);
    Tables { plain, encrypted }
}

fn e2e(c: &mut Criterion) {
    let tables = runtime().block_on(setup());
    let visits: Vec<Visit> = (0..POOL).map(|i| visit("p-pool", i)).collect();
    let charts: Vec<Chart> = (0..POOL).map(|i| chart("p-pool", i)).collect();
    let (visits, charts) = (&visits, &charts);

    for (via, table) in [("plain", &tables.plain), ("encrypted", &tables.encrypted)] {
        let mut g = c.benchmark_group(format!("e2e/{via}"));
        g.sample_size(20).warm_up_time(Duration::from_secs(2)).measurement_time(Duration::from_secs(6));
        put_and_get(&mut g, via, table, "visit", visits);
        put_and_get(&mut g, via, table, "chart", charts);
        g.bench_function("query 50 visits", |b| {
            b.iter_custom(|n| {
                timed(&format!("e2e/{via}/query 50 visits"), n, |_| async move {
                    let page = table.query(Visit::query_visits("p-query").limit(PAGE as u32)).await.expect("query");
                    assert_eq!(page.items.len(), PAGE);
                })
            })
        });
        g.finish();
    }

    runtime().block_on(async {
        for t in [&tables.plain, &tables.encrypted] {
            t.client().delete_table().table_name(t.name()).send().await.expect("delete table");
        }
    });

    // One iteration each under `cargo test --benches`: nothing to report.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!("\nclient CPU per operation (this process, all threads; mean over all iterations)\n");
    println!("| operation | plain µs | encrypted µs | encrypted / plain |");
    println!("|---|---|---|---|");
    let map = CPU.lock().unwrap();
    let per = |via: &str, op: &str| map.get(&format!("e2e/{via}/{op}")).map(|(ns, n)| *ns as f64 / 1e3 / *n as f64);
    for op in ["put visit", "get visit", "put chart", "get chart", "query 50 visits"] {
        if let (Some(p), Some(e)) = (per("plain", op), per("encrypted", op)) {
            println!("| {op} | {p:.1} | {e:.1} | {:.2}x |", e / p);
        }
    }
}

criterion_group!(benches, cpu, e2e);
criterion_main!(benches);
