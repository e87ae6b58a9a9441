#![doc = include_str!("../README.md")]

pub use dynamo_entity_macros::{Collection, Entity, KeyPart, View};
pub use dynamo_entity_runtime::{
    AttributeValue, CancelCode, CancelReason, Check, Cursor, EntityKey, EntitySchema, EpochSeconds, Error,
    IndexDefinition, IndexKind, IndexSchema, Item, KeyError, KeyPartError, KeySchema, MAX_ITEM_BYTES,
    MAX_TRANSACTION_ACTIONS, PaddedKeyPart, Page, PartialPage, Query, QueryRequest, SortCondition, Table,
    TableDefinition, Transaction, TtlValue, Update, UpdateRequest, item_size, key,
};
pub use dynamo_entity_runtime::{Batch, BatchOptions};
// The traits share their names with the derives: a `use dynamo_entity::Entity;` brings both.
pub use dynamo_entity_runtime::{Collection, Entity, KeyPart};
pub use dynamo_entity_runtime::{
    Condition, Filters, MAX_SCAN_SEGMENTS, Member, Partition, Path, ReadKey, Readable, Scan, expr,
};

#[cfg(feature = "local")]
pub use dynamo_entity_runtime::local;

/// Re-exports for generated code. Not a public API.
#[doc(hidden)]
pub use dynamo_entity_runtime as __private;
