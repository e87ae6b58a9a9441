//! The error of reading a table export or writing Parquet (feature `analytics`): the payload of
//! [`Error::Export`], re-exported as `export::ExportError`.

use std::path::PathBuf;

use super::Error;

/// What went wrong reading an export ([`Error::Export`]). Each names the file, and the line
/// where there is one (lines count from 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A manifest that is missing, not JSON, or not of an export this module reads.
    #[error("export manifest {}: {reason}", file.display())]
    Manifest {
        /// The manifest.
        file: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A data file that cannot be opened or read (missing, permissions).
    #[error("export data file {}: {source}", file.display())]
    Io {
        /// The data file.
        file: PathBuf,
        /// The error of the file system.
        #[source]
        source: std::io::Error,
    },
    /// A data file whose gzip stream ends early or is corrupt: its items from `line` on are lost.
    #[error("export data file {} is truncated or corrupt at line {line}: {reason}", file.display())]
    Truncated {
        /// The data file.
        file: PathBuf,
        /// The line being read when the stream broke.
        line: u64,
        /// What the decompressor said.
        reason: String,
    },
    /// A line that is not an item in DynamoDB JSON.
    #[error("export data file {} line {line}: {reason}", file.display())]
    Line {
        /// The data file.
        file: PathBuf,
        /// The line.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// An item of the entity read that does not decode into it.
    #[error("export data file {} line {line}: {source}", file.display())]
    Item {
        /// The data file.
        file: PathBuf,
        /// The line.
        line: u64,
        /// The decoding error ([`Error::Decode`], naming the attribute and the item's key).
        #[source]
        source: Box<Error>,
    },
    /// A data file holding another number of items than its manifest entry says.
    #[error("export data file {} holds {found} items, its manifest entry says {expected}", file.display())]
    Count {
        /// The data file.
        file: PathBuf,
        /// The manifest's `itemCount`.
        expected: u64,
        /// The lines the file holds.
        found: u64,
    },
    /// `changes` of a full export, or of an incremental export without old images.
    #[error("export {}: {reason}", dir.display())]
    NotChanges {
        /// The export's folder.
        dir: PathBuf,
        /// Why it holds no typed changes.
        reason: String,
    },
    /// A Parquet file that cannot be written.
    #[error("parquet file {}: {reason}", file.display())]
    Parquet {
        /// The file written.
        file: PathBuf,
        /// What failed.
        reason: String,
    },
}

impl From<ExportError> for Error {
    fn from(e: ExportError) -> Self {
        Error::Export(Box::new(e))
    }
}
