//! Table exports (feature `analytics`): export folders written byte for byte as AWS documents
//! them ("DynamoDB table export output format": `manifest-summary.json`, `manifest-files.json`
//! with one JSON object per line, gzipped data files of DynamoDB JSON lines), read as typed
//! entities, and one entity written as Parquet and read back.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity::export::{ExportError, ExportType, TableExport};
use dynamo_entity::stream::ChangeKind;
use dynamo_entity::{AttributeValue, Collection, Entity, Error, Item};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub total: u64,
    pub price: f64,
    pub paid: bool,
    pub note: Option<String>,
    pub placed_at: SystemTime,
    pub tags: Vec<String>,
    #[ttl]
    pub expires: SystemTime,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<id>"]
#[sk = "PROFILE"]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Customer {
    pub id: String,
    pub name: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Everything {
    Order(Order),
    Customer(Customer),
}

fn order(n: u64) -> Order {
    Order {
        id: format!("o{n:03}"),
        total: n * 100,
        price: n as f64 + 0.25,
        paid: n.is_multiple_of(2),
        note: n.is_multiple_of(3).then(|| format!("note {n}")),
        placed_at: UNIX_EPOCH + Duration::from_millis(1_700_000_000_000 + n * 1000),
        tags: vec![format!("t{n}"), "x".into()],
        expires: UNIX_EPOCH + Duration::from_secs(1_800_000_000 + n),
    }
}

fn customer(n: u64) -> Customer {
    Customer { id: format!("c{n}"), name: format!("Customer {n}") }
}

/// An attribute value in DynamoDB JSON, as the export writes it.
fn ddb(v: &AttributeValue) -> serde_json::Value {
    use serde_json::json;
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(b) => json!({ "NULL": b }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(s) => json!({ "NS": s }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(ddb).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": ddb_item(m) }),
        other => panic!("no binary in these tests: {other:?}"),
    }
}

fn ddb_item(item: &Item) -> serde_json::Value {
    serde_json::Value::Object(item.iter().map(|(k, v)| (k.clone(), ddb(v))).collect())
}

fn full_line(item: &Item) -> String {
    serde_json::json!({ "Item": ddb_item(item) }).to_string()
}

fn gzip(text: &str) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

/// A scratch folder standing for the bucket.
fn bucket(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynamo-entity-analytics-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const PREFIX: &str = "exports";
const EXPORT_ID: &str = "01700000000000-a1b2c3d4";

/// Writes an export into `bucket` as S3 holds it: `files` are (file name, gzipped bytes, the
/// manifest's itemCount). Returns the export's folder.
fn write_export(bucket: &Path, kind: Option<&str>, files: &[(&str, Vec<u8>, u64)]) -> PathBuf {
    let dir = bucket.join(PREFIX).join("AWSDynamoDB").join(EXPORT_ID);
    let incremental = kind == Some("INCREMENTAL_EXPORT");
    // Full exports keep their data in their own folder; incremental ones in the shared one.
    let data_dir = if incremental {
        format!("{PREFIX}/AWSDynamoDB/data")
    } else {
        format!("{PREFIX}/AWSDynamoDB/{EXPORT_ID}/data")
    };
    std::fs::create_dir_all(bucket.join(&data_dir)).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("_started"), b"").unwrap();
    let mut manifest = String::new();
    for (name, bytes, count) in files {
        let key = format!("{data_dir}/{name}");
        std::fs::write(bucket.join(&key), bytes).unwrap();
        manifest.push_str(
            &serde_json::json!({
                "itemCount": count,
                "md5Checksum": "J1d7iNE0Yk3rA3fHcw8KQQ==",
                "etag": "2f1d5d8a3f1b4b7b9e5c0d6a1e2f3a4b-1",
                "dataFileS3Key": key,
            })
            .to_string(),
        );
        manifest.push('\n');
    }
    std::fs::write(dir.join("manifest-files.json"), manifest).unwrap();
    let total: u64 = files.iter().map(|f| f.2).sum();
    let mut summary = serde_json::json!({
        "version": "2023-08-01",
        "exportArn": format!("arn:aws:dynamodb:us-east-1:123456789012:table/Shop/export/{EXPORT_ID}"),
        "startTime": "2023-11-14T22:13:20.000Z",
        "endTime": "2023-11-14T22:18:43.897Z",
        "tableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Shop",
        "tableId": "12345a12-abcd-123a-ab12-1234abc12345",
        "exportTime": "2023-11-14T22:13:20.000Z",
        "s3Bucket": "shop-exports",
        "s3Prefix": PREFIX,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": null,
        "manifestFilesS3Key": format!("{PREFIX}/AWSDynamoDB/{EXPORT_ID}/manifest-files.json"),
        "billedSizeBytes": 4096,
        "itemCount": total,
        "outputFormat": "DYNAMODB_JSON",
    });
    if let Some(kind) = kind {
        summary["exportType"] = kind.into();
        if incremental {
            summary["outputView"] = "NEW_AND_OLD_IMAGES".into();
            summary["exportFromTime"] = "2023-11-14T21:00:00.000Z".into();
            summary["exportToTime"] = "2023-11-14T22:00:00.000Z".into();
        }
    }
    std::fs::write(dir.join("manifest-summary.json"), summary.to_string()).unwrap();
    dir
}

/// Lines of full-export items: orders `orders` and customers `customers`, interleaved.
fn lines(orders: std::ops::Range<u64>, customers: std::ops::Range<u64>) -> String {
    let mut out = String::new();
    for n in orders {
        out.push_str(&full_line(&order(n).to_item().unwrap()));
        out.push('\n');
    }
    for n in customers {
        out.push_str(&full_line(&customer(n).to_item().unwrap()));
        out.push('\n');
    }
    out
}

fn sorted(mut v: Vec<Order>) -> Vec<Order> {
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v
}

fn export_error(e: &Error) -> &ExportError {
    match e {
        Error::Export(e) => e,
        other => panic!("not an export error: {other}"),
    }
}

/// The documented full export: four data files (two empty, as empty partitions' are: a gzip of
/// nothing, and no bytes at all), orders
/// and customers mixed, read exactly, on one thread and on several.
#[test]
fn full_export_reads_every_item_of_each_entity() {
    let bucket = bucket("full");
    let dir = write_export(
        &bucket,
        Some("FULL_EXPORT"),
        &[
            ("yesa5cdg7y4vgvolyruyl6xfxy.json.gz", gzip(&lines(0..40, 0..5)), 45),
            ("a4kyh3rc6m2nfcicgrn7yl4lee.json.gz", gzip(""), 0),
            ("b2mzq7fx4bdgdmpxwqfq3vz5ke.json.gz", Vec::new(), 0),
            ("x6ysd7vedy5ijtm7nhbfqqqwpe.json.gz", gzip(&lines(40..75, 5..12)), 42),
        ],
    );
    let expected: Vec<Order> = (0..75).map(order).collect();
    for threads in [1, 4] {
        let export = TableExport::open(&dir).unwrap().threads(threads);
        assert_eq!(export.export_type(), ExportType::Full);
        assert_eq!(export.files().len(), 4);
        let orders: Vec<Order> = export.items::<Order>().collect::<Result<_, _>>().unwrap();
        if threads == 1 {
            assert_eq!(orders, expected, "one thread: manifest order, line order");
        }
        assert_eq!(sorted(orders), expected);
        assert_eq!(export.skipped(), 12, "the customers were stepped over");
        let customers: Vec<Customer> = export.items::<Customer>().collect::<Result<_, _>>().unwrap();
        assert_eq!(customers.len(), 12);
        let all: Vec<Everything> = export.items::<Everything>().collect::<Result<_, _>>().unwrap();
        assert_eq!(all.iter().filter(|e| matches!(e, Everything::Order(_))).count(), 75);
        assert_eq!(all.len(), 87);
    }
    std::fs::remove_dir_all(bucket).unwrap();
}

/// An older export's summary has no `exportType`: a full export. Key fields missing as
/// attributes are read back from the keys, as the table's reads do.
#[test]
fn summary_without_export_type_is_full_and_items_decode_by_the_table_rules() {
    let bucket = bucket("older");
    let mut item = order(7).to_item().unwrap();
    item.remove("id");
    let text = format!("{}\n", full_line(&item));
    let dir = write_export(&bucket, None, &[("f1.json.gz", gzip(&text), 1)]);
    let export = TableExport::open(&dir).unwrap();
    assert_eq!(export.export_type(), ExportType::Full);
    let orders: Vec<Order> = export.items::<Order>().collect::<Result<_, _>>().unwrap();
    assert_eq!(orders, vec![order(7)]);
    std::fs::remove_dir_all(bucket).unwrap();
}

/// A corrupt line and an undecodable item are errors for that line, naming file and line; the
/// rest of the file and the other files are read.
#[test]
fn a_corrupt_line_and_a_bad_item_are_errors_in_place() {
    let bucket = bucket("corrupt");
    let mut bad = order(3).to_item().unwrap();
    bad.insert("total".into(), AttributeValue::S("three hundred".into()));
    let text = format!(
        "{}\n{{\"Item\": {{\"PK\": {{\"S\": \"ORDER#o001\"\n{}\n{}\n",
        full_line(&order(0).to_item().unwrap()),
        full_line(&bad),
        full_line(&order(4).to_item().unwrap()),
    );
    let dir = write_export(
        &bucket,
        Some("FULL_EXPORT"),
        &[("bad.json.gz", gzip(&text), 4), ("good.json.gz", gzip(&lines(10..20, 0..2)), 12)],
    );
    let export = TableExport::open(&dir).unwrap();
    let (ok, errors): (Vec<_>, Vec<_>) = export.items::<Order>().partition(Result::is_ok);
    let ok: Vec<Order> = ok.into_iter().map(Result::unwrap).collect();
    let mut want = vec![order(0), order(4)];
    want.extend((10..20).map(order));
    assert_eq!(sorted(ok), sorted(want));
    let mut errors: Vec<Error> = errors.into_iter().map(Result::unwrap_err).collect();
    errors.sort_by_key(|e| e.to_string());
    assert_eq!(errors.len(), 2, "{errors:?}");
    let bad_file = bucket.join(format!("{PREFIX}/AWSDynamoDB/{EXPORT_ID}/data/bad.json.gz"));
    match export_error(&errors[0]) {
        ExportError::Line { file, line, .. } => assert_eq!((file, *line), (&bad_file, 2)),
        other => panic!("{other}"),
    }
    match export_error(&errors[1]) {
        ExportError::Item { file, line, source } => {
            assert_eq!((file, *line), (&bad_file, 3));
            assert!(matches!(**source, Error::Decode { ref attribute, .. } if attribute == "total"), "{source}");
        }
        other => panic!("{other}"),
    }
    assert!(errors[0].to_string().contains("bad.json.gz line 2"), "{}", errors[0]);
    std::fs::remove_dir_all(bucket).unwrap();
}

/// A truncated gzip file is an error naming it; the items before the cut and the other files
/// are still read.
#[test]
fn a_truncated_file_is_an_error_naming_it() {
    let bucket = bucket("truncated");
    let whole = gzip(&lines(0..200, 0..0));
    let cut = whole[..whole.len() / 2].to_vec();
    let dir = write_export(
        &bucket,
        Some("FULL_EXPORT"),
        &[("cut.json.gz", cut, 200), ("fine.json.gz", gzip(&lines(300..310, 0..0)), 10)],
    );
    let export = TableExport::open(&dir).unwrap().threads(1);
    let results: Vec<Result<Order, Error>> = export.items::<Order>().collect();
    let errors: Vec<&Error> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    match export_error(errors[0]) {
        ExportError::Truncated { file, line, .. } => {
            assert!(file.ends_with("data/cut.json.gz"));
            assert!(*line > 1 && *line <= 200, "{line}");
        }
        other => panic!("{other}"),
    }
    let good: Vec<&Order> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(good.iter().filter(|o| o.id.as_str() >= "o300").count(), 10, "the other file is read whole");
    assert!(good.len() < 210, "the cut file's later items are lost");
    std::fs::remove_dir_all(bucket).unwrap();
}

/// A file holding another number of items than its manifest entry says is an error naming it;
/// a file the manifest names but the folder lacks too.
#[test]
fn a_count_mismatch_and_a_missing_file_are_errors_naming_them() {
    let bucket = bucket("count");
    let dir = write_export(
        &bucket,
        Some("FULL_EXPORT"),
        &[("short.json.gz", gzip(&lines(0..3, 0..0)), 4), ("gone.json.gz", gzip(&lines(5..6, 0..0)), 1)],
    );
    let gone = bucket.join(format!("{PREFIX}/AWSDynamoDB/{EXPORT_ID}/data/gone.json.gz"));
    std::fs::remove_file(&gone).unwrap();
    let export = TableExport::open(&dir).unwrap().threads(1);
    let results: Vec<Result<Order, Error>> = export.items::<Order>().collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 3);
    let errors: Vec<&Error> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    match export_error(errors[0]) {
        ExportError::Count { file, expected, found } => {
            assert!(file.ends_with("data/short.json.gz"));
            assert_eq!((*expected, *found), (4, 3));
        }
        other => panic!("{other}"),
    }
    match export_error(errors[1]) {
        ExportError::Io { file, .. } => assert_eq!(file, &gone),
        other => panic!("{other}"),
    }
    std::fs::remove_dir_all(bucket).unwrap();
}

/// An incremental export (shared `AWSDynamoDB/data/` folder, `Metadata`/`Keys`/`NewImage`/
/// `OldImage` lines) read as typed changes: inserted, modified, removed; other entities'
/// changes stepped over.
#[test]
fn incremental_export_reads_as_typed_changes() {
    let bucket = bucket("incremental");
    let change = |ts: u64, keys_of: &Item, old: Option<&Item>, new: Option<&Item>| -> String {
        let keys: Item = ["PK", "SK"].iter().map(|k| (k.to_string(), keys_of[*k].clone())).collect();
        let mut line = serde_json::json!({
            "Metadata": { "WriteTimestampMicros": { "N": ts.to_string() } },
            "Keys": ddb_item(&keys),
        });
        if let Some(old) = old {
            line["OldImage"] = ddb_item(old);
        }
        if let Some(new) = new {
            line["NewImage"] = ddb_item(new);
        }
        format!("{line}\n")
    };
    let (o1, o2, o3) = (order(1).to_item().unwrap(), order(2).to_item().unwrap(), order(3).to_item().unwrap());
    let mut o2_paid = order(2);
    o2_paid.paid = true;
    o2_paid.note = Some("paid".into());
    let o2_new = o2_paid.to_item().unwrap();
    let c1 = customer(1).to_item().unwrap();
    let file1 =
        change(1_700_000_000_000_001, &o1, None, Some(&o1)) + &change(1_700_000_000_000_002, &c1, None, Some(&c1));
    let file2 = change(1_700_000_000_000_003, &o2, Some(&o2), Some(&o2_new))
        + &change(1_700_000_000_000_004, &o3, Some(&o3), None);
    let dir = write_export(
        &bucket,
        Some("INCREMENTAL_EXPORT"),
        &[("inc1.json.gz", gzip(&file1), 2), ("inc2.json.gz", gzip(&file2), 2)],
    );
    assert!(bucket.join(format!("{PREFIX}/AWSDynamoDB/data/inc1.json.gz")).exists());
    let export = TableExport::open(&dir).unwrap().threads(1);
    assert_eq!(export.export_type(), ExportType::Incremental);
    let changes: Vec<_> = export.changes::<Order>().collect::<Result<Vec<_>, _>>().unwrap();
    assert_eq!(changes.len(), 3);
    assert_eq!(changes[0].kind, ChangeKind::Inserted(order(1)));
    assert_eq!(changes[0].pk, "ORDER#o001");
    assert_eq!(changes[0].sequence_number, "1700000000000001");
    assert_eq!(changes[1].kind, ChangeKind::Modified { old: order(2), new: o2_paid.clone() });
    assert_eq!(changes[2].kind, ChangeKind::Removed(order(3)));
    assert_eq!(export.skipped(), 1, "the customer's insert");
    // `items` of an incremental export: the new images.
    let items: Vec<Order> = export.items::<Order>().collect::<Result<_, _>>().unwrap();
    assert_eq!(items, vec![order(1), o2_paid]);
    // A full export holds no changes.
    let full_bucket = bucket.join("full");
    let full = write_export(&full_bucket, Some("FULL_EXPORT"), &[("f.json.gz", gzip(&lines(0..1, 0..0)), 1)]);
    let refused: Vec<_> = TableExport::open(&full).unwrap().changes::<Order>().collect();
    assert_eq!(refused.len(), 1);
    assert!(matches!(export_error(refused[0].as_ref().unwrap_err()), ExportError::NotChanges { .. }));
    std::fs::remove_dir_all(bucket).unwrap();
}

/// A manifest whose item counts disagree, or a data key outside the export, is refused at open.
#[test]
fn manifests_are_checked_at_open() {
    let bucket = bucket("manifests");
    let dir = write_export(&bucket, Some("FULL_EXPORT"), &[("f.json.gz", gzip(&lines(0..2, 0..0)), 2)]);
    let summary = dir.join("manifest-summary.json");
    let text = std::fs::read_to_string(&summary).unwrap().replace("\"itemCount\":2", "\"itemCount\":3");
    std::fs::write(&summary, text).unwrap();
    let err = TableExport::open(&dir).unwrap_err();
    assert!(matches!(export_error(&err), ExportError::Manifest { .. }), "{err}");
    assert!(err.to_string().contains("manifest-files.json"), "{err}");
    let text = std::fs::read_to_string(&summary).unwrap().replace("\"itemCount\":3", "\"itemCount\":2");
    std::fs::write(&summary, text.replace("DYNAMODB_JSON", "ION")).unwrap();
    let err = TableExport::open(&dir).unwrap_err();
    assert!(err.to_string().contains("ION"), "{err}");
    std::fs::remove_dir_all(bucket).unwrap();
}

/// `write_parquet` writes one row per item of the entity, a column per stored field with its
/// type, read back here with the parquet crate (CI reads the same kind of file with DuckDB).
#[test]
fn write_parquet_writes_typed_columns() {
    use dynamo_entity::export::arrow_array::{
        Array, BooleanArray, Float64Array, Int64Array, RecordBatchReader, StringArray, TimestampMillisecondArray,
    };
    use dynamo_entity::export::arrow_schema::{DataType, TimeUnit};
    use dynamo_entity::export::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let bucket = bucket("parquet");
    let dir = write_export(
        &bucket,
        Some("FULL_EXPORT"),
        &[("a.json.gz", gzip(&lines(0..30, 0..3)), 33), ("b.json.gz", gzip(&lines(30..50, 3..4)), 21)],
    );
    let export = TableExport::open(&dir).unwrap().threads(1);
    let path = bucket.join("orders.parquet");
    assert_eq!(export.write_parquet::<Order>(&path).unwrap(), 50);
    assert_eq!(export.skipped(), 4, "the customers, counted once");
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
    let schema = reader.schema();
    let types: Vec<(String, DataType, bool)> =
        schema.fields().iter().map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable())).collect();
    let utc = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
    assert_eq!(
        types,
        vec![
            ("id".into(), DataType::Utf8, false),
            ("total".into(), DataType::Int64, false),
            ("price".into(), DataType::Float64, false),
            ("paid".into(), DataType::Boolean, false),
            ("note".into(), DataType::Utf8, true),
            ("placedAt".into(), utc.clone(), false),
            ("tags".into(), DataType::Utf8, false),
            ("expires".into(), utc, false),
        ]
    );
    let mut rows = 0;
    for batch in reader {
        let batch = batch.unwrap();
        let col = |i: usize| batch.column(i).clone();
        for r in 0..batch.num_rows() {
            let id = col(0).as_any().downcast_ref::<StringArray>().unwrap().value(r).to_owned();
            let n: u64 = id[1..].parse().unwrap();
            let o = order(n);
            assert_eq!(col(1).as_any().downcast_ref::<Int64Array>().unwrap().value(r), o.total as i64);
            assert_eq!(col(2).as_any().downcast_ref::<Float64Array>().unwrap().value(r), o.price);
            assert_eq!(col(3).as_any().downcast_ref::<BooleanArray>().unwrap().value(r), o.paid);
            let note = col(4);
            let note = note.as_any().downcast_ref::<StringArray>().unwrap();
            assert_eq!((!note.is_null(r)).then(|| note.value(r).to_owned()), o.note);
            let ms = |t: SystemTime| t.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
            assert_eq!(col(5).as_any().downcast_ref::<TimestampMillisecondArray>().unwrap().value(r), ms(o.placed_at));
            assert_eq!(col(6).as_any().downcast_ref::<StringArray>().unwrap().value(r), format!("[\"t{n}\",\"x\"]"));
            assert_eq!(col(7).as_any().downcast_ref::<TimestampMillisecondArray>().unwrap().value(r), ms(o.expires));
            rows += 1;
        }
    }
    assert_eq!(rows, 50);
    std::fs::remove_dir_all(bucket).unwrap();
}
