//! Client-side encryption in production (feature `encryption`): what each algorithm suite and
//! each keyring costs per item, a page of 50 decrypted one by one against the parallel pool,
//! and the KMS calls of `Keyring::kms` against the hierarchical keyring.
//!
//! - **CPU per item** (criterion, each sample the CPU time of this process, all threads, from
//!   /proc, not wall time: the machine is shared): DB-ESDK's item encryptor, configured by hand
//!   as `with_encryption` configures its interceptor (`#[encrypt]` fields ENCRYPT_AND_SIGN, the
//!   rest SIGN_ONLY), encrypting and decrypting one `Visit` item, for both suites
//!   (`Suite::Default`: ECDSA P-384 signatures; `Suite::SymmetricSignatures`) and two keyrings:
//!   raw AES (as in the tests) and hierarchical (DB-ESDK's key store on the embedded engine, KMS the
//!   stand-in of `tests/kms`; the branch key cached, as it is after the first item).
//! - **A page of 50** against the embedded engine: a query of 50 `Visit`s through a DynamoDB client
//!   with DB-ESDK's own interceptor (which decrypts the items one after another) and through
//!   `table.with_encryption(..)` (the library's pool), for both suites; criterion's wall time,
//!   and the process's CPU time per query printed at the end.
//! - **KMS calls** per 1,000 puts and per 1,000 reads (a query of the 1,000), counted by the
//!   stand-in, through `Keyring::kms_with_client` and `Keyring::hierarchical`.
//!
//! `cargo bench --features encryption,local --bench encryption_production` (see BENCHMARKS.md).
//! Under `cargo test --benches --features encryption,local` every benchmark runs once and the
//! KMS count runs on 20 items.

#[path = "common/cpu.rs"]
mod cpu;
#[path = "../tests/kms/mod.rs"]
#[allow(dead_code)]
mod kms;
#[path = "common/visit.rs"]
mod visit;

use dynamo_entity::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::hint::black_box;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use dynamo_entity::encryption::{BranchKeys, KeyStore, Keyring, Suite, aws_db_esdk};
use dynamo_entity::{Entity, Item, Table};
use visit::Visit;

use aws_db_esdk::item_encryptor::client::Client as ItemEncryptor;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::key_store::client::Client as KeyStoreClient;
use aws_db_esdk::key_store::types::{KeyStoreConfig, KmsConfiguration};
use aws_db_esdk::material_providers::client as mpl_client;
use aws_db_esdk::material_providers::types::keyring::KeyringRef;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;
use aws_db_esdk::material_providers::types::{AesWrappingAlg, DbeAlgorithmSuiteId};
use aws_db_esdk::{CryptoAction, DynamoDbTablesEncryptionConfig};

const KEY: [u8; 32] = [7u8; 32];
const KMS_KEY: &str = "arn:aws:kms:us-east-1:111122223333:key/aaaaaaaa-1111-2222-3333-444444444444";
const PAGE: usize = 50;
const DIAGNOSIS: &str = "Community-acquired pneumonia, right lower lobe; started on amoxicillin, review in 48 hours.";
const SIGNED: [&str; 7] = ["PK", "SK", "entity_type", "patient_id", "at", "ward", "doctor"];

fn visit(patient: &str, i: usize) -> Visit {
    Visit {
        patient_id: patient.to_owned(),
        at: format!("2026-03-{:02}T{:02}:{:02}:00Z", 1 + i / 1440 % 28, i / 60 % 24, i % 60),
        ward: "north-3".to_owned(),
        doctor: "dr-5f2b9c41".to_owned(),
        diagnosis: DIAGNOSIS.to_owned(),
    }
}

/// Whether criterion measures (`cargo bench`) rather than runs each benchmark once (`cargo test
/// --benches`).
fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime"))
}

fn suite_id(suite: Suite) -> DbeAlgorithmSuiteId {
    match suite {
        Suite::Default => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeyEcdsaP384SymsigHmacSha384,
        Suite::SymmetricSignatures => DbeAlgorithmSuiteId::AlgAes256GcmHkdfSha512CommitKeySymsigHmacSha384,
    }
}

fn actions() -> HashMap<String, CryptoAction> {
    SIGNED
        .iter()
        .map(|a| ((*a).to_owned(), CryptoAction::SignOnly))
        .chain([("diagnosis".to_owned(), CryptoAction::EncryptAndSign)])
        .collect()
}

fn mpl() -> mpl_client::Client {
    mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().unwrap()).unwrap()
}

/// Everything on the embedded engine the benchmarks use: the tables, the KMS stand-in, the key
/// store and its branch key.
struct World {
    kms: kms::StandInKms,
    client: aws_sdk_dynamodb::Client,
    /// The table of the items (no encryption on its handle).
    plain: Table,
    store: KeyStore,
    branch: String,
}

async fn world() -> World {
    let kms = kms::StandInKms::start(&[KMS_KEY]);
    let client = dynamo_entity::local::client().await.expect("the engine");
    let plain = Table::new(client.clone(), format!("bench-enc-prod-{}", std::process::id()));
    plain.create_table(&[Visit::SCHEMA]).await.expect("create table");
    let store =
        KeyStore::new(client.clone(), kms::kms_client(&kms.endpoint()), format!("{}-keys", plain.name()), KMS_KEY)
            .expect("key store");
    store.create_table_if_not_exists().await.expect("key store table");
    let branch = store.create_branch_key().await.expect("branch key");
    World { kms, client, plain, store, branch }
}

impl World {
    /// The raw AES keyring of the tests, or the hierarchical keyring on the key store's branch
    /// key, configured by hand (as AWS's example does).
    async fn keyring(&self, hierarchical: bool) -> KeyringRef {
        let mpl = mpl();
        if !hierarchical {
            return mpl
                .create_raw_aes_keyring()
                .key_namespace("app")
                .key_name("key-1")
                .wrapping_key(KEY.to_vec())
                .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
                .send()
                .await
                .unwrap();
        }
        let key_store = KeyStoreClient::from_conf(
            KeyStoreConfig::builder()
                .ddb_table_name(self.store.table_name())
                .logical_key_store_name(self.store.table_name())
                .kms_configuration(KmsConfiguration::KmsKeyArn(KMS_KEY.to_owned()))
                .ddb_client(self.client.clone())
                .kms_client(kms::kms_client(&self.kms.endpoint()))
                .build()
                .unwrap(),
        )
        .unwrap();
        mpl.create_aws_kms_hierarchical_keyring()
            .key_store(key_store)
            .branch_key_id(&self.branch)
            .ttl_seconds(600)
            .send()
            .await
            .unwrap()
    }

    /// DB-ESDK's item encryptor for `Visit` items of the table.
    async fn encryptor(&self, hierarchical: bool, suite: Suite) -> ItemEncryptor {
        let config = DynamoDbItemEncryptorConfig::builder()
            .logical_table_name(self.plain.name())
            .partition_key_name("PK")
            .sort_key_name("SK")
            .attribute_actions_on_encrypt(actions())
            .algorithm_suite_id(suite_id(suite))
            .keyring(self.keyring(hierarchical).await)
            .build()
            .unwrap();
        ItemEncryptor::from_conf(config).unwrap()
    }

    /// A DynamoDB client with DB-ESDK's own interceptor (raw AES keyring) for the table.
    async fn db_esdk_client(&self, suite: Suite) -> aws_sdk_dynamodb::Client {
        use aws_db_esdk::dynamodb::types::DynamoDbTableEncryptionConfig;
        let config = DynamoDbTableEncryptionConfig::builder()
            .logical_table_name(self.plain.name())
            .partition_key_name("PK")
            .sort_key_name("SK")
            .attribute_actions_on_encrypt(actions())
            .algorithm_suite_id(suite_id(suite))
            .keyring(self.keyring(false).await)
            .build()
            .unwrap();
        let configs = DynamoDbTablesEncryptionConfig::builder()
            .table_encryption_configs(HashMap::from([(self.plain.name().to_owned(), config)]))
            .build()
            .unwrap();
        let interceptor = aws_db_esdk::intercept::DbEsdkInterceptor::new(configs).unwrap();
        aws_sdk_dynamodb::Client::from_conf(self.client.config().to_builder().interceptor(interceptor).build())
    }
}

fn world_once() -> &'static World {
    // Made once, on criterion's thread (a thread-local: DB-ESDK's clients need not be `Sync`).
    thread_local! {
        static WORLD: &'static World = Box::leak(Box::new(runtime().block_on(world())));
    }
    WORLD.with(|w| *w)
}

async fn encrypt(enc: &ItemEncryptor, item: Item) -> Item {
    enc.encrypt_item().plaintext_item(item).send().await.expect("encrypt_item").encrypted_item.expect("item")
}

async fn decrypt(enc: &ItemEncryptor, item: Item) -> Item {
    enc.decrypt_item().encrypted_item(item).send().await.expect("decrypt_item").plaintext_item.expect("item")
}

/// `iters` calls of `op`, one after another on the runtime: the process's CPU time they took.
fn cpu_of<F: Future<Output = ()>>(iters: u64, mut op: impl FnMut() -> F) -> Duration {
    let rt = runtime();
    let before = cpu::self_cpu_ns();
    rt.block_on(async {
        for _ in 0..iters {
            op().await;
        }
    });
    Duration::from_nanos(cpu::self_cpu_ns().saturating_sub(before))
}

// ---------------------------------------------------------------------------------------------
// CPU per item.

fn per_item(c: &mut Criterion) {
    let world = world_once();
    let item = visit("p-cpu", 0).to_item().unwrap();
    for (keyring, hierarchical) in [("raw AES", false), ("hierarchical", true)] {
        for (suite_name, suite) in [("default", Suite::Default), ("symmetric", Suite::SymmetricSignatures)] {
            let enc = runtime().block_on(world.encryptor(hierarchical, suite));
            // Checked first (and the branch key cached): the item encrypts, and decrypts back.
            let sealed = runtime().block_on(encrypt(&enc, item.clone()));
            assert!(sealed["diagnosis"].is_b(), "{sealed:?}");
            let mut back = runtime().block_on(decrypt(&enc, sealed.clone()));
            back.retain(|k, _| !k.starts_with("aws_dbe_"));
            assert_eq!(Visit::from_item(back).unwrap(), visit("p-cpu", 0));

            let mut g = c.benchmark_group(format!("cpu per item/{keyring}/{suite_name}"));
            g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
            let (enc, item, sealed) = (&enc, &item, &sealed);
            g.bench_function("encrypt", |b| {
                b.iter_custom(|n| {
                    cpu_of(n, || async move {
                        black_box(encrypt(enc, item.clone()).await);
                    })
                })
            });
            g.bench_function("decrypt", |b| {
                b.iter_custom(|n| {
                    cpu_of(n, || async move {
                        black_box(decrypt(enc, sealed.clone()).await);
                    })
                })
            });
            g.finish();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// A page of 50: one by one (DB-ESDK's interceptor) against the pool (`with_encryption`).

/// This process's CPU time and iterations per page benchmark, printed at the end.
static PAGE_CPU: Mutex<BTreeMap<String, (u64, u64)>> = Mutex::new(BTreeMap::new());

fn timed<F: Future<Output = ()>>(id: &str, iters: u64, mut op: impl FnMut() -> F) -> Duration {
    let before = cpu::self_cpu_ns();
    let start = Instant::now();
    runtime().block_on(async {
        for _ in 0..iters {
            op().await;
        }
    });
    let wall = start.elapsed();
    let spent = cpu::self_cpu_ns().saturating_sub(before);
    let mut map = PAGE_CPU.lock().unwrap();
    let e = map.entry(id.to_owned()).or_default();
    e.0 += spent;
    e.1 += iters;
    wall
}

fn page(c: &mut Criterion) {
    let world = world_once();
    for (suite_name, suite) in [("default", Suite::Default), ("symmetric", Suite::SymmetricSignatures)] {
        let patient = format!("p-page-{suite_name}");
        let items: Vec<Visit> = (0..PAGE).map(|i| visit(&patient, i)).collect();
        let pool = world.plain.with_encryption(&[Visit::SCHEMA], Keyring::raw_aes("app", "key-1", KEY)).unwrap();
        let pool = pool.encryption_suite(suite);
        let sdk = runtime().block_on(world.db_esdk_client(suite));
        runtime().block_on(async {
            pool.batch_put(&items).await.expect("seed the page");
            // Both read the same 50 items.
            let page = pool.query(Visit::query_visits(&patient).limit(PAGE as u32)).await.unwrap();
            assert_eq!(page.items, items);
            let got = one_by_one(&sdk, world.plain.name(), &patient).await;
            assert_eq!(got.len(), PAGE);
            let mut first = got[0].clone();
            first.retain(|k, _| !k.starts_with("aws_dbe_"));
            assert_eq!(Visit::from_item(first).unwrap(), items[0]);
        });

        let mut g = c.benchmark_group(format!("page of 50/{suite_name}"));
        g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
        let (pool, sdk, patient) = (&pool, &sdk, patient.as_str());
        let one = format!("{suite_name}/one by one");
        g.bench_function("one by one", |b| {
            b.iter_custom(|n| {
                timed(&one, n, || async move {
                    assert_eq!(one_by_one(sdk, world.plain.name(), patient).await.len(), PAGE);
                })
            })
        });
        let par = format!("{suite_name}/pool");
        g.bench_function("pool", |b| {
            b.iter_custom(|n| {
                timed(&par, n, || async move {
                    let page = pool.query(Visit::query_visits(patient).limit(PAGE as u32)).await.expect("query");
                    assert_eq!(page.items.len(), PAGE);
                })
            })
        });
        g.finish();
    }
    if measuring() {
        println!("\nclient CPU per query of 50 (this process, all threads; mean over all iterations)\n");
        println!("| suite | one by one ms | pool ms |");
        println!("|---|---|---|");
        let map = PAGE_CPU.lock().unwrap();
        let per = |id: &str| map.get(id).map(|(ns, n)| *ns as f64 / 1e6 / *n as f64);
        for suite in ["default", "symmetric"] {
            if let (Some(a), Some(b)) = (per(&format!("{suite}/one by one")), per(&format!("{suite}/pool"))) {
                println!("| {suite} | {a:.1} | {b:.1} |");
            }
        }
    }
}

/// A query of the page through DB-ESDK's own interceptor: its items decrypted one by one.
async fn one_by_one(sdk: &aws_sdk_dynamodb::Client, table: &str, patient: &str) -> Vec<Item> {
    sdk.query()
        .table_name(table)
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", dynamo_entity::AttributeValue::S(format!("PATIENT#{patient}")))
        .limit(PAGE as i32)
        .send()
        .await
        .expect("query")
        .items
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// KMS calls per 1,000 puts and 1,000 reads.

fn kms_calls(_c: &mut Criterion) {
    let world = world_once();
    let n = if measuring() { 1000 } else { 20 };
    let kms_keyring = Keyring::kms_with_client(KMS_KEY, kms::kms_client(&world.kms.endpoint()));
    let hierarchical = Keyring::hierarchical(&world.store, BranchKeys::single(&world.branch));
    let mut rows = Vec::new();
    for (name, keyring) in [("Keyring::kms_with_client", kms_keyring), ("Keyring::hierarchical", hierarchical)] {
        let table = world.plain.with_encryption(&[Visit::SCHEMA], keyring).unwrap();
        let table = table.encryption_suite(Suite::SymmetricSignatures);
        let patient = format!("p-kms-{}", name.len());
        let items: Vec<Visit> = (0..n).map(|i| visit(&patient, i)).collect();
        let (puts, reads) = runtime().block_on(async {
            let before = world.kms.calls().len();
            table.batch_put(&items).await.expect("puts");
            let after_puts = world.kms.calls().len();
            assert_eq!(table.query_all(Visit::query_visits(&patient)).await.expect("reads"), items);
            (after_puts - before, world.kms.calls().len() - after_puts)
        });
        rows.push((name, puts, reads));
    }
    println!("\nKMS calls (counted by the stand-in), {n} puts then {n} reads (a query of them), symmetric suite\n");
    println!("| keyring | KMS calls per {n} puts | per {n} reads |");
    println!("|---|---|---|");
    for (name, puts, reads) in &rows {
        println!("| {name} | {puts} | {reads} |");
    }
    // Expected: one per item through the KMS keyring, one per branch key through the
    // hierarchical one (the branch key not yet cached for this keyring's first writes and
    // reads; the CPU benchmarks cached it under another keyring, which shares no cache).
    assert_eq!((rows[0].1, rows[0].2), (n, n), "{rows:?}");
    assert_eq!((rows[1].1, rows[1].2), (1, 1), "{rows:?}");
}

fn cleanup(_c: &mut Criterion) {
    let world = world_once();
    runtime().block_on(async {
        for name in [world.plain.name().to_owned(), world.store.table_name().to_owned()] {
            let _ = world.client.delete_table().table_name(name).send().await;
        }
    });
}

criterion_group!(benches, per_item, page, kms_calls, cleanup);
criterion_main!(benches);
