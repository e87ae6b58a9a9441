//! Streams of encrypted entities (feature `encryption`): a stream record holds the item as
//! stored (ciphertext and signature). A reader made from the encrypting handle decrypts and
//! verifies the images of its entities; a reader with another key gets errors naming the
//! records, not garbage; a reader without the keyring gets decode errors. Against DynamoDB
//! Local's real Streams API, with a raw AES keyring.

mod clinic;
mod common;

use std::collections::HashMap;

use clinic::{Chart, Note, Visit, keyring};
use dynamo_entity::encryption::Keyring;
use dynamo_entity::stream::aws_sdk_dynamodbstreams;
use dynamo_entity::stream::{Change, ChangeKind, Image, StreamError, StreamReader};
use dynamo_entity::{AttributeValue, Entity, Error, StreamView, Table, TableDefinition};
use futures_util::StreamExt;

/// The same key name with another key.
fn wrong_keyring() -> Keyring {
    Keyring::raw_aes("app", "key-1", [8u8; 32])
}

fn visit(at: &str, ward: &str, diagnosis: &str) -> Visit {
    Visit { patient_id: "p1".into(), at: at.into(), ward: ward.into(), diagnosis: diagnosis.into() }
}

fn note(id: &str) -> Note {
    Note { patient_id: "p1".into(), id: id.into(), text: format!("note {id}") }
}

async fn streams_client() -> aws_sdk_dynamodbstreams::Client {
    dynamo_entity::local::streams_client().await.expect("DynamoDB Local")
}

/// A table of visits and notes with a NEW_AND_OLD_IMAGES stream: its plain handle and the
/// handle encrypting visits.
async fn stream_table(test: &str) -> (Table, Table) {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let plain = Table::new(client, format!("{test}-{}", std::process::id()));
    let def =
        TableDefinition::from_entities(&[Visit::SCHEMA, Note::SCHEMA]).unwrap().stream(StreamView::NewAndOldImages);
    plain.create_table_from(&def).await.expect("create table");
    let table = plain.with_encryption(&[Visit::SCHEMA], keyring()).unwrap();
    (plain, table)
}

/// Visits inserted, modified (a put of a changed item) and removed through the encrypting
/// handle, with plain notes written in between; then a visit whose signed `ward` is edited
/// behind DB-ESDK's back (its MODIFY record's new image does not verify).
async fn write(plain: &Table, table: &Table) {
    table.put(&visit("2026-01-01", "north", "flu")).await.unwrap();
    plain.put(&note("n1")).await.unwrap();
    table.put(&visit("2026-01-01", "north", "pneumonia")).await.unwrap();
    plain.put(&note("n2")).await.unwrap();
    table.delete(Visit::key("p1", "2026-01-01")).await.unwrap();
    table.put(&visit("2026-01-02", "north", "gout")).await.unwrap();
    plain
        .client()
        .update_item()
        .table_name(plain.name())
        .key("PK", AttributeValue::S("PATIENT#p1".into()))
        .key("SK", AttributeValue::S("VISIT#2026-01-02".into()))
        .update_expression("SET ward = :w")
        .expression_attribute_values(":w", AttributeValue::S("south".into()))
        .send()
        .await
        .unwrap();
}

async fn read<T: dynamo_entity::Readable>(reader: StreamReader) -> Vec<Result<Change<T>, Error>> {
    reader.until_caught_up().changes::<T>().collect().await
}

/// What the changes of `write` are, read with the keyring: the plaintext values, and the
/// edited visit's record an error naming it.
fn assert_decrypted(changes: &[Result<Change<Visit>, Error>]) {
    let ok: Vec<&ChangeKind<Visit>> = changes.iter().filter_map(|c| c.as_ref().ok()).map(|c| &c.kind).collect();
    assert_eq!(
        ok,
        [
            &ChangeKind::Inserted(visit("2026-01-01", "north", "flu")),
            &ChangeKind::Modified {
                old: visit("2026-01-01", "north", "flu"),
                new: visit("2026-01-01", "north", "pneumonia")
            },
            &ChangeKind::Removed(visit("2026-01-01", "north", "pneumonia")),
            &ChangeKind::Inserted(visit("2026-01-02", "north", "gout")),
        ],
        "{changes:?}"
    );
    // The edited item: its new image fails verification, an error naming its record; it is last.
    assert_eq!(changes.len(), 5, "{changes:?}");
    let Err(Error::Stream(e)) = &changes[4] else { panic!("{:?}", changes[4]) };
    assert!(matches!(&**e, StreamError::Decrypt { image: Image::New, .. }), "{e:?}");
    assert!(e.sequence_number().is_some_and(|s| !s.is_empty()));
}

/// Every record `Err` is a decryption error naming a distinct record, and no plaintext of an
/// encrypted field comes out.
fn assert_all_decrypt_errors(changes: &[Result<Change<Visit>, Error>], n: usize) {
    assert_eq!(changes.len(), n, "{changes:?}");
    let mut seqs = Vec::new();
    for c in changes {
        let Err(Error::Stream(e)) = c else { panic!("not an error: {c:?}") };
        assert!(matches!(&**e, StreamError::Decrypt { .. }), "{e:?}");
        seqs.push(e.sequence_number().unwrap().to_owned());
    }
    seqs.sort();
    seqs.dedup();
    assert_eq!(seqs.len(), n, "{seqs:?}");
}

#[tokio::test]
async fn a_reader_from_the_encrypting_handle_decrypts_and_a_wrong_key_is_an_error() {
    let (plain, table) = stream_table("enc-stream-reader").await;
    write(&plain, &table).await;
    let streams = streams_client().await;

    // The handle's reader: plaintext values; the edited item's record an error in its place.
    let changes = read::<Visit>(StreamReader::for_table(&table, streams.clone()).await.unwrap()).await;
    assert_decrypted(&changes);
    // The same through `new` and `decrypting`.
    let arn = dynamo_entity::stream::latest_stream_arn(&plain).await.unwrap();
    let again = read::<Visit>(StreamReader::new(streams.clone(), &arn).decrypting(&table)).await;
    assert_eq!(format!("{again:?}"), format!("{changes:?}"));

    // A collection of both: the plain notes pass through undecrypted, the visits decrypt.
    let chart = read::<Chart>(StreamReader::for_table(&table, streams.clone()).await.unwrap()).await;
    let kinds: Vec<_> = chart.iter().filter_map(|c| c.as_ref().ok()).map(|c| c.kind.clone()).collect();
    assert_eq!(kinds.len(), 6, "{chart:?}");
    assert_eq!(kinds[0], ChangeKind::Inserted(Chart::Visit(visit("2026-01-01", "north", "flu"))));
    assert_eq!(kinds[1], ChangeKind::Inserted(Chart::Note(note("n1"))));
    assert_eq!(kinds[3], ChangeKind::Inserted(Chart::Note(note("n2"))));
    assert_eq!(chart.iter().filter(|c| c.is_err()).count(), 1, "{chart:?}");

    // Another key under the same name: every visit record an error naming it, not garbage;
    // the stream goes on (the notes still come to a reader of both).
    let wrong = plain.with_encryption(&[Visit::SCHEMA], wrong_keyring()).unwrap();
    let changes = read::<Visit>(StreamReader::for_table(&wrong, streams.clone()).await.unwrap()).await;
    assert_all_decrypt_errors(&changes, 5);
    let chart = read::<Chart>(StreamReader::for_table(&wrong, streams.clone()).await.unwrap()).await;
    let notes: Vec<_> = chart.iter().filter_map(|c| c.as_ref().ok()).map(|c| c.kind.clone()).collect();
    assert_eq!(
        notes,
        [ChangeKind::Inserted(Chart::Note(note("n1"))), ChangeKind::Inserted(Chart::Note(note("n2")))],
        "{chart:?}"
    );
    assert_eq!(chart.len(), 7, "{chart:?}");

    // Without the keyring (`new`, or the plain handle): the ciphertext is a decode error naming
    // the encrypted attribute.
    for reader in [StreamReader::new(streams.clone(), &arn), StreamReader::for_table(&plain, streams).await.unwrap()] {
        let changes = read::<Visit>(reader).await;
        assert!(!changes.is_empty());
        for c in &changes {
            let Err(Error::Stream(e)) = c else { panic!("{c:?}") };
            let StreamError::Decode { source, .. } = &**e else { panic!("{e:?}") };
            assert!(matches!(&**source, Error::Decode { attribute, .. } if attribute == "diagnosis"), "{source:?}");
        }
    }
}

/// Every record of the table's stream as the Streams API gives it (DynamoDB Local: read each
/// shard until a page comes back empty).
async fn raw_records(
    streams: &aws_sdk_dynamodbstreams::Client,
    arn: &str,
) -> Vec<aws_sdk_dynamodbstreams::types::Record> {
    use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    let description = streams.describe_stream().stream_arn(arn).send().await.unwrap().stream_description.unwrap();
    let mut out = Vec::new();
    for shard in description.shards() {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(arn)
            .shard_id(shard.shard_id().unwrap())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        while let Some(it) = iterator {
            let page = streams.get_records().shard_iterator(it).send().await.unwrap();
            let records = page.records.unwrap_or_default();
            if records.is_empty() {
                break;
            }
            out.extend(records);
            iterator = page.next_shard_iterator;
        }
    }
    out
}

/// The Lambda event of `records`, in the JSON shape AWS documents (images in DynamoDB JSON,
/// binary values in base64).
fn lambda_event(
    records: &[aws_sdk_dynamodbstreams::types::Record],
) -> dynamo_entity::stream::aws_lambda_events::event::dynamodb::Event {
    type Map = HashMap<String, aws_sdk_dynamodbstreams::types::AttributeValue>;
    let json = |m: &Option<Map>| serde_json::to_value(serde_dynamo::Item::from(m.clone().unwrap_or_default())).unwrap();
    let records: Vec<serde_json::Value> = records
        .iter()
        .map(|r| {
            let d = r.dynamodb.as_ref().unwrap();
            serde_json::json!({
                "eventID": r.event_id.clone().unwrap_or_default(),
                "eventName": r.event_name.as_ref().unwrap().as_str(),
                "eventVersion": "1.1",
                "eventSource": "aws:dynamodb",
                "awsRegion": "us-east-1",
                "dynamodb": {
                    "ApproximateCreationDateTime": 1_709_234_567.0,
                    "Keys": json(&d.keys),
                    "NewImage": json(&d.new_image),
                    "OldImage": json(&d.old_image),
                    "SequenceNumber": d.sequence_number.clone().unwrap(),
                    "SizeBytes": d.size_bytes.unwrap_or(0),
                    "StreamViewType": "NEW_AND_OLD_IMAGES"
                },
                "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Clinic/stream/2026-03-01T00:00:00.000"
            })
        })
        .collect();
    serde_json::from_value(serde_json::json!({ "Records": records })).expect("the documented event shape")
}

#[tokio::test]
async fn a_lambda_event_of_encrypted_records_decrypts_through_the_handle() {
    let (plain, table) = stream_table("enc-stream-lambda").await;
    write(&plain, &table).await;
    let streams = streams_client().await;
    let arn = dynamo_entity::stream::latest_stream_arn(&plain).await.unwrap();
    let records = raw_records(&streams, &arn).await;
    assert_eq!(records.len(), 7, "{records:?}");

    // The encrypting handle: the same changes as its reader (sequence numbers and all).
    let changes = table.stream_changes::<Visit>(lambda_event(&records)).await;
    assert_decrypted(&changes);
    let reader = read::<Visit>(StreamReader::for_table(&table, streams).await.unwrap()).await;
    let seqs = |c: &[Result<Change<Visit>, Error>]| -> Vec<String> {
        c.iter()
            .map(|c| match c {
                Ok(c) => c.sequence_number.clone(),
                Err(e) => e.sequence_number().unwrap().to_owned(),
            })
            .collect()
    };
    assert_eq!(seqs(&changes), seqs(&reader));

    // Another key: errors naming the records; no keyring (`lambda::changes`): decode errors.
    let wrong = plain.with_encryption(&[Visit::SCHEMA], wrong_keyring()).unwrap();
    assert_all_decrypt_errors(&wrong.stream_changes::<Visit>(lambda_event(&records)).await, 5);
    let undecrypted: Vec<_> = dynamo_entity::stream::lambda::changes::<Visit>(lambda_event(&records)).collect();
    assert_eq!(undecrypted.len(), 5);
    assert!(
        undecrypted.iter().all(|c| matches!(c, Err(Error::Stream(e)) if matches!(**e, StreamError::Decode { .. })))
    );
    // A plain handle's `stream_changes` is `lambda::changes`; notes pass through either way.
    assert_eq!(plain.stream_changes::<Note>(lambda_event(&records)).await.len(), 2);
    assert_eq!(table.stream_changes::<Note>(lambda_event(&records)).await.len(), 2);
}
