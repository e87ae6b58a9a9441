//! What the derives describe: entities and their keys and schemas, collections, views,
//! versions, TTL values, key attributes of adopted tables, literal values, time formats.

pub(crate) mod collection;
pub(crate) mod document;
pub(crate) mod entity;
pub(crate) mod filled;
pub(crate) mod key_attr;
pub mod set;
pub(crate) mod tenant;
pub mod time;
pub(crate) mod ttl;
pub(crate) mod value;
pub(crate) mod vector;
pub(crate) mod version;
pub(crate) mod view;

use aws_sdk_dynamodb::types::AttributeValue;

/// A DynamoDB item: attribute names to values, as the SDK takes and returns them.
pub type Item = std::collections::HashMap<String, AttributeValue>;

/// Largest partition key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Largest sort key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;
