//! What the derives describe: entities and their keys and schemas, collections, views,
//! versions, TTL values, key attributes of adopted tables, literal values, time formats.
//! (Documents, whose description is paths, are `expr::document`.)

pub(crate) mod collection;
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

pub use crate::size::{Item, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
