//! Batch operations against the official DynamoDB Local: any number of items, key order,
//! missing and repeated keys, duplicate puts refused, and the retry path exercised for real.
//!
//! # How unprocessed items are injected
//!
//! DynamoDB Local never returns `UnprocessedItems` on its own, so [`Injector`], an SDK
//! interceptor on a second client of the same table, makes it happen honestly:
//!
//! - before serialization it *removes* items (or keys) from the outgoing `BatchWriteItem`
//!   (`BatchGetItem`) input, so DynamoDB Local really never sees them;
//! - after the response it *adds* exactly those to the output's `UnprocessedItems`
//!   (`UnprocessedKeys`), as DynamoDB does when it could not process them.
//!
//! So an item only lands if the library sends it again. The two steps of one operation are
//! linked through the operation's own config-bag layer (which holds a token; the SDK's
//! `AppName` is used as the carrier as it is the one storable free-text type the SDK
//! re-exports; its only effect is an `app/inject-N` in the user agent), so the injection is
//! exact with several chunks in flight. Throttling is injected the same way: the request is
//! turned into a harmless `ListTables` before signing and its answer into a 400
//! `ThrottlingException` (with the SDK's own retries disabled on that client).

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeSerializationInterceptorContextMut,
    BeforeSerializationInterceptorContextRef, BeforeTransmitInterceptorContextMut, FinalizerInterceptorContextMut,
    FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItemInput, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::batch_write_item::{BatchWriteItemInput, BatchWriteItemOutput};
use aws_sdk_dynamodb::types::{DeleteRequest, KeysAndAttributes, WriteRequest};
use dynamo_entity::{AttributeValue, BatchOptions, Entity, EntityKey, Error, Item, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "ITEM#<n>"]
#[entity(rename_all = "camelCase")]
pub struct Thing {
    pub group: String,
    pub n: u32,
    pub label: String,
}

/// A partition key that is the value itself: an empty value is an empty key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<name>"]
pub struct Tag {
    pub name: String,
}

fn thing(group: &str, n: u32) -> Thing {
    Thing { group: group.into(), n, label: format!("{group}/{n}/{}", "x".repeat(n as usize % 300)) }
}

fn things(group: &str, range: std::ops::Range<u32>) -> Vec<Thing> {
    range.map(|n| thing(group, n)).collect()
}

fn key_of(t: &Thing) -> (String, Option<String>) {
    let key = t.primary_key();
    (EntityKey::try_pk(&key).unwrap(), EntityKey::try_sk(&key).unwrap())
}

fn numbers(v: &[Thing]) -> Vec<u32> {
    v.iter().map(|t| t.n).collect()
}

/// Small delays: retries happen, the tests do not sleep long.
fn fast() -> BatchOptions {
    BatchOptions::default().with_backoff(Duration::from_millis(1), Duration::from_millis(10))
}

/// The futures of batch operations can be spawned.
fn assert_send<T: Send>(value: T) -> T {
    value
}

async fn stored(table: &Table, group: &str) -> Vec<Thing> {
    table.query_all(Thing::query_by_group(group)).await.unwrap()
}

// ---------------------------------------------------------------------------------------------
// The injector.

/// Which items or keys a request loses.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The first `n` items (keys) of every request that carries none seen before: each chunk's
    /// first attempt. Retries carry only items seen before and go through untouched.
    FirstAttempts(usize),
    /// Every item (key) whose number satisfies the predicate, in every request.
    Always(fn(u32) -> bool),
    /// Each chunk's first attempt is refused as a whole with a `ThrottlingException`.
    ThrottleFirstAttempts,
}

/// What the injector saw and did.
#[derive(Debug, Default)]
struct Seen {
    /// Batch requests (operations, not HTTP attempts).
    requests: u32,
    /// Requests that lost items, or were throttled.
    injected: u32,
    /// Items or keys removed from requests (and reported unprocessed).
    dropped: u32,
    /// Requests of which every item was removed: a delete (read) of a key that does not exist
    /// was sent in their place, as DynamoDB refuses an empty batch.
    decoys: u32,
    /// Largest number of batch requests in flight at once.
    max_in_flight: u32,
    in_flight: u32,
    /// Every item or key sent so far.
    keys: HashSet<(String, String)>,
    /// What each injected operation lost, by token.
    removed: HashMap<u64, Removed>,
}

#[derive(Debug)]
enum Removed {
    Writes(Vec<WriteRequest>),
    Keys(Vec<Item>),
    Throttled,
}

#[derive(Debug)]
struct Injector {
    table: String,
    rule: Rule,
    seen: Arc<Mutex<Seen>>,
    next: AtomicU64,
}

const TOKEN: &str = "inject-";

fn key_pair(item: &Item) -> (String, String) {
    let s = |a: &str| match item.get(a) {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    };
    (s("PK"), s("SK"))
}

fn number((_, sk): &(String, String)) -> u32 {
    sk.strip_prefix("ITEM#").and_then(|n| n.parse().ok()).unwrap_or(u32::MAX)
}

fn decoy() -> Item {
    Item::from([
        ("PK".to_owned(), AttributeValue::S("GROUP#decoy".into())),
        ("SK".to_owned(), AttributeValue::S("ITEM#decoy".into())),
    ])
}

impl Injector {
    /// Which of these keys the request loses; records them as seen, and marks a request to
    /// throttle.
    fn victims(&self, seen: &mut Seen, keys: &[(String, String)], cfg: &mut ConfigBag) -> Result<Vec<bool>, BoxError> {
        seen.requests += 1;
        let first = keys.iter().all(|k| !seen.keys.contains(k));
        seen.keys.extend(keys.iter().cloned());
        Ok(match self.rule {
            Rule::FirstAttempts(n) => (0..keys.len()).map(|i| first && i < n).collect(),
            Rule::Always(f) => keys.iter().map(|k| f(number(k))).collect(),
            Rule::ThrottleFirstAttempts => {
                if first {
                    self.token(seen, Removed::Throttled, cfg)?;
                }
                vec![false; keys.len()]
            }
        })
    }

    fn token(&self, seen: &mut Seen, removed: Removed, cfg: &mut ConfigBag) -> Result<(), BoxError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        seen.injected += 1;
        seen.removed.insert(id, removed);
        cfg.interceptor_state().store_put(AppName::new(format!("{TOKEN}{id}")).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn is_throttled(&self, cfg: &ConfigBag) -> bool {
        let id = token_of(cfg);
        id.is_some_and(|id| matches!(self.seen.lock().unwrap().removed.get(&id), Some(Removed::Throttled)))
    }
}

fn token_of(cfg: &ConfigBag) -> Option<u64> {
    cfg.load::<AppName>()?.as_ref().strip_prefix(TOKEN)?.parse().ok()
}

fn split<T>(all: Vec<T>, victims: &[bool]) -> (Vec<T>, Vec<T>) {
    let (mut kept, mut lost) = (Vec::new(), Vec::new());
    for (x, &victim) in all.into_iter().zip(victims) {
        if victim { lost.push(x) } else { kept.push(x) }
    }
    (kept, lost)
}

impl Intercept for Injector {
    fn name(&self) -> &'static str {
        "UnprocessedInjector"
    }

    fn read_before_execution(
        &self,
        _: &BeforeSerializationInterceptorContextRef<'_>,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut seen = self.seen.lock().unwrap();
        seen.in_flight += 1;
        seen.max_in_flight = seen.max_in_flight.max(seen.in_flight);
        Ok(())
    }

    fn read_after_execution(
        &self,
        _: &FinalizerInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        self.seen.lock().unwrap().in_flight -= 1;
        Ok(())
    }

    fn modify_before_serialization(
        &self,
        ctx: &mut BeforeSerializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut seen = self.seen.lock().unwrap();
        let input = ctx.input_mut();
        if let Some(input) = input.downcast_mut::<BatchWriteItemInput>() {
            let Some(requests) = input.request_items.as_mut().and_then(|m| m.get_mut(&self.table)) else {
                return Ok(());
            };
            let keys: Vec<(String, String)> = requests
                .iter()
                .map(|r| match (r.put_request(), r.delete_request()) {
                    (Some(p), _) => key_pair(&p.item),
                    (_, Some(d)) => key_pair(&d.key),
                    _ => Default::default(),
                })
                .collect();
            let victims = self.victims(&mut seen, &keys, cfg)?;
            let (kept, lost) = split(std::mem::take(requests), &victims);
            *requests = kept;
            if !lost.is_empty() {
                if requests.is_empty() {
                    seen.decoys += 1;
                    let delete = DeleteRequest::builder().set_key(Some(decoy())).build()?;
                    requests.push(WriteRequest::builder().delete_request(delete).build());
                }
                seen.dropped += u32::try_from(lost.len())?;
                self.token(&mut seen, Removed::Writes(lost), cfg)?;
            }
            return Ok(());
        }
        if let Some(input) = input.downcast_mut::<BatchGetItemInput>() {
            let Some(request) = input.request_items.as_mut().and_then(|m| m.get_mut(&self.table)) else {
                return Ok(());
            };
            let keys: Vec<(String, String)> = request.keys.iter().map(key_pair).collect();
            let victims = self.victims(&mut seen, &keys, cfg)?;
            let (kept, lost) = split(std::mem::take(&mut request.keys), &victims);
            request.keys = kept;
            if !lost.is_empty() {
                if request.keys.is_empty() {
                    seen.decoys += 1;
                    request.keys.push(decoy());
                }
                seen.dropped += u32::try_from(lost.len())?;
                self.token(&mut seen, Removed::Keys(lost), cfg)?;
            }
        }
        Ok(())
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if self.is_throttled(cfg) {
            // Nothing of the batch reaches DynamoDB: it answers a harmless ListTables instead.
            let request = ctx.request_mut();
            common::divert(request);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if self.is_throttled(cfg) {
            let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"injected"}"#;
            return common::answer(ctx, 400, body.to_owned());
        }
        Ok(())
    }

    fn modify_before_completion(
        &self,
        ctx: &mut FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(id) = token_of(cfg) else { return Ok(()) };
        let removed = self.seen.lock().unwrap().removed.remove(&id);
        let Some(Ok(output)) = ctx.output_or_error_mut() else { return Ok(()) };
        match removed {
            Some(Removed::Writes(lost)) => {
                let out = output.downcast_mut::<BatchWriteItemOutput>().ok_or("not a BatchWriteItem output")?;
                out.unprocessed_items.get_or_insert_default().entry(self.table.clone()).or_default().extend(lost);
            }
            Some(Removed::Keys(lost)) => {
                let out = output.downcast_mut::<BatchGetItemOutput>().ok_or("not a BatchGetItem output")?;
                let unprocessed = out.unprocessed_keys.get_or_insert_default();
                match unprocessed.get_mut(&self.table) {
                    Some(k) => k.keys.extend(lost),
                    None => {
                        let keys = KeysAndAttributes::builder().set_keys(Some(lost)).build()?;
                        unprocessed.insert(self.table.clone(), keys);
                    }
                }
            }
            Some(Removed::Throttled) | None => {}
        }
        Ok(())
    }
}

/// The same table through a client with an [`Injector`], and what the injector sees.
async fn injected(table: &Table, rule: Rule) -> (Table, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let injector = Injector { table: table.name().to_owned(), rule, seen: seen.clone(), next: AtomicU64::new(0) };
    let base = dynamo_entity::local::client().await.unwrap();
    let mut config = base.config().to_builder().interceptor(injector);
    if matches!(rule, Rule::ThrottleFirstAttempts) {
        // Our retries are under test, not the SDK's.
        config = config.retry_config(RetryConfig::disabled());
    }
    (Table::new(Client::from_conf(config.build()), table.name()), seen)
}

// ---------------------------------------------------------------------------------------------
// Any number of items, order, missing and repeated keys.

#[tokio::test]
async fn a_thousand_items_are_written_and_read_back() {
    let table = common::table("batch-1000", &[Thing::SCHEMA]).await;
    let mut items = things("a", 0..600);
    items.extend(things("b", 0..400));

    let started = Instant::now();
    // The future is `Send`: it can be spawned.
    let spawned = tokio::spawn({
        let (table, items) = (table.clone(), items.clone());
        async move { table.batch_put(&items).await }
    });
    spawned.await.unwrap().unwrap();
    let put = started.elapsed();

    assert_eq!(stored(&table, "a").await, items[..600]);
    assert_eq!(stored(&table, "b").await, items[600..]);

    // Read back in the order of the keys given: here, reversed.
    let started = Instant::now();
    let keys: Vec<_> = items.iter().rev().map(Entity::primary_key).collect();
    let read = assert_send(table.batch_get(keys)).await.unwrap();
    let mut expected = items.clone();
    expected.reverse();
    assert_eq!(read, expected);
    eprintln!("1000 items: batch_put {put:?}, batch_get {:?}", started.elapsed());

    // Nothing to do: no request, no error.
    table.batch_put::<Thing>(&[]).await.unwrap();
    assert_eq!(table.batch_get(Vec::<ThingKey>::new()).await.unwrap(), Vec::<Thing>::new());
    table.batch_delete(Vec::<ThingKey>::new()).await.unwrap();
}

#[tokio::test]
async fn batch_get_keeps_key_order_skips_missing_keys_and_repeats() {
    let table = common::table("batch-get", &[Thing::SCHEMA]).await;
    let items = things("g", 0..200);
    table.batch_put(&items).await.unwrap();

    // 230 distinct numbers in a scrambled order (200..230 do not exist), 20 of them repeated.
    let mut order: Vec<u32> = (0..230u32).map(|i| (i * 7919) % 230).collect();
    for i in 0..20 {
        order.insert(i * 11, order[i * 9 + 3]);
    }
    assert_eq!(order.len(), 250);
    let read = table.batch_get(order.iter().map(|&n| Thing::key("g", n))).await.unwrap();

    let mut firsts = HashSet::new();
    let expected: Vec<u32> = order.iter().copied().filter(|&n| n < 200 && firsts.insert(n)).collect();
    assert_eq!(expected.len(), 200);
    assert_eq!(numbers(&read), expected, "in key order, missing keys absent, repeats once");
    assert!(read.iter().all(|t| *t == thing("g", t.n)));
}

#[tokio::test]
async fn batch_delete_removes_many_and_ignores_repeats() {
    let table = common::table("batch-delete", &[Thing::SCHEMA]).await;
    table.batch_put(&things("d", 0..300)).await.unwrap();
    // 0..260, each of 0..40 twice in a row (in the same request, if not deduplicated), and
    // keys without item.
    let numbers_given = (0..260u32).flat_map(|n| if n < 40 { vec![n, n] } else { vec![n] }).chain(1000..1010);
    let keys = numbers_given.map(|n| Thing::key("d", n));
    assert_send(table.batch_delete(keys)).await.unwrap();
    assert_eq!(numbers(&stored(&table, "d").await), (260..300).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------------
// Validation before any request.

#[tokio::test]
async fn duplicate_put_keys_are_refused_and_nothing_is_written() {
    let table = common::table("batch-dup", &[Thing::SCHEMA]).await;
    let mut items = things("dup", 0..60);
    items[45] = Thing { label: "another value".into(), ..thing("dup", 7) };
    match table.batch_put(&items).await {
        Err(Error::Validation(message)) => {
            assert!(message.contains("items 7 and 45"), "{message}");
            assert!(message.contains("PK `GROUP#dup`, SK `ITEM#0000000007`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&table, "dup").await, vec![], "nothing written, not even the first chunk");

    // An oversized item at the end: refused before the first chunk is sent.
    let mut items = things("big", 0..60);
    items[59].label = "x".repeat(400 * 1024);
    assert!(matches!(table.batch_put(&items).await, Err(Error::Validation(m)) if m.contains("bytes")));
    assert_eq!(stored(&table, "big").await, vec![]);
}

#[tokio::test]
async fn invalid_input_is_refused_before_sending_and_other_errors_fail_the_call() {
    // A table that does not exist: a request sent would be an SDK error, so a Validation
    // error (or success on empty input) proves that nothing was sent.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, "no-such-table");
    let tags = vec![Tag { name: "a".into() }, Tag { name: String::new() }];
    assert!(matches!(table.batch_put(&tags).await, Err(Error::Validation(m)) if m.contains("empty")));
    let keys = [Tag::key("a"), Tag::key("")];
    assert!(matches!(table.batch_delete(keys.clone()).await, Err(Error::Validation(_))));
    assert!(matches!(table.batch_get(keys).await, Err(Error::Validation(_))));
    table.batch_put::<Tag>(&[]).await.unwrap();

    // Not retryable: the call fails with the SDK's error. A write says what it did: DynamoDB
    // refused every request (a 4xx answer), so nothing was written.
    let result = table.batch_put(&things("x", 0..100)).await;
    let Err(Error::BatchWrite { outcome, source, .. }) = result else { panic!("{result:?}") };
    assert!(matches!(*source, Error::Sdk(_)), "{source:?}");
    assert!(outcome.written.is_empty() && outcome.unknown.is_empty(), "{}", outcome.summary());
    assert_eq!(outcome.not_written.iter().map(|k| k.index).collect::<Vec<_>>(), (0..100).collect::<Vec<_>>());
    let result = table.batch_get((0..10u32).map(|n| Thing::key("x", n))).await;
    assert!(matches!(result, Err(Error::Sdk(_))), "{result:?}");
}

// ---------------------------------------------------------------------------------------------
// The retry path, for real.

#[tokio::test]
async fn unprocessed_items_are_retried_until_every_item_lands() {
    let table = common::table("batch-retry", &[Thing::SCHEMA]).await;
    let (flaky, seen) = injected(&table, Rule::FirstAttempts(10)).await;
    let items = things("r", 0..1000);
    flaky.batch(fast()).put(&items).await.unwrap();

    assert_eq!(stored(&table, "r").await, items, "every item landed");
    let seen = seen.lock().unwrap();
    // 40 chunks: each first attempt lost 10 items, each retry carried exactly those 10.
    assert_eq!((seen.requests, seen.injected, seen.dropped, seen.decoys), (80, 40, 400, 0));
    assert!(seen.max_in_flight <= 4, "at most 4 chunks in flight: {}", seen.max_in_flight);
    eprintln!("max in flight: {}", seen.max_in_flight);
}

#[tokio::test]
async fn items_unprocessed_after_the_budget_are_reported_exactly() {
    let table = common::table("batch-budget", &[Thing::SCHEMA]).await;
    let (flaky, seen) = injected(&table, Rule::Always(|n| n % 100 == 7)).await;
    let items = things("u", 0..1000);
    let result = flaky.batch(fast()).put(&items).await;

    let victims: Vec<&Thing> = items.iter().filter(|t| t.n % 100 == 7).collect();
    match result {
        Err(Error::Unprocessed { operation, keys }) => {
            assert_eq!(operation, "BatchWriteItem");
            assert_eq!(keys, victims.iter().map(|t| key_of(t)).collect::<Vec<_>>(), "exactly the lost ones, in order");
        }
        other => panic!("{other:?}"),
    }
    let expected: Vec<Thing> = items.iter().filter(|t| t.n % 100 != 7).cloned().collect();
    assert_eq!(stored(&table, "u").await, expected, "every other item was written");
    let seen = seen.lock().unwrap();
    // 40 chunks, 10 of them with a victim: their first request and 7 retries of the victim.
    assert_eq!((seen.requests, seen.injected, seen.decoys), (40 + 10 * 7, 10 * 8, 10 * 7));
}

#[tokio::test]
async fn unprocessed_deletes_are_retried() {
    let table = common::table("batch-retry-delete", &[Thing::SCHEMA]).await;
    table.batch_put(&things("d", 0..300)).await.unwrap();
    let (flaky, seen) = injected(&table, Rule::FirstAttempts(10)).await;
    flaky.batch(fast()).delete((0..300u32).map(|n| Thing::key("d", n))).await.unwrap();
    assert_eq!(stored(&table, "d").await, vec![]);
    let seen = seen.lock().unwrap();
    assert_eq!((seen.requests, seen.dropped), (24, 120));
}

#[tokio::test]
async fn unprocessed_keys_are_retried_until_every_item_is_read() {
    let table = common::table("batch-retry-get", &[Thing::SCHEMA]).await;
    let items = things("k", 0..250);
    table.batch_put(&items).await.unwrap();
    let (flaky, seen) = injected(&table, Rule::FirstAttempts(10)).await;
    // 260 keys (250..260 missing): chunks of 100, 100, 60.
    let read = flaky.batch(fast()).get((0..260u32).map(|n| Thing::key("k", n))).await.unwrap();
    assert_eq!(read, items);
    let seen = seen.lock().unwrap();
    assert_eq!((seen.requests, seen.injected, seen.dropped), (6, 3, 30));
}

#[tokio::test]
async fn keys_unprocessed_after_the_budget_are_reported_exactly() {
    let table = common::table("batch-budget-get", &[Thing::SCHEMA]).await;
    table.batch_put(&things("k", 0..250)).await.unwrap();
    let (flaky, seen) = injected(&table, Rule::Always(|n| n % 50 == 3)).await;
    let options = fast().with_max_attempts(3);
    let result = flaky.batch(options).get((0..250u32).rev().map(|n| Thing::key("k", n))).await;
    match result {
        Err(Error::Unprocessed { operation, keys }) => {
            assert_eq!(operation, "BatchGetItem");
            let expected: Vec<_> = [203, 153, 103, 53, 3].iter().map(|&n| key_of(&thing("k", n))).collect();
            assert_eq!(keys, expected, "exactly the lost keys, in the order given");
        }
        other => panic!("{other:?}"),
    }
    let seen = seen.lock().unwrap();
    // 3 chunks, each with a victim: 3 requests each.
    assert_eq!((seen.requests, seen.decoys), (9, 6));
}

#[tokio::test]
async fn throttled_requests_are_retried() {
    let table = common::table("batch-throttle", &[Thing::SCHEMA]).await;
    let items = things("t", 0..300);
    let (throttled, seen) = injected(&table, Rule::ThrottleFirstAttempts).await;
    throttled.batch(fast()).put(&items).await.unwrap();
    assert_eq!(stored(&table, "t").await, items);
    {
        let seen = seen.lock().unwrap();
        assert_eq!((seen.requests, seen.injected), (24, 12), "12 chunks, each throttled once");
    }

    let (throttled, seen) = injected(&table, Rule::ThrottleFirstAttempts).await;
    let read = throttled.batch(fast()).get(items.iter().map(Entity::primary_key)).await.unwrap();
    assert_eq!(read, items);
    let seen = seen.lock().unwrap();
    assert_eq!((seen.requests, seen.injected), (6, 3));
}

#[tokio::test]
async fn throttling_without_end_reports_the_whole_chunk() {
    let table = common::table("batch-throttle-budget", &[Thing::SCHEMA]).await;
    let (throttled, _) = injected(&table, Rule::ThrottleFirstAttempts).await;
    // One attempt per chunk: the throttled first attempt is the last one.
    let items = things("t", 0..60);
    let result = throttled.batch(fast().with_max_attempts(1)).put(&items).await;
    match result {
        Err(Error::Unprocessed { operation: "BatchWriteItem", keys }) => {
            assert_eq!(keys, items.iter().map(key_of).collect::<Vec<_>>());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&table, "t").await, vec![]);
}

// ---------------------------------------------------------------------------------------------
// Tracing.

#[tokio::test]
async fn batches_are_traced_without_item_values_or_keys() {
    use common::spans::field;

    // The binary's span capture is installed by `common::table` (see `common::spans`).
    let table = common::table("batch-traced", &[Thing::SCHEMA]).await;
    let (flaky, _) = injected(&table, Rule::FirstAttempts(3)).await;

    let secret = "top-secret-content";
    let items: Vec<Thing> = (0..30).map(|n| Thing { label: secret.into(), ..thing("secret-group", n) }).collect();
    flaky.batch(fast()).put(&items).await.unwrap();
    let read = table.batch_get(items.iter().map(Entity::primary_key).chain([Thing::key("secret-group", 99u32)])).await;
    assert_eq!(read.unwrap(), items);

    let spans = common::spans::of_table(table.name());
    let calls: Vec<_> = spans.iter().filter(|s| s.name == "dynamodb_batch").map(|s| &s.fields).collect();
    let requests: Vec<_> = spans.iter().filter(|s| s.name == "dynamodb").map(|s| &s.fields).collect();
    // `common::table` created the table; then only batch requests.
    assert_eq!(field(requests[0], "operation"), Some("CreateTable"));
    let requests = &requests[1..];
    assert_eq!(calls.len(), 2);
    let (put, get) = (calls[0], calls[1]);
    assert_eq!(field(put, "operation"), Some("BatchWriteItem"));
    assert_eq!(field(put, "sent"), Some("30"));
    assert_eq!(field(put, "chunks"), Some("2"));
    assert_eq!(field(put, "retries"), Some("2"));
    assert_eq!(field(put, "unprocessed"), Some("0"));
    assert_eq!(field(get, "operation"), Some("BatchGetItem"));
    assert_eq!(field(get, "sent"), Some("31"));
    assert_eq!(field(get, "items"), Some("30"));
    for fields in &calls {
        assert_eq!(field(fields, "entity"), Some("Thing"));
        assert!(field(fields, "consumed_capacity").is_some(), "{fields:?}");
    }
    // Two chunks, each retried once for its 3 injected items; then one BatchGetItem.
    let sent: Vec<(&str, &str, &str)> = requests
        .iter()
        .map(|f| (field(f, "operation").unwrap(), field(f, "attempt").unwrap(), field(f, "sent").unwrap()))
        .collect();
    let mut writes: Vec<_> = sent.iter().filter(|(op, ..)| *op == "BatchWriteItem").copied().collect();
    writes.sort();
    assert_eq!(
        writes,
        [
            ("BatchWriteItem", "1", "25"),
            ("BatchWriteItem", "1", "5"),
            ("BatchWriteItem", "2", "3"),
            ("BatchWriteItem", "2", "3")
        ]
    );
    assert!(sent.contains(&("BatchGetItem", "1", "31")), "{sent:?}");
    for fields in requests {
        assert_eq!(field(fields, "index"), Some(""));
        assert!(field(fields, "consumed_capacity").is_some(), "{fields:?}");
    }
    // No span of the binary (the SDK's included) holds an item value or key.
    for span in common::spans::all() {
        for (name, value) in &span.fields {
            assert!(
                !value.contains(secret) && !value.contains("secret-group"),
                "span field {name} holds an item value or key: {value}"
            );
        }
    }
}

/// BatchWriteItem cannot carry a condition: a versioned entity in a batch would bypass its
/// version check, so it is refused before sending.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "VERSIONED#<n>"]
pub struct Versioned {
    pub group: String,
    pub n: u32,
    #[version]
    pub version: u64,
}

#[tokio::test]
async fn versioned_entities_are_refused_in_batches() {
    let table = common::table("batch-versioned", &[Thing::SCHEMA, Versioned::SCHEMA]).await;
    let items = vec![Versioned { group: "g".into(), n: 1, version: 0 }];
    let r = table.batch_put(&items).await;
    assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("version")), "{r:?}");
    assert!(table.get(Versioned::key("g", 1u32)).await.unwrap().is_none(), "nothing written");
}

// ---------------------------------------------------------------------------------------------
// A fault in the middle of a batch: every key accounted for, and a replay completes it.

/// Fails two `BatchWriteItem` requests of a call, chosen by their first item: one is refused
/// before DynamoDB sees it (turned into a harmless `ListTables`, answered with a 400
/// `ValidationException`: not written), the other reaches DynamoDB Local and is applied, but
/// every answer to it becomes a 500 `InternalServerError` (the SDK retries it, then gives up:
/// its outcome is unknown to the library, and its items are in fact written).
#[derive(Debug)]
struct MidBatchFault {
    refuse: &'static str,
    lose_answer: &'static str,
}

const FAULT: &str = "fault-";

fn fault_of(cfg: &ConfigBag) -> Option<String> {
    cfg.load::<AppName>()?.as_ref().strip_prefix(FAULT).map(str::to_owned)
}

impl Intercept for MidBatchFault {
    fn name(&self) -> &'static str {
        "MidBatchFault"
    }

    fn modify_before_serialization(
        &self,
        ctx: &mut BeforeSerializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(input) = ctx.input_mut().downcast_mut::<BatchWriteItemInput>() else { return Ok(()) };
        let first = input
            .request_items
            .as_ref()
            .and_then(|m| m.values().next())
            .and_then(|r| r.first())
            .and_then(|r| r.put_request())
            .map(|p| key_pair(&p.item).1);
        let fault = match first.as_deref() {
            Some(sk) if sk == self.refuse => "refuse",
            Some(sk) if sk == self.lose_answer => "lose-answer",
            _ => return Ok(()),
        };
        cfg.interceptor_state().store_put(AppName::new(format!("{FAULT}{fault}")).map_err(|e| e.to_string())?);
        Ok(())
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if fault_of(cfg).as_deref() == Some("refuse") {
            let request = ctx.request_mut();
            common::divert(request);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let (status, body) = match fault_of(cfg).as_deref() {
            Some("refuse") => {
                (400u16, r#"{"__type":"com.amazon.coral.validate#ValidationException","message":"injected"}"#)
            }
            Some("lose-answer") => {
                (500, r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"injected"}"#)
            }
            _ => return Ok(()),
        };
        common::answer(ctx, status, body.into())
    }
}

#[tokio::test]
async fn a_fault_mid_batch_accounts_for_every_key_and_a_replay_completes_it() {
    let table = common::table("batch-fault", &[Thing::SCHEMA]).await;
    let base = dynamo_entity::local::client().await.unwrap();
    // Chunks of 25: the third chunk (items 50..75) is refused, the fourth (75..100) loses its answers.
    let fault = MidBatchFault { refuse: "ITEM#0000000050", lose_answer: "ITEM#0000000075" };
    let faulty = Table::new(Client::from_conf(base.config().to_builder().interceptor(fault).build()), table.name());
    let items = things("f", 0..250);
    let result = faulty.batch(fast().with_concurrency(4)).put(&items).await;
    let Err(Error::BatchWrite { outcome, source, .. }) = result else { panic!("{result:?}") };
    eprintln!("fault mid-batch: {} ({source})", outcome.summary());
    let positions = |keys: &[dynamo_entity::BatchKey]| keys.iter().map(|k| k.index).collect::<Vec<_>>();
    let (written, not_written, unknown) =
        (positions(&outcome.written), positions(&outcome.not_written), positions(&outcome.unknown));
    // Every key exactly once, and with its own key text.
    let mut all: Vec<usize> = written.iter().chain(&not_written).chain(&unknown).copied().collect();
    all.sort_unstable();
    assert_eq!(all, (0..250).collect::<Vec<_>>());
    for k in outcome.written.iter().chain(&outcome.not_written).chain(&outcome.unknown) {
        assert_eq!((k.pk.clone(), k.sk.clone()), key_of(&items[k.index]));
    }
    // The first wave (4 chunks) ran to its end; a chunk started after it (when a slot freed
    // before the refusal came back) is written, the others were never sent.
    assert!((0..50).all(|i| written.contains(&i)), "the two chunks that succeeded: {written:?}");
    assert!((50..75).all(|i| not_written.contains(&i)), "the refused chunk: {not_written:?}");
    assert_eq!(unknown, (75..100).collect::<Vec<_>>(), "the chunk whose answers were lost");
    assert!(not_written.len() >= 100, "chunks after the fault were not started: {}", outcome.summary());
    // What the table holds agrees: exactly the written keys and (here) the unknown chunk.
    let held = numbers(&stored(&table, "f").await);
    let mut expected: Vec<u32> = written.iter().chain(&unknown).map(|i| *i as u32).collect();
    expected.sort_unstable();
    assert_eq!(held, expected);

    // Replay the not written and the unknown: every item, exactly once.
    let replay: Vec<Thing> = outcome.to_replay().iter().map(|k| items[k.index].clone()).collect();
    assert_eq!(replay.len(), not_written.len() + unknown.len());
    assert_eq!(replay.len() + written.len(), 250);
    table.batch_put(&replay).await.unwrap();
    assert_eq!(stored(&table, "f").await, items);
}

// A collection read in one batch: keys of three entity types, some missing, some unprocessed.

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "NOTE#<n>"]
pub struct Note {
    pub group: String,
    pub n: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "FLAG#<id>"]
#[sk = "FLAG"]
pub struct Flag {
    pub id: u32,
}

#[derive(dynamo_entity::Collection, Debug, Clone, PartialEq)]
pub enum Mixed {
    Thing(Thing),
    Note(Note),
    Flag(Flag),
}

#[tokio::test]
async fn a_mixed_batch_get_reads_every_member_and_reports_leftovers_exactly() {
    let table = common::table("batch-mixed", &[Thing::SCHEMA, Note::SCHEMA, Flag::SCHEMA]).await;
    let things = things("m", 0..90);
    let notes: Vec<Note> = (0..80).map(|n| Note { group: "m".into(), n }).collect();
    let flags: Vec<Flag> = (0..40).map(|id| Flag { id }).collect();
    table.batch_put(&things).await.unwrap();
    table.batch_put(&notes).await.unwrap();
    table.batch_put(&flags).await.unwrap();
    // 250 keys, interleaved: 100 things (10 missing), 100 notes (20 missing), 50 flags (10 missing).
    let mut keys: Vec<MixedKey> = Vec::new();
    for i in 0..100u32 {
        keys.push(Thing::key("m", i).into());
        keys.push(Note::key("m", i).into());
        if i < 50 {
            keys.push(Flag::key(i).into());
        }
    }
    assert_eq!(keys.len(), 250);
    let expected: Vec<Mixed> = keys
        .iter()
        .filter_map(|k| match k {
            MixedKey::Thing(k) => things.iter().find(|t| &t.primary_key() == k).cloned().map(Mixed::Thing),
            MixedKey::Note(k) => notes.iter().find(|t| &t.primary_key() == k).cloned().map(Mixed::Note),
            MixedKey::Flag(k) => flags.iter().find(|t| &t.primary_key() == k).cloned().map(Mixed::Flag),
        })
        .collect();
    assert_eq!(expected.len(), 210);

    // Unprocessed keys on the first attempt of every request are retried: nothing is lost.
    let (flaky, seen) = injected(&table, Rule::FirstAttempts(10)).await;
    let read = flaky.batch(fast()).get(keys.clone()).await.unwrap();
    assert_eq!(read, expected, "every member's item once, in key order, missing keys absent");
    assert_eq!(seen.lock().unwrap().injected, 3, "3 chunks of at most 100 keys, each retried once");

    // Keys unprocessed past the budget (things 3 and 53) are reported exactly, in the order given.
    let (flaky, _) = injected(&table, Rule::Always(|n| n % 50 == 3)).await;
    match flaky.batch(fast().with_max_attempts(3)).get(keys.clone()).await {
        Err(Error::Unprocessed { operation, keys }) => {
            assert_eq!(operation, "BatchGetItem");
            assert_eq!(keys, vec![key_of(&thing("m", 3)), key_of(&thing("m", 53))]);
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// `write_batch`: puts and deletes of several entity types in one batch.

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "MEMO#<id>"]
pub struct Memo {
    pub group: String,
    pub id: u32,
    pub text: String,
    #[updated_at]
    pub updated: std::time::SystemTime,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GROUP#<group>"]
#[sk = "BANNER#<name>"]
pub struct Banner {
    pub group: String,
    pub name: String,
}

#[tokio::test]
async fn write_batch_mixes_three_entity_types_and_retries_the_unprocessed() {
    let table = common::table("batch-mixed", &[Thing::SCHEMA, Memo::SCHEMA, Banner::SCHEMA]).await;
    let old = things("m", 100..105);
    table.batch_put(&old).await.unwrap();
    let (flaky, seen) = injected(&table, Rule::FirstAttempts(5)).await;
    let flaky = flaky.with_clock(|| std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    let new = things("m", 0..40);
    let memos: Vec<Memo> =
        (0..10).map(|id| Memo { group: "m".into(), id, text: "hi".into(), updated: std::time::UNIX_EPOCH }).collect();
    let banners: Vec<Banner> = (0..10).map(|n| Banner { group: "m".into(), name: format!("f{n}") }).collect();
    let mut batch = flaky.write_batch().options(fast());
    for (i, t) in new.iter().enumerate() {
        batch = batch.put(t);
        if i < 10 {
            batch = batch.put(&memos[i]).put(&banners[i]);
        }
    }
    for t in &old {
        batch = batch.delete(t.primary_key());
    }
    assert_eq!(batch.len(), 65);
    assert_send(batch.send()).await.unwrap();

    assert_eq!(stored(&table, "m").await, new, "every put landed, every delete applied");
    let raw = common::raw_items(&table).await;
    let of = |prefix: &str| {
        raw.iter().filter(|i| matches!(&i["SK"], AttributeValue::S(s) if s.starts_with(prefix))).collect::<Vec<_>>()
    };
    assert_eq!(of("BANNER#").len(), 10);
    let stored_memos = of("MEMO#");
    assert_eq!(stored_memos.len(), 10);
    for n in stored_memos {
        assert_eq!(n["updated"], AttributeValue::S("2023-11-14T22:13:20.000Z".into()), "filled from the clock");
    }
    let seen = seen.lock().unwrap();
    // Each entity's writes in chunks of their own: Thing's 45 (25, 20), Memo's 10, Banner's 10.
    // Each first attempt lost 5 writes, each retry carried exactly those.
    assert_eq!((seen.requests, seen.injected, seen.dropped, seen.decoys), (8, 4, 20, 0));
}

#[tokio::test]
async fn write_batch_files_each_write_under_its_own_entity() {
    use common::spans::field;

    let table = common::table("batch-mixed-attributed", &[Thing::SCHEMA, Memo::SCHEMA, Banner::SCHEMA]).await;
    let memo = Memo { group: "a".into(), id: 1, text: "hi".into(), updated: std::time::UNIX_EPOCH };
    let banner = |n: u32| Banner { group: "a".into(), name: format!("b{n}") };
    // The first write is a Banner's: nothing of the others may be filed under it.
    table
        .write_batch()
        .put(&banner(1))
        .put(&thing("a", 1))
        .put(&memo)
        .put(&thing("a", 2))
        .put(&banner(2))
        .put(&thing("a", 3))
        .send()
        .await
        .unwrap();
    let report = table.capacity();
    let writes = |entity: &str| {
        report
            .rows()
            .iter()
            .filter(|r| r.operation == "BatchWriteItem" && r.entity == entity)
            .fold(0.0, |sum, r| sum + r.capacity.write_units)
    };
    assert_eq!((writes("Thing"), writes("Memo"), writes("Banner")), (3.0, 1.0, 2.0), "{report:?}");
    let spans = common::spans::of_table(table.name());
    let call = spans.iter().find(|s| s.name == "dynamodb_batch").expect("the call's span");
    assert_eq!(call.field("entity"), Some("Banner,Thing,Memo"));
    let mut requests: Vec<(String, String)> = spans
        .iter()
        .filter(|s| s.name == "dynamodb" && s.field("operation") == Some("BatchWriteItem"))
        .map(|s| (field(&s.fields, "entity").unwrap().to_owned(), field(&s.fields, "sent").unwrap().to_owned()))
        .collect();
    requests.sort();
    let expected = [("Banner", "2"), ("Memo", "1"), ("Thing", "3")].map(|(e, n)| (e.to_owned(), n.to_owned()));
    assert_eq!(requests, expected);
}

#[tokio::test]
async fn write_batch_refuses_before_sending() {
    let table = common::table("batch-mixed-refused", &[Thing::SCHEMA, Banner::SCHEMA, Versioned::SCHEMA]).await;
    let flag = Banner { group: "g".into(), name: "a".into() };
    // Two writes of one key, a put and a delete.
    let e = table.write_batch().put(&thing("g", 1)).put(&flag).delete(Banner::key("g", "a")).send().await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("writes 1 and 2 have the same key")), "{e:?}");
    // A versioned entity.
    let locked = Versioned { group: "g".into(), n: 1, version: 0 };
    let e = table.write_batch().put(&thing("g", 2)).put(&locked).send().await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("#[version]")), "{e:?}");
    let e = table.write_batch().delete(Versioned::key("g", 1u32)).send().await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("#[version]")), "{e:?}");
    assert!(common::raw_items(&table).await.is_empty(), "nothing sent");
    table.write_batch().send().await.unwrap();
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#GROUP#<group>"]
#[sk = "SEAT#<n>"]
#[entity(tenant = "tenant_id")]
pub struct Seat {
    pub tenant_id: String,
    pub group: String,
    pub n: u32,
}

#[tokio::test]
async fn write_batch_on_a_tenant_handle_refuses_other_tenants_whole() {
    let table = common::table("batch-mixed-tenant", &[Thing::SCHEMA, Seat::SCHEMA]).await;
    let t1 = table.for_tenant("t1");
    let seat = |tenant: &str, n| Seat { tenant_id: tenant.into(), group: "g".into(), n };
    let e = t1.write_batch().put(&seat("t1", 1)).put(&seat("t2", 2)).send().await.unwrap_err();
    assert!(matches!(e, Error::OutsideTenant { .. }), "{e:?}");
    let e = t1.write_batch().put(&seat("t1", 1)).put(&thing("g", 1)).send().await.unwrap_err();
    assert!(matches!(e, Error::TenantRefused { .. }), "{e:?}");
    assert!(common::raw_items(&table).await.is_empty(), "nothing sent");
    t1.write_batch().put(&seat("t1", 1)).delete(Seat::key("t1", "g", 2u32)).send().await.unwrap();
    assert_eq!(common::raw_items(&table).await.len(), 1);
}
