//! Runtime of `dynamo-entity`: the key codec, entity and query descriptions, errors and
//! the `Table` that executes them. Use it through the `dynamo-entity` crate, which
//! re-exports everything here and the derive macros.

mod batch;
// Item encoding and decoding helpers that generated code calls: not a public API.
#[doc(hidden)]
pub mod codec;
mod collection;
mod cursor;
mod entity;
mod error;
pub mod expr;
mod item_ops;
mod json;
pub mod key;
mod key_attr;
mod query;
mod scan;
mod scan_cursor;
mod schema;
mod send;
mod size;
pub mod stream;
mod table;
pub mod time;
mod timeouts;
mod transact;
mod ttl;
mod update;
mod value;
mod version;
mod view;
mod write;

#[cfg(feature = "local")]
pub mod local;

pub use aws_sdk_dynamodb;
pub use aws_sdk_dynamodb::types::AttributeValue;

pub use batch::{Batch, BatchKey, BatchOptions, BatchWriteOutcome};
pub use collection::{Collection, Member, Partition, ReadKey, Readable, SortKeyValue};
#[doc(hidden)]
pub use collection::{IsEntity, MemberKey, collection_member, member_of, member_schema, same_table};
pub use cursor::{Cursor, CursorSecret, MAX_CURSOR_LEN};
pub use entity::{Entity, EntityKey, EntitySchema, IndexKind, IndexProjection, IndexSchema, KeySchema};
pub use error::{CancelCode, CancelReason, Error, KeyError, PartialPage};
pub use expr::{Condition, Path};
pub use item_ops::{DeleteItem, PutItem};
pub use key::{KeyPart, KeyPartError, PaddedKeyPart};
pub use key_attr::{AttributeType, KeyAttribute};
#[doc(hidden)]
pub use key_attr::{attr_key_text, check_attr_key, check_attr_value};
#[doc(hidden)]
pub use query::SortOp;
pub use query::{DEFAULT_MAX_EMPTY_PAGES, Filters, Query, QueryRequest, SortCondition};
#[doc(hidden)]
pub use query::{Level, LevelSpec, LevelText, QueryLevel};
pub use scan::{MAX_SCAN_SEGMENTS, Scan};
pub use schema::{Billing, IndexDefinition, Projection, StreamView, TableDefinition, TableOptions, Throughput};
pub use size::{MAX_ITEM_BYTES, item_size};
pub use table::{Page, Table};
pub use timeouts::Timeouts;
pub use transact::{Check, DEFAULT_CONFLICT_RETRIES, MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES, Transaction};
pub use ttl::{EpochSeconds, TtlValue};
pub use update::{Update, UpdateRequest};
pub use value::IntoValue;
pub use version::Version;
pub use view::{HasFields, View};

/// A DynamoDB item: attribute names to values, as the SDK takes and returns them.
pub type Item = std::collections::HashMap<String, AttributeValue>;

/// Largest partition key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Largest sort key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
