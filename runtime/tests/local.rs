#![cfg(feature = "local")]
//! Tests of the embedded engine (`local`): DynamoDB served in this process on 127.0.0.1.
//!
//! One test re-runs this test binary as a child process (the ignored `helper` test) with
//! `AWS_ENDPOINT_URL_DYNAMODB` set, since the environment of this process is not to be changed
//! while other tests run.

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
    TimeToLiveSpecification,
};
use dynamo_entity_runtime::local::{self, Engine};

const HELPER_ENV: &str = "DYNAMO_ENTITY_LOCAL_TEST_HELPER";

/// The shared endpoint seen by the first test that asked for it.
static FIRST_SHARED_ENDPOINT: OnceLock<String> = OnceLock::new();

async fn shared_endpoint_checked() -> String {
    let endpoint = local::shared_endpoint().await.expect("shared engine");
    assert_eq!(local::shared_endpoint().await.expect("shared engine"), endpoint);
    let first = FIRST_SHARED_ENDPOINT.get_or_init(|| endpoint.clone());
    assert_eq!(first, &endpoint, "tests of one binary must share one engine");
    endpoint
}

/// A table name of this process: with `AWS_ENDPOINT_URL_DYNAMODB` set, the shared endpoint
/// outlives the test binary, and a fixed name would exist on the next run.
fn unique(name: &str) -> String {
    format!("{name}_{}", std::process::id())
}

async fn create_table(client: &aws_sdk_dynamodb::Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .expect("attribute definition"),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().expect("key"))
        .send()
        .await
        .expect("create table");
}

fn item(pk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("pk".to_owned(), AttributeValue::S(pk.to_owned())),
        ("name".to_owned(), AttributeValue::S("Ada".to_owned())),
        ("age".to_owned(), AttributeValue::N("36".to_owned())),
    ])
}

async fn get(client: &aws_sdk_dynamodb::Client, table: &str, pk: &str) -> Option<HashMap<String, AttributeValue>> {
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S(pk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .expect("get item");
    got.item().cloned()
}

async fn put_and_get(client: &aws_sdk_dynamodb::Client, table: &str) {
    create_table(client, table).await;
    client.put_item().table_name(table).set_item(Some(item("user#1"))).send().await.expect("put item");
    assert_eq!(get(client, table, "user#1").await, Some(item("user#1")));
    assert_eq!(get(client, table, "user#2").await, None);
}

fn answers_tcp(port: u16) -> bool {
    TcpStream::connect_timeout(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)), Duration::from_millis(500)).is_ok()
}

/// The local addresses of the listening TCP sockets on `port`, read from Linux's
/// `/proc/net/tcp` and `tcp6` (`None` where they cannot be read).
fn listeners(port: u16) -> Option<Vec<String>> {
    let mut found = Vec::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st ...; state 0A is LISTEN.
            let (Some(local), Some(state)) = (fields.get(1), fields.get(3)) else { continue };
            let Some((address, hex_port)) = local.split_once(':') else { continue };
            if *state == "0A" && u16::from_str_radix(hex_port, 16).ok() == Some(port) {
                found.push(address.to_owned());
            }
        }
    }
    std::path::Path::new("/proc/net/tcp").exists().then_some(found)
}

#[tokio::test]
async fn shared_engine_creates_tables_and_stores_items() {
    let endpoint = shared_endpoint_checked().await;
    assert!(endpoint.starts_with("http://127.0.0.1:"), "{endpoint}");
    let client = local::client().await.expect("client");
    put_and_get(&client, &unique("local_test_a")).await;
}

#[tokio::test]
async fn second_test_uses_the_same_shared_engine() {
    shared_endpoint_checked().await;
    // A separate client (and runtime) sees tables created through another client.
    let client = local::client().await.expect("client");
    let table = unique("local_test_b");
    create_table(&client, &table).await;
    let other = local::client().await.expect("client");
    let described = other.describe_table().table_name(&table).send().await.expect("describe table");
    assert_eq!(described.table().and_then(|t| t.table_name()), Some(table.as_str()));
}

/// The shared engine outlives the runtime of the test that started it: a `#[test]` with a
/// runtime of its own, built and dropped twice, reaches it both times.
#[test]
fn the_shared_engine_serves_every_runtime_of_the_process() {
    for round in 0..2 {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async {
            let client = local::client().await.expect("client");
            let table = unique(&format!("local_test_runtime_{round}"));
            put_and_get(&client, &table).await;
        });
        drop(runtime);
    }
}

#[tokio::test]
async fn dropping_an_engine_stops_it_and_frees_its_port() {
    let engine = Engine::start().expect("start the engine");
    let port = engine.port();
    assert_eq!(engine.endpoint(), format!("http://127.0.0.1:{port}"));
    // An engine of its own has a database of its own.
    put_and_get(&engine.client(), "local_test_separate").await;
    let shared = local::client().await.expect("client");
    assert!(shared.describe_table().table_name("local_test_separate").send().await.is_err());
    assert!(answers_tcp(port));

    drop(engine);

    assert!(!answers_tcp(port), "the port of a dropped engine still accepts connections");
}

#[tokio::test]
async fn the_engine_listens_on_the_loopback_address_only() {
    let engine = Engine::start().expect("start the engine");
    let Some(found) = listeners(engine.port()) else { return };
    assert!(!found.is_empty(), "no listener on port {}", engine.port());
    // 127.0.0.1 in /proc/net/tcp's byte order.
    assert_eq!(found, vec!["0100007F".to_owned()], "listeners on port {}", engine.port());
    assert!(engine.client().list_tables().send().await.is_ok());
}

#[tokio::test]
async fn expired_items_go_when_the_engine_sweeps() {
    let engine = Engine::start().expect("start the engine");
    let client = engine.client();
    create_table(&client, "ttl").await;
    client
        .update_time_to_live()
        .table_name("ttl")
        .time_to_live_specification(
            TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap(),
        )
        .send()
        .await
        .expect("TTL on");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    for (pk, at) in [("past", now - 60), ("future", now + 3600)] {
        let mut it = item(pk);
        it.insert("expires".into(), AttributeValue::N(at.to_string()));
        client.put_item().table_name("ttl").set_item(Some(it)).send().await.unwrap();
    }
    // Not an epoch-seconds number: DynamoDB never expires it.
    let mut text = item("text");
    text.insert("expires".into(), AttributeValue::S("0".into()));
    client.put_item().table_name("ttl").set_item(Some(text)).send().await.unwrap();
    assert_eq!(engine.sweep_ttl().expect("sweep"), 1);
    assert_eq!(get(&client, "ttl", "past").await, None);
    assert!(get(&client, "ttl", "future").await.is_some());
    assert!(get(&client, "ttl", "text").await.is_some());
}

#[test]
fn endpoint_variable_is_used_without_starting_anything() {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args(["--ignored", "--exact", "helper", "--nocapture", "--test-threads=1"])
        .env(HELPER_ENV, "1")
        .env(local::ENDPOINT_ENV, "http://127.0.0.1:9")
        .output()
        .expect("run the helper");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("ENDPOINT http://127.0.0.1:9\n"), "{stdout}");
    assert!(stdout.contains("THREADS 0\n"), "{stdout}");
}

/// Run by `endpoint_variable_is_used_without_starting_anything` in a child process.
#[tokio::test]
#[ignore = "run as a child process by another test"]
async fn helper() {
    if std::env::var_os(HELPER_ENV).is_none() {
        return;
    }
    let endpoint = local::shared_endpoint().await.expect("endpoint");
    println!("ENDPOINT {endpoint}");
    // No engine thread was started.
    let threads = std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|comm| comm.starts_with("dynamo-entity-l"))
                .count()
        })
        .unwrap_or(0);
    println!("THREADS {threads}");
}
