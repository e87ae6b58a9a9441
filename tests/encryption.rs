//! Client-side encryption on AWS's Database Encryption SDK (feature `encryption`): items written
//! through `Table::with_encryption` hold ciphertext of `#[encrypt]` fields and a signature over
//! the rest, in DB-ESDK's format. Against DynamoDB Local, with a raw AES keyring.

mod clinic;
mod common;
#[allow(dead_code)]
#[path = "../examples/common/export.rs"]
mod export;

use dynamo_entity::prelude::*;
use std::collections::HashMap;

use dynamo_entity::encryption::aws_db_esdk;

use aws_db_esdk::material_providers::client as mpl_client;
use aws_db_esdk::material_providers::types::AesWrappingAlg;
use aws_db_esdk::material_providers::types::material_providers_config::MaterialProvidersConfig;
use clinic::{Chart, KEY, Note, Visit, keyring};
use dynamo_entity::encryption::Keyring;
use dynamo_entity::{AttributeValue, Entity, Error, Table};

fn visit(at: &str, diagnosis: &str) -> Visit {
    Visit { patient_id: "p1".into(), at: at.into(), ward: "north".into(), diagnosis: diagnosis.into() }
}

/// A plain table and its encrypting handle.
async fn tables(test: &str) -> (Table, Table) {
    let plain = common::table(test, &[Visit::SCHEMA]).await;
    let encrypted = plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    (plain, encrypted)
}

/// What a user of the SDK alone writes: DB-ESDK configured by hand, as AWS's examples do.
async fn hand_configured_client(plain: &Table, key: [u8; 32]) -> aws_sdk_dynamodb::Client {
    let mpl = mpl_client::Client::from_conf(MaterialProvidersConfig::builder().build().unwrap()).unwrap();
    let keyring = mpl
        .create_raw_aes_keyring()
        .key_namespace("app")
        .key_name("key-1")
        .wrapping_key(key.to_vec())
        .wrapping_alg(AesWrappingAlg::AlgAes256GcmIv12Tag16)
        .send()
        .await
        .unwrap();
    clinic::sdk_client_for_visits(plain, keyring)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

#[tokio::test]
async fn put_get_query_round_trip_and_the_raw_item_holds_no_plaintext() {
    let (plain, table) = tables("enc-roundtrip").await;
    let v = visit("2026-01-01", "influenza of the left toe");
    table.put(&v).await.unwrap();
    table.create(&visit("2026-02-01", "sprained wrist")).await.unwrap();

    assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap(), Some(v.clone()));
    let all = table.query_all(Visit::query_visits("p1")).await.unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0], v);
    assert_eq!(all[1].diagnosis, "sprained wrist");

    // The raw item: keys and other fields in plaintext (signed), the diagnosis ciphertext.
    let raw = common::raw_items(&plain).await;
    assert_eq!(raw.len(), 2);
    for item in &raw {
        assert!(matches!(item["diagnosis"], AttributeValue::B(_)), "{item:?}");
        assert!(item.contains_key("aws_dbe_head") && item.contains_key("aws_dbe_foot"), "{item:?}");
        assert_eq!(item["ward"], s("north"));
        let text = format!("{item:?}");
        assert!(!text.contains("influenza") && !text.contains("sprained"), "{text}");
    }
    // The plain handle cannot decode ciphertext as the field's type: an error, not garbage.
    assert!(plain.get(Visit::key("p1", "2026-01-01")).await.is_err());
}

#[tokio::test]
async fn items_interoperate_with_a_hand_configured_db_esdk_client() {
    let (plain, table) = tables("enc-interop").await;
    table.put(&visit("2026-01-01", "measles")).await.unwrap();
    let sdk = hand_configured_client(&plain, KEY).await;

    // Written by the entity, read by DB-ESDK configured by hand.
    let got = sdk
        .get_item()
        .table_name(plain.name())
        .key("PK", s("PATIENT#p1"))
        .key("SK", s("VISIT#2026-01-01"))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(got["diagnosis"], s("measles"));
    assert_eq!(got["ward"], s("north"));

    // Written by hand, read by the entity.
    let item = HashMap::from([
        ("PK".to_owned(), s("PATIENT#p1")),
        ("SK".to_owned(), s("VISIT#2026-03-01")),
        ("entity_type".to_owned(), s("Visit")),
        ("patient_id".to_owned(), s("p1")),
        ("at".to_owned(), s("2026-03-01")),
        ("ward".to_owned(), s("south")),
        ("diagnosis".to_owned(), s("mumps")),
    ]);
    sdk.put_item().table_name(plain.name()).set_item(Some(item)).send().await.unwrap();
    let read = table.get(Visit::key("p1", "2026-03-01")).await.unwrap().unwrap();
    assert_eq!(read.diagnosis, "mumps");
    assert_eq!(read.ward, "south");
}

#[tokio::test]
async fn a_wrong_key_and_a_modified_signed_attribute_are_errors() {
    let (plain, table) = tables("enc-tamper").await;
    table.put(&visit("2026-01-01", "gout")).await.unwrap();
    table.put(&visit("2026-01-02", "gout again")).await.unwrap();

    // Another key under the same name: decryption fails.
    let wrong = plain.with_encryption(&[Visit::SCHEMA], Keyring::raw_aes("app", "key-1", [8u8; 32])).unwrap();
    let e = wrong.get(Visit::key("p1", "2026-01-01")).await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    println!("wrong key: {e}");
    let sdk = hand_configured_client(&plain, [8u8; 32]).await;
    assert!(
        sdk.get_item()
            .table_name(plain.name())
            .key("PK", s("PATIENT#p1"))
            .key("SK", s("VISIT#2026-01-01"))
            .send()
            .await
            .is_err()
    );

    // A signed attribute changed behind the client's back: verification fails on read.
    plain
        .client()
        .update_item()
        .table_name(plain.name())
        .key("PK", s("PATIENT#p1"))
        .key("SK", s("VISIT#2026-01-02"))
        .update_expression("SET ward = :w")
        .expression_attribute_values(":w", s("south"))
        .send()
        .await
        .unwrap();
    let e = table.get(Visit::key("p1", "2026-01-02")).await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    println!("edited: {e}");
    // The untouched item still reads.
    assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().diagnosis, "gout");
}

#[tokio::test]
async fn updates_of_encrypted_entities_are_refused_before_sending() {
    let (_plain, table) = tables("enc-update").await;
    table.put(&visit("2026-01-01", "cold")).await.unwrap();
    let e = table
        .update(Visit::update(Visit::key("p1", "2026-01-01")).set(Visit::fields().ward, "east".to_owned()))
        .await
        .unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("signed attributes")), "{e:?}");
    let e = table
        .transact()
        .update(Visit::update(Visit::key("p1", "2026-01-01")).set(Visit::fields().ward, "east".to_owned()))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("signed attributes")), "{e:?}");
    assert_eq!(table.get(Visit::key("p1", "2026-01-01")).await.unwrap().unwrap().ward, "north");
}

#[tokio::test]
async fn batches_transactions_and_deletes_go_through_the_interceptor() {
    let (plain, table) = tables("enc-batch").await;
    let visits: Vec<Visit> = (0..30).map(|i| visit(&format!("2026-01-{i:02}"), &format!("secret {i}"))).collect();
    table.batch_put(&visits).await.unwrap();
    let mut got = table.batch_get(visits.iter().map(|v| Visit::key(&v.patient_id, &v.at))).await.unwrap();
    got.sort_by(|a, b| a.at.cmp(&b.at));
    assert_eq!(got, visits);

    let extra = visit("2026-02-01", "secret transact");
    table.transact().put(&extra).delete(Visit::key("p1", "2026-01-00")).send().await.unwrap();
    assert_eq!(table.get(Visit::key("p1", "2026-02-01")).await.unwrap(), Some(extra));
    assert_eq!(table.get(Visit::key("p1", "2026-01-00")).await.unwrap(), None);
    table.delete(Visit::key("p1", "2026-01-01")).await.unwrap();
    assert_eq!(table.query_all(Visit::query_visits("p1")).await.unwrap().len(), 29);

    let raw = format!("{:?}", common::raw_items(&plain).await);
    assert!(!raw.contains("secret"), "{raw}");
}

#[derive(dynamo_entity::View, Debug, Clone, PartialEq)]
#[view(entity = "Visit")]
pub struct VisitDiagnosis {
    pub at: String,
    pub diagnosis: String,
}

fn note(patient: &str, id: &str) -> Note {
    Note { patient_id: patient.into(), id: id.into(), text: format!("note {id}") }
}

/// Visits through the encrypting handle and a plain entity's note (written without encryption)
/// in the same partition.
async fn mixed(test: &str) -> (Table, Table) {
    let plain = common::table(test, &[Visit::SCHEMA, Note::SCHEMA]).await;
    let table = plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    table.put(&visit("2026-01-01", "flu")).await.unwrap();
    table.put(&visit("2026-01-02", "cold")).await.unwrap();
    plain.put(&note("p1", "n1")).await.unwrap();
    (plain, table)
}

fn refused<T: core::fmt::Debug>(r: Result<T, Error>, what: &str) {
    let e = r.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains(what)), "{e:?}");
}

#[tokio::test]
async fn scans_and_collection_queries_through_the_encrypting_handle() {
    let (plain, table) = mixed("enc-scan").await;
    let want = vec![visit("2026-01-01", "flu"), visit("2026-01-02", "cold")];
    // The scan asks only for the handle's entities' items: the plaintext note never reaches
    // DB-ESDK (which fails a whole response holding an item it did not write).
    let mut got = table.scan::<Visit>().all().await.unwrap();
    got.sort_by(|a, b| a.at.cmp(&b.at));
    assert_eq!(got, want);
    let mut got = table.scan::<Visit>().segments(3).all().await.unwrap();
    got.sort_by(|a, b| a.at.cmp(&b.at));
    assert_eq!(got, want);

    // A read of an entity the handle does not encrypt is refused before sending, naming it.
    refused(table.scan::<Chart>().all().await, "reads Note items");
    refused(table.scan::<Note>().all().await, "reads Note items");
    refused(table.query_all(Chart::query(Visit::partition("p1"))).await, "reads Note items");

    // With both entities encrypted, the collection query reads both.
    let both = plain.with_encryption(&[Visit::SCHEMA, Note::SCHEMA], keyring()).unwrap();
    both.put(&note("p2", "n2")).await.unwrap();
    both.put(&Visit { patient_id: "p2".into(), ..visit("2026-03-01", "mumps") }).await.unwrap();
    let chart = both.query_all(Chart::query(Visit::partition("p2"))).await.unwrap();
    assert_eq!(
        chart,
        [
            Chart::Note(note("p2", "n2")),
            Chart::Visit(Visit { patient_id: "p2".into(), ..visit("2026-03-01", "mumps") })
        ]
    );
}

#[tokio::test]
async fn a_view_of_an_encrypted_entity_reads_the_whole_item_and_decrypts_it() {
    let (_plain, table) = mixed("enc-view").await;
    let one = |at: &str, d: &str| VisitDiagnosis { at: at.into(), diagnosis: d.into() };
    assert_eq!(
        table.get_view::<VisitDiagnosis>(Visit::key("p1", "2026-01-01")).await.unwrap(),
        Some(one("2026-01-01", "flu"))
    );
    assert_eq!(
        table.query_all(Visit::query_visits("p1").view::<VisitDiagnosis>()).await.unwrap(),
        [one("2026-01-01", "flu"), one("2026-01-02", "cold")]
    );
    let mut scanned = table.scan::<Visit>().view::<VisitDiagnosis>().all().await.unwrap();
    scanned.sort_by(|a, b| a.at.cmp(&b.at));
    assert_eq!(scanned, [one("2026-01-01", "flu"), one("2026-01-02", "cold")]);
}

/// An encrypted entity with a `#[version]`, which a migration's condition needs.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "RX#<id>"]
#[entity(query = "prescriptions")]
pub struct Prescription {
    pub patient_id: String,
    pub id: String,
    #[encrypt]
    pub drug: String,
    pub dose: u32,
    #[version]
    pub version: u64,
}

#[tokio::test]
async fn backfill_is_refused_and_migrate_puts_whole_items_through_the_handle() {
    let plain = common::table("enc-evolve", &[Visit::SCHEMA, Note::SCHEMA, Prescription::SCHEMA]).await;
    let table = plain.with_encryption(&[Visit::SCHEMA, Prescription::SCHEMA], keyring()).unwrap();
    table.put(&visit("2026-01-01", "flu")).await.unwrap();
    plain.put(&note("p1", "n1")).await.unwrap();
    let rx = |id: &str, dose| Prescription {
        patient_id: "p1".into(),
        id: id.into(),
        drug: "secret drug".into(),
        dose,
        version: 0,
    };
    table.put(&rx("r1", 10)).await.unwrap();
    table.put(&rx("r2", 20)).await.unwrap();

    // A backfill writes with update expressions: refused before sending.
    refused(table.backfill::<Visit>().run().await, "cannot backfill Visit");
    refused(table.backfill::<Prescription>().run().await, "cannot backfill Prescription");
    // A migration's check that the item is as read cannot name encrypted attributes: without a
    // `#[version]` to stand for them it is refused.
    refused(table.migrate(|v: Visit| Visit { ward: "west".into(), ..v }).run().await, "without a #[version]");

    // With one: whole items put through the handle; the note and the visit are not read.
    let report = table.migrate(|p: Prescription| Prescription { dose: p.dose * 2, ..p }).run().await.unwrap();
    assert_eq!((report.scanned, report.written, report.failed.len()), (2, 2, 0), "{report:?}");
    let doses: Vec<(u32, String)> = table
        .query_all(Prescription::query_prescriptions("p1"))
        .await
        .unwrap()
        .into_iter()
        .map(|p| (p.dose, p.drug))
        .collect();
    assert_eq!(doses, [(20, "secret drug".to_owned()), (40, "secret drug".to_owned())]);
    let raw = format!("{:?}", common::raw_items(&plain).await);
    assert!(!raw.contains("secret drug") && !raw.contains("flu"), "{raw}");
    // The plain entity's item is untouched.
    assert_eq!(plain.get(Note::key("p1", "n1")).await.unwrap(), Some(note("p1", "n1")));
}

#[tokio::test]
async fn a_stream_reader_without_the_keyring_gets_a_decode_error() {
    let (plain, table) = tables("enc-stream").await;
    table.put(&visit("2026-01-01", "flu")).await.unwrap();
    // A stream record's image is the item as stored: ciphertext and signature.
    let stored = common::raw_items(&plain).await.remove(0);
    let record = dynamo_entity::stream::Record {
        event_name: "INSERT".into(),
        new_image: Some(stored),
        sequence_number: "1".into(),
        ..Default::default()
    };
    let e = record.change::<Visit>(None).unwrap().unwrap_err();
    let Error::Stream(s) = &e else { panic!("{e:?}") };
    let dynamo_entity::stream::StreamError::Decode { source, .. } = &**s else { panic!("{s:?}") };
    assert!(
        matches!(&**source, Error::Decode { entity: "Visit", attribute, message, .. }
            if attribute == "diagnosis" && message.contains("binary")),
        "{source:?}"
    );
}

/// A plain entity whose items sort among the visits: a visit's notes, under the visit's key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "VISIT#<at>#NOTE#<id>"]
pub struct VisitNote {
    pub patient_id: String,
    pub at: String,
    pub id: String,
    pub text: String,
}

#[tokio::test]
async fn a_query_steps_over_other_entities_plaintext_items_in_its_key_range() {
    let plain = common::table("enc-query-range", &[Visit::SCHEMA, VisitNote::SCHEMA]).await;
    let table = plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    let days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"];
    for (i, day) in days.iter().enumerate() {
        table
            .put(&Visit { ward: if i % 2 == 0 { "north" } else { "south" }.into(), ..visit(day, "flu") })
            .await
            .unwrap();
        // Written by other code, without encryption, between the visits in sort order.
        for id in ["a", "b"] {
            let n = VisitNote { patient_id: "p1".into(), at: (*day).into(), id: id.into(), text: "plain".into() };
            plain.put(&n).await.unwrap();
        }
    }
    // `VISIT#` covers the notes too: DynamoDB keeps them on the server (the handle's type
    // filter), so DB-ESDK sees only items it wrote.
    let got = table.query_all(Visit::query_visits("p1")).await.unwrap();
    assert_eq!(got.iter().map(|v| v.at.as_str()).collect::<Vec<_>>(), days);
    assert!(got.iter().all(|v| v.diagnosis == "flu"));
    // With the caller's filter beside the handle's.
    let north = Visit::query_visits("p1").filter(Visit::fields().ward.eq("north".to_owned()));
    let got = table.query_all(north).await.unwrap();
    assert_eq!(got.iter().map(|v| v.at.as_str()).collect::<Vec<_>>(), ["2026-01-01", "2026-01-03"]);
    // Page by page: each cursor resumes the same query through the handle (the handle's filter
    // is not part of what a cursor is bound to), and descending too.
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let mut q = Visit::query_visits("p1").descending().limit(1);
        if let Some(c) = after.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        seen.extend(page.items.into_iter().map(|v| v.at));
        match page.next {
            Some(c) => after = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, ["2026-01-04", "2026-01-03", "2026-01-02", "2026-01-01"]);
    // The notes are still there, plaintext, for their own (plain) handle.
    assert_eq!(plain.scan::<VisitNote>().all().await.unwrap().len(), 8);
}

/// The exports mark the encrypted attributes: CloudFormation as the table resource's `Metadata`
/// (it deploys nothing), Terraform as a comment, Markdown in the entity's row. The files are
/// checked in (`tests/exports/encrypted/`), and `scripts/check-exports.sh` lints them.
#[test]
fn the_exports_mark_encrypted_attributes() {
    let def =
        dynamo_entity::TableDefinition::from_entities(&[Visit::SCHEMA, Note::SCHEMA, Prescription::SCHEMA]).unwrap();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("clinic")).unwrap();
    let marked = &json["Resources"]["clinic"]["Metadata"]["DynamoEntity"]["ClientSideEncryption"];
    assert_eq!(marked["Format"], "AWS Database Encryption SDK for DynamoDB");
    assert_eq!(marked["EncryptedAndSigned"], serde_json::json!({"Visit": ["diagnosis"], "Prescription": ["drug"]}));
    let tf = def.to_terraform("clinic");
    assert!(
        tf.starts_with(
            "# Client-side encrypted (AWS Database Encryption SDK for DynamoDB):\n#   Visit: diagnosis\n#   Prescription: drug\n"
        ),
        "{tf}"
    );
    let md = def.to_markdown("clinic");
    assert!(
        md.contains("`diagnosis` (encrypted)")
            && md.contains("`drug` (encrypted)")
            && !md.contains("`text` (encrypted)")
    );
    // A table without encrypted fields exports nothing of the kind.
    let plain = dynamo_entity::TableDefinition::from_entities(&[Note::SCHEMA]).unwrap();
    assert!(!plain.to_cloudformation_json("clinic").contains("Metadata"));
    assert!(!plain.to_terraform("clinic").contains("encrypted"));

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/exports/encrypted");
    let bless = std::env::var_os("DYNAMO_ENTITY_BLESS").is_some_and(|v| v == "1");
    let mut drifted = Vec::new();
    for (format, file) in export::FORMATS {
        let text = export::render(&def, "clinic", format).unwrap();
        let path = dir.join(file);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).unwrap_or_default() != text {
            drifted.push(path.display().to_string());
        }
    }
    assert!(
        drifted.is_empty(),
        "{drifted:?} differ from the code: `DYNAMO_ENTITY_BLESS=1 cargo test --features encryption --test encryption`"
    );
}

/// DynamoDB Local never answers `UnprocessedItems`; this interceptor makes it answer so, on the
/// wire, as DynamoDB does. It works on the HTTP request and response, so it sees what DynamoDB
/// would: the first attempt of each write loses its first `lose` writes before it is sent (DynamoDB
/// Local never sees them) and its answer lists them, as sent (encrypted, signed), under
/// `UnprocessedItems`. Before the library sees the answer, DB-ESDK maps them back to the
/// plaintext writes it was given; the library sends those again, and DB-ESDK encrypts them anew.
#[derive(Debug, Clone, Default)]
struct UnprocessedOnTheWire {
    table: String,
    lose: usize,
    seen: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    lost: std::sync::Arc<std::sync::Mutex<HashMap<u64, Vec<serde_json::Value>>>>,
    /// Requests that lost writes.
    next: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

const WIRE_TOKEN: &str = "unprocessed-";

impl aws_sdk_dynamodb::config::Intercept for UnprocessedOnTheWire {
    fn name(&self) -> &'static str {
        "UnprocessedOnTheWire"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let request = ctx.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.BatchWriteItem") {
            return Ok(());
        }
        let mut json: serde_json::Value = serde_json::from_slice(request.body().bytes().ok_or("a streamed body")?)?;
        let writes = json["RequestItems"][&self.table].as_array_mut().ok_or("no writes to the table")?;
        let sk = |w: &serde_json::Value| w["PutRequest"]["Item"]["SK"]["S"].as_str().unwrap_or_default().to_owned();
        let mut seen = self.seen.lock().unwrap();
        if writes.iter().any(|w| seen.contains(&sk(w))) {
            return Ok(()); // a retry: it goes through
        }
        seen.extend(writes.iter().map(sk));
        // Keep one write: a batch of none is not a request.
        let lost: Vec<serde_json::Value> = writes.drain(..self.lose.min(writes.len() - 1)).collect();
        if lost.is_empty() {
            return Ok(());
        }
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lost.lock().unwrap().insert(id, lost);
        cfg.interceptor_state().store_put(aws_sdk_dynamodb::config::AppName::new(format!("{WIRE_TOKEN}{id}"))?);
        let text = serde_json::to_string(&json)?;
        request.headers_mut().insert("content-length", text.len().to_string());
        *request.body_mut() = text.into();
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        let token = cfg.load::<aws_sdk_dynamodb::config::AppName>();
        let Some(id) = token.and_then(|t| t.as_ref().strip_prefix(WIRE_TOKEN)?.parse::<u64>().ok()) else {
            return Ok(());
        };
        let Some(lost) = self.lost.lock().unwrap().remove(&id) else { return Ok(()) };
        // DynamoDB's answer when it wrote the rest (the body is still a stream here, so it is
        // written anew: without the consumed capacity, which this test does not read).
        let answer = serde_json::json!({ "UnprocessedItems": { self.table.as_str(): lost } });
        common::answer(ctx, 200, serde_json::to_string(&answer)?)
    }
}

/// A second encrypted entity without a `#[version]`, which batches take.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PATIENT#<patient_id>"]
#[sk = "ALLERGY#<name>"]
#[entity(query = "allergies")]
pub struct Allergy {
    pub patient_id: String,
    pub name: String,
    #[encrypt]
    pub reaction: String,
}

#[tokio::test]
async fn unprocessed_writes_come_back_as_plaintext_and_are_encrypted_again() {
    let plain = common::table("enc-unprocessed", &[Visit::SCHEMA, Allergy::SCHEMA]).await;
    let wire = UnprocessedOnTheWire { table: plain.name().to_owned(), lose: 5, ..Default::default() };
    let config = plain.client().config().to_builder().interceptor(wire.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name())
        .with_encryption(&[Visit::SCHEMA, Allergy::SCHEMA], keyring())
        .unwrap();
    let visits: Vec<Visit> = (0..30).map(|i| visit(&format!("2026-04-{i:02}"), &format!("secret {i}"))).collect();
    table.batch_put(&visits).await.unwrap();
    // Two requests (25 + 5), each losing its first writes once: 5 + 4 sent again.
    assert_eq!(wire.next.load(std::sync::atomic::Ordering::Relaxed), 2);
    let mut got = table.query_all(Visit::query_visits("p1")).await.unwrap();
    got.sort_by(|a, b| a.at.cmp(&b.at));
    assert_eq!(got, visits);

    // A mixed batch of two encrypted entities and deletes, the same way.
    let allergy =
        |name: &str| Allergy { patient_id: "p1".into(), name: name.into(), reaction: format!("secret {name}") };
    let mut batch = table.write_batch();
    for i in 0..8 {
        batch = batch.put(&allergy(&format!("a{i}")));
    }
    for v in &visits[..10] {
        batch = batch.delete(Visit::key(&v.patient_id, &v.at));
    }
    batch.send().await.unwrap();
    // One request per entity (the allergies' puts, the visits' deletes), each losing writes once.
    assert_eq!(wire.next.load(std::sync::atomic::Ordering::Relaxed), 4);
    assert_eq!(table.query_all(Visit::query_visits("p1")).await.unwrap().len(), 20);
    let mut got = table.query_all(Allergy::query_allergies("p1")).await.unwrap();
    got.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(got, (0..8).map(|i| allergy(&format!("a{i}"))).collect::<Vec<_>>());
    // Stored encrypted, every one (those sent twice included).
    let raw = format!("{:?}", common::raw_items(&plain).await);
    assert!(!raw.contains("secret"), "{raw}");
}

/// A table whose prescriptions were written before `drug` was encrypted (plaintext, by a plain
/// handle) adopts encryption: a handle reading plaintext serves both kinds while a migration
/// rewrites every item encrypted; then the strict handle reads them all.
#[tokio::test]
async fn items_written_before_encryption_are_read_and_migrated_to_ciphertext() {
    let plain = common::table("enc-adopt", &[Prescription::SCHEMA, Note::SCHEMA]).await;
    let rx = |id: &str, dose| Prescription {
        patient_id: "p1".into(),
        id: id.into(),
        drug: format!("secret drug {id}"),
        dose,
        version: 0,
    };
    for (i, id) in ["r1", "r2", "r3"].iter().enumerate() {
        plain.put(&rx(id, i as u32)).await.unwrap();
    }
    plain.put(&note("p1", "n1")).await.unwrap();
    let strict = plain.with_encryption(&[Prescription::SCHEMA], keyring()).unwrap();
    let adopting = plain.with_encryption_reading_plaintext(&[Prescription::SCHEMA], keyring()).unwrap();

    // The strict handle refuses what DB-ESDK did not write.
    let e = strict.get(Prescription::key("p1", "r1")).await.unwrap_err();
    assert!(matches!(&e, Error::Encryption { reading: true, .. }), "{e:?}");
    // The adopting handle reads it as it is, and writes encrypted.
    let r1 = adopting.get(Prescription::key("p1", "r1")).await.unwrap().unwrap();
    assert_eq!(r1.drug, "secret drug r1");
    adopting.put(&rx("r4", 4)).await.unwrap();
    let all = adopting.query_all(Prescription::query_prescriptions("p1")).await.unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(strict.get(Prescription::key("p1", "r4")).await.unwrap().unwrap().drug, "secret drug r4");

    // Rewriting every item encrypts the old ones; the note (another entity) is not read.
    let report = adopting.migrate(|p: Prescription| p).run().await.unwrap();
    assert_eq!((report.scanned, report.written, report.failed.len()), (4, 4, 0), "{report:?}");
    let raw = format!("{:?}", common::raw_items(&plain).await);
    assert!(!raw.contains("secret drug"), "{raw}");
    assert!(raw.contains("note n1"), "the plain note is untouched: {raw}");
    // Now the strict handle reads every one.
    let mut all = strict.query_all(Prescription::query_prescriptions("p1")).await.unwrap();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    let drugs: Vec<&str> = all.iter().map(|p| p.drug.as_str()).collect();
    assert_eq!(drugs, ["secret drug r1", "secret drug r2", "secret drug r3", "secret drug r4"]);
}

/// Updates of encrypted items are refused, and the guide says to read, change and `put` with a
/// `#[version]` instead: two writers racing that way through the encrypting handle lose nothing
/// (each conflict is `VersionConflict`, read again and retried), and the stored item stays
/// encrypted and verifiable.
#[tokio::test]
async fn racing_read_change_put_writers_keep_every_change() {
    let plain = common::table("enc-race", &[Prescription::SCHEMA]).await;
    let table = plain.with_encryption(&[Prescription::SCHEMA], keyring()).unwrap();
    let first = Prescription { patient_id: "p1".into(), id: "r1".into(), drug: "secret".into(), dose: 0, version: 0 };
    table.put(&first).await.unwrap();
    const ROUNDS: u32 = 10;
    let writer = |table: Table, tag: &'static str| async move {
        let mut conflicts = 0u32;
        for _ in 0..ROUNDS {
            loop {
                let mut rx = table.get(Prescription::key("p1", "r1")).await.unwrap().unwrap();
                rx.dose += 1;
                rx.drug = format!("{} {tag}", rx.drug);
                match table.put(&rx).await {
                    Ok(()) => break,
                    Err(Error::VersionConflict { .. }) => conflicts += 1,
                    Err(e) => panic!("{e:?}"),
                }
                tokio::task::yield_now().await;
            }
        }
        conflicts
    };
    let (a, b) = tokio::join!(tokio::spawn(writer(table.clone(), "a")), tokio::spawn(writer(table.clone(), "b")));
    let conflicts = a.unwrap() + b.unwrap();
    let last = table.get(Prescription::key("p1", "r1")).await.unwrap().unwrap();
    assert_eq!((last.dose, last.version), (2 * ROUNDS, u64::from(2 * ROUNDS) + 1), "{conflicts} conflicts");
    assert_eq!(last.drug.matches(" a").count() + last.drug.matches(" b").count(), 2 * ROUNDS as usize);
    println!("{conflicts} version conflicts retried");
    let raw = format!("{:?}", common::raw_items(&plain).await);
    assert!(!raw.contains("secret"), "{raw}");
}

/// Counts the requests that leave the client (after every interceptor's changes).
#[derive(Debug, Clone, Default)]
struct Transmitted(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl aws_sdk_dynamodb::config::Intercept for Transmitted {
    fn name(&self) -> &'static str {
        "Transmitted"
    }

    fn read_before_transmit(
        &self,
        _: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }
}

#[tokio::test]
async fn an_item_that_encryption_takes_past_400_kb_is_refused_before_sending() {
    let plain = common::table("enc-size", &[Visit::SCHEMA]).await;
    let sent = Transmitted::default();
    let config = plain.client().config().to_builder().interceptor(sent.clone());
    let counted = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), plain.name());
    let table = counted.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    // 400 KB as the struct writes it: DynamoDB takes it in plaintext.
    let mut big = visit("2026-03-01", "");
    let rest = dynamo_entity::item_size(&big.to_item().unwrap());
    big.diagnosis = "x".repeat(dynamo_entity::MAX_ITEM_BYTES - rest);
    assert_eq!(dynamo_entity::item_size(&big.to_item().unwrap()), dynamo_entity::MAX_ITEM_BYTES);
    plain.put(&big).await.unwrap();
    plain.delete(Visit::key("p1", "2026-03-01")).await.unwrap();

    // Encrypted, it carries DB-ESDK's header and footer (and the ciphertext's type): refused
    // before sending, on every write path.
    let before = sent.0.load(std::sync::atomic::Ordering::SeqCst);
    let too_large = |r: Result<(), Error>, what: &str| match r {
        Err(Error::Validation(m)) => assert!(m.contains("Visit") && m.contains("409600"), "{what}: {m}"),
        other => panic!("{what}: {other:?}"),
    };
    too_large(table.put(&big).await, "put");
    too_large(table.create(&big).await, "create");
    too_large(table.transact().put(&big).send().await, "transaction");
    // A batch's chunk is refused as any request of it: its items not written, the refusal the
    // source (items of earlier chunks, weighed when their own request was, are written).
    match table.batch_put(std::slice::from_ref(&big)).await {
        Err(Error::BatchWrite { outcome, source, .. }) => {
            assert_eq!((outcome.written.len(), outcome.not_written.len(), outcome.unknown.len()), (0, 1, 0));
            too_large(Err(*source), "batch");
        }
        other => panic!("batch: {other:?}"),
    }
    assert_eq!(sent.0.load(std::sync::atomic::Ordering::SeqCst), before, "nothing sent");
    assert!(common::raw_items(&plain).await.is_empty());

    // An item that fits encrypted is written and read back.
    big.diagnosis.truncate(big.diagnosis.len() - 4096);
    table.put(&big).await.unwrap();
    assert_eq!(table.get(Visit::key("p1", "2026-03-01")).await.unwrap(), Some(big));
}
