#![doc = include_str!("../README.md")]

pub mod guide;

/// What a program that reads and writes entities needs, in one line:
/// `use dynamo_entity::prelude::*;`. The derives (and their traits), [`Table`], and
/// [`QueryOptions`], whose methods (`descending`, `limit`, `after`,
/// `consistent_read`, `filter`, ..) every query takes.
pub mod prelude {
    pub use crate::{Collection, Document, Entity, EntityKey, KeyPart, QueryOptions, Table, View};
}

pub use dynamo_entity_macros::{Collection, Document, Entity, KeyPart, View};
pub use dynamo_entity_runtime::{AttributeType, KeyAttribute};
pub use dynamo_entity_runtime::{
    AttributeValue, CancelCode, CancelReason, Check, Cursor, EntityKey, EntitySchema, EpochSeconds, Error,
    IndexDefinition, IndexKind, IndexProjection, IndexSchema, Item, KeyError, KeyPartError, KeySchema, MAX_ITEM_BYTES,
    MAX_TRANSACTION_ACTIONS, MultiKeys, PaddedKeyPart, Page, PartialPage, Query, QueryRequest, SortCondition, Table,
    TableDefinition, Transaction, TtlValue, UniqueField, Update, UpdateRequest, Version, item_size, key,
};
pub use dynamo_entity_runtime::{Backfill, Evolution, FailedItem, Migrate, MigrationReport, Progress};
pub use dynamo_entity_runtime::{Batch, BatchKey, BatchOptions, BatchWriteOutcome};
pub use dynamo_entity_runtime::{
    Capacity, CapacityReport, CapacityRow, HOT_PARTITIONS_KEPT, RateLimit, ThrottleReason,
};
pub use dynamo_entity_runtime::{CursorSecret, MAX_CURSOR_LEN, Timeouts};
pub use dynamo_entity_runtime::{DEFAULT_CONFLICT_RETRIES, DEFAULT_MAX_EMPTY_PAGES, IntoValue, SortKeyValue};
pub use dynamo_entity_runtime::{IamPolicy, MAX_TENANT_ID_CHARS, Tenancy};
pub use dynamo_entity_runtime::{fnv1a64, shard_of};
// The traits share their names with the derives: a `use dynamo_entity::Entity;` brings both.
pub use dynamo_entity_runtime::sets;
pub use dynamo_entity_runtime::stream;
pub use dynamo_entity_runtime::time;
pub use dynamo_entity_runtime::workbench;
pub use dynamo_entity_runtime::{Apply, ApplyError, ApplyProgress, Sse, TableChange, TablePlan};
pub use dynamo_entity_runtime::{Backup, DEFAULT_RESTORE_TIME_LIMIT, Restore, RestorePoint};
pub use dynamo_entity_runtime::{Billing, InsightsMode, ItemSizes, Projection, StreamView, TableOptions, Throughput};
pub use dynamo_entity_runtime::{Collection, Document, Entity, KeyPart};
pub use dynamo_entity_runtime::{
    Condition, DEFAULT_TOP_K, Distance, Filters, MAX_SCAN_SEGMENTS, MAX_TOP_K, MAX_VECTOR_DIMENSIONS, Member,
    Partition, Path, ReadKey, Readable, Scan, Search, SearchFilter, SearchRequest, VectorIndexSchema, expr,
};
pub use dynamo_entity_runtime::{FieldPath, Number, QueryOptions, ReadOnly, SortKey};
pub use dynamo_entity_runtime::{GlobalTable, MultiRegionConsistency, RegionLocal, Replica, TableClass, WriteMode};

#[cfg(feature = "encryption")]
pub use dynamo_entity_runtime::encryption;
#[cfg(feature = "analytics")]
pub use dynamo_entity_runtime::export;
#[cfg(feature = "local")]
pub use dynamo_entity_runtime::local;

/// The AWS SDK for DynamoDB this crate is built on: build the `Client` for [`Table::new`] with
/// `dynamo_entity::aws_sdk_dynamodb::Client`, without naming a second, matching version.
pub use dynamo_entity_runtime::aws_sdk_dynamodb;

/// Re-exports for generated code. Not a public API. The number is the version of the interface
/// between the derive macros and this crate: derives of another version fail to compile
/// (see [`__private_check`]), never call functions that changed.
#[doc(hidden)]
pub use dynamo_entity_runtime as __private01;

/// Called first by generated code with the interface version the derive macros were built for:
/// a `dynamo-entity-macros` of another version than this `dynamo-entity` is one clear error.
#[doc(hidden)]
#[macro_export]
macro_rules! __private_check {
    (01) => {};
    ($other:tt) => {
        ::core::compile_error!(::core::concat!(
            "`dynamo-entity-macros` does not match `dynamo-entity`: the derive was built for interface ",
            ::core::stringify!($other),
            ", this crate has interface 01; depend on `dynamo-entity` alone (it pins its macros) \
             and remove any other version of `dynamo-entity-macros` from Cargo.toml",
        ));
    };
}
