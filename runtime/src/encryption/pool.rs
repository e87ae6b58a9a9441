//! The items of a page decrypted in parallel: one bounded pool of threads per process
//! (the machine's parallelism, at least 2 and at most 8, made on first use, named `de-decrypt-N`), each with a
//! runtime of its own that lives as long as the process (so that the connections a KMS or key
//! store client opens from it stay usable). A page's items are cut into as many runs as there
//! are workers; the caller waits for them and gets every item's result in the page's order.
//! Pages of several requests at once share the pool: at most that many items are decrypted at
//! any time.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextMut, FinalizerInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemInput, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::query::{QueryInput, QueryOutput};
use aws_sdk_dynamodb::operation::scan::{ScanInput, ScanOutput};
use aws_smithy_types::config_bag::{Storable, StoreReplace};

use super::stream::{FOOT, HEAD, ItemEncryptor};
use crate::model::Item;

/// Why DB-ESDK did not decrypt an item, as it said it: `Debug` (what its interceptor reports,
/// nested messages and all) and `Display`.
#[derive(Debug, Clone)]
pub(crate) struct Failed {
    pub(crate) debug: String,
    pub(crate) display: String,
}

type Job = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

struct Pool {
    jobs: Mutex<mpsc::Sender<Job>>,
    workers: usize,
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 8);
        let (send, receive) = mpsc::channel::<Job>();
        let receive = Arc::new(Mutex::new(receive));
        let mut started = 0;
        for n in 0..workers {
            let receive = receive.clone();
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(_) => break,
            };
            let spawned = std::thread::Builder::new().name(format!("de-decrypt-{n}")).spawn(move || {
                loop {
                    // The lock is held while waiting: one idle worker waits for the next job,
                    // the others for the lock.
                    let job = match receive.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => runtime.block_on(job),
                        Err(_) => return,
                    }
                }
            });
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then(|| Pool { jobs: Mutex::new(send), workers: started })
    })
    .as_ref()
}

/// `item` decrypted and verified by `items`, without DB-ESDK's header and footer.
async fn decrypt(items: &ItemEncryptor, item: Item) -> Result<Item, Failed> {
    let sent = items.decrypt_item().encrypted_item(item).send().await;
    let out = sent.map_err(|e| Failed { debug: format!("{e:?}"), display: e.to_string() })?;
    let mut item = out.plaintext_item.ok_or_else(|| Failed {
        debug: "DB-ESDK returned no item".to_owned(),
        display: "DB-ESDK returned no item".to_owned(),
    })?;
    item.remove(HEAD);
    item.remove(FOOT);
    Ok(item)
}

/// Queues `page`'s items on the pool, cut into as many runs as there are workers; each
/// result goes to `done` with the item's place in the page. `false` if there is no pool (the
/// results never come).
fn submit(
    items: &ItemEncryptor,
    page: Vec<Item>,
    done: impl Fn(usize, Result<Item, Failed>) + Clone + Send + Sync + 'static,
) -> bool {
    let Some(pool) = pool() else { return false };
    let n = page.len();
    let per_run = n.div_ceil(pool.workers.min(n).max(1));
    let mut page = page.into_iter().enumerate().peekable();
    while page.peek().is_some() {
        let run: Vec<(usize, Item)> = page.by_ref().take(per_run).collect();
        let items = items.clone();
        let done = done.clone();
        let job: Job = Box::pin(async move {
            for (i, item) in run {
                done(i, decrypt(&items, item).await);
            }
        });
        // A job that cannot be queued is dropped with its sender: its items get no result.
        if let Ok(jobs) = pool.jobs.lock() {
            let _ = jobs.send(job);
        }
    }
    true
}

/// The results in the page's order; an item without one (its job never ran) is an error.
fn in_order(n: usize, results: impl IntoIterator<Item = (usize, Result<Item, Failed>)>) -> Vec<Result<Item, Failed>> {
    let mut out: Vec<Option<Result<Item, Failed>>> = (0..n).map(|_| None).collect();
    for (i, result) in results {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(result);
        }
    }
    out.into_iter().map(|r| r.unwrap_or_else(|| Err(Failed { debug: no_pool(), display: no_pool() }))).collect()
}

/// Every item of `page` decrypted and verified by `items`, on the pool, in the page's order.
/// Blocks the calling thread until the last is done (the caller is DB-ESDK's synchronous
/// interceptor hook, which blocks anyway).
///
/// A decrypting thread that misses the branch key cache calls the key store, whose connections
/// may be driven by the caller's runtime (DB-ESDK opens them there on a multi-threaded runtime):
/// on a worker of a multi-threaded runtime the wait is `block_in_place`, so that the runtime
/// goes on on another thread rather than wait for this one. (A current-thread runtime cannot go
/// on while its thread waits: the key store's clients are its own, see `KeyStore::new`, so that
/// none of their connections is driven by it.)
pub(crate) fn decrypt_all(items: &ItemEncryptor, page: Vec<Item>) -> Vec<Result<Item, Failed>> {
    let n = page.len();
    let (send, receive) = mpsc::channel();
    submit(items, page, move |i, r| {
        let _ = send.send((i, r));
    });
    // Ends when every job has dropped its sender (done, or not run at all).
    let wait = move || in_order(n, receive);
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
        _ => wait(),
    }
}

/// [`decrypt_all`] for async callers (stream readers): waits without blocking the thread.
pub(crate) async fn decrypt_all_async(items: &ItemEncryptor, page: Vec<Item>) -> Vec<Result<Item, Failed>> {
    let n = page.len();
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel();
    submit(items, page, move |i, r| {
        let _ = send.send((i, r));
    });
    let mut results = Vec::with_capacity(n);
    while let Some(result) = receive.recv().await {
        results.push(result);
    }
    in_order(n, results)
}

fn no_pool() -> String {
    "the threads that decrypt items could not be started (or stopped)".to_owned()
}

/// DB-ESDK's interceptor, with the items it encrypted for the handle's table checked against
/// DynamoDB's 400 KB (`super::size`), and the items of query, scan and batch-get responses of
/// the handle's table decrypted on the pool (in parallel, in order) by the item encryptor
/// configured as the interceptor is, rather than by the interceptor one after another. Every
/// request is still transformed by DB-ESDK's interceptor, and every other response (get, put,
/// transactions, PartiQL, other tables) too. Its name is the interceptor's, so that a refusal
/// reads the same ([`super::refusal`]) and [`Table::encryption_suite`](crate::table::Table::encryption_suite) finds it.
#[derive(Debug)]
pub(crate) struct Decrypting {
    pub(crate) inner: aws_db_esdk::intercept::DbEsdkInterceptor,
    pub(crate) items: ItemEncryptor,
    pub(crate) table: String,
    /// The entities the handle encrypts, and their type attributes: what an item too large is
    /// named by.
    pub(crate) entities: Vec<(&'static str, &'static str)>,
    /// The table's key attributes (partition, sort).
    pub(crate) keys: (&'static str, Option<&'static str>),
}

/// Set on a request whose response's items [`Decrypting`] decrypts itself.
#[derive(Debug, Clone)]
struct Page;

impl Storable for Page {
    type Storer = StoreReplace<Page>;
}

// Only the hooks this overrides are called (see `send::attempts`).
#[aws_smithy_runtime_api::client::interceptors::dyn_dispatch_hint]
impl Intercept for Decrypting {
    fn name(&self) -> &'static str {
        "DbEsdkInterceptor"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        rc: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let input = context.input();
        let table = if let Some(q) = input.downcast_ref::<QueryInput>() {
            q.table_name() == Some(self.table.as_str())
        } else if let Some(s) = input.downcast_ref::<ScanInput>() {
            s.table_name() == Some(self.table.as_str())
        } else if let Some(b) = input.downcast_ref::<BatchGetItemInput>() {
            b.request_items().is_some_and(|r| r.contains_key(&self.table))
        } else {
            false
        };
        self.inner.modify_before_serialization(context, rc, cfg)?;
        // What DB-ESDK wrote is what DynamoDB will weigh: an item it took past 400 KB is refused
        // here, before anything is sent.
        if let Some(large) = super::size::too_large(&self.table, &self.entities, self.keys, context.input()) {
            return Err(large.into());
        }
        if table {
            cfg.interceptor_state().store_put(Page);
        }
        Ok(())
    }

    fn modify_before_attempt_completion(
        &self,
        context: &mut FinalizerInterceptorContextMut<'_>,
        rc: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<Page>().is_none() {
            return self.inner.modify_before_attempt_completion(context, rc, cfg);
        }
        let Some(Ok(output)) = context.output_or_error_mut() else { return Ok(()) };
        let items = if let Some(q) = output.downcast_mut::<QueryOutput>() {
            &mut q.items
        } else if let Some(s) = output.downcast_mut::<ScanOutput>() {
            &mut s.items
        } else if let Some(b) = output.downcast_mut::<BatchGetItemOutput>() {
            let Some(responses) = b.responses.as_mut() else { return Ok(()) };
            let Some(items) = responses.remove(&self.table) else { return Ok(()) };
            let items = self.decrypt(items)?;
            responses.insert(self.table.clone(), items);
            return Ok(());
        } else {
            return self.inner.modify_before_attempt_completion(context, rc, cfg);
        };
        if let Some(page) = items.take() {
            *items = Some(self.decrypt(page)?);
        }
        Ok(())
    }
}

impl Decrypting {
    /// `page` decrypted and verified, in order; the first item (in the page's order) that
    /// does not decrypt fails the whole response, as DB-ESDK's interceptor does, with what
    /// DB-ESDK said of it.
    fn decrypt(&self, page: Vec<Item>) -> Result<Vec<Item>, BoxError> {
        decrypt_all(&self.items, page).into_iter().map(|r| r.map_err(|f| f.debug.into())).collect()
    }
}
