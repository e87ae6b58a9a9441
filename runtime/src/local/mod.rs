//! DynamoDB in the process (feature `local`): the open-source engine
//! [`dynoxide`](https://docs.rs/dynoxide-rs) (SQLite underneath, MIT OR Apache-2.0) serves
//! DynamoDB's HTTP API on `127.0.0.1`, in this process, for tests and examples. No JVM, no
//! Node, nothing downloaded or started at run time: `cargo` is all it needs.
//!
//! ```ignore
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use dynamo_entity::Entity;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[pk = "USER#<id>"]
//! struct User { id: String, name: String }
//!
//! // A database of its own, its table made from the entities' schemas: no setup, no cleanup.
//! let table = dynamo_entity::local::table(&[User::SCHEMA]).await?;
//! table.put(&User { id: "u1".into(), name: "Ada".into() }).await?;
//! assert!(table.get(User::key("u1")).await?.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! # Where the endpoint comes from
//!
//! - If `AWS_ENDPOINT_URL_DYNAMODB` is set (and not empty), [`shared_endpoint`], [`client`]
//!   and [`table`] use it and start nothing: the same tests then run against a DynamoDB Local
//!   you run, or any other DynamoDB-compatible server that takes the fixed credentials below.
//!   [`table`] then isolates by name (a table named after this process and a counter) instead
//!   of by database. (AWS itself needs real credentials: build that client with `aws-config`.)
//! - Otherwise [`shared_endpoint`] and [`client`] serve one database for the whole process,
//!   started on the first call (in milliseconds) and kept until the process exits. Tests of
//!   one binary share it, so each names its tables apart.
//! - [`table`] gives each call a database of its own, served by an engine that lives as long
//!   as the returned [`Table`] or any clone of it.
//! - [`Engine::start`] starts an engine owned by the returned handle; dropping it stops it.
//!
//! # How it runs
//!
//! An engine is an in-memory SQLite database and an HTTP server on a port of `127.0.0.1`
//! chosen by the system (port 0), on a thread of its own with a small tokio runtime of its
//! own: it does not depend on the runtime of the caller, so a `static` engine serves every
//! `#[tokio::test]` of a binary. Stopping it (dropping the handle) stops accepting, lets a
//! request under way finish (at most [`STOP_GRACE`]) and joins the thread.
//!
//! Clients are built without `aws-config`: region `us-east-1`, fixed credentials
//! `local`/`local`, the SDK's standard retries and the default
//! [`Timeouts`](crate::Timeouts) (30 s per call, 10 s per attempt). The engine keeps one
//! database for all credentials and regions (DynamoDB Local kept one per access key and
//! region).
//!
//! # What the engine does not do
//!
//! The engine does what a table does; what DynamoDB does around it (throttling, point-in-time
//! recovery and backups, global tables, contributor insights, an index still `CREATING`
//! after its table is made, an index's capacity settings) it does not, and the project's
//! tests inject those answers through an SDK interceptor. Expired items are deleted when
//! [`Engine::sweep_ttl`] is called (DynamoDB deletes them within days, in the background).
//!
//! (The examples here are compiled in the guide's testing chapter, `dynamo_entity::guide::start`.)

use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

use crate::model::entity::EntitySchema;
use crate::table::Table;

/// Environment variable with the endpoint of an already running DynamoDB; when set,
/// [`shared_endpoint`], [`client`] and [`table`] use it and start nothing.
pub const ENDPOINT_ENV: &str = "AWS_ENDPOINT_URL_DYNAMODB";

/// How long a stopping engine lets requests under way finish before it drops them.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// Why DynamoDB could not be served in the process. Every message says what failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum LocalError {
    /// The engine could not open its in-memory database.
    #[error("the embedded DynamoDB engine could not open its in-memory database: {0}")]
    Database(String),
    /// Binding `127.0.0.1`, or starting the engine's thread or runtime, failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: &'static str,
        /// The underlying error.
        #[source]
        source: Arc<io::Error>,
    },
    /// [`table`] could not create the table from the schemas given.
    #[error("creating the table {table} from the entities' schemas failed: {source}")]
    CreateTable {
        /// The table's name.
        table: String,
        /// DynamoDB's (or the definition's) error.
        #[source]
        source: Arc<crate::error::Error>,
    },
}

impl LocalError {
    fn io(context: &'static str) -> impl FnOnce(io::Error) -> LocalError {
        move |source| LocalError::Io { context, source: Arc::new(source) }
    }
}

/// DynamoDB served in this process on `127.0.0.1`, owned by this handle: dropping it stops the
/// server and frees its database.
///
/// See the [module documentation](crate::local) for how it runs.
pub struct Engine {
    endpoint: String,
    port: u16,
    database: dynoxide::Database,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

impl Engine {
    /// Starts an engine with an empty in-memory database, listening on a free port of
    /// `127.0.0.1`. It answers as soon as this returns (the socket is bound before).
    ///
    /// # Errors
    ///
    /// [`LocalError::Database`] if SQLite could not open the database, [`LocalError::Io`] if
    /// no port could be bound or the engine's thread could not start.
    pub fn start() -> Result<Engine, LocalError> {
        let database = dynoxide::Database::memory().map_err(|e| LocalError::Database(e.to_string()))?;
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
            .map_err(LocalError::io("binding a port of 127.0.0.1 for DynamoDB"))?;
        let port = listener.local_addr().map_err(LocalError::io("reading the bound port"))?.port();
        listener.set_nonblocking(true).map_err(LocalError::io("making the listener non-blocking"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("dynamo-entity-local")
            .enable_all()
            .build()
            .map_err(LocalError::io("building the engine's tokio runtime"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = database.clone();
        let thread = std::thread::Builder::new()
            .name("dynamo-entity-local".into())
            .spawn(move || serve(runtime, listener, served, stopped))
            .map_err(LocalError::io("starting the engine's thread"))?;
        Ok(Engine {
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            database,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The endpoint URL, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The TCP port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A new client for this engine (see the module documentation for its settings).
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        client_for(&self.endpoint)
    }

    /// A new DynamoDB Streams client for this engine (it serves the Streams API on the same
    /// endpoint), with the credentials and region of [`Engine::client`].
    #[cfg(feature = "streams")]
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        streams_client_for(&self.endpoint)
    }

    /// Deletes the items whose time-to-live attribute is past, in every table with TTL on, now,
    /// and says how many it deleted. DynamoDB does this by itself in the background, within days
    /// of expiry, writing a stream record for each deletion; the engine does it when asked.
    ///
    /// It blocks the calling thread for as long as the sweep takes (a page of items at a time,
    /// other requests served between pages).
    ///
    /// # Errors
    ///
    /// [`LocalError::Database`] with the engine's message.
    pub fn sweep_ttl(&self) -> Result<usize, LocalError> {
        self.database.sweep_ttl().map_err(|e| LocalError::Database(e.to_string()))
    }
}

/// The engine's thread: serve until told to stop, then give requests under way [`STOP_GRACE`].
fn serve(
    runtime: tokio::runtime::Runtime,
    listener: TcpListener,
    database: dynoxide::Database,
    stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let (told, mut told_rx) = tokio::sync::watch::channel(false);
    runtime.block_on(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
        let shutdown = async move {
            // A dropped sender (the handle gone without a word) stops it as well.
            let _ = stopped.await;
            let _ = told.send(true);
        };
        let server = dynoxide::server::serve_with_shutdown(listener, database, shutdown);
        let grace = async move {
            let _ = told_rx.wait_for(|told| *told).await;
            tokio::time::sleep(STOP_GRACE).await;
        };
        tokio::select! {
            _ = server => {}
            () = grace => {}
        }
    });
    // Connections still open after the grace are dropped with the runtime's tasks.
    runtime.shutdown_timeout(Duration::from_millis(100));
}

impl Drop for Engine {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The engine of this process (or the error of starting it), started on first use and never
/// dropped: its thread ends with the process.
static SHARED: OnceLock<Result<Engine, LocalError>> = OnceLock::new();

/// The endpoint of the DynamoDB shared by this process: `$AWS_ENDPOINT_URL_DYNAMODB` if set,
/// otherwise an [`Engine`] started on the first call and kept until the process exits.
///
/// # Errors
///
/// The error of [`Engine::start`]; it is kept, so later calls return it again without retrying.
pub async fn shared_endpoint() -> Result<String, LocalError> {
    shared_endpoint_now()
}

fn shared_endpoint_now() -> Result<String, LocalError> {
    if let Some(endpoint) = env_endpoint() {
        return Ok(endpoint);
    }
    match SHARED.get_or_init(Engine::start) {
        Ok(engine) => Ok(engine.endpoint.clone()),
        Err(error) => Err(error.clone()),
    }
}

/// A new client for [`shared_endpoint`]. Each call builds a fresh client: tests usually run each
/// in their own tokio runtime, and a client's connection pool must not outlive the runtime it
/// was used in.
///
/// # Errors
///
/// See [`shared_endpoint`].
pub async fn client() -> Result<aws_sdk_dynamodb::Client, LocalError> {
    Ok(client_for(&shared_endpoint_now()?))
}

/// A new DynamoDB Streams client for [`shared_endpoint`] (the engine serves the Streams API on
/// the same endpoint), with the credentials and region of [`client`]: what a
/// [`StreamReader`](crate::stream::StreamReader) of a local table needs.
///
/// # Errors
///
/// See [`shared_endpoint`].
#[cfg(feature = "streams")]
pub async fn streams_client() -> Result<aws_sdk_dynamodbstreams::Client, LocalError> {
    Ok(streams_client_for(&shared_endpoint_now()?))
}

/// A table for a test: on a database of its own (an [`Engine`] kept running as long as the
/// returned `Table` or a clone of it lives), made from the entities' schemas as
/// [`Table::create_table`] makes it. With `$AWS_ENDPOINT_URL_DYNAMODB` set, a new table on that
/// endpoint instead, named `test-<process>-<counter>` (delete it yourself there, or use a
/// throwaway endpoint).
///
/// ```ignore
/// # use dynamo_entity::Entity;
/// # #[derive(Entity)] #[pk = "ROOM#<id>"] struct Room { id: String }
/// #[tokio::test]
/// async fn rooms_are_stored() -> Result<(), Box<dyn std::error::Error>> {
///     let table = dynamo_entity::local::table(&[Room::SCHEMA]).await?;
///     table.put(&Room { id: "r1".into() }).await?;
///     assert!(table.get(Room::key("r1")).await?.is_some());
///     Ok(())
/// }
/// ```
///
/// # Errors
///
/// [`LocalError::CreateTable`] if the schemas do not make a table (two entities disagreeing on
/// an index, say); otherwise the errors of [`Engine::start`].
pub async fn table<S: std::borrow::Borrow<EntitySchema> + Sync>(entities: &[S]) -> Result<Table, LocalError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let (client, name) = match env_endpoint() {
        Some(endpoint) => {
            let name = format!("test-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed));
            (client_for(&endpoint), name)
        }
        None => {
            let engine = Engine::start()?;
            let client = crate::send::with_interceptor(&engine.client(), KeepRunning(Arc::new(engine)));
            (client, "table".to_owned())
        }
    };
    let table = Table::new(client, name);
    table
        .create_table(entities)
        .await
        .map_err(|source| LocalError::CreateTable { table: table.name().to_owned(), source: Arc::new(source) })?;
    Ok(table)
}

/// Holds an engine for as long as a client (and so a table) made for it lives: an interceptor
/// that overrides no hook, so the SDK never calls it.
#[derive(Debug)]
struct KeepRunning(#[allow(dead_code)] Arc<Engine>);

#[aws_smithy_runtime_api::client::interceptors::dyn_dispatch_hint]
impl aws_sdk_dynamodb::config::Intercept for KeepRunning {
    fn name(&self) -> &'static str {
        "dynamo_entity::local::KeepRunning"
    }
}

fn config_builder(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "dynamo-entity-local"))
}

/// A new client for `endpoint` with the settings of [`client`] (region `us-east-1`, credentials
/// `local`/`local`, the default [`Timeouts`](crate::Timeouts), the SDK's standard retries): for a
/// DynamoDB-compatible server at a known address, such as a proxy in front of an [`Engine`].
pub fn client_at(endpoint: &str) -> aws_sdk_dynamodb::Client {
    client_for(endpoint)
}

/// A client with the default [`Timeouts`](crate::Timeouts) (30 s per call, 10 s per attempt) and
/// the SDK's standard retries, as [`Table::new`](crate::Table::new) gives any client.
fn client_for(endpoint: &str) -> aws_sdk_dynamodb::Client {
    let timeouts = crate::send::timeouts::Timeouts::default().apply_to(None);
    aws_sdk_dynamodb::Client::from_conf(config_builder(endpoint).timeout_config(timeouts).build())
}

#[cfg(feature = "streams")]
fn streams_client_for(endpoint: &str) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{
        BehaviorVersion as StreamsBehavior, Credentials as StreamsCredentials, Region as StreamsRegion,
    };
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(StreamsBehavior::latest())
        .endpoint_url(endpoint)
        .region(StreamsRegion::new("us-east-1"))
        .credentials_provider(StreamsCredentials::new("local", "local", None, None, "dynamo-entity-local"))
        .timeout_config(crate::send::timeouts::Timeouts::default().apply_to(None))
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

fn env_endpoint() -> Option<String> {
    std::env::var(ENDPOINT_ENV).ok().filter(|value| !value.is_empty())
}
