//! Client-side encryption (feature `encryption`) with an AWS KMS keyring, and encrypted
//! entities with `#[unique]` fields. Against DynamoDB Local.
//!
//! No machine that runs these tests reaches AWS KMS. [`StandInKms`] stands in for it: a small
//! HTTP server on 127.0.0.1 speaking KMS's JSON 1.1 protocol (`GenerateDataKey`, `Encrypt`,
//! `Decrypt`, and the key store's `GenerateDataKeyWithoutPlaintext` and `ReEncrypt`), holding one AES-256 key per key ARN in memory. It is not KMS: it checks no
//! signature (the client has static test credentials), and its `CiphertextBlob` is a format of
//! its own (opaque to clients, as KMS's is). What the tests show is the keyring's side: DB-ESDK's
//! KMS keyring, built by `Keyring::kms_with_client`, calls the KMS endpoint of the client it was
//! given, from the runtime of the operation.

#[allow(dead_code)]
mod apart;
#[allow(dead_code)]
mod clinic;
mod common;
mod kms;

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use apart::{Audit, Project};
use clinic::Visit;
use dynamo_entity::encryption::{BranchKeys, KeyStore, Keyring, Suite};
use dynamo_entity::{AttributeValue, Entity, Error, Table};
use kms::{StandInKms, b64, kms_client, unb64};

const KEY_A: &str = "arn:aws:kms:us-east-1:111122223333:key/aaaaaaaa-1111-2222-3333-444444444444";
const KEY_B: &str = "arn:aws:kms:us-east-1:111122223333:key/bbbbbbbb-1111-2222-3333-444444444444";

// ---------------------------------------------------------------------------------------------
// The stand-in for KMS.
//
// In `tests/kms` (shared with benches/encryption_production.rs).

#[test]
fn the_stand_ins_base64_round_trips() {
    for bytes in [&b""[..], b"a", b"ab", b"abc", b"abcd", &[0xff, 0x00, 0x7f, 0x80, 0x01]] {
        assert_eq!(unb64(&b64(bytes)), bytes);
    }
    assert_eq!(b64(b"hello"), "aGVsbG8=");
}

// ---------------------------------------------------------------------------------------------
// The KMS keyring, through the stand-in.

fn visit(at: &str, diagnosis: &str) -> Visit {
    Visit { patient_id: "p1".into(), at: at.into(), ward: "north".into(), diagnosis: diagnosis.into() }
}

/// Put, get and query through a KMS keyring on the stand-in, on whatever runtime the test runs:
/// the keyring is built by `with_encryption` and its client used by the operations.
async fn round_trip(test: &str) {
    let kms = StandInKms::start(&[KEY_A, KEY_B]);
    let plain = common::table(test, &[Visit::SCHEMA]).await;
    let table =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_A, kms_client(&kms.endpoint()))).unwrap();
    // Building the keyring calls nothing.
    assert_eq!(kms.calls(), []);

    let v = visit("2026-01-01", "influenza of the left toe");
    table.put(&v).await.unwrap();
    table.put(&visit("2026-01-02", "sprained wrist")).await.unwrap();
    table.put(&visit("2026-01-03", "gout")).await.unwrap();
    // One data key per item written, under the keyring's key.
    assert_eq!(kms.count("GenerateDataKey", KEY_A), 3, "{:?}", kms.calls());
    assert_eq!(kms.count("Decrypt", KEY_A), 0, "{:?}", kms.calls());

    assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap(), Some(v.clone()));
    assert_eq!(kms.count("Decrypt", KEY_A), 1, "{:?}", kms.calls());
    let all = table.query_all(Visit::query_visits("p1")).await.unwrap();
    assert_eq!(
        all.iter().map(|v| v.diagnosis.as_str()).collect::<Vec<_>>(),
        ["influenza of the left toe", "sprained wrist", "gout"]
    );
    // One data key decrypted per item read.
    assert_eq!(kms.count("Decrypt", KEY_A), 4, "{:?}", kms.calls());

    // The raw item: the diagnosis is ciphertext; the data key in the header is wrapped by KMS.
    let raw = common::raw_items(&plain).await;
    assert_eq!(raw.len(), 3);
    for item in &raw {
        assert!(matches!(item["diagnosis"], AttributeValue::B(_)), "{item:?}");
        assert!(item.contains_key("aws_dbe_head") && item.contains_key("aws_dbe_foot"), "{item:?}");
        let text = format!("{item:?}");
        assert!(!text.contains("influenza") && !text.contains("sprained") && !text.contains("gout"), "{text}");
    }

    // A reader whose keyring is on another key of the same KMS: an error, not garbage, and no
    // call to KMS with the other key (the item's data key names KEY_A).
    let other =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_B, kms_client(&kms.endpoint()))).unwrap();
    let e = other.get(Visit::key("p1", "2026-01-01")).await.unwrap_err();
    assert!(
        matches!(&e, Error::Encryption { reading: true, message } if message.contains("No Encrypted Data Keys found to match")),
        "{e:?}"
    );
    assert!(other.query_all(Visit::query_visits("p1")).await.is_err());
    assert_eq!(kms.count("Decrypt", KEY_B), 0, "{:?}", kms.calls());
    // A writer on KEY_B writes items the KEY_A reader cannot read either.
    other.put(&visit("2026-01-04", "mumps")).await.unwrap();
    assert_eq!(kms.count("GenerateDataKey", KEY_B), 1, "{:?}", kms.calls());
    assert!(table.get(Visit::key("p1", "2026-01-04")).await.is_err());
    assert_eq!(other.get(Visit::key("p1", "2026-01-04")).await.unwrap().unwrap().diagnosis, "mumps");
}

/// `#[tokio::test]`'s runtime has one thread: DB-ESDK's interceptor (synchronous) calls KMS on a
/// thread and runtime of its own.
#[tokio::test]
async fn a_kms_keyring_round_trips_on_a_current_thread_runtime() {
    round_trip("kms-current-thread").await;
}

/// On a multi-threaded runtime the interceptor calls KMS on the caller's runtime
/// (`block_in_place`): the client made here is used there, after `with_encryption` built the
/// keyring on a runtime of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kms_keyring_round_trips_on_a_multi_thread_runtime() {
    round_trip("kms-multi-thread").await;
}

/// The handle made outside any runtime, then used in one (a handle built at start-up).
#[test]
fn a_handle_made_outside_a_runtime_works_in_one() {
    let kms = StandInKms::start(&[KEY_A]);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let plain = rt.block_on(common::table("kms-outside", &[Visit::SCHEMA]));
    let client = kms_client(&kms.endpoint());
    let table = plain.with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_A, client)).unwrap();
    rt.block_on(async {
        table.put(&visit("2026-01-01", "flu")).await.unwrap();
        assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "flu");
    });
    assert_eq!((kms.count("GenerateDataKey", KEY_A), kms.count("Decrypt", KEY_A)), (1, 1), "{:?}", kms.calls());
}

/// KMS unreachable: its port closed (the stand-in stopped), or a server that accepts and never
/// answers. A put is an error after the client's timeouts and retries: typed, not a panic, and
/// nothing written. (The outer timeout only turns a hang into a failure; it is far above the
/// client's own bounds of 2 s per attempt and 10 s per operation.)
#[tokio::test]
async fn an_unreachable_kms_is_an_error_of_the_write() {
    let mut kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("kms-unreachable", &[Visit::SCHEMA]).await;
    let table =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_A, kms_client(&kms.endpoint()))).unwrap();
    table.put(&visit("2026-01-01", "flu")).await.unwrap();
    kms.stop();

    let cold = visit("2026-01-02", "cold");
    let put = tokio::time::timeout(Duration::from_secs(120), table.put(&cold));
    let e = put.await.expect("a put with KMS stopped hangs").unwrap_err();
    assert!(
        matches!(&e, Error::Encryption { reading: false, message } if message.contains("Connection refused")),
        "{e:?}"
    );
    let get = tokio::time::timeout(Duration::from_secs(120), table.get(Visit::key("p1", "2026-01-01")));
    let e = get.await.expect("a get with KMS stopped hangs").unwrap_err();
    assert!(
        matches!(&e, Error::Encryption { reading: true, message } if message.contains("No Configured KMS Key was able to decrypt")),
        "{e:?}"
    );

    // Accepts connections (the kernel's backlog) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());
    let table =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_A, kms_client(&endpoint))).unwrap();
    let mumps = visit("2026-01-03", "mumps");
    let put = tokio::time::timeout(Duration::from_secs(120), table.put(&mumps));
    let e = put.await.expect("a put with KMS silent hangs").unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: false, message } if message.contains("TimeoutError")), "{e:?}");

    // Only the first visit was written.
    assert_eq!(common::raw_items(&plain).await.len(), 1);
}

/// `Keyring::kms(arn)`: the Material Providers Library makes its KMS client from the process's
/// environment (`aws_config`'s defaults). A test cannot change its own process's environment, so
/// this one runs the next test (ignored otherwise) in a child process of this binary whose
/// environment points KMS at the stand-in (`AWS_ENDPOINT_URL_KMS`) with static credentials, and
/// DynamoDB at this process's DynamoDB Local.
#[tokio::test]
async fn keyring_kms_takes_its_client_from_the_environment() {
    let kms = StandInKms::start(&[KEY_A]);
    let dynamodb = dynamo_entity::local::shared_endpoint().await.unwrap();
    let child = "keyring_kms_in_an_environment_pointing_at_the_stand_in";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child, "--ignored", "--test-threads=1"])
        .env("AWS_ENDPOINT_URL_KMS", kms.endpoint())
        .env("AWS_ENDPOINT_URL_DYNAMODB", dynamodb)
        .env("AWS_ACCESS_KEY_ID", "test-key-id")
        .env("AWS_SECRET_ACCESS_KEY", "test-secret")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", "/nonexistent")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .output()
        .unwrap();
    let output = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && output.contains("1 passed"), "{output}");
    assert_eq!((kms.count("GenerateDataKey", KEY_A), kms.count("Decrypt", KEY_A)), (1, 1), "{:?}", kms.calls());
}

#[tokio::test]
#[ignore = "run by keyring_kms_takes_its_client_from_the_environment, in an environment it sets"]
async fn keyring_kms_in_an_environment_pointing_at_the_stand_in() {
    let plain = common::table("kms-env", &[Visit::SCHEMA]).await;
    let table = plain.with_encryption(&[Visit::SCHEMA], Keyring::kms(KEY_A)).unwrap();
    table.put(&visit("2026-01-01", "flu")).await.unwrap();
    assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "flu");
    assert!(!format!("{:?}", common::raw_items(&plain).await).contains("flu"));
}

#[test]
fn a_kms_keyrings_debug_shows_its_key_and_where_its_client_comes_from() {
    assert_eq!(
        format!("{:?}", Keyring::kms(KEY_A)),
        format!("Keyring::Kms {{ key_arn: \"{KEY_A}\", client: \"from the environment\" }}")
    );
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = rt.block_on(async { kms_client("http://127.0.0.1:9") });
    assert_eq!(
        format!("{:?}", Keyring::kms_with_client(KEY_A, client)),
        format!("Keyring::Kms {{ key_arn: \"{KEY_A}\", client: \"given\" }}")
    );
}

// ---------------------------------------------------------------------------------------------
// Encrypted entities with `#[unique]` fields, through the encrypting handle (raw AES keyring).

/// An encrypted entity with a unique (signed, not encrypted) field and a `#[version]`, which a
/// migration of an encrypted entity needs.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "PROFILE"]
pub struct Patient {
    pub patient_id: String,
    #[unique]
    pub mrn: String,
    #[encrypt]
    pub name: String,
    #[version]
    pub version: u64,
}

fn patient(id: &str, mrn: &str) -> Patient {
    Patient { patient_id: id.into(), mrn: mrn.into(), name: format!("secret name {id}"), version: 0 }
}

fn aes() -> Keyring {
    Keyring::raw_aes("app", "key-1", [7u8; 32])
}

fn text(item: &dynamo_entity::Item, attr: &str) -> Option<String> {
    match item.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The guards as stored: (partition key, owner's partition key).
async fn guards(plain: &Table) -> BTreeSet<(String, String)> {
    common::raw_items(plain)
        .await
        .iter()
        .filter(|i| text(i, "SK").as_deref() == Some("UNIQUE"))
        .map(|i| (text(i, "PK").unwrap(), text(i, "owner_pk").unwrap_or_default()))
        .collect()
}

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

fn is_violation(e: &Error) -> bool {
    matches!(e, Error::UniqueViolation { entity: "Patient", field: "mrn" })
}

#[tokio::test]
async fn create_put_and_a_unique_clash_through_the_encrypting_handle() {
    let plain = common::table("enc-unique", &[Patient::SCHEMA]).await;
    let table = plain.with_encryption(&[Patient::SCHEMA], aes()).unwrap();
    table.create(&patient("1", "m1")).await.unwrap();
    table.put(&patient("2", "m2")).await.unwrap();
    assert_eq!(
        guards(&plain).await,
        set(&[("UNIQUE#Patient#mrn#m1", "PATIENT#1"), ("UNIQUE#Patient#mrn#m2", "PATIENT#2")])
    );

    // A value another item holds: refused, nothing written.
    let e = table.create(&patient("3", "m1")).await.unwrap_err();
    assert!(is_violation(&e), "{e:?}");
    let mut p2 = table.get(Patient::key("2")).await.unwrap().unwrap();
    p2.mrn = "m1".into();
    let e = table.put(&p2).await.unwrap_err();
    assert!(is_violation(&e), "{e:?}");
    assert_eq!(table.get(Patient::key("3")).await.unwrap(), None);
    assert_eq!(table.get(Patient::key("2")).await.unwrap().unwrap().mrn, "m2");

    // A new value: the guard moves, the old value is free again.
    p2.mrn = "m3".into();
    table.put(&p2).await.unwrap();
    assert_eq!(
        guards(&plain).await,
        set(&[("UNIQUE#Patient#mrn#m1", "PATIENT#1"), ("UNIQUE#Patient#mrn#m3", "PATIENT#2")])
    );
    table.create(&patient("3", "m2")).await.unwrap();

    // The items and the guards are DB-ESDK's: signed, the name encrypted.
    let raw = common::raw_items(&plain).await;
    assert_eq!(raw.len(), 6);
    assert!(raw.iter().all(|i| i.contains_key("aws_dbe_head") && i.contains_key("aws_dbe_foot")), "{raw:?}");
    assert!(!format!("{raw:?}").contains("secret name"), "{raw:?}");
    // A delete frees the guard.
    table.delete(Patient::key("3")).await.unwrap();
    table.create(&patient("4", "m2")).await.unwrap();
}

#[tokio::test]
async fn a_migration_of_an_encrypted_entity_with_a_unique_field_moves_its_guards() {
    let plain = common::table("enc-unique-migrate", &[Patient::SCHEMA]).await;
    let table = plain.with_encryption(&[Patient::SCHEMA], aes()).unwrap();
    for (id, mrn) in [("1", "a1"), ("2", "b2"), ("3", "c3"), ("4", "C3")] {
        table.create(&patient(id, mrn)).await.unwrap();
    }
    // Each value upper-cased: "c3" becomes "C3", which patient 4 holds.
    let report = table.migrate(|p: Patient| Patient { mrn: p.mrn.to_uppercase(), ..p }).run().await.unwrap();
    assert_eq!((report.scanned, report.written), (4, 3), "{report:?}");
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert_eq!(report.failed[0].key.0, "PATIENT#3", "{report:?}");
    assert!(is_violation(&report.failed[0].error), "{report:?}");
    assert_eq!(
        guards(&plain).await,
        set(&[
            ("UNIQUE#Patient#mrn#A1", "PATIENT#1"),
            ("UNIQUE#Patient#mrn#B2", "PATIENT#2"),
            ("UNIQUE#Patient#mrn#c3", "PATIENT#3"),
            ("UNIQUE#Patient#mrn#C3", "PATIENT#4"),
        ])
    );
    let mut got: Vec<(String, String, String)> = Vec::new();
    for id in ["1", "2", "3", "4"] {
        let p = table.get(Patient::key(id)).await.unwrap().unwrap();
        got.push((p.patient_id, p.mrn, p.name));
    }
    assert_eq!(
        got,
        [
            ("1".to_owned(), "A1".to_owned(), "secret name 1".to_owned()),
            ("2".to_owned(), "B2".to_owned(), "secret name 2".to_owned()),
            ("3".to_owned(), "c3".to_owned(), "secret name 3".to_owned()),
            ("4".to_owned(), "C3".to_owned(), "secret name 4".to_owned()),
        ]
    );
    // The old values are free, the new ones held.
    table.create(&patient("5", "a1")).await.unwrap();
    let e = table.create(&patient("6", "A1")).await.unwrap_err();
    assert!(is_violation(&e), "{e:?}");
    let raw = common::raw_items(&plain).await;
    assert!(raw.iter().all(|i| i.contains_key("aws_dbe_head")), "{raw:?}");
    assert!(!format!("{raw:?}").contains("secret name"), "{raw:?}");
}

/// The patient as an older version wrote it: another type name and key template.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PAT#<patient_id>"]
#[sk = "PROFILE"]
pub struct PatientV0 {
    pub patient_id: String,
    #[unique]
    pub mrn: String,
    #[encrypt]
    pub name: String,
    #[version]
    pub version: u64,
}

#[tokio::test]
async fn a_migration_to_a_new_type_and_key_claims_the_new_guards_and_frees_the_old() {
    let plain = common::table("enc-unique-move", &[PatientV0::SCHEMA, Patient::SCHEMA]).await;
    let table = plain.with_encryption(&[PatientV0::SCHEMA, Patient::SCHEMA], aes()).unwrap();
    for (id, mrn) in [("1", "m1"), ("2", "m2"), ("3", "taken")] {
        let p = patient(id, mrn);
        table.create(&PatientV0 { patient_id: p.patient_id, mrn: p.mrn, name: p.name, version: 0 }).await.unwrap();
    }
    // A patient of the new type already holds the third one's value.
    table.create(&patient("9", "taken")).await.unwrap();
    let report = table
        .migrate(|old: PatientV0| Patient {
            patient_id: old.patient_id,
            mrn: old.mrn,
            name: old.name,
            version: old.version,
        })
        .run()
        .await
        .unwrap();
    assert_eq!((report.written, report.failed.len()), (2, 1), "{report:?}");
    assert_eq!(report.failed[0].key.0, "PAT#3", "{report:?}");
    assert!(is_violation(&report.failed[0].error), "{report:?}");
    assert_eq!(
        guards(&plain).await,
        set(&[
            ("UNIQUE#Patient#mrn#m1", "PATIENT#1"),
            ("UNIQUE#Patient#mrn#m2", "PATIENT#2"),
            ("UNIQUE#Patient#mrn#taken", "PATIENT#9"),
            ("UNIQUE#PatientV0#mrn#taken", "PAT#3"),
        ])
    );
    assert_eq!(table.get(PatientV0::key("1")).await.unwrap(), None);
    assert_eq!(table.get(Patient::key("1")).await.unwrap().unwrap().name, "secret name 1");
    assert_eq!(table.get(PatientV0::key("3")).await.unwrap().unwrap().mrn, "taken");
    let e = table.create(&patient("5", "m1")).await.unwrap_err();
    assert!(is_violation(&e), "{e:?}");
    assert!(!format!("{:?}", common::raw_items(&plain).await).contains("secret name"));
}

// ---------------------------------------------------------------------------------------------
// The hierarchical keyring: DB-ESDK's key store (a table on DynamoDB Local) and the stand-in.

/// `n` visits of one patient.
fn visits(n: usize) -> Vec<Visit> {
    (0..n).map(|i| visit(&format!("2026-{i:04}"), &format!("diagnosis {i}"))).collect()
}

/// A key store in a table of its own on DynamoDB Local, its branch keys under `KEY_A`.
async fn key_store(plain: &Table, kms: &StandInKms) -> KeyStore {
    let store =
        KeyStore::new(plain.client().clone(), kms_client(&kms.endpoint()), format!("{}-keys", plain.name()), KEY_A)
            .unwrap();
    let arn = store.create_table_if_not_exists().await.unwrap();
    assert!(arn.contains(store.table_name()), "{arn}");
    // Again: it exists.
    store.create_table_if_not_exists().await.unwrap();
    store
}

#[tokio::test]
async fn a_hierarchical_keyring_calls_kms_once_per_branch_key_not_once_per_item() {
    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("enc-hier", &[Visit::SCHEMA]).await;
    let store = key_store(&plain, &kms).await;
    let branch = store.create_branch_key().await.unwrap();
    println!("creating a branch key: {:?}", kms.calls());
    assert!(kms.count("GenerateDataKeyWithoutPlaintext", KEY_A) >= 1, "{:?}", kms.calls());
    let made = kms.calls().len();

    let table = plain
        .with_encryption(&[Visit::SCHEMA], Keyring::hierarchical(&store, BranchKeys::single(&branch)))
        .unwrap()
        .encryption_suite(Suite::SymmetricSignatures);
    let all = visits(1000);
    table.batch_put(&all).await.unwrap();
    let puts = kms.calls()[made..].to_vec();
    // 1,000 puts: the active branch key decrypted by KMS once.
    assert_eq!(puts, [("Decrypt".to_owned(), KEY_A.to_owned())]);
    assert_eq!(table.query_all(Visit::query_visits("p1")).await.unwrap(), all);
    for v in all.iter().step_by(100) {
        assert_eq!(table.get(Visit::key("p1", &v.at)).await.unwrap().as_ref(), Some(v));
    }
    // 1,000 reads: the branch key's version decrypted once more (reads cache it apart).
    assert_eq!(kms.calls().len() - made, 2, "{:?}", &kms.calls()[made..]);

    // Another handle's keyring shares the process's cache: no KMS call.
    let other =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::hierarchical(&store, BranchKeys::single(&branch))).unwrap();
    assert_eq!(other.query_all(Visit::query_visits("p1")).await.unwrap(), all);
    other.put(&visit("2027-0001", "other handle")).await.unwrap();
    assert_eq!(kms.calls().len() - made, 2, "{:?}", &kms.calls()[made..]);

    // Against the KMS keyring: one KMS call per item written and per item read.
    let per_item = plain
        .with_encryption(&[Visit::SCHEMA], Keyring::kms_with_client(KEY_A, kms_client(&kms.endpoint())))
        .unwrap()
        .encryption_suite(Suite::SymmetricSignatures);
    let before = kms.calls().len();
    let others: Vec<Visit> =
        (0..1000).map(|i| Visit { patient_id: "p2".into(), ..visit(&format!("{i:04}"), "x") }).collect();
    per_item.batch_put(&others).await.unwrap();
    assert_eq!(kms.count("GenerateDataKey", KEY_A), 1000);
    assert_eq!(per_item.query_all(Visit::query_visits("p2")).await.unwrap().len(), 1000);
    assert_eq!(kms.calls().len() - before, 2000);
}

#[tokio::test]
async fn the_cache_ttl_expires_and_a_rotated_branch_key_keeps_every_item_readable() {
    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("enc-hier-ttl", &[Visit::SCHEMA]).await;
    let store = key_store(&plain, &kms).await;
    let branch = store.create_branch_key().await.unwrap();
    let table = plain
        .with_encryption(
            &[Visit::SCHEMA],
            Keyring::hierarchical(&store, BranchKeys::single(&branch)).cache_ttl(Duration::from_secs(5)),
        )
        .unwrap();
    let first = visits(20);
    table.batch_put(&first).await.unwrap();
    let decrypts = kms.count("Decrypt", KEY_A);
    assert_eq!(decrypts, 1, "{:?}", kms.calls());
    tokio::time::sleep(Duration::from_millis(5200)).await;
    table.put(&visit("2026-9000", "after the ttl")).await.unwrap();
    // The cached branch key expired: fetched and decrypted again.
    assert_eq!(kms.count("Decrypt", KEY_A), 2, "{:?}", kms.calls());

    // Rotated mid-run: the items written under either version stay readable.
    store.rotate(&branch).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5200)).await;
    let later: Vec<Visit> = (0..20).map(|i| visit(&format!("2026-5{i:03}"), "after the rotation")).collect();
    table.batch_put(&later).await.unwrap();
    let all = table.query_all(Visit::query_visits("p1")).await.unwrap();
    assert_eq!(all.len(), 41);
    // The items written before the rotation name one branch key version, those after
    // another.
    let versions = |prefix: &'static str| {
        let plain = plain.clone();
        let branch = branch.clone();
        async move {
            common::raw_items(&plain)
                .await
                .iter()
                .filter(|i| matches!(i.get("SK"), Some(AttributeValue::S(sk)) if sk.starts_with(prefix)))
                .map(|i| version_of(i, &branch))
                .collect::<BTreeSet<_>>()
        }
    };
    let before = versions("VISIT#2026-00").await;
    let after = versions("VISIT#2026-5").await;
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(before, after);
}

/// The branch key version an item's data key is under: in DB-ESDK's header, the hierarchical
/// keyring's encrypted data key follows its provider info (the branch key id, its last
/// occurrence) and a 2-byte length; 76 bytes into it are 16 bytes that every item written under
/// one version shares (found by looking at the headers; the assertions above would fail on
/// bytes that do not name the version).
fn version_of(item: &dynamo_entity::Item, branch: &str) -> Vec<u8> {
    let Some(AttributeValue::B(head)) = item.get("aws_dbe_head") else { panic!("no header: {item:?}") };
    let head = head.as_ref();
    let at = head.windows(branch.len()).rposition(|w| w == branch.as_bytes()).expect("the branch key id in the header");
    let start = at + branch.len() + 2 + 76;
    head[start..start + 16].to_vec()
}

#[tokio::test]
async fn items_of_the_hierarchical_keyring_are_read_by_a_hand_configured_db_esdk_client() {
    use dynamo_entity::encryption::aws_db_esdk;

    use aws_db_esdk::key_store::client::Client as KeyStoreClient;
    use aws_db_esdk::key_store::types::{KeyStoreConfig, KmsConfiguration};
    use aws_db_esdk::material_providers::client as mpl_client;
    use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;

    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("enc-hier-interop", &[Visit::SCHEMA]).await;
    let store = key_store(&plain, &kms).await;
    let branch = store.create_branch_key().await.unwrap();
    let table =
        plain.with_encryption(&[Visit::SCHEMA], Keyring::hierarchical(&store, BranchKeys::single(&branch))).unwrap();
    let v = visit("2026-01-01", "measles");
    table.put(&v).await.unwrap();

    // DB-ESDK configured by hand, as AWS's hierarchical keyring example does, on the same key
    // store table and KMS key.
    let key_store = KeyStoreClient::from_conf(
        KeyStoreConfig::builder()
            .ddb_table_name(store.table_name())
            .logical_key_store_name(store.table_name())
            .kms_configuration(KmsConfiguration::KmsKeyArn(KEY_A.to_owned()))
            .ddb_client(plain.client().clone())
            .kms_client(kms_client(&kms.endpoint()))
            .build()
            .unwrap(),
    )
    .unwrap();
    let mpl = mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().unwrap()).unwrap();
    let keyring = mpl
        .create_aws_kms_hierarchical_keyring()
        .key_store(key_store)
        .branch_key_id(&branch)
        .ttl_seconds(600)
        .send()
        .await
        .unwrap();
    let sdk = clinic::sdk_client_for_visits(&plain, keyring);
    let got = sdk
        .get_item()
        .table_name(plain.name())
        .key("PK", AttributeValue::S("PATIENT#p1".into()))
        .key("SK", AttributeValue::S("VISIT#2026-01-01".into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(got["diagnosis"], AttributeValue::S("measles".into()));
    // And the handle reads what the hand-configured client wrote.
    sdk.put_item()
        .table_name(plain.name())
        .set_item(Some(visit("2026-01-02", "by hand").to_item().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(table.get(Visit::key("p1", "2026-01-02")).await.unwrap().unwrap().diagnosis, "by hand");
}

// ---------------------------------------------------------------------------------------------
// One branch key per tenant.

/// A tenant's record: its partition key names the tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "RECORD#<id>"]
#[entity(tenant = "tenant_id", query = "records")]
pub struct Record {
    pub tenant_id: String,
    pub id: String,
    #[encrypt]
    pub secret: String,
}

/// Items every tenant may use: their key names no tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAN#<plan>"]
#[sk = "PLAN"]
#[entity(tenant_shared)]
pub struct Plan {
    pub plan: String,
    #[encrypt]
    pub price: String,
}

fn records(tenant: &str, from: usize, n: usize) -> Vec<Record> {
    (from..from + n)
        .map(|i| Record { tenant_id: tenant.into(), id: format!("{i:04}"), secret: format!("{tenant}'s secret {i}") })
        .collect()
}

#[tokio::test]
async fn per_tenant_branch_keys_isolate_tenants_and_share_one_cache_between_handles() {
    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("enc-tenant-keys", &[Record::SCHEMA, Plan::SCHEMA]).await;
    let store = key_store(&plain, &kms).await;
    let (key_a, key_b) = (store.create_branch_key().await.unwrap(), store.create_branch_key().await.unwrap());
    let keys = HashMap::from([("a".to_owned(), key_a.clone()), ("b".to_owned(), key_b.clone())]);
    let per_tenant = |keys: HashMap<String, String>| {
        Keyring::hierarchical(&store, BranchKeys::per_tenant(move |tenant| keys.get(tenant).cloned()))
    };
    let made = kms.calls().len();

    // Three handles made apart (three keyrings), and two tenant handles of each: six handles
    // write 20 records each, then each tenant handle reads its tenant's 60 records back.
    let schemas = [Record::SCHEMA, Plan::SCHEMA];
    let handles: Vec<Table> =
        (0..3).map(|_| plain.with_encryption(&schemas, per_tenant(keys.clone())).unwrap()).collect();
    for (i, handle) in handles.iter().enumerate() {
        for tenant in ["a", "b"] {
            handle.for_tenant(tenant).batch_put(&records(tenant, i * 20, 20)).await.unwrap();
        }
    }
    for handle in &handles {
        for tenant in ["a", "b"] {
            let t = handle.for_tenant(tenant);
            assert_eq!(t.query_all(Record::query_records(tenant)).await.unwrap(), records(tenant, 0, 60));
            let one = &records(tenant, 50, 1)[0];
            assert_eq!(t.get(Record::key(tenant, "0050")).await.unwrap().as_ref(), Some(one));
        }
    }
    // KMS was called once per branch key to write and once more to read (reads cache a
    // branch key's version apart, as with `BranchKeys::single`): 4 calls for 120 writes and 366
    // reads through 6 tenant handles of 3 keyrings.
    assert_eq!(kms.calls()[made..], vec![("Decrypt".to_owned(), KEY_A.to_owned()); 4]);

    // Each tenant's items are under its own branch key: a reader holding only tenant a's key
    // reads a's records and not b's (a typed error, nothing panics).
    let only_a = plain.with_encryption(&schemas, Keyring::hierarchical(&store, BranchKeys::single(&key_a))).unwrap();
    assert_eq!(only_a.get(Record::key("a", "0001")).await.unwrap().unwrap().secret, "a's secret 1");
    let e = only_a.get(Record::key("b", "0001")).await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    println!("b's record read with a's branch key: {e}");
    let only_b = plain.with_encryption(&schemas, Keyring::hierarchical(&store, BranchKeys::single(&key_b))).unwrap();
    assert_eq!(only_b.get(Record::key("b", "0001")).await.unwrap().unwrap().secret, "b's secret 1");
    assert!(matches!(only_b.query_all(Record::query_records("a")).await, Err(Error::Encryption { reading: true, .. })));

    // A process of tenant a, which knows a's branch key alone: its tenant handle refuses b's
    // keys before sending; a handle without tenant sends, and DB-ESDK finds no branch key for
    // b's records.
    let a_only = plain.with_encryption(&schemas, per_tenant(HashMap::from([("a".into(), key_a.clone())]))).unwrap();
    assert_eq!(a_only.for_tenant("a").get(Record::key("a", "0002")).await.unwrap().unwrap().secret, "a's secret 2");
    let e = a_only.for_tenant("a").get(Record::key("b", "0002")).await.unwrap_err();
    assert!(matches!(&e, Error::OutsideTenant { expected, found } if expected == "a" && found == "b"), "{e:?}");
    let e = a_only.get(Record::key("b", "0002")).await.unwrap_err();
    // DB-ESDK reports the supplier's refusal in its own words, without the supplier's.
    match &e {
        Error::Encryption { reading: true, message } => assert!(message.contains("Branch Key ID"), "{e}"),
        e => panic!("{e:?}"),
    }
    let e = a_only.for_tenant("b").put(&records("b", 900, 1)[0]).await.unwrap_err();
    match &e {
        Error::Encryption { reading: false, message } => assert!(message.contains("Branch Key ID"), "{e}"),
        e => panic!("{e:?}"),
    }

    // An item whose key names no tenant has no tenant's branch key: refused, nothing written.
    let e = handles[0].for_tenant("a").put(&Plan { plan: "gold".into(), price: "10".into() }).await.unwrap_err();
    match &e {
        Error::Encryption { reading: false, message } => assert!(message.contains("Branch Key ID"), "{e}"),
        e => panic!("{e:?}"),
    }
    println!("a shared item's put: {e}");
    let raw = common::raw_items(&plain).await;
    assert_eq!(raw.len(), 120, "{:?}", raw.iter().filter(|i| !i.contains_key("secret")).collect::<Vec<_>>());
}

#[tokio::test]
async fn per_tenant_branch_keys_refuse_entities_whose_keys_name_the_tenant_at_different_places() {
    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table("enc-tenant-apart", &[Project::SCHEMA, Audit::SCHEMA]).await;
    let store = key_store(&plain, &kms).await;
    let (key_audit, key_projects) =
        (store.create_branch_key().await.unwrap(), store.create_branch_key().await.unwrap());
    let keys = HashMap::from([("AUDIT".to_owned(), key_audit.clone()), ("PROJECTS".to_owned(), key_projects)]);
    let per_tenant = || {
        let keys = keys.clone();
        Keyring::hierarchical(&store, BranchKeys::per_tenant(move |tenant| keys.get(tenant).cloned()))
    };
    // Together, DB-ESDK's supplier (given the item's key alone) would read tenant AUDIT's project
    // `ORG#AUDIT#PROJECTS` as the audit trail of tenant PROJECTS, and encrypt it under that
    // tenant's branch key: refused before anything is written.
    match plain.with_encryption(&[Project::SCHEMA, Audit::SCHEMA], per_tenant()) {
        Err(Error::Validation(m)) => {
            assert!(m.contains("ORG#<org>#PROJECTS") && m.contains("ORG#AUDIT#<org>"), "{m}");
        }
        other => panic!("expected Validation, got {:?}", other.map(|_| ())),
    }
    // One branch key for all is no tenant's: both entities on one handle are fine.
    plain
        .with_encryption(
            &[Project::SCHEMA, Audit::SCHEMA],
            Keyring::hierarchical(&store, BranchKeys::single(&key_audit)),
        )
        .unwrap();
    // Each entity apart names the tenant at one place: tenant AUDIT's project is under its key.
    let projects = plain.with_encryption(&[Project::SCHEMA], per_tenant()).unwrap();
    let p = Project { org: "AUDIT".into(), id: "p1".into(), name: "the audit's own project".into() };
    projects.for_tenant("AUDIT").put(&p).await.unwrap();
    let audit_only = plain
        .with_encryption(&[Project::SCHEMA], Keyring::hierarchical(&store, BranchKeys::single(&key_audit)))
        .unwrap();
    assert_eq!(audit_only.get(Project::key("AUDIT", "p1")).await.unwrap(), Some(p));
}

// ---------------------------------------------------------------------------------------------
// Decrypting threads never wait on the caller's runtime.

/// Runs `test` on a thread of its own, in a runtime `runtime` builds: `Err` if it has not
/// finished after `seconds` (a runtime waiting on itself never does; the thread is left behind).
fn within(
    seconds: u64,
    runtime: fn() -> tokio::runtime::Runtime,
    test: impl std::future::Future<Output = String> + Send + 'static,
) -> Result<String, String> {
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let said = runtime().block_on(test);
        let _ = done.send(said);
    });
    wait.recv_timeout(Duration::from_secs(seconds)).map_err(|e| format!("no answer after {seconds} s ({e})"))
}

/// Reads records whose branch key the handle has not read yet (the hierarchical keyring caches
/// a version for reading apart from the one it writes with), after a request of the key
/// store's own clients on this runtime opened connections that this runtime drives. The clients
/// have no timeouts and no stalled-stream protection, as a client may be built: a request
/// stuck on a connection whose runtime is waiting never ends.
async fn read_after_the_callers_own_requests(test: &'static str) -> String {
    use dynamo_entity::encryption::aws_sdk_kms;
    let kms = StandInKms::start(&[KEY_A]);
    let plain = common::table(test, &[Record::SCHEMA]).await;
    let ddb = aws_sdk_dynamodb::Client::from_conf(
        plain
            .client()
            .config()
            .to_builder()
            .timeout_config(aws_sdk_dynamodb::config::timeout::TimeoutConfig::disabled())
            .stalled_stream_protection(aws_sdk_dynamodb::config::StalledStreamProtectionConfig::disabled())
            .build(),
    );
    let kms_client = aws_sdk_kms::Client::from_conf(
        kms_client(&kms.endpoint())
            .config()
            .to_builder()
            .timeout_config(aws_sdk_kms::config::timeout::TimeoutConfig::disabled())
            .stalled_stream_protection(aws_sdk_kms::config::StalledStreamProtectionConfig::disabled())
            .build(),
    );
    let store = KeyStore::new(ddb.clone(), kms_client.clone(), format!("{}-keys", plain.name()), KEY_A).unwrap();
    store.create_table_if_not_exists().await.unwrap();
    let key = store.create_branch_key().await.unwrap();
    let table = Table::new(ddb.clone(), plain.name())
        .with_encryption(&[Record::SCHEMA], Keyring::hierarchical(&store, BranchKeys::single(&key)))
        .unwrap();
    table.batch_put(&records("a", 0, 8)).await.unwrap();
    // The caller's own requests with the clients it gave the key store, on this runtime.
    ddb.describe_table().table_name(store.table_name()).send().await.unwrap();
    let blob = aws_sdk_kms::primitives::Blob::new(b"x".to_vec());
    kms_client.encrypt().key_id(KEY_A).plaintext(blob).send().await.unwrap();
    let started = std::time::Instant::now();
    // A task of its own: on a multi-threaded runtime it starts on a worker holding the runtime
    // (the task above may have given its worker away, in DB-ESDK's `block_in_place`).
    let read = tokio::spawn(async move {
        let read = table.query_all(Record::query_records("a")).await.unwrap();
        let got = table.get(Record::key("a", "0003")).await.unwrap();
        (read, got)
    });
    let (read, got) = read.await.unwrap();
    assert_eq!(read, records("a", 0, 8));
    assert_eq!(got.as_ref(), records("a", 3, 1).first());
    format!("read in {:?}", started.elapsed())
}

/// A current-thread runtime (`#[tokio::main(flavor = "current_thread")]`, `#[tokio::test]`):
/// while a page is decrypted, its one thread waits for the decrypting threads, so none of them
/// may need it.
#[test]
fn a_read_on_a_current_thread_runtime_never_waits_on_that_runtime() {
    let runtime = || tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let said = within(60, runtime, read_after_the_callers_own_requests("enc-wait-current")).unwrap();
    println!("{said}");
}

/// A multi-threaded runtime of one worker: its worker waits for the decrypting threads, while
/// the key store's connections (opened by DB-ESDK on this runtime) need a worker to run.
#[test]
fn a_read_on_a_one_worker_runtime_never_waits_on_that_runtime() {
    let runtime = || tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let said = within(60, runtime, read_after_the_callers_own_requests("enc-wait-multi")).unwrap();
    println!("{said}");
}
