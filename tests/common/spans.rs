//! Captures `tracing` spans and their fields, to check what requests record.
//!
//! One capturing subscriber per test binary, installed as the *global* default by
//! [`install`], which `common::table` calls before the binary's first request. Tests find
//! their own spans by the `table` field every request span carries ([`of_table`]).
//!
//! Why not a subscriber per test (`tracing::subscriber::set_default`): that one is
//! thread-local, and tests of one binary run in parallel. A callsite caches its interest when
//! first reached. A thread without a subscriber that registers a callsite while another thread
//! installs its subscriber computes that interest from the state before the install (no
//! subscriber: `Interest::never`) and can store it after the installing thread rebuilt the
//! interest of every registered callsite (tracing-core 0.1: `DefaultCallsite::register`, then
//! `rebuild_callsite_interest`); the callsite then stays disabled and the capturing test
//! silently loses its spans (issue 16). One global subscriber, installed before the first
//! request of the binary (concurrent first callers wait for the install), leaves no such
//! window: every callsite is registered while the subscriber exists, and every thread sees it.
//! So a binary with span assertions must reach no span before `common::table` (or
//! [`install`]) in any of its tests.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// One span as created, with the fields recorded on it since.
#[derive(Debug, Clone)]
pub struct Span {
    pub name: String,
    pub fields: Vec<(String, String)>,
}

impl Span {
    /// The last value recorded for `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        field(&self.fields, name)
    }
}

#[derive(Default)]
struct Store {
    /// Every span of the binary, in creation order.
    spans: Vec<Span>,
    /// The span a live id refers to (ids are reused once a span closes).
    live: HashMap<u64, usize>,
}

static STORE: LazyLock<Mutex<Store>> = LazyLock::new(Mutex::default);
static INSTALLED: OnceLock<()> = OnceLock::new();

fn store() -> MutexGuard<'static, Store> {
    // A test that panicked while holding the lock leaves the store as it was: keep using it.
    STORE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Installs the capturing subscriber as the global default, once per process. Concurrent
/// callers wait until it is installed.
pub fn install() {
    INSTALLED.get_or_init(|| {
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Capture))
            .expect("the integration tests install no other global subscriber");
    });
}

/// The spans whose `table` field is `table`, in creation order.
pub fn of_table(table: &str) -> Vec<Span> {
    store().spans.iter().filter(|s| s.field("table") == Some(table)).cloned().collect()
}

/// Every span captured so far in this binary (of all tests).
pub fn all() -> Vec<Span> {
    store().spans.clone()
}

struct Capture;

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned()));
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    /// Every span, of every crate and level; no events (nothing here reads them).
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if metadata.is_span() { Interest::always() } else { Interest::never() }
    }

    fn enabled(&self, metadata: &Metadata<'_>, _: Context<'_, S>) -> bool {
        metadata.is_span()
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Vec::new();
        attrs.record(&mut Fields(&mut fields));
        let mut store = store();
        let index = store.spans.len();
        store.spans.push(Span { name: attrs.metadata().name().to_owned(), fields });
        store.live.insert(id.into_u64(), index);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut store = store();
        if let Some(&index) = store.live.get(&id.into_u64()) {
            values.record(&mut Fields(&mut store.spans[index].fields));
        }
    }

    fn on_close(&self, id: Id, _: Context<'_, S>) {
        store().live.remove(&id.into_u64());
    }
}

/// The last value recorded for `name` in `fields`.
pub fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}
