//! The retry loop of one chunk: sends what is still unprocessed with backoff, counts the SDK's
//! attempts (`send::attempts`), tells throttling from other failures, and runs the chunks
//! concurrently.

use super::Batch;
use super::outcome::*;

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use futures_util::StreamExt;
use tracing::field::Empty;

use crate::error::Error;
use crate::error::sdk_error;
use crate::model::Item;
use crate::model::entity::EntitySchema;
use crate::send::attempts::Attempts;
use crate::send::limit::THROTTLING;

pub(super) fn is_throttling<E: ProvideErrorMetadata, R>(e: &SdkError<E, R>) -> bool {
    e.as_service_error().and_then(ProvideErrorMetadata::code).is_some_and(|code| THROTTLING.contains(&code))
}

/// The span of a batch call; `entity` is its entity's type name (a `write_batch`'s entities
/// joined by `,`).
pub(super) fn call_span(
    operation: &'static str,
    table: &str,
    entity: &str,
    sent: usize,
    chunks: usize,
) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb_batch",
        operation,
        table,
        entity,
        sent,
        chunks,
        items = Empty,
        retries = Empty,
        unprocessed = Empty,
        consumed_capacity = Empty,
    )
}

pub(super) fn request_span(
    operation: &'static str,
    table: &str,
    schema: &EntitySchema,
    attempt: u32,
    sent: usize,
) -> tracing::Span {
    tracing::debug_span!(
        "dynamodb",
        operation,
        table,
        entity = schema.entity_type,
        index = "",
        attempt,
        sent,
        items = Empty,
        unprocessed = Empty,
        throttled = Empty,
        consumed_capacity = Empty,
    )
}

/// Runs the chunk futures, at most `concurrency` at once. On the first error, raises `abort`
/// (chunks not yet started return at once, running ones stop retrying); every chunk returns,
/// and the call's outcome holds the first error.
///
/// Drives the chunks' futures, each boxed where it is made: a chunk's future is kilobytes
/// (its retry loop, the send path's), and a chunk held inline until the driver boxed it made
/// every future above it as large, each copied whole when it was moved (issue 51: a batch
/// put's future was 5.2 KB, 952 bytes now). A call of one chunk (up to 25 writes, 100 reads)
/// awaits it alone: no `FuturesUnordered` to poll it through, and no merge of its outcome into
/// an empty one.
pub(super) async fn drive<F>(mut chunks: Vec<Pin<Box<F>>>, concurrency: usize, abort: &AtomicBool) -> Outcome
where
    F: Future<Output = Outcome>,
{
    if chunks.len() == 1
        && let Some(only) = chunks.pop()
    {
        return only.await;
    }
    let mut running = futures_util::stream::iter(chunks).buffer_unordered(concurrency);
    let mut total = Outcome::default();
    while let Some(outcome) = running.next().await {
        if outcome.error.is_some() {
            abort.store(true, Ordering::Relaxed);
        }
        total.merge(outcome);
    }
    total
}

/// What one request of a chunk came back with.
#[derive(Default)]
pub(super) struct Answer {
    /// Capacity units, if the response reported any.
    pub(super) capacity: Option<f64>,
    /// Items read (`BatchGetItem`).
    pub(super) found: Vec<Item>,
    /// How many entries DynamoDB reported unprocessed, and their keys.
    pub(super) reported: usize,
    pub(super) left: Vec<KeyText>,
}

/// Why a request of a chunk failed.
pub(super) struct Failure {
    /// Throttled as a whole: nothing was processed, try again later.
    pub(super) throttled: bool,
    /// Nothing of it can have been applied (never sent, or refused with a 4xx answer).
    pub(super) none_applied: bool,
    pub(super) error: Error,
}

pub(super) fn failure<E, R>(e: SdkError<E, R>, attempts: &Attempts) -> Failure
where
    E: ProvideErrorMetadata,
    aws_sdk_dynamodb::Error: From<SdkError<E, R>>,
{
    let throttled = is_throttling(&e);
    let none_applied = matches!(e, SdkError::ConstructionFailure(_)) || attempts.none_applied();
    Failure { throttled, none_applied, error: sdk_error(e) }
}

impl Batch {
    /// The retry loop of one chunk, for writes and reads alike: sends what is still
    /// unprocessed (`first` for the first request if it was built already, else built by
    /// `build`; sent by `send`) with backoff, until everything is processed, the budget is
    /// spent, a request fails, or another chunk failed (`abort`).
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn run_chunk<Req, Fut>(
        &self,
        (operation, schema): (&'static str, &'static EntitySchema),
        mut entries: Vec<Entry>,
        mut first: Option<Req>,
        keys: &Keys,
        abort: &AtomicBool,
        mut build: impl FnMut(&mut [Entry]) -> Result<Req, Error>,
        send: impl Fn(Req, tracing::Span, Attempts) -> Fut,
    ) -> Outcome
    where
        Fut: Future<Output = Result<Answer, Failure>>,
    {
        let table = self.table.name();
        let mut outcome = Outcome::default();
        // Entries of a request throttled in the end, after an attempt whose outcome is unknown.
        let mut maybe_applied: HashSet<usize> = HashSet::new();
        let mut received: HashSet<usize> = HashSet::new();
        for attempt in 1..=self.options.max_attempts() {
            if attempt > 1 {
                outcome.retries += 1;
                tokio::time::sleep(self.options.delay(attempt - 1)).await;
            }
            if abort.load(Ordering::Relaxed) {
                break;
            }
            let span = request_span(operation, table, schema, attempt, entries.len());
            let request = match first.take().map_or_else(|| build(&mut entries), Ok) {
                Ok(request) => request,
                Err(e) => {
                    outcome.error = Some(e);
                    break;
                }
            };
            let attempts = Attempts::default();
            match send(request, span.clone(), attempts).await {
                Ok(answer) => {
                    if let Some(units) = answer.capacity {
                        outcome.capacity += units;
                    }
                    if !answer.found.is_empty() {
                        span.record("items", answer.found.len());
                        let index_of: HashMap<KeyRef<'_>, usize> =
                            entries.iter().map(|e| (keys.get(e.key), e.index)).collect();
                        for item in answer.found {
                            let index = crate::model::entity::item_key_ref(schema, &item)
                                .and_then(|(pk, sk)| index_of.get(&(pk.as_ref(), sk.as_deref())).copied());
                            if let Some(index) = index.filter(|i| received.insert(*i)) {
                                outcome.found.push((index, item));
                            }
                        }
                    }
                    if answer.reported == 0 {
                        // Everything processed (the common answer): no key to match.
                        outcome.done.extend(entries.drain(..).map(|e| (e.index, e.key)));
                    } else {
                        // Keeps the entries DynamoDB reported unprocessed (and not read meanwhile).
                        // If a reported entry cannot be matched to a key (DynamoDB never does
                        // that), every entry is kept: sending an item twice is harmless, dropping
                        // one is not.
                        let left: HashSet<KeyRef<'_>> =
                            answer.left.iter().map(|(pk, sk)| (pk.as_str(), sk.as_deref())).collect();
                        let matched = left.len() == answer.reported;
                        let (kept, done): (Vec<_>, Vec<_>) = std::mem::take(&mut entries).into_iter().partition(|e| {
                            (!matched || left.contains(&keys.get(e.key))) && !received.contains(&e.index)
                        });
                        entries = kept;
                        outcome.done.extend(done.into_iter().map(|e| (e.index, e.key)));
                    }
                    span.record("unprocessed", entries.len());
                }
                Err(f) if f.throttled => {
                    if !f.none_applied {
                        maybe_applied.extend(entries.iter().map(|e| e.index));
                    }
                    span.record("throttled", true);
                    span.record("unprocessed", entries.len());
                }
                Err(f) => {
                    if !f.none_applied {
                        outcome.unknown.extend(entries.drain(..).map(|e| (e.index, e.key)));
                    }
                    outcome.error = Some(f.error);
                    break;
                }
            }
            if entries.is_empty() {
                return outcome;
            }
        }
        for e in entries {
            if maybe_applied.contains(&e.index) { &mut outcome.unknown } else { &mut outcome.unprocessed }
                .push((e.index, e.key));
        }
        outcome
    }
}
