//! Runtime of `dynamo-entity`: the key codec, entity and query descriptions, errors and
//! the `Table` that executes them. Use it through the `dynamo-entity` crate, which
//! re-exports everything here and the derive macros.
//!
//! # Floors
//!
//! The modules stand in floors, bottom up; a module imports only from its own floor or below
//! (`tests/layers.rs` reads every `crate::` path and says so):
//!
//! ```text
//! 1  error/ (every error type, each payload defined here), json, size   values and failures
//! 2  key/, codec/ (key attributes, time formats, TTL values)             text and attributes
//! 3  model/ (descriptions: entity, index, collection; no requests)       what the derive describes
//! 4  expr/ (and documents, whose description is their paths)             conditions, paths, updates
//! 5  send/, cursor/, table                                                the one way out
//! 6  ops/ (item, query, scan, batch, transact, update, evolve, unique, view)
//! 7  schema/ (definition, plan/apply, exports, picture, workbench), stream/, export/, encryption/
//! 8  local/ (DynamoDB Local, feature `local`)
//! 9  lib.rs (declares the floors, re-exports the public names)
//! ```
//!
//! - `error/` holds the error enum and the payloads it boxes (batch outcomes, apply, stream, export
//!   and DB-ESDK refusals); a payload's public path stays where users find it
//!   (`stream::StreamError`, `BatchWriteOutcome`, `ApplyError`). A payload that holds a value
//!   of a floor above holds it without its type (`Box<dyn Any>`), read typed by methods written
//!   beside that value: `ApplyError::applied` (`schema::apply`), `PartialPage::into_page`
//!   (`ops::query`).
//!   A constructor that needs a description (`Error::not_found`, `Error::for_item`) is written
//!   beside that description (`model::entity`), one floor up.
//! - `size` holds `Item` and the size limits of items and keys, which every floor names.
//! - The values the codec writes are on its floor: key attributes and key schemas (`key::attr`),
//!   the time formats (`codec::time`, public as `dynamo_entity::time`) and the TTL values
//!   (`codec::ttl`: `TtlValue`, `EpochSeconds`).
//! - `table` (the [`Table`] handle: client, name, meter, settings) sits on the send floor: the
//!   operations above are `impl Table` blocks. What an encrypting handle knows and refuses
//!   (`table::encryption`) is there too; building DB-ESDK's configuration is `encryption/`'s.
//! - What sends a request is `ops/`'s, never `model/`'s: `model::view` describes a view,
//!   `ops::view` reads it; `model::collection` describes a partition, `ops::query::collection`
//!   queries it.
//!
//! No import runs up: `tests/layers.rs` fails on any (`NOT_YET_MOVED`, the list of those not
//! moved yet, is empty).

// Item encoding and decoding helpers that generated code calls: not a public API.
#[doc(hidden)]
pub mod codec;
mod cursor;
mod error;
#[cfg(feature = "analytics")]
pub mod export;
pub mod expr;
mod json;
pub mod key;
mod model;
mod ops;
mod schema;
mod send;
mod size;
pub mod stream;
mod table;

#[cfg(feature = "local")]
pub mod local;

/// Client-side encryption on AWS's Database Encryption SDK (feature `encryption`).
#[cfg(feature = "encryption")]
pub mod encryption;

pub use aws_sdk_dynamodb;
pub use aws_sdk_dynamodb::types::AttributeValue;
pub use codec::time;
pub use model::set as sets;
pub use model::{Item, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};

pub use codec::{EpochSeconds, TtlValue};
pub use cursor::{Cursor, CursorSecret, MAX_CURSOR_LEN};
pub use error::region::RegionLocal;
pub use error::{CancelCode, CancelReason, Error, KeyError, PartialPage, ThrottleReason};
pub use expr::document::Document;
pub use expr::{Condition, FieldPath, Path, ReadOnly};
pub use key::attr::{AttributeType, KeyAttribute};
#[doc(hidden)]
pub use key::attr::{attr_key_parse, attr_key_text, check_attr_key, check_attr_value, check_table_attr_key};
pub use key::shard::{fnv1a64, shard_of};
pub use key::{KeyPart, KeyPartError, PaddedKeyPart};
#[doc(hidden)]
pub use model::collection::key_schema_of;
pub use model::collection::{Collection, Member, Partition, ReadKey, Readable, SortKeyValue};
#[doc(hidden)]
pub use model::collection::{IsEntity, MemberKey, collection_member, member_of, member_schema, same_table};
#[doc(hidden)]
pub use model::entity::EncryptionFeature;
pub use model::entity::{
    Entity, EntityKey, EntitySchema, IndexKind, IndexProjection, IndexSchema, KeySchema, MultiKeys, UniqueField,
};
#[doc(hidden)]
pub use model::entity::{belongs, debug_key, from_checked};
pub use model::filled::FilledTime;
#[doc(hidden)]
pub use model::filled::{Stamp, Stamps, filled, item_of, valid};
#[doc(hidden)]
pub use model::tenant::shared_apart;
pub use model::tenant::{MAX_TENANT_ID_CHARS, Tenancy};
pub use model::value::IntoValue;
pub use model::vector::{Distance, MAX_VECTOR_DIMENSIONS, VectorIndexSchema, check_vector};
pub use model::version::Version;
pub use model::view::{HasFields, View, restore_primary_of};
pub use ops::batch::{Batch, BatchKey, BatchOptions, BatchWriteOutcome, WriteBatch};
pub use ops::evolve::{Backfill, BackfillJob, Evolution, FailedItem, Migrate, MigrateJob, MigrationReport, Progress};
pub use ops::item::{DeleteItem, PutItem, PutReturning};
#[doc(hidden)]
pub use ops::query::SortOp;
pub use ops::query::pager::Page;
pub use ops::query::{DEFAULT_MAX_EMPTY_PAGES, Filters, Query, QueryOptions, QueryRequest, SortCondition, SortKey};
#[doc(hidden)]
pub use ops::query::{How, Level, LevelSpec, LevelText, QueryLevel};
pub use ops::scan::{MAX_SCAN_SEGMENTS, Scan};
pub use ops::search::{DEFAULT_TOP_K, MAX_TOP_K, Search, SearchFilter, SearchRequest};
pub use ops::transact::{Check, DEFAULT_CONFLICT_RETRIES, MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES, Transaction};
#[doc(hidden)]
pub use ops::update::{Created, CreatedFn, Glue, Slot, Updatable, Upkeep, UpkeepField, UpkeepIndex, Values};
pub use ops::update::{Number, Update, UpdateRequest};
pub use schema::cost::ItemSizes;
pub use schema::workbench;
pub use schema::{
    Apply, ApplyError, ApplyProgress, Billing, DEFAULT_APPLY_TIME_LIMIT, GlobalTable, IamPolicy, IndexDefinition,
    InsightsMode, MultiRegionConsistency, Projection, Replica, Sse, StreamView, TableChange, TableClass,
    TableDefinition, TableOptions, TablePlan, Throughput, WriteMode,
};
pub use schema::{Backup, DEFAULT_RESTORE_TIME_LIMIT, Restore, RestorePoint};
pub use send::capacity::{Capacity, CapacityReport, CapacityRow, HOT_PARTITIONS_KEPT};
pub use send::limit::RateLimit;
pub use send::timeouts::Timeouts;
pub use size::{MAX_ITEM_BYTES, item_size};
pub use table::Table;
