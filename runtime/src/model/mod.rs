//! What the derives describe: entities and their keys and schemas, collections, views,
//! versions, literal values. (Key attributes, time formats and TTL values are the codec's:
//! `key::attr`, `codec::time`, `codec::ttl`.)
//! (Documents, whose description is paths, are `expr::document`.)

pub(crate) mod collection;
pub(crate) mod entity;
pub(crate) mod filled;
pub mod set;
pub(crate) mod tenant;
pub(crate) mod value;
pub(crate) mod vector;
pub(crate) mod version;
pub(crate) mod view;

pub use crate::size::{Item, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
