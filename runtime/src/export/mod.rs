//! A DynamoDB export to S3, read as typed entities, and written as one Parquet file per entity
//! (feature `analytics`).
//!
//! ```ignore
//! let export = TableExport::open("exports/AWSDynamoDB/01700000000000-a1b2c3d4")?;
//! let orders: Vec<Order> = export.items::<Order>().collect::<Result<_, _>>()?;
//! let rows = export.write_parquet::<Order>("orders.parquet")?;
//! ```
//!
//! **The format**, as AWS documents it ("DynamoDB table export output format",
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html>;
//! "Introducing incremental export from Amazon DynamoDB to Amazon S3",
//! <https://aws.amazon.com/blogs/database/introducing-incremental-export-from-amazon-dynamodb-to-amazon-s3/>;
//! `IncrementalExportSpecification` in the API reference for the view types):
//! - the export's folder `<prefix>/AWSDynamoDB/<ExportId>/` holds `manifest-summary.json` (one
//!   object: `exportType` `FULL_EXPORT` or `INCREMENTAL_EXPORT`, absent in older exports, which
//!   are full; `outputFormat` `DYNAMODB_JSON` or `ION`; `outputView` for incremental exports;
//!   `itemCount`) and `manifest-files.json` (one object per line: `itemCount`, `md5Checksum`,
//!   `etag`, `dataFileS3Key`);
//! - each `dataFileS3Key` is the bucket key of a gzipped data file: under the export's own
//!   `data/` folder for a full export, under the prefix's shared `AWSDynamoDB/data/` folder for
//!   an incremental one. The key is resolved from its `AWSDynamoDB/` part against the folder
//!   holding the export's folder, so the bucket's tree copied anywhere reads the same;
//! - a full export's line is `{"Item": {..}}`; an incremental export's is
//!   `{"Metadata": {"WriteTimestampMicros": {"N": ".."}}, "Keys": {..}, "NewImage": {..},
//!   "OldImage": {..}}`: an insert has no `OldImage`, a delete no `NewImage` (in the
//!   `NEW_AND_OLD_IMAGES` view; the `NEW_IMAGE` view has no `OldImage` at all).
//!
//! **Decoding** is the table's: each item goes through the same `Readable::read` as an item of a
//! query (type attribute, key parsing, adopted layouts, key fields read back from the keys,
//! defaults), so items of other entities are stepped over (counted by
//! [`TableExport::skipped`]) and an item of the entity that does not decode is an error for
//! that item ([`ExportError::Item`], naming the file and line), not the end of the read.
//!
//! **Errors of files**: a data file missing or unreadable ([`ExportError::Io`]), a gzip stream
//! that ends early ([`ExportError::Truncated`]), a line that is not DynamoDB JSON
//! ([`ExportError::Line`]) and a file whose lines differ in number from its manifest entry's
//! `itemCount` ([`ExportError::Count`]) each come once, in place, naming the file; the other
//! files are still read.
//!
//! **Streaming and concurrency.** The data files of an export are independent: a read runs one
//! thread per core ([`TableExport::threads`] to choose), each decompressing and decoding one
//! whole file at a time and handing items over in chunks through a bounded channel, so memory
//! stays flat however large the export (a few chunks per thread). Items of one file come in
//! their order; files interleave (with one thread, manifest order). Beyond one machine, the same
//! files are what Spark and Athena read: Athena over the `data/` folder as a table of one
//! `Item` struct column (`ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'`), Spark with
//! `spark.read.json("s3://bucket/prefix/AWSDynamoDB/<ExportId>/data/")`, one task per file;
//! the Parquet files this module writes are one entity each, so a Glue or Spark job that
//! distributes the data files over executors and calls [`TableExport::items`] per file
//! partition is the same split the threads make here.

mod json;
mod read;
mod write;

/// The Apache Parquet and Arrow crates the files are written with, to read them back.
pub use ::parquet;
pub use arrow_array;
pub use arrow_schema;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::model::collection::Readable;
use crate::stream::Change;

pub use read::{Changes, Items};

pub use crate::error::export::ExportError;

/// Full or incremental.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportType {
    /// `FULL_EXPORT` (or no `exportType`, as in older exports): `{"Item": ..}` lines.
    Full,
    /// `INCREMENTAL_EXPORT`: `{"Metadata", "Keys", "NewImage", "OldImage"}` lines.
    Incremental,
}

/// One data file of the export, as its manifest entry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFile {
    /// Where it is on disk.
    pub path: PathBuf,
    /// Its `dataFileS3Key`.
    pub key: String,
    /// Its `itemCount`.
    pub item_count: u64,
}

/// A DynamoDB export to S3, as its folder holds it.
#[derive(Debug, Clone)]
pub struct TableExport {
    dir: PathBuf,
    export_type: ExportType,
    output_view: Option<String>,
    item_count: Option<u64>,
    files: Arc<[DataFile]>,
    threads: usize,
    skipped: Arc<AtomicU64>,
}

fn manifest_error(file: &Path, reason: impl Into<String>) -> Error {
    ExportError::Manifest { file: file.to_owned(), reason: reason.into() }.into()
}

impl TableExport {
    /// Opens the export in `dir` (`<prefix>/AWSDynamoDB/<ExportId>`): reads both manifests
    /// and checks that every data file they name exists. Nothing of the data is read yet.
    pub fn open(dir: impl AsRef<Path>) -> Result<TableExport, Error> {
        let dir = dir.as_ref().to_owned();
        let summary_path = dir.join("manifest-summary.json");
        let text = std::fs::read_to_string(&summary_path).map_err(|e| manifest_error(&summary_path, e.to_string()))?;
        let summary: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| manifest_error(&summary_path, format!("not JSON: {e}")))?;
        let field = |name: &str| summary.get(name).and_then(serde_json::Value::as_str);
        match field("outputFormat") {
            None | Some("DYNAMODB_JSON") => {}
            Some(other) => {
                return Err(manifest_error(
                    &summary_path,
                    format!("output format {other}: only DYNAMODB_JSON exports are read"),
                ));
            }
        }
        let export_type = match field("exportType") {
            None | Some("FULL_EXPORT") => ExportType::Full,
            Some("INCREMENTAL_EXPORT") => ExportType::Incremental,
            Some(other) => return Err(manifest_error(&summary_path, format!("unknown exportType `{other}`"))),
        };
        let output_view = field("outputView").map(str::to_owned);
        let item_count = summary.get("itemCount").and_then(serde_json::Value::as_u64);

        let files_path = dir.join("manifest-files.json");
        let text = std::fs::read_to_string(&files_path).map_err(|e| manifest_error(&files_path, e.to_string()))?;
        // The folder the bucket keys' `AWSDynamoDB/` part is relative to.
        let base = dir.parent().map(Path::to_owned).unwrap_or_default();
        let mut files = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = |reason: String| manifest_error(&files_path, format!("line {}: {reason}", i + 1));
            let entry: serde_json::Value = serde_json::from_str(line).map_err(|e| at(format!("not JSON: {e}")))?;
            let key = entry
                .get("dataFileS3Key")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| at("no dataFileS3Key".into()))?;
            let item_count =
                entry.get("itemCount").and_then(serde_json::Value::as_u64).ok_or_else(|| at("no itemCount".into()))?;
            let rel = key
                .rfind("AWSDynamoDB/")
                .map(|p| &key[p + "AWSDynamoDB/".len()..])
                .ok_or_else(|| at(format!("dataFileS3Key `{key}` is not under AWSDynamoDB/")))?;
            let rel = Path::new(rel);
            if rel.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
                return Err(at(format!("dataFileS3Key `{key}` leaves the export's folder")));
            }
            files.push(DataFile { path: base.join(rel), key: key.to_owned(), item_count });
        }
        if let Some(total) = item_count {
            let sum: u64 = files.iter().map(|f| f.item_count).sum();
            if sum != total {
                return Err(manifest_error(
                    &files_path,
                    format!("its files hold {sum} items, manifest-summary.json says {total}"),
                ));
            }
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(TableExport {
            dir,
            export_type,
            output_view,
            item_count,
            files: files.into(),
            threads,
            skipped: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The export with reads on `n` threads (at least 1; the default is one per core). With
    /// one, items come in the manifest's file order and each file's line order.
    pub fn threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }

    /// The export's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Full or incremental.
    pub fn export_type(&self) -> ExportType {
        self.export_type
    }

    /// An incremental export's `outputView` (`NEW_AND_OLD_IMAGES` or `NEW_IMAGE`).
    pub fn output_view(&self) -> Option<&str> {
        self.output_view.as_deref()
    }

    /// The summary's `itemCount`, if it has one.
    pub fn item_count(&self) -> Option<u64> {
        self.item_count
    }

    /// The data files, in the manifest's order.
    pub fn files(&self) -> &[DataFile] {
        &self.files
    }

    /// Items read so far (by every `items`, `changes` and `write_parquet` of this export and
    /// its clones) that no requested entity read: other entities' items, stepped over.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }

    /// The items of `T` (an entity, or a collection of entities): decoded by the table's rules,
    /// other entities' items stepped over. Of an incremental export, the new images (an item
    /// deleted in the period has none and is not among them). Streaming: see the module
    /// documentation.
    pub fn items<T: Readable>(&self) -> Items<T> {
        read::items(self)
    }

    /// The changes of `T` in an incremental export, as a stream's: inserted (`NewImage` only),
    /// modified (both images), removed (`OldImage` only). `Change::sequence_number` is the
    /// line's `WriteTimestampMicros`; an export records no TTL principal, so an expiry is a
    /// removal. A full export, or an incremental one in the `NEW_IMAGE` view (which cannot tell
    /// an insert from an update, nor decode a deletion), yields one [`ExportError::NotChanges`].
    pub fn changes<T: Readable>(&self) -> Changes<T> {
        read::changes(self)
    }

    /// Writes `E`'s items as one Parquet file at `path`, returning the rows written (columns
    /// below). The first error (an item that does not decode, a damaged file) stops the write
    /// and removes the partial file. It reads the export twice: once for the column types,
    /// once for the rows.
    ///
    /// # Parquet
    /// A column per stored field (the entity's attributes, in declaration order), typed from
    /// what the items hold, read in a first pass: strings; numbers as `Int64` (`UInt64` when a
    /// value exceeds `i64`, `Float64` when one has a fraction or exponent); booleans; binary;
    /// the `#[ttl]` attribute, and a string attribute whose every value is the ISO 8601 text
    /// the crate writes for time fields (`2024-03-01T12:00:00.000Z`), as a UTC timestamp in
    /// milliseconds; lists, sets, maps and documents (and an attribute whose values are of more
    /// than one type) as JSON text. A column is nullable when some item lacks the attribute
    /// (`None` fields are omitted). Rows are written in row groups of
    /// [`PARQUET_ROW_GROUP`] rows, Snappy-compressed.
    pub fn write_parquet<E: crate::model::entity::Entity>(&self, path: impl AsRef<Path>) -> Result<u64, Error> {
        write::write::<E>(self, path.as_ref())
    }

    pub(crate) fn skip(&self, n: u64) {
        if n > 0 {
            self.skipped.fetch_add(n, Ordering::Relaxed);
        }
    }
}

pub use write::PARQUET_ROW_GROUP;

/// The type `changes` yields.
pub type ChangeResult<T> = Result<Change<T>, Error>;
