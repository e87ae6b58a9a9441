#![doc = include_str!("../README.md")]

pub use dynamo_entity_macros::{Entity, KeyPart};
pub use dynamo_entity_runtime::{
    AttributeValue, EntityKey, EntitySchema, EpochSeconds, Error, IndexKind, IndexSchema, Item, KeyError, KeyPartError,
    KeySchema, PaddedKeyPart, Query, QueryRequest, SortCondition, TtlValue, key,
};
// The traits share their names with the derives: a `use dynamo_entity::Entity;` brings both.
pub use dynamo_entity_runtime::{Entity, KeyPart};

#[cfg(feature = "local")]
pub use dynamo_entity_runtime::local;

/// Re-exports for generated code. Not a public API.
#[doc(hidden)]
pub use dynamo_entity_runtime as __private;
