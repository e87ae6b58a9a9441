//! Reading the data files: one thread per file at a time, items handed over in chunks through
//! a bounded channel (memory flat in the export's size).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use super::json::{Av, Line};
use super::{ExportError, ExportType, TableExport};
use crate::error::Error;
use crate::model::collection::Readable;
use crate::stream::{Change, Record};
use aws_sdk_dynamodb::types::AttributeValue;

/// Results handed over at once: large enough to make the channel's cost vanish, small enough
/// to keep memory flat.
const CHUNK: usize = 512;

/// The items of `T` in an export ([`TableExport::items`]).
#[derive(Debug)]
pub struct Items<T> {
    inner: Stream<T>,
}

/// The changes of `T` in an incremental export ([`TableExport::changes`]).
#[derive(Debug)]
pub struct Changes<T> {
    inner: Stream<Change<T>>,
}

impl<T> Iterator for Items<T> {
    type Item = Result<T, Error>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

impl<T> Iterator for Changes<T> {
    type Item = Result<Change<T>, Error>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}

/// What the reading threads send, in chunks; dropping it stops them (their next send fails).
struct Stream<X> {
    first: Option<Error>,
    rx: Option<Receiver<Vec<Result<X, Error>>>>,
    buf: std::vec::IntoIter<Result<X, Error>>,
}

impl<X> std::fmt::Debug for Stream<X> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").field("buffered", &self.buf.len()).finish_non_exhaustive()
    }
}

impl<X> Stream<X> {
    fn failed(e: Error) -> Self {
        Stream { first: Some(e), rx: None, buf: Vec::new().into_iter() }
    }

    fn next(&mut self) -> Option<Result<X, Error>> {
        if let Some(e) = self.first.take() {
            return Some(Err(e));
        }
        loop {
            if let Some(x) = self.buf.next() {
                return Some(x);
            }
            match self.rx.as_ref()?.recv() {
                Ok(chunk) => self.buf = chunk.into_iter(),
                Err(_) => {
                    self.rx = None;
                    return None;
                }
            }
        }
    }
}

/// What one line becomes: `None` for an item no requested entity reads (counted as skipped).
type PerLine<X> = dyn Fn(Line, &Path, u64) -> Option<Result<X, Error>> + Send + Sync;

/// Reads every data file of `export` on its threads, each line through `per_line`.
fn run<X: Send + 'static>(export: &TableExport, per_line: Arc<PerLine<X>>) -> Stream<X> {
    let threads = export.threads.min(export.files.len()).max(1);
    let (tx, rx) = sync_channel(threads * 2);
    let next = Arc::new(AtomicUsize::new(0));
    for _ in 0..threads {
        let (export, tx, next, per_line) = (export.clone(), tx.clone(), next.clone(), per_line.clone());
        std::thread::spawn(move || {
            let mut out = Out { tx, chunk: Vec::with_capacity(CHUNK), export: &export, skipped: 0 };
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = export.files.get(i) else { break };
                // A panic (a bug, never bad input) must not lose a file silently: it is an
                // error naming the file, and the thread reads on.
                let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    read_file(&file.path, file.item_count, &*per_line, &mut out)
                }));
                let gone = match read {
                    Ok(r) => r.is_err(),
                    Err(_) => {
                        let source = std::io::Error::other("the reading thread panicked in this file");
                        out.push(Err(ExportError::Io { file: file.path.clone(), source }.into())).is_err()
                    }
                };
                if gone {
                    return;
                }
            }
            let _ = out.flush();
        });
    }
    Stream { first: None, rx: Some(rx), buf: Vec::new().into_iter() }
}

/// A thread's pending results.
struct Out<'a, X> {
    tx: SyncSender<Vec<Result<X, Error>>>,
    chunk: Vec<Result<X, Error>>,
    export: &'a TableExport,
    skipped: u64,
}

/// The reader went away.
struct Gone;

impl<X> Out<'_, X> {
    fn push(&mut self, r: Result<X, Error>) -> Result<(), Gone> {
        self.chunk.push(r);
        if self.chunk.len() >= CHUNK { self.flush() } else { Ok(()) }
    }

    fn flush(&mut self) -> Result<(), Gone> {
        self.export.skip(std::mem::take(&mut self.skipped));
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK));
        self.tx.send(chunk).map_err(|_| Gone)
    }
}

fn read_file<X>(path: &Path, expected: u64, per_line: &PerLine<X>, out: &mut Out<'_, X>) -> Result<(), Gone> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(source) => return out.push(Err(ExportError::Io { file: path.to_owned(), source }.into())),
    };
    // An empty partition's file may hold no bytes at all, not even a gzip header.
    let gz = path.extension().is_some_and(|e| e == "gz") && !file.metadata().is_ok_and(|m| m.len() == 0);
    let mut reader: Box<dyn BufRead> = if gz {
        Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(BufReader::new(file))))
    } else {
        Box::new(BufReader::with_capacity(1 << 16, file))
    };
    let mut buf = Vec::with_capacity(1024);
    let mut line = 0u64;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                let e = ExportError::Truncated { file: path.to_owned(), line: line + 1, reason: e.to_string() };
                // The count cannot be checked: the rest of the file is lost.
                return out.push(Err(e.into()));
            }
        }
        let text = buf.trim_ascii_end();
        if text.is_empty() {
            continue;
        }
        line += 1;
        match serde_json::from_slice::<Line>(text) {
            Err(e) => {
                let reason = format!("not DynamoDB JSON: {e}");
                out.push(Err(ExportError::Line { file: path.to_owned(), line, reason }.into()))?;
            }
            Ok(parsed) => match per_line(parsed, path, line) {
                Some(r) => out.push(r)?,
                None => out.skipped += 1,
            },
        }
    }
    if line != expected {
        out.push(Err(ExportError::Count { file: path.to_owned(), expected, found: line }.into()))?;
    }
    Ok(())
}

fn line_error(path: &Path, line: u64, reason: &str) -> Error {
    ExportError::Line { file: path.to_owned(), line, reason: reason.to_owned() }.into()
}

fn item_error(path: &Path, line: u64, e: Error) -> Error {
    ExportError::Item { file: path.to_owned(), line, source: Box::new(e) }.into()
}

pub(super) fn items<T: Readable>(export: &TableExport) -> Items<T> {
    let full = export.export_type == ExportType::Full;
    let per_line: Arc<PerLine<T>> = Arc::new(move |line: Line, path: &Path, n: u64| {
        let image = if full {
            match line.item {
                Some(item) => item.0,
                None => return Some(Err(line_error(path, n, "a full export's line without `Item`"))),
            }
        } else {
            // A deletion has no new image: no item of anyone's.
            line.new_image?.0
        };
        T::read(image).map(|r| r.map_err(|e| item_error(path, n, e)))
    });
    Items { inner: run(export, per_line) }
}

pub(super) fn changes<T: Readable>(export: &TableExport) -> Changes<T> {
    let refuse = |reason: &str| Changes {
        inner: Stream::failed(ExportError::NotChanges { dir: export.dir.clone(), reason: reason.to_owned() }.into()),
    };
    if export.export_type == ExportType::Full {
        return refuse("a full export holds items, not changes: read it with `items`");
    }
    if export.output_view.as_deref() == Some("NEW_IMAGE") {
        return refuse(
            "an incremental export in the NEW_IMAGE view cannot tell an insert from an update, nor decode a \
             deletion: typed changes need NEW_AND_OLD_IMAGES",
        );
    }
    let view = export.output_view.clone();
    let per_line: Arc<PerLine<Change<T>>> = Arc::new(move |line: Line, path: &Path, n: u64| {
        let event = match (&line.old_image, &line.new_image) {
            (None, Some(_)) => "INSERT",
            (Some(_), Some(_)) => "MODIFY",
            (Some(_), None) => "REMOVE",
            (None, None) => return Some(Err(line_error(path, n, "a change without `NewImage` nor `OldImage`"))),
        };
        let Some(keys) = line.keys else {
            return Some(Err(line_error(path, n, "an incremental export's line without `Keys`")));
        };
        let sequence_number = match line.metadata.and_then(|m| m.write_timestamp_micros) {
            Some(Av(AttributeValue::N(n))) => n,
            _ => String::new(),
        };
        let record = Record {
            event_name: event.to_owned(),
            user_identity: None,
            keys: keys.0,
            new_image: line.new_image.map(|i| i.0),
            old_image: line.old_image.map(|i| i.0),
            sequence_number,
            view_type: view.clone(),
        };
        record.change::<T>(None).map(|r| r.map_err(|e| item_error(path, n, e)))
    });
    Changes { inner: run(export, per_line) }
}
