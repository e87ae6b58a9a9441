//! [`Table`]: a table's name, client, timeouts, cursor secret and request meter. What it does lives
//! in `ops/` (one file per operation family), `schema/` (creating and checking it) and `stream/`.

use std::sync::Arc;

use aws_sdk_dynamodb::Client;

use crate::cursor::CursorSecret;
use crate::error::Error;
use crate::model::entity::EntitySchema;
use crate::model::tenant::TenantScope;
use crate::send::Meter;
use crate::send::capacity::CapacityReport;
use crate::send::limit::{Limiter, RateLimit, ThrottleWatch};
use crate::send::timeouts::Timeouts;

#[cfg(feature = "encryption")]
pub(crate) mod encryption;
pub(crate) mod reads;
pub(crate) mod regions;

/// How many requests a sharded query has in flight at once, unless the table says otherwise.
pub(crate) const DEFAULT_SHARD_CONCURRENCY: usize = 16;

/// A DynamoDB table holding entities. Cheap to clone (`Send + Sync`): share it between tasks.
#[derive(Debug, Clone)]
pub struct Table {
    pub(crate) client: Client,
    pub(crate) name: Arc<str>,
    pub(crate) cursor_secret: Option<Arc<CursorSecret>>,
    pub(crate) meter: Meter,
    /// Requests a sharded query has in flight at once.
    pub(crate) shard_concurrency: usize,
    /// The tenant of a handle made by [`Table::for_tenant`].
    pub(crate) tenant: Option<Arc<TenantScope>>,
    /// The clock of `#[created_at]` and `#[updated_at]` ([`Table::with_clock`]).
    pub(crate) clock: crate::model::filled::Clock,
    /// The entities a handle made by `Table::with_encryption` encrypts.
    #[cfg(feature = "encryption")]
    pub(crate) encryption: Option<Arc<encryption::Encryption>>,
    /// The global table of a handle made by `Table::on_global_table`.
    pub(crate) regions: Option<Arc<regions::Regions>>,
}

impl Table {
    /// A table named `name`, reached through `client`.
    ///
    /// Unless the client's configuration sets an operation or attempt timeout of its own,
    /// every request gets the default [`Timeouts`] (30 s per call, 10 s per attempt), so that
    /// no call waits forever on a server that stopped answering; see [`Table::with_timeouts`].
    ///
    /// The table's client is `client` with one interceptor of this crate's added: it counts a
    /// batch request's attempts, and does nothing for other requests.
    pub fn new(client: Client, name: impl Into<String>) -> Self {
        let name: String = name.into();
        Table {
            client: crate::send::attempts::counting(Timeouts::bounded(client)),
            name: name.into(),
            cursor_secret: None,
            meter: Meter::default(),
            shard_concurrency: DEFAULT_SHARD_CONCURRENCY,
            tenant: None,
            clock: crate::model::filled::Clock::default(),
            #[cfg(feature = "encryption")]
            encryption: None,
            regions: None,
        }
    }

    /// This table with `clock` for the fields the library fills (`#[created_at]`,
    /// `#[updated_at]`) instead of the system's clock: a test gives a fixed or stepped time
    /// (`table.with_clock(|| UNIX_EPOCH + Duration::from_secs(1_700_000_000))`). Each write reads
    /// it once (a transaction or a batch once for all its items). Clones share it.
    #[must_use]
    pub fn with_clock(mut self, clock: impl Fn() -> std::time::SystemTime + Send + Sync + 'static) -> Self {
        self.clock = crate::model::filled::Clock::new(clock);
        self
    }

    /// This table with other operation and attempt timeouts for every request, whatever the
    /// client sets. The SDK's retries stay on (within the operation timeout).
    #[must_use]
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.client = timeouts.client_with(&self.client);
        self
    }

    /// The operation and attempt timeouts of this table's requests (`None` for one that the
    /// client leaves unset).
    pub fn timeouts(&self) -> (Option<std::time::Duration>, Option<std::time::Duration>) {
        Timeouts::of_client(&self.client).unwrap_or((None, None))
    }

    /// This table with signed (and, with [`CursorSecret::encrypted`], encrypted) query cursors:
    /// an altered or forged cursor is [`Error::InvalidCursor`](crate::error::Error::InvalidCursor), and an encrypted one does not
    /// show key values to whoever holds it. Every process serving the same clients needs the
    /// same secret; cursors of a table without a secret are refused, and the other way round.
    /// See [`Cursor`](crate::cursor::Cursor) for what a cursor without a secret reveals.
    #[must_use]
    pub fn with_cursor_secret(mut self, secret: CursorSecret) -> Self {
        self.cursor_secret = Some(Arc::new(secret));
        self
    }

    /// This table with at most `n` requests in flight at once for each query of a sharded
    /// partition (every shard is read, and merged; 16 by default). 0 is taken as 1.
    #[must_use]
    pub fn with_shard_concurrency(mut self, n: usize) -> Self {
        self.shard_concurrency = n.max(1);
        self
    }

    /// The table name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The Region of this handle's client (`None` if its configuration names none): the replica
    /// of a global table it reads and writes.
    pub fn region(&self) -> Option<&str> {
        self.client.config().region().map(|r| r.as_ref())
    }

    /// A handle of the same table in `region`: its client's configuration with that Region (and
    /// everything else as it is: credentials, timeouts, retries, interceptors), sharing this
    /// handle's options (the global table it knows and its write mode, tenant, rate limit,
    /// capacity, cursor secret). The replica of a global table in another Region: where `apply`
    /// brings that Region's own settings in step, and where the application writes after a
    /// failover. A name that is not a Region's (`eu-west-1`) is [`Error::Validation`].
    pub fn in_region(&self, region: impl Into<String>) -> Result<Table, Error> {
        let region = region.into();
        regions::check_region("in_region", &region)?;
        let config = self.client.config().to_builder().region(aws_sdk_dynamodb::config::Region::new(region)).build();
        Ok(Table { client: Client::from_conf(config), ..self.clone() })
    }

    /// The SDK client, for anything this crate does not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// What this table's requests (and its clones', and the stream readers made `for_table`)
    /// consumed so far: units and requests per entity, operation and index, and the busiest
    /// partitions. Every request asks DynamoDB for its consumed capacity (`INDEXES`).
    pub fn capacity(&self) -> CapacityReport {
        self.meter.report()
    }

    /// Starts [`Table::capacity`] again from zero (for this table and its clones).
    pub fn reset_capacity(&self) {
        self.meter.reset();
    }

    /// This table with its consumed units kept within `limit`, for this handle and every clone
    /// made from it (the handle it was made from is not limited); see [`RateLimit`] for what it
    /// guarantees. Every request reserves its estimated units before it is sent, in turn with the
    /// handle's other requests whatever their concurrency: single items, queries (each shard of a
    /// merged query), scans, batches, transactions, and the items of other entities a query steps
    /// over (they cost units too).
    pub fn with_rate_limit(mut self, limit: RateLimit) -> Self {
        let limiter = Limiter::new(limit);
        self.client = crate::send::with_interceptor(&self.client, ThrottleWatch(limiter.clone()));
        self.meter = self.meter.limited(limiter);
        self
    }

    /// The rate limit in force now (lowered after throttling), if one was set.
    pub fn rate_limit(&self) -> Option<RateLimit> {
        self.meter.rate_limit()
    }

    /// Requests this table (and its clones, and the stream readers made `for_table`) sent so
    /// far, each counted once by the send path whatever the SDK's retries. Not a stable API:
    /// `tests/send_path.rs` checks with it that every operation sends through one path.
    #[doc(hidden)]
    pub fn requests_sent(&self) -> u64 {
        self.meter.requests()
    }

    /// A handle of this table that only ever touches the items of tenant `id`: every key, item,
    /// partition, batch and transaction of an entity with `#[entity(tenant = "field")]` must
    /// name `id` as its tenant, else [`Error::OutsideTenant`] before anything is sent (a batch or
    /// a transaction is refused whole). Entities without tenant are refused
    /// ([`Error::TenantRefused`]) unless `#[entity(tenant_shared)]`; so are scans, backfill,
    /// migrate and stream readers of the whole table. Clones share the tenant; the table's other
    /// options (rate limit, capacity, cursor secret) stay shared with `self`.
    ///
    /// `id` is the tenant's key text and the value of the principal tag the IAM policy
    /// (`TableDefinition::iam_policy`) compares it with, so it must read the same in
    /// both: an id that keys would escape (space, `#`, `%`, `$`, `!`, `"`, control
    /// characters), that holds IAM's wildcards `*` or `?`, that is empty or longer than 256
    /// characters makes every operation of the handle [`Error::Validation`].
    #[must_use]
    pub fn for_tenant(&self, id: impl Into<String>) -> Table {
        Table { tenant: Some(Arc::new(TenantScope::new(id.into()))), ..self.clone() }
    }

    /// The tenant of a handle made by [`Table::for_tenant`].
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref().map(|t| t.id.as_str())
    }

    /// On a tenant handle, checks that `pk`, the partition-key text of `index` (`None`: the
    /// table) of an item of `schema`, names the tenant; anything passes on other handles.
    pub(crate) fn check_tenant(&self, schema: &EntitySchema, index: Option<&str>, pk: &str) -> Result<(), Error> {
        match &self.tenant {
            Some(t) => t.check(schema, index, pk),
            None => Ok(()),
        }
    }

    /// [`Table::check_tenant`] of a key or an item: its table partition key.
    #[inline]
    pub(crate) fn check_tenant_item(&self, schema: &EntitySchema, item: &crate::model::Item) -> Result<(), Error> {
        // The tenant first: on other handles (every put, get and delete of most tables, every
        // item of a batch) the key attribute is not looked up at all, and nothing is called.
        match &self.tenant {
            None => Ok(()),
            Some(t) => Self::check_tenant_of(t, schema, item),
        }
    }

    /// [`Table::check_tenant_item`] on a handle with a tenant.
    fn check_tenant_of(t: &TenantScope, schema: &EntitySchema, item: &crate::model::Item) -> Result<(), Error> {
        match item.get(schema.pk.attr) {
            Some(aws_sdk_dynamodb::types::AttributeValue::S(pk) | aws_sdk_dynamodb::types::AttributeValue::N(pk)) => {
                t.check(schema, None, pk)
            }
            _ => t.check(schema, None, ""),
        }
    }

    /// [`Table::check_tenant`] of a read of one entity or a collection (`schemas`: its members).
    pub(crate) fn check_tenant_read(
        &self,
        schemas: &[&EntitySchema],
        index: Option<&str>,
        pk: &str,
        tenant_key: Option<(&str, &str)>,
    ) -> Result<(), Error> {
        match &self.tenant {
            Some(t) => t.check_all(schemas, index, pk, tenant_key),
            None => Ok(()),
        }
    }

    /// On a tenant handle, [`Error::TenantRefused`] for `what` (a scan, a stream of the table).
    pub(crate) fn refuse_on_tenant(&self, what: &str) -> Result<(), Error> {
        match &self.tenant {
            Some(t) => Err(t.refuse(what)),
            None => Ok(()),
        }
    }
}
