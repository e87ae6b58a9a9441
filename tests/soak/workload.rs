//! The workload: `clients` concurrent tasks, each drawing its operations from its own stream of
//! the seed, over one table; a backfill (and, when enabled, a migrate) runs in the middle
//! beside them.

use dynamo_entity::prelude::*;
use std::collections::HashMap;
use std::future::IntoFuture;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::retry::RetryConfig;
use dynamo_entity::{AttributeValue, Error, Item, Table};

use super::faults::{self, FaultCounts, FaultRates, Faults, Meter, MeterRef, OpFaults, TenantWatch};
use super::fourth;
use super::history::{Effect, Op, Outcome, PageRec, PageSeq, classify, throttled_cancel};
use super::model::{Account, Doc, Event, Head, Log, Member, Note, Ticket, TicketV1};
use super::rng::Rng;

/// Accounts `a0..` created before the run, written by every client.
pub const SHARED_ACCOUNTS: u64 = 10;
/// Accounts `L0..` written raw before the run as older code did (no index keys, no guard):
/// the backfill completes them while clients write them.
pub const LEGACY_ACCOUNTS: u64 = 6;
/// The pool of emails every client draws from: the unique field is contended.
pub const EMAILS: u64 = 10;
pub const FEEDS: u64 = 2;
pub const TENANTS: u64 = 3;
pub const HANDLES: u64 = 5;
pub const CODES: u64 = 6;
const ORGS: &[&str] = &["acme", "globex", "initech"];
const ROLES: &[&str] = &["admin", "dev", "ops"];

/// Issue 33 item 2: an in-place `migrate` to a new type name left the value unguarded (the
/// checker reported a `Ticket` without its guard, and a second ticket holding the same code).
/// Fixed: guards follow the item from as read to as written, so it runs in the bounded soak.
pub const MIGRATE_TICKETS_IN_PLACE: bool = true;

/// Issue 33 item 1: a merged shard cursor lost items written between pages into a shard it
/// read to the end, and returned out of order items written behind a shard's own position but
/// before the merged position (seed 1). Fixed: page sequences read the sharded events
/// partition too.
pub const PAGE_SHARDED_PARTITION: bool = true;

/// Issue 33 item 7: the rate limit did not hold under concurrency (a request was debited after
/// the fact; 6 clients overran it). Fixed: the clients' handle is limited and the checker holds
/// every one-second window of the units DynamoDB reported to [`RATE_WINDOW_SLACK`] times the
/// limit.
pub const RATE_LIMIT: Option<(f64, f64)> = Some((40.0, 20.0));

/// A bucket that holds one second of units and starts full admits up to twice the rate in one
/// window (the full bucket, then a second's refill).
pub const RATE_WINDOW_SLACK: f64 = 2.0;

/// Issue 33 item 8: a transaction DynamoDB cancels for throttling was neither retried nor seen
/// by the limiter. Fixed: every operation that ends in such a cancellation (injected with
/// `FaultRates::tx_throttled`) is a violation.
pub const CHECK_THROTTLED_TRANSACTIONS_RETRIED: bool = true;

// The fourth stage's parts (issue 45 item 20), each switched by a `Config` field. A part whose
// library fix has not landed fails the checker today; `tests/soak.rs` switches those off and
// says which.

/// Issue 45 item 20: nested updates of a versioned entity with a unique field ([`Profile`]):
/// concurrent updates of one document, version conflicts. Every acknowledged nested change is
/// in the final item at the version its answer said.
///
/// [`Profile`]: super::model::Profile
pub const SOAK_NESTED_UPDATES: bool = true;

/// Issue 45 item 12: a nested update under a missing parent through the `#[unique]` path is a
/// bare `ValidationException`, not `Error::MissingParent` (the checker reports each one).
pub const SOAK_NESTED_MISSING_PARENT: bool = true;

/// Issue 45 item 20: an entity with `#[created_at]` in its sort key and in an index's
/// ([`Order`]), written by `create` and `put`, its feed read through the index.
///
/// [`Order`]: super::model::Order
pub const SOAK_FILLED_TIMES: bool = true;

/// Issue 45 items 1-2: an upsert of [`Order`](super::model::Order) writes an item the library
/// cannot read (the key's time is the caller's, the stored one the clock's), and leaves it out
/// of the index keyed on the time. The checker reports both.
pub const SOAK_FILLED_UPSERT: bool = true;

/// Issue 45 item 20: docs of integer tenants ([`Doc`](super::model::Doc)) written through
/// their tenants' handles, on a multi-attribute index led by the tenant.
pub const SOAK_TENANT_DOCS: bool = true;

/// Issue 45 item 3: the multi-attribute index queried through the tenant handles: today the
/// tenant's own handle (`0000000007`) is refused its index query, and a handle of the unpadded
/// number (`7`) reads tenant `0000000007`'s items. Off: the index is queried through the table.
pub const SOAK_TENANT_MULTI_ATTRIBUTE: bool = true;

/// Issue 45 item 20: `write_batch` of events, notes and marks (puts and deletes) in one batch.
pub const SOAK_WRITE_BATCH: bool = true;

/// Issue 45 item 20 (items 9-10 change `apply`; adding an index works today): the table starts
/// without `GSI3`, which a background `apply` adds in the middle while the clients write.
pub const SOAK_APPLY_INDEX: bool = true;

/// Issue 45 item 8: each head's counter is exact (every `ADD` applied once if acknowledged,
/// never if refused, at most once if indeterminate) instead of a range that allows the SDK's
/// resends. Half the `ADD`s are sent `.idempotent()` ([`super::fourth::head_add`]).
pub const SOAK_EXACT_COUNTERS: bool = true;

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    pub seed: u64,
    pub clients: usize,
    /// Operations per client (the bounded run), unless `seconds` is set.
    pub ops_per_client: u64,
    /// Run for this long instead (the long run).
    pub seconds: Option<f64>,
    pub faults: FaultRates,
    pub backfill: bool,
    /// Migrate tickets in place in the middle ([`MIGRATE_TICKETS_IN_PLACE`]).
    pub migrate: bool,
    /// Page through the sharded partition too ([`PAGE_SHARDED_PARTITION`]).
    pub page_sharded: bool,
    /// Hold throttled transactions to be retried ([`CHECK_THROTTLED_TRANSACTIONS_RETRIED`]).
    pub check_throttled_transactions: bool,
    /// (read, write) units per second of the clients' handle ([`RATE_LIMIT`]).
    pub rate_limit: Option<(f64, f64)>,
    /// [`SOAK_NESTED_UPDATES`].
    pub nested: bool,
    /// [`SOAK_NESTED_MISSING_PARENT`].
    pub nested_missing_parent: bool,
    /// [`SOAK_FILLED_TIMES`].
    pub filled: bool,
    /// [`SOAK_FILLED_UPSERT`].
    pub filled_upsert: bool,
    /// [`SOAK_TENANT_DOCS`].
    pub docs: bool,
    /// [`SOAK_TENANT_MULTI_ATTRIBUTE`].
    pub tenant_multi_attribute: bool,
    /// [`SOAK_WRITE_BATCH`].
    pub write_batch: bool,
    /// [`SOAK_APPLY_INDEX`].
    pub apply_index: bool,
    /// [`SOAK_EXACT_COUNTERS`].
    pub exact_counters: bool,
}

impl Config {
    pub fn bounded(seed: u64) -> Self {
        Config {
            seed,
            clients: 6,
            ops_per_client: 25,
            seconds: None,
            faults: FaultRates::DEFAULT,
            backfill: true,
            migrate: MIGRATE_TICKETS_IN_PLACE,
            page_sharded: PAGE_SHARDED_PARTITION,
            check_throttled_transactions: CHECK_THROTTLED_TRANSACTIONS_RETRIED,
            rate_limit: RATE_LIMIT,
            nested: SOAK_NESTED_UPDATES,
            nested_missing_parent: SOAK_NESTED_MISSING_PARENT,
            filled: SOAK_FILLED_TIMES,
            filled_upsert: SOAK_FILLED_UPSERT,
            docs: SOAK_TENANT_DOCS,
            tenant_multi_attribute: SOAK_TENANT_MULTI_ATTRIBUTE,
            write_batch: SOAK_WRITE_BATCH,
            apply_index: SOAK_APPLY_INDEX,
            exact_counters: SOAK_EXACT_COUNTERS,
        }
    }

    /// The fourth stage's switches, by the names the long run's `--on`/`--off` take.
    pub const SWITCHES: &'static [&'static str] = &[
        "nested",
        "missing-parent",
        "filled",
        "filled-upsert",
        "docs",
        "tenant-multi-attribute",
        "write-batch",
        "apply-index",
        "exact-counters",
    ];

    /// Sets the switch `name` (one of [`Config::SWITCHES`]); false if there is none.
    pub fn switch(&mut self, name: &str, on: bool) -> bool {
        let field = match name {
            "nested" => &mut self.nested,
            "missing-parent" => &mut self.nested_missing_parent,
            "filled" => &mut self.filled,
            "filled-upsert" => &mut self.filled_upsert,
            "docs" => &mut self.docs,
            "tenant-multi-attribute" => &mut self.tenant_multi_attribute,
            "write-batch" => &mut self.write_batch,
            "apply-index" => &mut self.apply_index,
            "exact-counters" => &mut self.exact_counters,
            _ => return false,
        };
        *field = on;
        true
    }
}

/// Everything the clients share.
#[derive(Debug)]
pub struct World {
    pub config: Config,
    /// The table without faults: setup and the checker's raw reads.
    pub base: Table,
    /// The table through the fault interceptor.
    pub table: Table,
    /// One handle per tenant, each through its own client (fault interceptor and tenant watch).
    pub tenants: Vec<Table>,
    /// One handle per integer tenant of [`fourth::ORG_NOS`] (its padded key text).
    pub docs: Vec<Table>,
    /// A handle whose tenant is the first integer tenant's number unpadded (`7`).
    pub loose_docs: Table,
    /// `apply` added the index the table started without (or there was none to add).
    pub applied: AtomicBool,
    pub faults: Arc<FaultCounts>,
    pub meter: Arc<Meter>,
    pub tenant_requests: Arc<AtomicU64>,
    pub tenant_violations: Arc<Mutex<Vec<String>>>,
    tick: AtomicU64,
    seq: AtomicU64,
    pub history: Mutex<Vec<Op>>,
    pub ops_done: AtomicU64,
    pub migrated: AtomicBool,
    /// Keys a backfill reported failed (the checker does not hold their guards and index keys
    /// against them: the report said so), and what the background jobs reported.
    pub backfill_failed: Mutex<Vec<(String, Option<String>)>>,
    pub background: Mutex<Vec<String>>,
    started: Instant,
}

/// Adds an interceptor to a client's configuration.
type AddInterceptor = Box<dyn FnOnce(&mut aws_sdk_dynamodb::config::Builder)>;

fn client_with(base: &Table, interceptors: Vec<AddInterceptor>) -> Table {
    let mut config = base.client().config().to_builder();
    // The SDK's retries as configured by default (3 attempts), with a short first backoff: the
    // injected throttling would otherwise spend most of a bounded run asleep.
    config.set_retry_config(Some(RetryConfig::standard().with_initial_backoff(Duration::from_millis(10))));
    for add in interceptors {
        add(&mut config);
    }
    Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), base.name().to_owned())
}

impl World {
    /// A fresh table named `name` on DynamoDB Local, with the run's handles.
    pub async fn new(config: Config, name: String) -> Arc<World> {
        let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
        let base = Table::new(client, name.clone());
        base.create_table_from(&fourth::initial_definition(config.apply_index)).await.expect("create table");
        let counts = Arc::new(FaultCounts::default());
        let faults = |n: u64| {
            let f = Faults::new(config.seed ^ n, config.faults, &name, counts.clone());
            Box::new(move |c: &mut aws_sdk_dynamodb::config::Builder| {
                c.push_interceptor(aws_sdk_dynamodb::config::SharedInterceptor::new(f));
            }) as AddInterceptor
        };
        let meter = Arc::new(Meter { started: Some(Instant::now()), ..Meter::default() });
        let metered = meter.clone();
        let meter_it = Box::new(move |c: &mut aws_sdk_dynamodb::config::Builder| {
            c.push_interceptor(aws_sdk_dynamodb::config::SharedInterceptor::new(MeterRef(metered)));
        }) as AddInterceptor;
        let mut table = client_with(&base, vec![faults(0), meter_it]);
        if let Some((read, write)) = config.rate_limit {
            table = table.with_rate_limit(dynamo_entity::RateLimit::per_second(read, write));
        }
        let tenant_requests = Arc::new(AtomicU64::new(0));
        let tenant_violations = Arc::new(Mutex::new(Vec::new()));
        let watched = |tenant: String, number: Option<String>, n: u64| {
            let watch = TenantWatch {
                tenant: tenant.clone(),
                number,
                requests: tenant_requests.clone(),
                violations: tenant_violations.clone(),
            };
            let watch = Box::new(move |c: &mut aws_sdk_dynamodb::config::Builder| {
                c.push_interceptor(aws_sdk_dynamodb::config::SharedInterceptor::new(watch));
            }) as AddInterceptor;
            client_with(&base, vec![watch, faults(n)]).for_tenant(tenant)
        };
        let docs = fourth::ORG_NOS
            .iter()
            .enumerate()
            .map(|(k, &org)| watched(fourth::org_text(org), Some(org.to_string()), 100 + k as u64))
            .collect();
        let loose_docs = watched(fourth::ORG_NOS[0].to_string(), None, 200);
        let tenants = (0..TENANTS)
            .map(|t| {
                let watch = TenantWatch {
                    tenant: format!("t{t}"),
                    number: None,
                    requests: tenant_requests.clone(),
                    violations: tenant_violations.clone(),
                };
                let watch = Box::new(move |c: &mut aws_sdk_dynamodb::config::Builder| {
                    c.push_interceptor(aws_sdk_dynamodb::config::SharedInterceptor::new(watch));
                }) as AddInterceptor;
                // The watch first: it reads each request before a fault replaces it.
                client_with(&base, vec![watch, faults(t + 1)]).for_tenant(format!("t{t}"))
            })
            .collect();
        let applied = AtomicBool::new(!config.apply_index);
        Arc::new(World {
            applied,
            config,
            base,
            table,
            tenants,
            docs,
            loose_docs,
            faults: counts,
            meter,
            tenant_requests,
            tenant_violations,
            tick: AtomicU64::new(1),
            seq: AtomicU64::new(1_000),
            history: Mutex::new(Vec::new()),
            ops_done: AtomicU64::new(0),
            migrated: AtomicBool::new(false),
            backfill_failed: Mutex::new(Vec::new()),
            background: Mutex::new(Vec::new()),
            started: Instant::now(),
        })
    }

    /// A sequence number from the clock (after every cursor).
    pub fn next_seq(&self) -> u64 {
        self.seq.fetch_add(1, Ordering::SeqCst)
    }

    fn tick(&self) -> u64 {
        self.tick.fetch_add(1, Ordering::SeqCst)
    }

    fn push(&self, op: Op) {
        self.history.lock().unwrap().push(op);
    }

    /// How far the run is, from 0 to 1.
    fn progress(&self) -> f64 {
        match self.config.seconds {
            Some(s) => self.started.elapsed().as_secs_f64() / s,
            None => {
                self.ops_done.load(Ordering::Relaxed) as f64
                    / (self.config.ops_per_client * self.config.clients as u64).max(1) as f64
            }
        }
    }
}

/// A result with its outcome and times.
pub struct Ran<T> {
    pub result: Result<T, Error>,
    pub outcome: Outcome,
    invoke: u64,
    complete: u64,
    drops: u64,
    resent: u64,
    micros: u64,
}

pub async fn run<T>(w: &World, fut: impl IntoFuture<Output = Result<T, Error>>) -> Ran<T> {
    let faults = Arc::new(OpFaults::default());
    let invoke = w.tick();
    let started = Instant::now();
    let result = faults::OP.scope(faults.clone(), fut.into_future()).await;
    let complete = w.tick();
    let outcome = classify(&result, &faults);
    let drops = faults.dropped.load(Ordering::Relaxed);
    let resent = faults.resent.load(Ordering::Relaxed);
    Ran { result, outcome, invoke, complete, drops, resent, micros: started.elapsed().as_micros() as u64 }
}

pub fn record<T>(w: &World, client: usize, name: &'static str, ran: &Ran<T>, effects: Vec<Effect>) {
    let error = ran.result.as_ref().err();
    w.push(Op {
        client,
        name,
        invoke: ran.invoke,
        complete: ran.complete,
        outcome: ran.outcome,
        drops: ran.drops,
        resent: ran.resent,
        micros: ran.micros,
        error: error.map(|e| e.to_string()),
        throttled_cancel: error.is_some_and(throttled_cancel),
        effects,
    });
}

fn email(rng: &mut Rng) -> String {
    format!("e{}@x.io", rng.below(EMAILS))
}

pub fn pick<'a, T>(rng: &mut Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.below(xs.len() as u64) as usize]
}

pub fn event_sk(seq: u64, id: &str) -> String {
    format!("EV#{seq:010}#{id}")
}

pub fn note_sk(seq: u64, id: &str) -> String {
    format!("N#{seq:010}#{id}")
}

/// Writes what exists before the run (fault free) and records it as acknowledged at tick 0.
pub async fn setup(w: &World) {
    let mut effects = Vec::new();
    for k in 0..SHARED_ACCOUNTS {
        let a = Account {
            id: format!("a{k}"),
            org: ORGS[k as usize % ORGS.len()].into(),
            email: format!("init-a{k}@x.io"),
            nick: None,
            balance: 100,
            version: 0,
        };
        w.base.create(&a).await.expect("setup account");
        effects.push(Effect::Account { id: a.id.clone(), delete: false, after: Some(Account { version: 1, ..a }) });
    }
    for k in 0..LEGACY_ACCOUNTS {
        // As code from before the email was unique and the indexes existed wrote it.
        let a = Account {
            id: format!("L{k}"),
            org: ORGS[k as usize % ORGS.len()].into(),
            email: format!("legacy{k}@x.io"),
            nick: None,
            balance: 7,
            version: 1,
        };
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let item: Item = [
            ("PK", s(&format!("ACCT#{}", a.id))),
            ("SK", s("PROFILE")),
            ("entity_type", s("Account")),
            ("id", s(&a.id)),
            ("org", s(&a.org)),
            ("email", s(&a.email)),
            ("balance", AttributeValue::N("7".into())),
            ("version", AttributeValue::N("1".into())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        w.base.client().put_item().table_name(w.base.name()).set_item(Some(item)).send().await.expect("legacy item");
        effects.push(Effect::Account { id: a.id.clone(), delete: false, after: Some(a) });
    }
    for f in 0..FEEDS {
        w.base.put(&Head { feed: format!("f{f}"), notes: 0 }).await.expect("setup head");
    }
    if w.config.nested {
        effects.extend(fourth::setup_profiles(w).await);
    }
    w.push(Op {
        client: usize::MAX,
        name: "setup",
        invoke: 0,
        complete: 0,
        outcome: Outcome::Acked,
        drops: 0,
        resent: 0,
        micros: 0,
        error: None,
        throttled_cancel: false,
        effects,
    });
}

/// One client's own state: its copies of accounts (possibly stale), what it created.
#[derive(Default)]
pub struct Client {
    pub c: usize,
    copies: HashMap<String, Account>,
    owned: Vec<String>,
    members: Vec<Member>,
    /// Ticket ids, and whether created in the old form.
    tickets: Vec<(String, bool)>,
    pub n: u64,
    /// The last version of each profile this client saw.
    pub profile_versions: HashMap<String, u64>,
    /// The docs this client created (and has not deleted).
    pub docs: Vec<Doc>,
    /// The marks this client put (and has not deleted).
    pub marks: Vec<u64>,
}

impl Client {
    pub fn fresh(&mut self, what: &str) -> String {
        self.n += 1;
        format!("c{}{what}{}", self.c, self.n)
    }
}

/// Runs client `c` to the end of the run.
pub async fn client(w: Arc<World>, c: usize) {
    let mut rng = Rng::stream(w.config.seed, c as u64 + 1);
    let mut me = Client { c, ..Client::default() };
    let mut done = 0u64;
    loop {
        match w.config.seconds {
            Some(s) if w.started.elapsed().as_secs_f64() >= s => break,
            None if done >= w.config.ops_per_client => break,
            _ => {}
        }
        let dice = rng.below(100);
        let cf = &w.config;
        match dice {
            0..=29 => account_op(&w, &mut me, &mut rng).await,
            30..=43 => feed_op(&w, &mut me, &mut rng).await,
            44..=49 => pages(&w, &mut me, &mut rng).await,
            50..=63 => member_op(&w, &mut me, &mut rng).await,
            64..=73 => ticket_op(&w, &mut me, &mut rng).await,
            74..=83 if cf.nested => fourth::profile_op(&w, &mut me, &mut rng).await,
            84..=89 if cf.filled => fourth::order_op(&w, &mut me, &mut rng).await,
            90..=95 if cf.docs => fourth::doc_op(&w, &mut me, &mut rng).await,
            96..=99 if cf.write_batch => fourth::batch_op(&w, &mut me, &mut rng).await,
            // A part switched off: the third stage's operations instead.
            74..=83 => account_op(&w, &mut me, &mut rng).await,
            84..=89 => feed_op(&w, &mut me, &mut rng).await,
            90..=95 => member_op(&w, &mut me, &mut rng).await,
            _ => ticket_op(&w, &mut me, &mut rng).await,
        }
        done += 1;
        w.ops_done.fetch_add(1, Ordering::Relaxed);
    }
}

/// An account id: a shared one mostly, else one of the client's own.
fn account_id(me: &Client, rng: &mut Rng) -> String {
    if me.owned.is_empty() || rng.chance(0.6) {
        if rng.chance(0.25) {
            format!("L{}", rng.below(LEGACY_ACCOUNTS))
        } else {
            format!("a{}", rng.below(SHARED_ACCOUNTS))
        }
    } else {
        pick(rng, &me.owned).clone()
    }
}

async fn refresh(w: &World, me: &mut Client, id: &str) {
    let ran = run(w, w.table.get_consistent(Account::key(id))).await;
    let version = match &ran.result {
        Ok(Some(a)) => {
            me.copies.insert(id.to_owned(), a.clone());
            Some(a.version)
        }
        Ok(None) => {
            me.copies.remove(id);
            None
        }
        Err(_) => None,
    };
    let effects = if ran.result.is_ok() { vec![Effect::AccountRead { id: id.to_owned(), version }] } else { vec![] };
    record(w, me.c, "get", &ran, effects);
}

/// The effects of an account write. `read_back`: the entity returned is read after the write
/// (a guarded update: a transaction returns no item), so another writer's later state may be
/// in it; it counts as a read, and the state the write produced is unknown.
fn account_effect(ran: &Ran<Account>, id: &str, intended: Option<Account>, read_back: bool) -> Vec<Effect> {
    match (&ran.result, read_back) {
        (Ok(a), true) => vec![
            Effect::Account { id: id.to_owned(), delete: false, after: None },
            Effect::AccountRead { id: id.to_owned(), version: Some(a.version) },
        ],
        (Ok(a), false) => vec![Effect::Account { id: id.to_owned(), delete: false, after: Some(a.clone()) }],
        (Err(_), _) => vec![Effect::Account { id: id.to_owned(), delete: false, after: intended }],
    }
}

async fn account_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let id = account_id(me, rng);
    let copy = me.copies.get(&id).cloned();
    match rng.below(10) {
        0 => refresh(w, me, &id).await,
        1 => {
            // put from the (possibly stale) copy: optimistic on its version.
            let Some(mut a) = copy else { return refresh(w, me, &id).await };
            a.balance += 1;
            if rng.chance(0.3) {
                a.email = email(rng);
            }
            let intended = Account { version: a.version + 1, ..a.clone() };
            let ran = run(w, async { w.table.put(&a).await.map(|()| intended.clone()) }).await;
            if let Ok(new) = &ran.result {
                me.copies.insert(id.clone(), new.clone());
            }
            record(w, me.c, "put", &ran, account_effect(&ran, &id, Some(intended), false));
        }
        2 | 3 => {
            // update_from a (possibly stale) copy: `set` of a sparse, a sharded and a unique field.
            let Some(a) = copy else { return refresh(w, me, &id).await };
            let mut u = Account::update_from(&a);
            let unique = rng.below(3);
            match unique {
                0 if rng.chance(0.3) => u = u.remove(Account::fields().nick),
                0 => u = u.set(Account::fields().nick, format!("n{}", rng.below(4))),
                1 => u = u.set(Account::fields().org, pick(rng, ORGS).to_string()),
                _ => u = u.set(Account::fields().email, email(rng)),
            }
            let ran = run(w, w.table.update(u)).await;
            if let Ok(new) = &ran.result {
                me.copies.insert(id.clone(), new.clone());
            }
            record(w, me.c, "update_from", &ran, account_effect(&ran, &id, None, unique == 2));
        }
        4 => {
            // ADD without a version check.
            let ran = run(
                w,
                w.table
                    .update(Account::update(Account::key(&id)).add(Account::fields().balance, 1 + rng.below(5) as i64)),
            )
            .await;
            if let Ok(new) = &ran.result {
                me.copies.insert(id.clone(), new.clone());
            }
            record(w, me.c, "update_add", &ran, account_effect(&ran, &id, None, false));
        }
        5 => {
            // A plain update of the unique field (the guards move with it).
            let ran =
                run(w, w.table.update(Account::update(Account::key(&id)).set(Account::fields().email, email(rng))))
                    .await;
            if let Ok(new) = &ran.result {
                me.copies.insert(id.clone(), new.clone());
            }
            record(w, me.c, "update_email", &ran, account_effect(&ran, &id, None, true));
        }
        6 => {
            let Some(a) = copy else { return refresh(w, me, &id).await };
            let u = Account::update(Account::key(&id))
                .if_version(a.version)
                .set(Account::fields().org, pick(rng, ORGS).to_string());
            let ran = run(w, w.table.update(u)).await;
            if let Ok(new) = &ran.result {
                me.copies.insert(id.clone(), new.clone());
            }
            record(w, me.c, "update_if_version", &ran, account_effect(&ran, &id, None, false));
        }
        7 => {
            let new = Account {
                id: me.fresh("-"),
                org: pick(rng, ORGS).to_string(),
                email: email(rng),
                nick: rng.chance(0.5).then(|| format!("n{}", rng.below(4))),
                balance: 0,
                version: 0,
            };
            let intended = Account { version: 1, ..new.clone() };
            let ran = run(w, async { w.table.create(&new).await.map(|()| intended.clone()) }).await;
            if ran.outcome != Outcome::Failed {
                me.owned.push(new.id.clone());
            }
            if let Ok(a) = &ran.result {
                me.copies.insert(a.id.clone(), a.clone());
            }
            record(w, me.c, "create", &ran, account_effect(&ran, &new.id, Some(intended), false));
        }
        8 => {
            // Delete one of the client's own accounts (never created again: ids are fresh).
            if me.owned.is_empty() {
                return refresh(w, me, &id).await;
            }
            let id = me.owned.swap_remove(rng.below(me.owned.len() as u64) as usize);
            let ran = run(w, w.table.delete(Account::key(&id))).await;
            me.copies.remove(&id);
            record(w, me.c, "delete", &ran, vec![Effect::Account { id, delete: true, after: None }]);
        }
        _ => transaction(w, me, rng).await,
    }
}

async fn transaction(w: &World, me: &mut Client, rng: &mut Rng) {
    if rng.chance(0.5) {
        // A transfer between two shared accounts, each checked on the version of the copy.
        let (x, y) = (format!("a{}", rng.below(SHARED_ACCOUNTS)), format!("a{}", rng.below(SHARED_ACCOUNTS)));
        let (Some(a), Some(b)) = (me.copies.get(&x).cloned(), me.copies.get(&y).cloned()) else {
            return refresh(w, me, if me.copies.contains_key(&x) { &y } else { &x }).await;
        };
        if x == y {
            return refresh(w, me, &x).await;
        }
        let d = 1 + rng.below(3) as i64;
        let tx = w
            .table
            .transact()
            .update(Account::update_from(&a).add(Account::fields().balance, -d))
            .update(Account::update_from(&b).add(Account::fields().balance, d));
        let ran = run(w, tx.send()).await;
        let na = Account { balance: a.balance - d, version: a.version + 1, ..a };
        let nb = Account { balance: b.balance + d, version: b.version + 1, ..b };
        if ran.result.is_ok() {
            me.copies.insert(x.clone(), na.clone());
            me.copies.insert(y.clone(), nb.clone());
        }
        let effects = vec![
            Effect::Account { id: x, delete: false, after: Some(na) },
            Effect::Account { id: y, delete: false, after: Some(nb) },
        ];
        record(w, me.c, "transact_transfer", &ran, effects);
    } else {
        // A new account and a note, together (the account's email guard joins the transaction).
        let feed = format!("f{}", rng.below(FEEDS));
        let acct = Account {
            id: me.fresh("-"),
            org: pick(rng, ORGS).to_string(),
            email: email(rng),
            nick: None,
            balance: 0,
            version: 0,
        };
        let note =
            Note { feed: feed.clone(), seq: w.seq.fetch_add(1, Ordering::SeqCst), id: me.fresh("n"), by: me.c as u32 };
        let ran = run(w, w.table.transact().create(&acct).put(&note).send()).await;
        if ran.outcome != Outcome::Failed {
            me.owned.push(acct.id.clone());
        }
        let after = Account { version: 1, ..acct.clone() };
        if ran.result.is_ok() {
            me.copies.insert(acct.id.clone(), after.clone());
        }
        let effects = vec![
            Effect::Account { id: acct.id.clone(), delete: false, after: Some(after) },
            Effect::Note { feed, sk: note_sk(note.seq, &note.id) },
        ];
        record(w, me.c, "transact_create", &ran, effects);
    }
}

/// Appends to the feeds: events (sharded), notes (unsharded), alone or in batches, and the
/// heads' counters.
async fn feed_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let feed = format!("f{}", rng.below(FEEDS));
    feed_write(w, me, rng, &feed).await;
}

async fn feed_write(w: &World, me: &mut Client, rng: &mut Rng, feed: &str) {
    // Mostly after every cursor (a sequence number from the clock), sometimes far behind.
    let seq = |rng: &mut Rng| if rng.chance(0.1) { rng.below(1_000) } else { w.seq.fetch_add(1, Ordering::SeqCst) };
    match rng.below(6) {
        0 | 1 => {
            let e = Event { feed: feed.into(), seq: seq(rng), id: me.fresh("e"), by: me.c as u32 };
            let ran = run(w, w.table.put(&e)).await;
            record(w, me.c, "put_event", &ran, vec![Effect::Event { feed: feed.into(), sk: event_sk(e.seq, &e.id) }]);
        }
        2 => {
            let events: Vec<Event> = (0..2 + rng.below(10))
                .map(|_| Event { feed: feed.into(), seq: seq(rng), id: me.fresh("e"), by: me.c as u32 })
                .collect();
            let ran = run(w, w.table.batch_put(&events)).await;
            let effects =
                events.iter().map(|e| Effect::Event { feed: feed.into(), sk: event_sk(e.seq, &e.id) }).collect();
            record(w, me.c, "batch_put_events", &ran, effects);
        }
        3 => {
            let n = Note { feed: feed.into(), seq: seq(rng), id: me.fresh("n"), by: me.c as u32 };
            let ran = run(w, w.table.put(&n)).await;
            record(w, me.c, "put_note", &ran, vec![Effect::Note { feed: feed.into(), sk: note_sk(n.seq, &n.id) }]);
        }
        4 => {
            let notes: Vec<Note> = (0..2 + rng.below(6))
                .map(|_| Note { feed: feed.into(), seq: seq(rng), id: me.fresh("n"), by: me.c as u32 })
                .collect();
            let ran = run(w, w.table.batch_put(&notes)).await;
            let effects = notes.iter().map(|n| Effect::Note { feed: feed.into(), sk: note_sk(n.seq, &n.id) }).collect();
            record(w, me.c, "batch_put_notes", &ran, effects);
        }
        _ => {
            let n = 1 + rng.below(3) as i64;
            let idempotent = rng.below(2) == 0;
            let ran = run(w, w.table.update(fourth::head_add(feed, n, idempotent))).await;
            let name = if idempotent { "head_add_idempotent" } else { "head_add" };
            record(w, me.c, name, &ran, vec![Effect::HeadAdd { feed: feed.into(), n }]);
        }
    }
}

/// A query read page by page, with writes (by this client, and by the others meanwhile)
/// between the pages.
async fn pages(w: &World, me: &mut Client, rng: &mut Rng) {
    let feed = format!("f{}", rng.below(FEEDS));
    let what = *pick(rng, &["events", "events", "notes", "log"]);
    let what = if what == "events" && !w.config.page_sharded { "notes" } else { what };
    let descending = rng.chance(0.25);
    let limit = 2 + rng.below(7) as u32;
    let mut seq = PageSeq { what, feed: feed.clone(), descending, pages: Vec::new(), complete: false };
    let mut cursor = None;
    let invoke = w.tick();
    for _ in 0..40 {
        let page_invoke = w.tick();
        let (keys, next) = match what {
            "events" => {
                let mut q = Event::query_by_feed(feed.as_str()).limit(limit);
                if descending {
                    q = q.descending();
                }
                if let Some(c) = cursor.take() {
                    q = q.after(c);
                }
                match w.table.query(q).await {
                    Ok(p) => (p.items.iter().map(|e| event_sk(e.seq, &e.id)).collect::<Vec<_>>(), p.next),
                    Err(_) => break,
                }
            }
            "notes" => {
                let mut q = Note::query_by_feed(feed.as_str()).limit(limit);
                if descending {
                    q = q.descending();
                }
                if let Some(c) = cursor.take() {
                    q = q.after(c);
                }
                match w.table.query(q).await {
                    Ok(p) => (p.items.iter().map(|n| note_sk(n.seq, &n.id)).collect(), p.next),
                    Err(_) => break,
                }
            }
            _ => {
                let mut q = Log::query(Note::partition(feed.as_str())).limit(limit);
                if descending {
                    q = q.descending();
                }
                if let Some(c) = cursor.take() {
                    q = q.after(c);
                }
                match w.table.query(q).await {
                    Ok(p) => (
                        p.items
                            .iter()
                            .map(|i| match i {
                                Log::Head(_) => "HEAD".to_owned(),
                                Log::Note(n) => note_sk(n.seq, &n.id),
                            })
                            .collect(),
                        p.next,
                    ),
                    Err(_) => break,
                }
            }
        };
        seq.pages.push(PageRec { invoke: page_invoke, complete: w.tick(), keys });
        match next {
            None => {
                seq.complete = true;
                break;
            }
            Some(c) => cursor = Some(c),
        }
        for _ in 0..rng.below(3) {
            feed_write(w, me, rng, &feed).await;
        }
    }
    let complete = w.tick();
    w.push(Op {
        client: me.c,
        name: "pages",
        invoke,
        complete,
        outcome: Outcome::Acked,
        drops: 0,
        resent: 0,
        micros: 0,
        error: None,
        throttled_cancel: false,
        effects: vec![Effect::Pages(seq)],
    });
}

fn member_effect(ran: &Ran<Member>, m: &Member, intended: Option<Member>) -> Vec<Effect> {
    let after = match &ran.result {
        Ok(a) => Some(a.clone()),
        Err(_) => intended,
    };
    vec![Effect::Member { tenant: m.tenant.clone(), id: m.id.clone(), delete: false, after }]
}

/// Members through the tenant handles.
async fn member_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let t = rng.below(TENANTS);
    let handle = &w.tenants[t as usize];
    let tenant = format!("t{t}");
    let handle_value = |rng: &mut Rng| format!("h{}", rng.below(HANDLES));
    let mine: Vec<usize> = (0..me.members.len()).filter(|&i| me.members[i].tenant == tenant).collect();
    let which = rng.below(8);
    if (2..=4).contains(&which) && mine.is_empty() {
        return;
    }
    match which {
        0 | 1 => {
            let m = Member {
                tenant: tenant.clone(),
                id: me.fresh("m"),
                handle: handle_value(rng),
                role: pick(rng, ROLES).to_string(),
            };
            let ran = run(w, async { handle.create(&m).await.map(|()| m.clone()) }).await;
            if ran.outcome != Outcome::Failed {
                me.members.push(m.clone());
            }
            record(w, me.c, "member_create", &ran, member_effect(&ran, &m, Some(m.clone())));
        }
        2 => {
            let i = mine[rng.below(mine.len() as u64) as usize];
            let m = me.members[i].clone();
            let u = if rng.chance(0.5) {
                Member::update(Member::key(m.tenant.as_str(), m.id.as_str()))
                    .set(Member::fields().handle, handle_value(rng))
            } else {
                Member::update(Member::key(m.tenant.as_str(), m.id.as_str()))
                    .set(Member::fields().role, pick(rng, ROLES).to_string())
            };
            let ran = run(w, handle.update(u)).await;
            if let Ok(new) = &ran.result {
                me.members[i] = new.clone();
            }
            record(w, me.c, "member_update", &ran, member_effect(&ran, &m, None));
        }
        3 => {
            let i = mine[rng.below(mine.len() as u64) as usize];
            let m = Member { handle: handle_value(rng), ..me.members[i].clone() };
            let ran = run(w, async { handle.put(&m).await.map(|()| m.clone()) }).await;
            if ran.result.is_ok() {
                me.members[i] = m.clone();
            }
            record(w, me.c, "member_put", &ran, member_effect(&ran, &m, Some(m.clone())));
        }
        4 => {
            let i = mine[rng.below(mine.len() as u64) as usize];
            let m = me.members.swap_remove(i);
            let ran = run(w, handle.delete(Member::key(m.tenant.as_str(), m.id.as_str()))).await;
            record(
                w,
                me.c,
                "member_delete",
                &ran,
                vec![Effect::Member { tenant: m.tenant, id: m.id, delete: true, after: None }],
            );
        }
        5 => {
            // Another tenant's key or item: refused before anything is sent.
            let other = format!("t{}", (t + 1 + rng.below(TENANTS - 1)) % TENANTS);
            let m = Member { tenant: other.clone(), id: me.fresh("x"), handle: handle_value(rng), role: "dev".into() };
            let (what, result) = if rng.chance(0.5) {
                ("get", handle.get(Member::key(other.as_str(), "u")).await.map(|_| ()))
            } else {
                ("put", handle.put(&m).await)
            };
            let refused = matches!(result, Err(Error::OutsideTenant { .. }));
            let tick = w.tick();
            w.push(Op {
                client: me.c,
                name: "cross_tenant",
                invoke: tick,
                complete: tick,
                outcome: Outcome::Acked,
                drops: 0,
                resent: 0,
                micros: 0,
                error: None,
                throttled_cancel: false,
                effects: vec![Effect::CrossTenant {
                    what: format!("{what} of {other} through {tenant}: {result:?}"),
                    refused,
                }],
            });
        }
        _ => {
            // A page of an index query of the tenant (only watched: what it sends).
            let _ = handle.query(Member::query_by_role(tenant.as_str(), pick(rng, ROLES).to_string()).limit(5)).await;
        }
    }
}

/// Tickets with a unique code, in both forms; a migrate may turn the old into the new.
async fn ticket_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let code = format!("k{}", rng.below(CODES));
    if !me.tickets.is_empty() && rng.chance(0.3) {
        let (id, mut v1) = me.tickets.swap_remove(rng.below(me.tickets.len() as u64) as usize);
        if v1 && w.migrated.load(Ordering::Relaxed) {
            // A migrate may have turned it into a `Ticket`: delete it in the form it has.
            v1 = matches!(w.base.get(TicketV1::key(id.as_str())).await, Ok(Some(_)));
        }
        let ran = if v1 {
            run(w, w.table.delete(TicketV1::key(id.as_str()))).await
        } else {
            run(w, w.table.delete(Ticket::key(id.as_str()))).await
        };
        record(w, me.c, "ticket_delete", &ran, vec![Effect::Ticket { id, delete: true }]);
        return;
    }
    let id = me.fresh("t");
    let old = !w.migrated.load(Ordering::Relaxed) && rng.chance(0.7);
    let ran = if old {
        run(w, w.table.create(&TicketV1 { id: id.clone(), code })).await
    } else {
        run(w, w.table.create(&Ticket { id: id.clone(), code, state: "new".into() })).await
    };
    if ran.outcome != Outcome::Failed {
        me.tickets.push((id.clone(), old));
    }
    record(
        w,
        me.c,
        if old { "ticket_v1_create" } else { "ticket_create" },
        &ran,
        vec![Effect::Ticket { id, delete: false }],
    );
}

/// The jobs that run in the middle, beside the clients.
pub async fn background(w: Arc<World>) {
    let mut backfills = if w.config.backfill { vec![0.3, 0.7] } else { vec![] };
    let mut migrate = w.config.migrate;
    let mut apply = w.config.apply_index;
    while !backfills.is_empty() || migrate || apply {
        if w.progress() >= 1.0 {
            break;
        }
        if backfills.first().is_some_and(|&at| w.progress() >= at) {
            backfills.remove(0);
            match w.table.backfill::<Account>().segments(2).page_size(10).run().await {
                Ok(report) => {
                    w.backfill_failed.lock().unwrap().extend(report.failed.iter().map(|f| f.key.clone()));
                    w.background.lock().unwrap().push(format!("backfill: {report}"));
                }
                Err(e) => w.background.lock().unwrap().push(format!("backfill failed: {e}")),
            }
        }
        if apply && w.progress() >= 0.4 {
            apply = false;
            fourth::apply_index(&w).await;
        }
        if migrate && w.progress() >= 0.5 {
            migrate = false;
            let moved = w
                .table
                .migrate(|old: TicketV1| -> Ticket { Ticket { id: old.id, code: old.code, state: "migrated".into() } })
                .run()
                .await;
            w.migrated.store(true, Ordering::Relaxed);
            w.background.lock().unwrap().push(match moved {
                Ok(report) => format!("migrate: {report}"),
                Err(e) => format!("migrate failed: {e}"),
            });
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if apply {
        // The run ended first: the index is added all the same, so the checker holds it.
        fourth::apply_index(&w).await;
    }
}
