//! A generated full export of the chat design, written as DynamoDB's export to S3 leaves it:
//! the example's data, and the benchmark's (`benches/analytics.rs`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::model::*;
use dynamo_entity::{AttributeValue, Entity, Error, Item};

/// The export's id (its folder's name).
pub const EXPORT_ID: &str = "01772000000000-c4a7e1b2";
/// The data files the items are spread over.
pub const DATA_FILES: usize = 4;

/// An attribute value in DynamoDB JSON, as an export writes it.
fn ddb(v: &AttributeValue, out: &mut String) {
    let text = |s: &str, out: &mut String| out.push_str(&serde_json::to_string(s).unwrap());
    let set = |tag: &str, v: &[String], out: &mut String| {
        out.push_str(&format!("{{\"{tag}\":["));
        for (i, e) in v.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            text(e, out);
        }
        out.push(']');
    };
    match v {
        AttributeValue::S(s) => {
            out.push_str("{\"S\":");
            text(s, out);
        }
        AttributeValue::N(n) => {
            out.push_str("{\"N\":");
            text(n, out);
        }
        AttributeValue::Bool(b) => out.push_str(if *b { "{\"BOOL\":true" } else { "{\"BOOL\":false" }),
        AttributeValue::Null(_) => out.push_str("{\"NULL\":true"),
        AttributeValue::Ss(v) => set("SS", v, out),
        AttributeValue::Ns(v) => set("NS", v, out),
        AttributeValue::L(l) => {
            out.push_str("{\"L\":[");
            for (i, e) in l.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ddb(e, out);
            }
            out.push(']');
        }
        AttributeValue::M(m) => {
            out.push_str("{\"M\":");
            ddb_item(m, out);
        }
        other => panic!("the chat design stores no {other:?}"),
    }
    out.push('}');
}

fn ddb_item(item: &Item, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in item.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap());
        out.push(':');
        ddb(v, out);
    }
    out.push('}');
}

fn iso(millis: u64) -> String {
    let t = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
    dynamo_entity::key::to_key_text(&t).expect("a time of this century")
}

/// The chat design's items, about `n` of them: users (with a connection each), rooms (two
/// participants, a last message) and, for the rest, messages.
fn chat_items(n: usize, mut emit: impl FnMut(Item) -> Result<(), Error>) -> Result<(), Error> {
    let users = (n / 200).max(3);
    let rooms = (n / 100).max(2);
    let ttl = SystemTime::UNIX_EPOCH + Duration::from_secs(1_772_400_000);
    let at = "2026-03-01T09:00:00.000Z";
    for u in 0..users {
        let user_id = format!("user-{u:06}");
        emit(
            User {
                user_id: user_id.clone(),
                display_name: format!("User {u}"),
                email: format!("{user_id}@example.com"),
            }
            .to_item()?,
        )?;
        let connection_id = format!("conn-{u:06}");
        emit(
            Connection { connection_id: connection_id.clone(), user_id: user_id.clone(), connected_at: at.into(), ttl }
                .to_item()?,
        )?;
        emit(UserConnection { user_id, connection_id, connected_at: at.into(), ttl }.to_item()?)?;
    }
    let base = 1_772_355_600_000u64; // 2026-03-01T09:00:00Z
    let messages = n.saturating_sub(users * 3 + rooms * 4);
    for r in 0..rooms {
        let chat_room_id = format!("room-{r:05}");
        let members = [format!("user-{:06}", r % users), format!("user-{:06}", (r + 1) % users)];
        emit(
            ChatRoom {
                chat_room_id: chat_room_id.clone(),
                name: format!("Room {r}"),
                participant_ids: members.to_vec(),
                r#type: "direct".into(),
                activity_id: r.is_multiple_of(4).then(|| format!("activity-{r}")),
                last_message_at: iso(base + messages as u64 * 1000),
                created_at: at.into(),
            }
            .to_item()?,
        )?;
        for m in &members {
            emit(
                ChatParticipation {
                    participant_id: m.clone(),
                    chat_room_id: chat_room_id.clone(),
                    joined_at: at.into(),
                }
                .to_item()?,
            )?;
        }
        emit(LastMessage { chat_room_id, last_message_at: iso(base), last_message: "see you".into() }.to_item()?)?;
    }
    for i in 0..messages {
        // Rooms get messages unevenly, so the query's ranking means something.
        let r = (i * i + i / 7) % rooms;
        let ts = base + i as u64 * 1000;
        let sender = format!("user-{:06}", (r + i % 2) % users);
        emit(
            Message {
                chat_room_id: format!("room-{r:05}"),
                timestamp: ts,
                message_id: format!("msg-{i:08}"),
                sender_id: sender.clone(),
                content: format!("message {i} in room {r}"),
                message_type: "user".into(),
                read_by: vec![sender],
                created_at: iso(ts),
            }
            .to_item()?,
        )?;
    }
    Ok(())
}

/// Writes the export of `items` chat items under `out` (standing for the bucket), with the
/// prefix `exports`: the data spread over `DATA_FILES` gzipped files, as partitions spread it.
pub fn write_export(out: &Path, items: usize) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let prefix = "exports";
    let dir = out.join(prefix).join("AWSDynamoDB").join(EXPORT_ID);
    let data = dir.join("data");
    std::fs::create_dir_all(&data)?;
    std::fs::write(dir.join("_started"), b"")?;
    let names: Vec<String> =
        (0..DATA_FILES).map(|i| format!("{:026x}.json.gz", 0x5eed_0000_u64 + i as u64 * 7919)).collect();
    let mut writers = names
        .iter()
        .map(|name| {
            let file = std::io::BufWriter::new(std::fs::File::create(data.join(name))?);
            Ok(flate2::write::GzEncoder::new(file, flate2::Compression::fast()))
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut counts = vec![0u64; DATA_FILES];
    let mut line = String::with_capacity(512);
    let mut io_error = None;
    chat_items(items, |item| {
        // A partition's items land in one file: by the partition key's hash.
        let pk = match item.get("PK") {
            Some(AttributeValue::S(pk)) => pk.clone(),
            _ => String::new(),
        };
        let f = (dynamo_entity::fnv1a64(pk.as_bytes()) % DATA_FILES as u64) as usize;
        line.clear();
        line.push_str("{\"Item\":");
        ddb_item(&item, &mut line);
        line.push_str("}\n");
        if let Err(e) = writers[f].write_all(line.as_bytes()) {
            io_error.get_or_insert(e);
        }
        counts[f] += 1;
        Ok(())
    })?;
    if let Some(e) = io_error {
        return Err(e.into());
    }
    for w in writers {
        w.finish()?.flush()?;
    }
    let mut manifest = String::new();
    for (name, count) in names.iter().zip(&counts) {
        let entry = serde_json::json!({
            "itemCount": count,
            "md5Checksum": "bXlzdGVyeW1kNWNoZWNrc3VtPT0=",
            "etag": "0f1e2d3c4b5a69788796a5b4c3d2e1f0-1",
            "dataFileS3Key": format!("{prefix}/AWSDynamoDB/{EXPORT_ID}/data/{name}"),
        });
        manifest.push_str(&entry.to_string());
        manifest.push('\n');
    }
    std::fs::write(dir.join("manifest-files.json"), manifest)?;
    let summary = serde_json::json!({
        "version": "2023-08-01",
        "exportArn": format!("arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE_NAME}/export/{EXPORT_ID}"),
        "startTime": "2026-03-02T00:00:00.000Z",
        "endTime": "2026-03-02T00:06:12.345Z",
        "tableArn": format!("arn:aws:dynamodb:us-east-1:123456789012:table/{TABLE_NAME}"),
        "tableId": "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d",
        "exportTime": "2026-03-02T00:00:00.000Z",
        "s3Bucket": "connect40-exports",
        "s3Prefix": prefix,
        "s3SseAlgorithm": "AES256",
        "s3SseKmsKeyId": null,
        "manifestFilesS3Key": format!("{prefix}/AWSDynamoDB/{EXPORT_ID}/manifest-files.json"),
        "billedSizeBytes": 0,
        "itemCount": counts.iter().sum::<u64>(),
        "outputFormat": "DYNAMODB_JSON",
        "exportType": "FULL_EXPORT",
    });
    std::fs::write(dir.join("manifest-summary.json"), summary.to_string())?;
    Ok(dir)
}
