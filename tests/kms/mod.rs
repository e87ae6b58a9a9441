//! A stand-in for AWS KMS, which no machine that runs the tests reaches: KMS's JSON 1.1 protocol
//! on 127.0.0.1 (`GenerateDataKey`, `Encrypt`, `Decrypt`, and the key store's
//! `GenerateDataKeyWithoutPlaintext` and `ReEncrypt`), holding one AES-256 key per key ARN in
//! memory, counting the calls it answers. It is not KMS: it checks no signature (the client has
//! static test credentials), and its `CiphertextBlob` is a format of its own (opaque to clients,
//! as KMS's is). Shared by tests/encryption_kms.rs and benches/encryption_production.rs.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use dynamo_entity::encryption::aws_sdk_kms;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A request the stand-in answered: its operation (`X-Amz-Target` without `TrentService.`) and
/// the `KeyId` it named (for `Decrypt`, the key of the blob).
pub type Call = (String, String);

/// Stands in for AWS KMS, which this machine cannot reach: KMS's JSON 1.1 protocol on
/// 127.0.0.1, one AES-256-GCM key per key ARN (made on start), the encryption context as
/// additional data. It runs on a runtime and thread of its own, so that a caller blocked in
/// DB-ESDK's synchronous interceptor does not block it. Dropping it (or [`StandInKms::stop`])
/// closes its port and every connection.
pub struct StandInKms {
    addr: SocketAddr,
    calls: Arc<Mutex<Vec<Call>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Keys {
    keys: HashMap<String, LessSafeKey>,
    calls: Arc<Mutex<Vec<Call>>>,
}

impl StandInKms {
    pub fn start(arns: &[&str]) -> StandInKms {
        let keys: HashMap<String, LessSafeKey> = arns
            .iter()
            .map(|arn| {
                let mut key = [0u8; 32];
                aws_lc_rs::rand::fill(&mut key).unwrap();
                ((*arn).to_owned(), LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &key).unwrap()))
            })
            .collect();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let keys = Arc::new(Keys { keys, calls: calls.clone() });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let accept = async {
                    loop {
                        let Ok((socket, _)) = listener.accept().await else { continue };
                        tokio::spawn(connection(socket, keys.clone()));
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stopped => {}
                }
            });
            // Dropping the runtime drops the listener and every connection's task.
        });
        StandInKms { addr, calls, stop: Some(stop), thread: Some(thread) }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The calls answered so far.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// How many `operation` calls named `key`.
    pub fn count(&self, operation: &str, key: &str) -> usize {
        self.calls().iter().filter(|(o, k)| o == operation && k == key).count()
    }

    /// Stops it: its port closed, its connections dropped.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

impl Drop for StandInKms {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.1 connection: requests with a `Content-Length` body, answered in order.
async fn connection(mut socket: tokio::net::TcpStream, keys: Arc<Keys>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            if socket.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let header = |name: &str| {
            head.lines().find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
        };
        let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        let target = header("x-amz-target").unwrap_or_default();
        while buf.len() < head_end + length {
            if socket.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        }
        let body: Value = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
        buf.drain(..head_end + length);
        let (status, answer) = match keys.answer(&target, &body) {
            Ok(v) => (200, v),
            Err((kind, message)) => (400, json!({ "__type": kind, "message": message })),
        };
        let answer = answer.to_string();
        let response = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: application/x-amz-json-1.1\r\nx-amzn-RequestId: stand-in\r\nContent-Length: {}\r\n\r\n{answer}",
            if status == 200 { "OK" } else { "Bad Request" },
            answer.len()
        );
        socket.write_all(response.as_bytes()).await?;
    }
}

type KmsError = (&'static str, String);

impl Keys {
    fn key(&self, arn: &str) -> Result<&LessSafeKey, KmsError> {
        self.keys.get(arn).ok_or(("NotFoundException", format!("Key '{arn}' does not exist")))
    }

    fn answer(&self, target: &str, body: &Value) -> Result<Value, KmsError> {
        let operation = target.strip_prefix("TrentService.").unwrap_or(target).to_owned();
        let key_id = body["KeyId"].as_str().unwrap_or_default().to_owned();
        let context = body.get("EncryptionContext").cloned().unwrap_or(json!({}));
        let answer = match operation.as_str() {
            "GenerateDataKey" => {
                let n = body["NumberOfBytes"].as_u64().unwrap_or(32) as usize;
                let mut plaintext = vec![0u8; n];
                aws_lc_rs::rand::fill(&mut plaintext).unwrap();
                let blob = self.seal(&key_id, &plaintext, &context)?;
                json!({ "KeyId": key_id, "Plaintext": b64(&plaintext), "CiphertextBlob": b64(&blob) })
            }
            // The key store's calls: a branch key is made without KMS showing its plaintext,
            // and moved between encryption contexts.
            "GenerateDataKeyWithoutPlaintext" => {
                let n = body["NumberOfBytes"].as_u64().unwrap_or(32) as usize;
                let mut plaintext = vec![0u8; n];
                aws_lc_rs::rand::fill(&mut plaintext).unwrap();
                let blob = self.seal(&key_id, &plaintext, &context)?;
                json!({ "KeyId": key_id, "CiphertextBlob": b64(&blob) })
            }
            "ReEncrypt" => {
                let source = body.get("SourceEncryptionContext").cloned().unwrap_or(json!({}));
                let (arn, plaintext) =
                    self.open(&unb64(body["CiphertextBlob"].as_str().unwrap_or_default()), &source)?;
                let wanted = body["SourceKeyId"].as_str().unwrap_or_default();
                if !wanted.is_empty() && wanted != arn {
                    return Err(("IncorrectKeyException", format!("the ciphertext was not encrypted under {wanted}")));
                }
                let destination = body["DestinationKeyId"].as_str().unwrap_or_default().to_owned();
                let context = body.get("DestinationEncryptionContext").cloned().unwrap_or(json!({}));
                let blob = self.seal(&destination, &plaintext, &context)?;
                self.calls.lock().unwrap().push((operation, destination.clone()));
                return Ok(json!({
                    "CiphertextBlob": b64(&blob),
                    "SourceKeyId": arn,
                    "KeyId": destination,
                    "SourceEncryptionAlgorithm": "SYMMETRIC_DEFAULT",
                    "DestinationEncryptionAlgorithm": "SYMMETRIC_DEFAULT"
                }));
            }
            "Encrypt" => {
                let plaintext = unb64(body["Plaintext"].as_str().unwrap_or_default());
                let blob = self.seal(&key_id, &plaintext, &context)?;
                json!({ "KeyId": key_id, "CiphertextBlob": b64(&blob), "EncryptionAlgorithm": "SYMMETRIC_DEFAULT" })
            }
            "Decrypt" => {
                let (arn, plaintext) =
                    self.open(&unb64(body["CiphertextBlob"].as_str().unwrap_or_default()), &context)?;
                if !key_id.is_empty() && key_id != arn {
                    return Err(("IncorrectKeyException", format!("the ciphertext was not encrypted under {key_id}")));
                }
                self.calls.lock().unwrap().push((operation, arn.clone()));
                return Ok(
                    json!({ "KeyId": arn, "Plaintext": b64(&plaintext), "EncryptionAlgorithm": "SYMMETRIC_DEFAULT" }),
                );
            }
            _ => return Err(("UnknownOperationException", format!("the stand-in does not answer {target}"))),
        };
        self.calls.lock().unwrap().push((operation, key_id));
        Ok(answer)
    }

    /// `CiphertextBlob`: the key ARN's length (2 bytes) and text, the nonce, the AES-GCM
    /// ciphertext and tag; the encryption context (sorted) is the additional data.
    fn seal(&self, arn: &str, plaintext: &[u8], context: &Value) -> Result<Vec<u8>, KmsError> {
        let key = self.key(arn)?;
        let mut nonce = [0u8; NONCE_LEN];
        aws_lc_rs::rand::fill(&mut nonce).unwrap();
        let mut sealed = plaintext.to_vec();
        key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad(context)), &mut sealed)
            .unwrap();
        let mut blob = (arn.len() as u16).to_be_bytes().to_vec();
        blob.extend_from_slice(arn.as_bytes());
        blob.extend_from_slice(&nonce);
        blob.extend_from_slice(&sealed);
        Ok(blob)
    }

    fn open(&self, blob: &[u8], context: &Value) -> Result<(String, Vec<u8>), KmsError> {
        let invalid = || ("InvalidCiphertextException", "the ciphertext is invalid".to_owned());
        let n = u16::from_be_bytes(blob.get(..2).ok_or_else(invalid)?.try_into().unwrap()) as usize;
        let arn = std::str::from_utf8(blob.get(2..2 + n).ok_or_else(invalid)?).map_err(|_| invalid())?.to_owned();
        let nonce = blob.get(2 + n..2 + n + NONCE_LEN).ok_or_else(invalid)?;
        let mut sealed = blob[2 + n + NONCE_LEN..].to_vec();
        let key = self.key(&arn)?;
        let plaintext = key
            .open_in_place(Nonce::try_assume_unique_for_key(nonce).unwrap(), Aad::from(aad(context)), &mut sealed)
            .map_err(|_| invalid())?;
        Ok((arn, plaintext.to_vec()))
    }
}

fn aad(context: &Value) -> Vec<u8> {
    let sorted: BTreeMap<String, Value> =
        context.as_object().map(|m| m.clone().into_iter().collect()).unwrap_or_default();
    serde_json::to_vec(&sorted).unwrap()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn b64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            out.push(if i <= chunk.len() { B64[(n >> (18 - 6 * i)) as usize & 63] as char } else { '=' });
        }
    }
    out
}

pub fn unb64(text: &str) -> Vec<u8> {
    let digits: Vec<u32> = text.bytes().filter_map(|c| B64.iter().position(|d| *d == c)).map(|d| d as u32).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, d)| n | (d << (18 - 6 * i)));
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// A KMS client for `endpoint` (the stand-in): static test credentials, the keys' Region, short
/// timeouts and two attempts, so that an unreachable KMS fails an operation soon.
pub fn kms_client(endpoint: &str) -> aws_sdk_kms::Client {
    use aws_sdk_kms::config::{BehaviorVersion, Credentials, Region, retry::RetryConfig, timeout::TimeoutConfig};
    let config = aws_sdk_kms::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new("test-key-id", "test-secret", None, None, "stand-in"))
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(2))
                .operation_attempt_timeout(Duration::from_secs(2))
                .operation_timeout(Duration::from_secs(10))
                .build(),
        )
        .retry_config(RetryConfig::standard().with_max_attempts(2))
        .build();
    aws_sdk_kms::Client::from_conf(config)
}
