//! What client-side encryption (feature `encryption`, AWS's Database Encryption SDK) costs per
//! item, against the same work without it:
//!
//! - CPU only: `to_item` against `to_item` + DB-ESDK's item encryptor (`encrypt_item`, a raw
//!   AES keyring, the attribute actions `Table::with_encryption` gives), and `from_item`
//!   against `decrypt_item` + `from_item`; for an item with one encrypted field and one with
//!   three.
//! - End to end against DynamoDB Local: `put` and `get` of one item, and a query of 50, through
//!   a plain `Table` and through its encrypting handle.
//!
//! `cargo bench --features encryption --bench encryption` (see BENCHMARKS.md). Under
//! `cargo test --benches --features encryption` every benchmark runs once, as a test.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use dynamo_entity::encryption::Keyring;
use dynamo_entity::encryption::aws_db_esdk;
use dynamo_entity::{Entity, Item, Table, TableDefinition};

use aws_db_esdk::CryptoAction;
use aws_db_esdk::item_encryptor::client::Client as ItemEncryptor;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::material_providers::client as mpl_client;
use aws_db_esdk::material_providers::types::AesWrappingAlg;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;

const KEY: [u8; 32] = [7u8; 32];

/// One encrypted field of about 100 bytes, the rest signed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "VISIT#<at>"]
#[entity(query = "visits")]
pub struct Visit {
    pub patient_id: String,
    pub at: String,
    pub ward: String,
    pub doctor: String,
    #[encrypt]
    pub diagnosis: String,
}

/// Three encrypted fields.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "RECORD#<at>"]
pub struct Record {
    pub patient_id: String,
    pub at: String,
    pub ward: String,
    #[encrypt]
    pub diagnosis: String,
    #[encrypt]
    pub treatment: String,
    #[encrypt]
    pub notes: String,
}

fn visit(i: usize) -> Visit {
    Visit {
        patient_id: "p1".into(),
        at: format!("2026-01-01T00:00:{i:05}Z"),
        ward: "north".into(),
        doctor: "dr-who".into(),
        diagnosis: "x".repeat(100),
    }
}

fn record() -> Record {
    Record {
        patient_id: "p1".into(),
        at: "2026-01-01T00:00:00Z".into(),
        ward: "north".into(),
        diagnosis: "x".repeat(100),
        treatment: "y".repeat(100),
        notes: "z".repeat(100),
    }
}

/// DB-ESDK's item encryptor for `E`'s items, as `Table::with_encryption` configures its
/// interceptor: `#[encrypt]` fields ENCRYPT_AND_SIGN, every other attribute SIGN_ONLY.
fn encryptor<E: Entity>(rt: &tokio::runtime::Runtime) -> ItemEncryptor {
    let s = &E::SCHEMA;
    let mut actions: HashMap<String, CryptoAction> = HashMap::new();
    for a in [s.pk.attr, s.sk.map_or("", |k| k.attr), s.type_attr].into_iter().chain(s.attributes.iter().copied()) {
        if !a.is_empty() {
            let action = if s.encrypted.contains(&a) { CryptoAction::EncryptAndSign } else { CryptoAction::SignOnly };
            actions.insert(a.to_owned(), action);
        }
    }
    let keyring = rt.block_on(async {
        let mpl = mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().unwrap()).unwrap();
        mpl.create_raw_aes_keyring()
            .key_namespace("app")
            .key_name("key-1")
            .wrapping_key(KEY.to_vec())
            .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
            .send()
            .await
            .unwrap()
    });
    let config = DynamoDbItemEncryptorConfig::builder()
        .logical_table_name("bench")
        .partition_key_name(s.pk.attr)
        .sort_key_name(s.sk.unwrap().attr)
        .attribute_actions_on_encrypt(actions)
        .keyring(keyring)
        .build()
        .unwrap();
    ItemEncryptor::from_conf(config).unwrap()
}

async fn encrypt(enc: &ItemEncryptor, item: Item) -> Item {
    enc.encrypt_item().plaintext_item(item).send().await.unwrap().encrypted_item.unwrap()
}

async fn decrypt(enc: &ItemEncryptor, item: Item) -> Item {
    enc.decrypt_item().encrypted_item(item).send().await.unwrap().plaintext_item.unwrap()
}

fn cpu<E: Entity + Clone>(c: &mut Criterion, name: &str, value: E) {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let enc = encryptor::<E>(&rt);
    let plain = value.to_item().unwrap();
    let sealed = rt.block_on(encrypt(&enc, plain.clone()));
    // The same value back, checked once outside the measurement.
    let mut opened = rt.block_on(decrypt(&enc, sealed.clone()));
    opened.remove("aws_dbe_head");
    opened.remove("aws_dbe_foot");
    assert_eq!(opened, plain);
    let batch = BatchSize::SmallInput;
    let mut g = c.benchmark_group(format!("{name}/write"));
    g.bench_function("to_item", |b| b.iter(|| black_box(&value).to_item().unwrap()));
    g.bench_function("to_item+encrypt", |b| {
        b.iter(|| rt.block_on(encrypt(&enc, black_box(&value).to_item().unwrap())));
    });
    g.finish();
    let mut g = c.benchmark_group(format!("{name}/read"));
    g.bench_function("from_item", |b| b.iter_batched(|| plain.clone(), |i| E::from_item(i).unwrap(), batch));
    g.bench_function("decrypt+from_item", |b| {
        b.iter_batched(
            || sealed.clone(),
            |i| {
                let mut item = rt.block_on(decrypt(&enc, i));
                item.remove("aws_dbe_head");
                item.remove("aws_dbe_foot");
                E::from_item(item).unwrap()
            },
            batch,
        );
    });
    g.finish();
}

fn codec(c: &mut Criterion) {
    cpu(c, "one_encrypted", visit(0));
    cpu(c, "three_encrypted", record());
}

fn end_to_end(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (plain, encrypted) = rt.block_on(async {
        let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
        let plain = Table::new(client, format!("bench-encryption-{}", std::process::id()));
        let def = TableDefinition::from_entities(&[Visit::SCHEMA]).unwrap();
        plain.create_table_from(&def).await.unwrap();
        let encrypted = plain.with_encryption(&[Visit::SCHEMA], Keyring::raw_aes("app", "key-1", KEY)).unwrap();
        for i in 0..50 {
            encrypted.put(&visit(i)).await.unwrap();
        }
        (plain, encrypted)
    });
    let plain_table = Table::new(plain.client().clone(), format!("{}-plain", plain.name()));
    rt.block_on(async {
        let def = TableDefinition::from_entities(&[Visit::SCHEMA]).unwrap();
        plain_table.create_table_from(&def).await.unwrap();
        for i in 0..50 {
            plain_table.put(&visit(i)).await.unwrap();
        }
    });
    for (label, table) in [("plain", &plain_table), ("encrypted", &encrypted)] {
        let mut g = c.benchmark_group(format!("e2e/{label}"));
        g.bench_function("put", |b| b.iter(|| rt.block_on(async { table.put(&visit(1)).await }).unwrap()));
        g.bench_function("get", |b| b.iter(|| rt.block_on(table.get(Visit::key("p1", &visit(1).at))).unwrap()));
        g.bench_function("query_50", |b| {
            b.iter(|| {
                let all = rt.block_on(table.query_all(Visit::query_visits("p1"))).unwrap();
                assert_eq!(all.len(), 50);
            });
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    targets = codec, end_to_end
}
criterion_main!(benches);
