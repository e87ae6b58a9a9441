//! A reader of a table's stream through the DynamoDB Streams API, for consumers that are not
//! Lambdas: follows every shard (children after their parents, so changes of one key come in
//! order) and yields typed changes as a [`Stream`].

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::SdkError;
use aws_sdk_dynamodbstreams::types::{Identity, ShardIteratorType};
use futures_util::Stream;
use tracing::Instrument;

use super::{Change, Position, Record, StreamError};
use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;
use crate::send::{Meter, send};
use crate::table::Table;

fn sdk<E, R>(e: SdkError<E, R>) -> Error
where
    aws_sdk_dynamodbstreams::Error: From<SdkError<E, R>>,
{
    StreamError::Sdk(Box::new(aws_sdk_dynamodbstreams::Error::from(e))).into()
}

/// The ARN of the table's current stream (`DescribeTable`'s `LatestStreamArn`), or
/// [`Error::Validation`] if the table has no stream enabled.
pub async fn latest_stream_arn(table: &Table) -> Result<String, Error> {
    table.refuse_on_tenant("a reader of the table's stream: it holds every tenant's changes")?;
    let call = crate::send::call("DescribeTable", table.name(), "", None);
    let request = table.client().describe_table().table_name(table.name());
    let out = send(&table.meter, &call, request).await.map_err(crate::error::sdk_error)?;
    out.table()
        .and_then(|t| t.latest_stream_arn())
        .map(str::to_owned)
        .ok_or_else(|| Error::Validation(format!("table {} has no stream enabled", table.name())))
}

/// Reads a table's stream from a [`Position`] and yields typed changes.
///
/// ```ignore
/// let reader = StreamReader::for_table(&table, streams_client).await?.position(Position::TrimHorizon);
/// let mut changes = std::pin::pin!(reader.changes::<Order>());
/// while let Some(change) = changes.next().await { checkpoint.advance(&change?); }
/// ```
#[derive(Debug, Clone)]
pub struct StreamReader {
    client: Client,
    arn: String,
    position: Position,
    poll_interval: Duration,
    until_caught_up: bool,
    /// Rounds in a row without a record that make the reader caught up.
    caught_up_rounds: u32,
    limit: i32,
    /// The table's meter for a reader made `for_table`: its requests count with the table's.
    meter: Meter,
    /// The encrypting handle's DB-ESDK configuration, for a reader that decrypts images
    /// (`for_table` on a handle made by `Table::with_encryption`, or `decrypting`).
    #[cfg(feature = "encryption")]
    pub(crate) encryption: Option<Arc<crate::encryption::Encryption>>,
}

/// How many rounds in a row without a record [`StreamReader::until_caught_up`] waits for by
/// default: DynamoDB Streams may answer empty pages before a shard's records.
pub const CAUGHT_UP_ROUNDS: u32 = 3;

impl StreamReader {
    /// A reader of the stream `arn` with `client`, from the oldest records
    /// ([`Position::TrimHorizon`]), polling idle shards once a second, without end.
    ///
    /// As with [`Table::new`], unless the client sets an operation or attempt timeout of its own
    /// every request gets the default [`Timeouts`](crate::Timeouts) (30 s per call, 10 s per
    /// attempt): a stalled endpoint is an error, not a wait without end.
    pub fn new(client: Client, arn: impl Into<String>) -> Self {
        StreamReader {
            client: crate::send::timeouts::bounded_streams(client),
            arn: arn.into(),
            position: Position::TrimHorizon,
            poll_interval: Duration::from_secs(1),
            until_caught_up: false,
            caught_up_rounds: CAUGHT_UP_ROUNDS,
            limit: 1000,
            meter: Meter::default(),
            #[cfg(feature = "encryption")]
            encryption: None,
        }
    }

    /// A request of this reader (the stream's ARN where a table's name would be).
    fn call(&self, operation: &'static str) -> crate::send::Call<'_> {
        crate::send::call(operation, &self.arn, "", None)
    }

    /// A reader of `table`'s current stream ([`latest_stream_arn`]). With feature `encryption`
    /// and a handle made by `Table::with_encryption`, the reader decrypts and verifies the
    /// images of the handle's entities with its keyring before decoding them (see
    /// `StreamReader::decrypting`).
    pub async fn for_table(table: &Table, client: Client) -> Result<Self, Error> {
        let reader = StreamReader::new(client, latest_stream_arn(table).await?);
        Ok(StreamReader {
            meter: table.meter.clone(),
            #[cfg(feature = "encryption")]
            encryption: table.encryption.clone(),
            ..reader
        })
    }

    /// This reader with other operation and attempt timeouts, whatever the client sets.
    #[must_use]
    pub fn with_timeouts(mut self, timeouts: crate::send::timeouts::Timeouts) -> Self {
        self.client = crate::send::timeouts::streams_with(&self.client, timeouts);
        self
    }

    /// The operation and attempt timeouts of the reader's requests (`None` for one unset).
    pub fn timeouts(&self) -> (Option<Duration>, Option<Duration>) {
        self.client
            .config()
            .timeout_config()
            .map_or((None, None), |t| (t.operation_timeout(), t.operation_attempt_timeout()))
    }

    /// Where to start.
    pub fn position(mut self, position: Position) -> Self {
        self.position = position;
        self
    }

    /// How long to wait after a round in which no shard had records (1 s by default; AWS
    /// advises at most 4 GetRecords calls per second per shard). At least 10 ms.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(10));
        self
    }

    /// Records asked for per GetRecords call, 1 to 1000 (1000 by default).
    pub fn batch_size(mut self, n: u16) -> Self {
        self.limit = i32::from(n.clamp(1, 1000));
        self
    }

    /// End the stream once it is caught up (for tests and catch-up jobs), instead of polling
    /// for new records without end: after [`CAUGHT_UP_ROUNDS`] rounds in a row (a poll interval
    /// apart) in which no shard had a record. One empty round is not enough: DynamoDB Streams
    /// may answer empty pages before a shard's records (an iterator walking a trimmed or sparse
    /// range). A closed shard read to its end counts as a record.
    pub fn until_caught_up(mut self) -> Self {
        self.until_caught_up = true;
        self
    }

    /// [`StreamReader::until_caught_up`] after `rounds` empty rounds in a row (at least 1).
    pub fn until_caught_up_after(mut self, rounds: u32) -> Self {
        self.until_caught_up = true;
        self.caught_up_rounds = rounds.max(1);
        self
    }

    /// The changes of `T`, in order within each shard (and so within each key); records of
    /// entities outside `T` are stepped over. A record that cannot be decoded is an error in its
    /// place, and the stream goes on; an error of the Streams API ends it.
    pub fn changes<T: Readable>(self) -> impl Stream<Item = Result<Change<T>, Error>> + Send + 'static {
        let state = State::<T> {
            reader: self,
            shards: Vec::new(),
            pending: VecDeque::new(),
            started: false,
            rediscover: true,
            discovered_at: None,
            empty_rounds: 0,
            done: false,
            _t: std::marker::PhantomData,
        };
        futures_util::stream::unfold(state, |mut state| async move {
            loop {
                if let Some(next) = state.pending.pop_front() {
                    return Some((next, state));
                }
                if state.done {
                    return None;
                }
                if let Err(e) = state.round().await {
                    state.done = true;
                    return Some((Err(e), state));
                }
            }
        })
    }
}

/// How often an open stream's shards are listed again.
const REDISCOVER: Duration = Duration::from_secs(10);

/// One shard as the reader follows it.
#[derive(Debug)]
struct Shard {
    id: Arc<str>,
    parent: Option<String>,
    /// The next GetRecords iterator; `None` before the shard is started.
    iterator: Option<String>,
    /// The last sequence number read, to get a fresh iterator when one expires.
    last: Option<String>,
    /// Where the shard starts when it is started.
    start: (ShardIteratorType, Option<String>),
    /// A closed shard read to its end.
    finished: bool,
    /// When the shard's `LATEST` iterator was taken: if it expires before a record is read,
    /// the shard is read again from its oldest records, skipping those created before.
    latest_at: Option<std::time::SystemTime>,
    /// Records created before this are skipped (see `latest_at`).
    not_before: Option<aws_sdk_dynamodbstreams::primitives::DateTime>,
}

struct State<T> {
    reader: StreamReader,
    shards: Vec<Shard>,
    pending: VecDeque<Result<Change<T>, Error>>,
    started: bool,
    /// A shard closed since the last DescribeStream: its children are to be found.
    rediscover: bool,
    discovered_at: Option<Instant>,
    /// Rounds in a row without a record.
    empty_rounds: u32,
    done: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Readable> State<T> {
    /// Lists the stream's shards and adds the new ones.
    async fn discover(&mut self) -> Result<(), Error> {
        let r = &self.reader;
        let mut start_after: Option<String> = None;
        loop {
            let request =
                r.client.describe_stream().stream_arn(&r.arn).set_exclusive_start_shard_id(start_after.take());
            let out = send(&r.meter, &r.call("DescribeStream"), request).await.map_err(sdk)?;
            let Some(description) = out.stream_description else { break };
            for s in description.shards() {
                let Some(id) = s.shard_id() else { continue };
                if self.shards.iter().any(|k| &*k.id == id) {
                    continue;
                }
                // Positions apply to the shards there when the reader starts; shards found
                // later are new, and read whole.
                let start = match (&r.position, self.started) {
                    (Position::Latest, false) => (ShardIteratorType::Latest, None),
                    (Position::After(cp), _) => match cp.get(id) {
                        Some(seq) => (ShardIteratorType::AfterSequenceNumber, Some(seq.to_owned())),
                        None => (ShardIteratorType::TrimHorizon, None),
                    },
                    _ => (ShardIteratorType::TrimHorizon, None),
                };
                self.shards.push(Shard {
                    id: Arc::from(id),
                    parent: s.parent_shard_id().map(str::to_owned),
                    iterator: None,
                    last: start.1.clone(),
                    start,
                    finished: false,
                    latest_at: None,
                    not_before: None,
                });
            }
            match description.last_evaluated_shard_id {
                Some(last) => start_after = Some(last),
                None => break,
            }
        }
        self.started = true;
        Ok(())
    }

    /// Whether shard `i` may be read: its parent is finished, or is not (or no longer) listed.
    fn ready(&self, i: usize) -> bool {
        match &self.shards[i].parent {
            None => true,
            Some(p) => self.shards.iter().find(|s| &*s.id == p).is_none_or(|s| s.finished),
        }
    }

    async fn iterator(
        &self,
        shard: &str,
        kind: ShardIteratorType,
        seq: Option<String>,
    ) -> Result<Option<String>, Error> {
        let r = &self.reader;
        let request = r
            .client
            .get_shard_iterator()
            .stream_arn(&r.arn)
            .shard_id(shard)
            .shard_iterator_type(kind)
            .set_sequence_number(seq);
        let out = send(&r.meter, &r.call("GetShardIterator"), request).await.map_err(sdk)?;
        Ok(out.shard_iterator)
    }

    /// One GetRecords per readable shard; then, if none had records, the end (when asked) or
    /// a pause of the poll interval.
    async fn round(&mut self) -> Result<(), Error> {
        let span = tracing::debug_span!("dynamodb_streams", stream = %self.reader.arn, records = tracing::field::Empty);
        async {
            // DescribeStream when a shard closed, and otherwise at most every 10 s (new shards
            // appear about every 4 hours, or when a shard splits); every round when catching up,
            // so that the end is decided on the current list of shards.
            let stale = self.discovered_at.is_none_or(|t| t.elapsed() >= REDISCOVER);
            if self.rediscover || self.reader.until_caught_up || stale {
                self.discover().await?;
                self.rediscover = false;
                self.discovered_at = Some(Instant::now());
            }
            let mut records = 0usize;
            let mut finished_one = false;
            for i in 0..self.shards.len() {
                if self.shards[i].finished || !self.ready(i) {
                    continue;
                }
                if self.shards[i].iterator.is_none() {
                    let (kind, seq) = self.shards[i].start.clone();
                    let id = self.shards[i].id.clone();
                    if kind == ShardIteratorType::Latest {
                        self.shards[i].latest_at = Some(std::time::SystemTime::now());
                    }
                    match self.iterator(&id, kind, seq).await? {
                        Some(it) => self.shards[i].iterator = Some(it),
                        None => {
                            self.shards[i].finished = true;
                            finished_one = true;
                            continue;
                        }
                    }
                }
                let Some(iterator) = self.shards[i].iterator.take() else { continue };
                let r = &self.reader;
                let request = r.client.get_records().shard_iterator(iterator).limit(r.limit);
                let out = match send(&r.meter, &r.call("GetRecords"), request).await {
                    Ok(out) => out,
                    Err(e) => {
                        let e = aws_sdk_dynamodbstreams::Error::from(e);
                        if matches!(e, aws_sdk_dynamodbstreams::Error::ExpiredIteratorException(_)) {
                            // Iterators last 15 minutes: start again after the last record read.
                            let shard = &mut self.shards[i];
                            match (shard.last.clone(), shard.latest_at) {
                                (Some(seq), _) => shard.start = (ShardIteratorType::AfterSequenceNumber, Some(seq)),
                                // A `LATEST` iterator that expired before its first record: a new
                                // `LATEST` would lose the records written meanwhile, so read the
                                // shard from its oldest records and skip those created before
                                // the minute the first iterator was taken in (creation times are
                                // approximate: seconds on DynamoDB, minutes on DynamoDB Local; a
                                // record of that minute may come, none is lost).
                                (None, Some(at)) => {
                                    let secs =
                                        at.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 60 * 60);
                                    shard.not_before = Some(aws_sdk_dynamodbstreams::primitives::DateTime::from_secs(
                                        secs.try_into().unwrap_or(i64::MAX),
                                    ));
                                    shard.start = (ShardIteratorType::TrimHorizon, None);
                                }
                                (None, None) => {}
                            }
                            continue;
                        }
                        return Err(StreamError::Sdk(Box::new(e)).into());
                    }
                };
                let shard = &mut self.shards[i];
                // The batch's records in order (a record that does not convert is its error),
                // then the images of encrypted entities decrypted together (in parallel).
                let mut batch: Vec<Result<Record, Error>> = Vec::new();
                for r in out.records.unwrap_or_default() {
                    records += 1;
                    if let Some(not_before) = shard.not_before {
                        let created = r.dynamodb.as_ref().and_then(|d| d.approximate_creation_date_time);
                        if created.is_some_and(|c| c.secs() < not_before.secs()) {
                            continue;
                        }
                        shard.not_before = None;
                    }
                    let record = match record(r) {
                        Ok(record) => record,
                        Err(e) => {
                            if let Some(seq) = e.sequence_number().filter(|s| !s.is_empty()) {
                                shard.last = Some(seq.to_owned());
                            }
                            batch.push(Err(e));
                            continue;
                        }
                    };
                    if !record.sequence_number.is_empty() {
                        shard.last = Some(record.sequence_number.clone());
                    }
                    batch.push(Ok(record));
                }
                #[cfg(feature = "encryption")]
                if let Some(enc) = &self.reader.encryption {
                    let mut places = Vec::new();
                    let mut plain = Vec::new();
                    for (n, entry) in batch.iter_mut().enumerate() {
                        if let Ok(record) = entry {
                            places.push(n);
                            plain.push(std::mem::take(record));
                        }
                    }
                    for (n, decrypted) in places.into_iter().zip(enc.decrypt_records::<T>(plain, Some(&shard.id)).await)
                    {
                        batch[n] = decrypted;
                    }
                }
                for entry in batch {
                    match entry {
                        Ok(record) => {
                            if let Some(change) = record.change::<T>(Some(&shard.id)) {
                                self.pending.push_back(change);
                            }
                        }
                        Err(e) => self.pending.push_back(Err(e)),
                    }
                }
                match out.next_shard_iterator {
                    Some(next) => shard.iterator = Some(next),
                    None => {
                        shard.finished = true;
                        finished_one = true;
                    }
                }
            }
            self.rediscover |= finished_one;
            tracing::Span::current().record("records", records);
            if records == 0 && !finished_one {
                self.empty_rounds += 1;
                if self.reader.until_caught_up && self.empty_rounds >= self.reader.caught_up_rounds {
                    self.done = true;
                } else {
                    tokio::time::sleep(self.reader.poll_interval).await;
                }
            } else {
                self.empty_rounds = 0;
            }
            Ok(())
        }
        .instrument(span)
        .await
    }
}

/// An image of a Streams API record, or the name of an attribute holding a value the Streams
/// SDK read as `Unknown` (a newer type: serde_dynamo's conversion would panic on it).
fn item(map: Option<HashMap<String, aws_sdk_dynamodbstreams::types::AttributeValue>>) -> Result<Option<Item>, String> {
    let Some(map) = map else { return Ok(None) };
    let mut item = Item::with_capacity(map.len());
    for (k, v) in map {
        match value(v) {
            Some(v) => {
                item.insert(k, v);
            }
            None => return Err(k),
        }
    }
    Ok(Some(item))
}

/// A Streams API value as a DynamoDB one; `None` if it holds an `Unknown` at any depth.
fn value(v: aws_sdk_dynamodbstreams::types::AttributeValue) -> Option<aws_sdk_dynamodb::types::AttributeValue> {
    use aws_sdk_dynamodb::primitives::Blob;
    use aws_sdk_dynamodb::types::AttributeValue as D;
    use aws_sdk_dynamodbstreams::types::AttributeValue as S;
    Some(match v {
        S::S(s) => D::S(s),
        S::N(n) => D::N(n),
        S::B(b) => D::B(Blob::new(b.into_inner())),
        S::Bool(b) => D::Bool(b),
        S::Null(n) => D::Null(n),
        S::Ss(ss) => D::Ss(ss),
        S::Ns(ns) => D::Ns(ns),
        S::Bs(bs) => D::Bs(bs.into_iter().map(|b| Blob::new(b.into_inner())).collect()),
        S::L(l) => D::L(l.into_iter().map(value).collect::<Option<_>>()?),
        S::M(m) => D::M(m.into_iter().map(|(k, v)| Some((k, value(v)?))).collect::<Option<_>>()?),
        _ => return None,
    })
}

/// A Streams API record as a [`Record`].
/// A record holding a value of an unknown type is [`StreamError::Malformed`], naming it.
fn record(r: aws_sdk_dynamodbstreams::types::Record) -> Result<Record, Error> {
    let (keys, new_image, old_image, sequence_number, view_type) = match r.dynamodb {
        Some(c) => (c.keys, c.new_image, c.old_image, c.sequence_number, c.stream_view_type),
        None => (None, None, None, None, None),
    };
    let sequence_number = sequence_number.unwrap_or_default();
    let unknown = |attr: String| -> Error {
        StreamError::Malformed {
            sequence_number: sequence_number.clone(),
            reason: format!(
                "attribute `{attr}` holds a value of a type this version does not know (the SDK's `Unknown`)"
            ),
        }
        .into()
    };
    let keys = item(keys).map_err(unknown)?;
    let new_image = item(new_image).map_err(unknown)?;
    let old_image = item(old_image).map_err(unknown)?;
    Ok(Record {
        event_name: r.event_name.map(|e| e.as_str().to_owned()).unwrap_or_default(),
        user_identity: r.user_identity.map(|Identity { principal_id, r#type, .. }| {
            (r#type.unwrap_or_default(), principal_id.unwrap_or_default())
        }),
        keys: keys.unwrap_or_default(),
        new_image,
        old_image,
        sequence_number,
        view_type: view_type.map(|v| v.as_str().to_owned()),
    })
}
