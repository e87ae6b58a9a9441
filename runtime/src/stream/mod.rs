//! DynamoDB Streams as typed changes of an entity or a collection.
//!
//! A stream record decodes into a [`Change`] of `T: Readable` (an entity, or a
//! `#[derive(Collection)]` enum): inserted, modified, removed by a user, or expired by TTL.
//! Records of entities outside `T` are stepped over (no change), as a query steps over their
//! items. Sources: Lambda events (the module `lambda`, feature `lambda`) and the Streams API
//! (`StreamReader`, feature `streams`). [`filter_patterns`] writes the Lambda event filter
//! that sends a function the records of `T` (all of them, and as few others as the entities'
//! type attributes and key texts allow). With feature `encryption`, a reader made from
//! a handle of `Table::with_encryption` decrypts the images of its entities first.

mod filter;
#[cfg(feature = "lambda")]
pub mod lambda;
#[cfg(feature = "streams")]
mod reader;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use filter::filter_patterns;
#[cfg(feature = "streams")]
pub use reader::{CAUGHT_UP_ROUNDS, StreamReader, latest_stream_arn};

#[cfg(feature = "lambda")]
pub use aws_lambda_events;
#[cfg(feature = "streams")]
pub use aws_sdk_dynamodbstreams;

use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;

/// The service principal of the deletes that TTL makes.
pub const TTL_PRINCIPAL: &str = "dynamodb.amazonaws.com";

/// A change of one item of `T`, from one stream record.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<T> {
    /// What happened, with the decoded images.
    pub kind: ChangeKind<T>,
    /// The partition-key text of the item.
    pub pk: String,
    /// The sort-key text of the item (`None` for a table without sort key).
    pub sk: Option<String>,
    /// The record's sequence number: increasing within a shard (and so within one key).
    pub sequence_number: String,
    /// The shard the record was read from (Streams API only; Lambda events do not say).
    pub shard_id: Option<Arc<str>>,
}

/// What happened to the item.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeKind<T> {
    /// A new item (`INSERT`): its image.
    Inserted(T),
    /// An item changed (`MODIFY`): before and after. If the item was another entity's before
    /// (or after), the change is an `Inserted` (or `Removed`) of `T`.
    Modified {
        /// The image before the change.
        old: T,
        /// The image after the change.
        new: T,
    },
    /// An item deleted by a user (`REMOVE`): its last image.
    Removed(T),
    /// An item deleted by TTL (`REMOVE` by the service principal `dynamodb.amazonaws.com`).
    Expired(T),
}

impl<T: Readable> Change<T> {
    /// The shard of the item's partition key, for an entity whose table key is sharded
    /// (`#[entity(shards = N, ..)]`, `<shard>` in `#[pk]`); `None` otherwise.
    pub fn key_shard(&self) -> Option<u16> {
        T::schema(None)?.pk.shard_in(&self.pk)
    }
}

impl<T> ChangeKind<T> {
    /// The image after the change (`None` for a removal or an expiry).
    pub fn new_image(&self) -> Option<&T> {
        match self {
            ChangeKind::Inserted(n) | ChangeKind::Modified { new: n, .. } => Some(n),
            ChangeKind::Removed(_) | ChangeKind::Expired(_) => None,
        }
    }

    /// The image before the change (`None` for an insert).
    pub fn old_image(&self) -> Option<&T> {
        match self {
            ChangeKind::Modified { old, .. } | ChangeKind::Removed(old) | ChangeKind::Expired(old) => Some(old),
            ChangeKind::Inserted(_) => None,
        }
    }
}

pub use crate::error::stream::{EventName, Image, StreamError};

/// A stream record, whatever its source: what a [`Change`] is decoded from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    /// `INSERT`, `MODIFY` or `REMOVE`.
    pub event_name: String,
    /// The record's `userIdentity`: type and principal (`Service`, `dynamodb.amazonaws.com` for TTL).
    pub user_identity: Option<(String, String)>,
    /// The item's key attributes.
    pub keys: Item,
    /// The image after the change, if the view type carries it.
    pub new_image: Option<Item>,
    /// The image before the change, if the view type carries it.
    pub old_image: Option<Item>,
    /// The sequence number.
    pub sequence_number: String,
    /// `KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE` or `NEW_AND_OLD_IMAGES`, if the record says.
    pub view_type: Option<String>,
}

impl Record {
    /// Whether TTL deleted the item: a `REMOVE` by the service principal `dynamodb.amazonaws.com`.
    pub fn is_ttl_delete(&self) -> bool {
        self.event_name == "REMOVE"
            && self
                .user_identity
                .as_ref()
                .is_some_and(|(kind, principal)| kind.eq_ignore_ascii_case("Service") && principal == TTL_PRINCIPAL)
    }

    /// The change of `T` this record holds: `None` if its images are of entities outside `T`
    /// (stepped over), else the change or why it cannot be decoded.
    pub fn change<T: Readable>(self, shard_id: Option<&Arc<str>>) -> Option<Result<Change<T>, Error>> {
        let malformed = |seq: &str, reason: String| -> Error {
            StreamError::Malformed { sequence_number: seq.to_owned(), reason }.into()
        };
        let Some(event) = EventName::parse(&self.event_name) else {
            let reason = format!("unknown event name `{}`", self.event_name);
            return Some(Err(malformed(&self.sequence_number, reason)));
        };
        let missing = |image: Image| -> Error {
            StreamError::MissingImage {
                event,
                image,
                view_type: self.view_type.clone(),
                sequence_number: self.sequence_number.clone(),
            }
            .into()
        };
        let ttl = self.is_ttl_delete();
        // An image that is `T`'s but cannot be decoded names its record.
        let sequence_number = self.sequence_number.clone();
        let in_record = |e: Error| -> Error {
            StreamError::Decode {
                sequence_number: sequence_number.clone(),
                shard_id: shard_id.map(|s| s.to_string()),
                source: Box::new(e),
            }
            .into()
        };
        // `None`: the image is of another entity; `Some(Err)`: missing or undecodable.
        let kind: Option<Result<ChangeKind<T>, Error>> = match event {
            EventName::Insert => match self.new_image {
                None => Some(Err(missing(Image::New))),
                Some(new) => T::read(new).map(|r| r.map(ChangeKind::Inserted).map_err(in_record)),
            },
            EventName::Modify => match (self.old_image, self.new_image) {
                (_, None) => Some(Err(missing(Image::New))),
                (None, Some(_)) => Some(Err(missing(Image::Old))),
                (Some(old), Some(new)) => match (T::read(old), T::read(new)) {
                    (None, None) => None,
                    (Some(Err(e)), _) | (_, Some(Err(e))) => Some(Err(in_record(e))),
                    (None, Some(Ok(new))) => Some(Ok(ChangeKind::Inserted(new))),
                    (Some(Ok(old)), None) => Some(Ok(ChangeKind::Removed(old))),
                    (Some(Ok(old)), Some(Ok(new))) => Some(Ok(ChangeKind::Modified { old, new })),
                },
            },
            EventName::Remove => match self.old_image {
                None => Some(Err(missing(Image::Old))),
                Some(old) if ttl => T::read(old).map(|r| r.map(ChangeKind::Expired).map_err(in_record)),
                Some(old) => T::read(old).map(|r| r.map(ChangeKind::Removed).map_err(in_record)),
            },
        };
        let kind = match kind? {
            Ok(kind) => kind,
            Err(e) => return Some(Err(e)),
        };
        let Some(schema) = T::schema(None) else {
            return Some(Err(malformed(&self.sequence_number, format!("{} has no table schema", T::NAME))));
        };
        let text = |k: &crate::model::entity::KeySchema| match self.keys.get(k.attr) {
            Some(v) => k
                .text_of(v)
                .map(std::borrow::Cow::into_owned)
                .ok_or_else(|| format!("key attribute `{}` is not {}", k.attr, k.ty.describe())),
            None => Err(format!("key attribute `{}` is missing from Keys", k.attr)),
        };
        let pk = match text(&schema.pk) {
            Ok(pk) => pk,
            Err(reason) => return Some(Err(malformed(&self.sequence_number, reason))),
        };
        let sk = match schema.sk.as_ref().map(text).transpose() {
            Ok(sk) => sk,
            Err(reason) => return Some(Err(malformed(&self.sequence_number, reason))),
        };
        Some(Ok(Change { kind, pk, sk, sequence_number: self.sequence_number, shard_id: shard_id.cloned() }))
    }
}

/// Where a reader of a stream is: the last sequence number handled in each shard. Save it with
/// the consumer's state ([`Checkpoint::iter`]), and resume with [`Position::After`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checkpoint {
    shards: BTreeMap<String, String>,
}

impl Checkpoint {
    /// An empty checkpoint: every shard from its oldest record.
    pub fn new() -> Self {
        Checkpoint::default()
    }

    /// Records that `change` was handled (a change without shard, from Lambda, is ignored).
    pub fn advance<T>(&mut self, change: &Change<T>) {
        if let Some(shard) = &change.shard_id {
            self.set(shard.to_string(), change.sequence_number.clone());
        }
    }

    /// Records that the records of `shard` up to `sequence_number` were handled.
    pub fn set(&mut self, shard: impl Into<String>, sequence_number: impl Into<String>) {
        self.shards.insert(shard.into(), sequence_number.into());
    }

    /// The last sequence number handled in `shard`.
    pub fn get(&self, shard: &str) -> Option<&str> {
        self.shards.get(shard).map(String::as_str)
    }

    /// Shard ids and sequence numbers, in shard order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.shards.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl FromIterator<(String, String)> for Checkpoint {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Checkpoint { shards: iter.into_iter().collect() }
    }
}

/// Where a [`StreamReader`](crate::stream) starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Position {
    /// The oldest record of every shard (the last 24 hours).
    #[default]
    TrimHorizon,
    /// Only records written after the reader starts (shards found later are read whole).
    Latest,
    /// After the saved sequence number of each shard in the checkpoint; shards it does not
    /// name (new ones) from their oldest record.
    After(Checkpoint),
}
