//! The error of a stream record that cannot become a typed change, or of a DynamoDB Streams
//! request: the payload of [`Error::Stream`], re-exported as `stream::StreamError`, with the
//! record's event name and image it names.

use super::Error;

/// The event name of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventName {
    /// `INSERT`
    Insert,
    /// `MODIFY`
    Modify,
    /// `REMOVE`
    Remove,
}

impl EventName {
    /// The name as DynamoDB writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            EventName::Insert => "INSERT",
            EventName::Modify => "MODIFY",
            EventName::Remove => "REMOVE",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "INSERT" => Some(EventName::Insert),
            "MODIFY" => Some(EventName::Modify),
            "REMOVE" => Some(EventName::Remove),
            _ => None,
        }
    }
}

/// Which image a record lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Image {
    /// `NewImage`
    New,
    /// `OldImage`
    Old,
}

impl core::fmt::Display for EventName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Display for Image {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Image::New => "NewImage",
            Image::Old => "OldImage",
        })
    }
}

/// Why a stream record could not become a change ([`Error::Stream`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The record lacks the image its change needs: the stream's view type does not carry it
    /// (typed changes need `NEW_AND_OLD_IMAGES`; `NEW_IMAGE` is enough for inserts only).
    #[error(
        "{event} record {sequence_number} has no {image} (stream view type {}): typed changes need NEW_AND_OLD_IMAGES",
        view_type.as_deref().unwrap_or("not given")
    )]
    MissingImage {
        /// The record's event name.
        event: EventName,
        /// The image missing.
        image: Image,
        /// The stream's view type, as the record states it.
        view_type: Option<String>,
        /// The record's sequence number.
        sequence_number: String,
    },
    /// A record that is not a DynamoDB change: unknown event name, keys missing or not strings.
    #[error("malformed stream record {sequence_number}: {reason}")]
    Malformed {
        /// The record's sequence number (empty if it has none).
        sequence_number: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A record whose image is the entity's but cannot be decoded: the decoding error
    /// (`source`, an [`Error::Decode`] naming the attribute and the item's key) and the record it
    /// came from, so that a Lambda can report it (`ReportBatchItemFailures`) and a reader can
    /// skip it by its checkpoint.
    #[error("stream record {sequence_number}{}: {source}", shard_id.as_deref().map(|s| format!(" of shard {s}")).unwrap_or_default())]
    Decode {
        /// The record's sequence number.
        sequence_number: String,
        /// The shard it was read from (`StreamReader`), `None` for a Lambda event.
        shard_id: Option<String>,
        /// Why its image cannot be decoded.
        #[source]
        source: Box<Error>,
    },
    /// An image of an encrypted entity that a decrypting reader (a [`StreamReader`](crate::stream::StreamReader) or a
    /// Lambda's changes from a handle made by `Table::with_encryption`) cannot decrypt or
    /// verify with its keyring: another key, or an item edited behind AWS's Database Encryption
    /// SDK's back. Never garbage: the record is an error in its place, and the stream goes on.
    #[cfg(feature = "encryption")]
    #[error(
        "stream record {sequence_number}{}: cannot decrypt its {image} with the handle's keyring: {message}",
        shard_id.as_deref().map(|s| format!(" of shard {s}")).unwrap_or_default()
    )]
    Decrypt {
        /// The record's sequence number.
        sequence_number: String,
        /// The shard it was read from (`StreamReader`), `None` for a Lambda event.
        shard_id: Option<String>,
        /// The image that failed.
        image: Image,
        /// What AWS's Database Encryption SDK said.
        message: String,
    },
    /// An error of the DynamoDB Streams API (network, throttling, a trimmed or expired shard).
    #[cfg(feature = "streams")]
    #[error("DynamoDB Streams request failed: {}", streams_message(.0))]
    Sdk(#[source] Box<aws_sdk_dynamodbstreams::Error>),
}

#[cfg(feature = "streams")]
fn streams_message(e: &aws_sdk_dynamodbstreams::Error) -> String {
    use aws_sdk_dynamodbstreams::error::ProvideErrorMetadata;
    match (e.code(), e.message()) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        _ => e.to_string(),
    }
}

impl From<StreamError> for Error {
    fn from(e: StreamError) -> Self {
        Error::Stream(Box::new(e))
    }
}

impl StreamError {
    /// The sequence number of the record this error is about (`None` for a Streams API error).
    pub fn sequence_number(&self) -> Option<&str> {
        match self {
            StreamError::MissingImage { sequence_number, .. }
            | StreamError::Malformed { sequence_number, .. }
            | StreamError::Decode { sequence_number, .. } => Some(sequence_number),
            #[cfg(feature = "encryption")]
            StreamError::Decrypt { sequence_number, .. } => Some(sequence_number),
            #[cfg(feature = "streams")]
            StreamError::Sdk(_) => None,
        }
    }
}

impl Error {
    /// The sequence number of the stream record a per-record error of a stream is about (a
    /// record without the image it needs, malformed, or undecodable): what a Lambda reports in
    /// `ReportBatchItemFailures` (`itemIdentifier`). `None` for every other error.
    pub fn sequence_number(&self) -> Option<&str> {
        match self {
            Error::Stream(e) => e.sequence_number(),
            _ => None,
        }
    }
}
