//! The operations, one file per family: each builds its requests and hands them to the send
//! path (`crate::send`).

pub(crate) mod batch;
pub(crate) mod entry;
pub(crate) mod evolve;
pub(crate) mod item;
pub(crate) mod policy;
pub(crate) mod query;
pub(crate) mod scan;
pub(crate) mod search;
pub(crate) mod transact;
pub(crate) mod unique;
pub(crate) mod update;
pub(crate) mod view;
pub(crate) mod write;
