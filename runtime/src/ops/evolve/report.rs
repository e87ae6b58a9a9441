//! What a backfill or migration did ([`MigrationReport`]) and how far it is ([`Progress`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::cursor::scan::{EVOLVE, ScanPosition, SegmentPosition};
use crate::cursor::{Cursor, CursorSecret};
use crate::error::Error;

/// An item a backfill or migration could not handle, by key, with why.
#[derive(Debug)]
pub struct FailedItem {
    /// The item's partition-key and sort-key text.
    pub key: (String, Option<String>),
    /// Why: an item that does not decode ([`Error::Decode`]), one changed by other writers on
    /// every attempt, a write DynamoDB refused, a `#[unique]` value another item holds
    /// ([`Error::UniqueViolation`]).
    pub error: Error,
}

/// What a run of [`Table::backfill`](crate::Table::backfill) or
/// [`Table::migrate`](crate::Table::migrate) did.
#[derive(Debug, Default)]
pub struct MigrationReport {
    /// Items read (of every entity).
    pub scanned: u64,
    /// Items written (with `dry_run()`: that would be written).
    pub written: u64,
    /// Items of the entity that needed nothing.
    pub already_current: u64,
    /// Items of other entities, stepped over.
    pub stepped_over: u64,
    /// Items that could not be handled, each with its key and error; the run went on. An item
    /// written in part (a backfill's duplicate `#[unique]` value: what does not depend on it is
    /// written) is listed here and counted in `written`.
    pub failed: Vec<FailedItem>,
    /// Writes whose condition failed because another writer changed the item after it was
    /// read: the item was read again and handled again (each counted once in the others).
    pub retried: u64,
    /// Where to resume (`.after(cursor)`) if the run did not reach the end of its segments
    /// (`None` when it did).
    pub cursor: Option<Cursor>,
    /// Where each segment stands, for [`MigrationReport::merge`].
    pub(crate) resume: Option<Resume>,
}

/// Where a run's segments stand, kept by its report so that merged reports make one cursor.
#[derive(Clone)]
pub(crate) struct Resume {
    /// The run's cursor binding: the job's name.
    pub(crate) entity: String,
    /// Every segment's position (those the run did not cover as its `.after` cursor had them).
    pub(crate) positions: Vec<SegmentPosition>,
    /// The segments the run covered.
    pub(crate) covered: Vec<bool>,
    pub(crate) secret: Option<Arc<CursorSecret>>,
}

impl fmt::Debug for Resume {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resume").field("positions", &self.positions).finish_non_exhaustive()
    }
}

impl Resume {
    /// The cursor that resumes the whole run (every segment, covered or not): `None` when every
    /// segment is done.
    pub(crate) fn cursor(&self) -> Result<Option<Cursor>, Error> {
        if self.positions.iter().all(|p| *p == SegmentPosition::Done) {
            return Ok(None);
        }
        let position = |segments| ScanPosition {
            kind: EVOLVE,
            entity: self.entity.clone(),
            index: String::new(),
            filter: 0,
            segments,
            floor: None,
        };
        position(self.positions.clone()).seal(self.secret.as_deref()).map(Some)
    }

    /// `self` and `other` (of the same run) together: each segment at the furthest position
    /// either reached (done, then after a key, then not started); of two keys in one segment,
    /// the one of the report that covered it.
    fn merge(&mut self, other: Resume) {
        let rank = |p: &SegmentPosition| match p {
            SegmentPosition::Start => 0,
            SegmentPosition::After(_) => 1,
            SegmentPosition::Done => 2,
        };
        for (k, theirs) in other.positions.into_iter().enumerate() {
            let further = rank(&theirs) > rank(&self.positions[k]);
            let tie = rank(&theirs) == rank(&self.positions[k]) && other.covered[k] && !self.covered[k];
            if further || tie {
                self.positions[k] = theirs;
            }
            self.covered[k] |= other.covered[k];
        }
    }
}

impl MigrationReport {
    /// Adds the counts and failures of `other` (another worker's report of the same run: the
    /// same job and segment count) and merges their positions: each segment is where the
    /// further of the two reports left it, so the merged cursor resumes the whole run (every
    /// segment, those no merged report covered from their start) and is `None` only when every
    /// segment was read to its end. Reports of different runs keep this report's cursor.
    pub fn merge(&mut self, other: MigrationReport) {
        self.scanned += other.scanned;
        self.written += other.written;
        self.already_current += other.already_current;
        self.stepped_over += other.stepped_over;
        self.retried += other.retried;
        self.failed.extend(other.failed);
        match (&mut self.resume, other.resume) {
            (Some(mine), Some(theirs))
                if mine.entity == theirs.entity && mine.positions.len() == theirs.positions.len() =>
            {
                mine.merge(theirs);
            }
            (Some(_), _) => return,
            (None, theirs) => self.resume = theirs,
        }
        let Some(resume) = &self.resume else {
            if self.cursor.is_none() {
                self.cursor = other.cursor;
            }
            return;
        };
        self.cursor = match resume.cursor() {
            Ok(cursor) => cursor,
            // Too many keys for one cursor: the segments stopped part way start again (a
            // backfill or migration finds the items it handled current), never skipped.
            Err(_) => {
                let mut start = resume.clone();
                for p in &mut start.positions {
                    if matches!(p, SegmentPosition::After(_)) {
                        *p = SegmentPosition::Start;
                    }
                }
                start.cursor().ok().flatten()
            }
        };
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "scanned {}, written {}, already current {}, stepped over {}, failed {}, retried {}{}",
            self.scanned,
            self.written,
            self.already_current,
            self.stepped_over,
            self.failed.len(),
            self.retried,
            if self.cursor.is_some() { " (not finished: resume with its cursor)" } else { "" }
        )
    }
}

/// How far a run is, given to the `on_progress` callback after every page of every segment.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Items read so far by this run.
    pub scanned: u64,
    /// Items written so far.
    pub written: u64,
    /// Items failed so far.
    pub failed: u64,
    /// Time since the run started.
    pub elapsed: Duration,
    /// Items read per second, so far.
    pub items_per_second: f64,
    /// The items the run is expected to read: the table's item count (DynamoDB updates it about
    /// every six hours), divided among the segments this run covers; `None` if unknown.
    pub estimated_items: Option<u64>,
    /// The time left at this rate, from the estimate.
    pub remaining: Option<Duration>,
    /// Where a new run resumes to continue after every item handled so far.
    pub cursor: Option<Cursor>,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} items read", self.scanned)?;
        if let Some(total) = self.estimated_items {
            write!(f, " of about {total}")?;
        }
        write!(f, ", {} written, {} failed, {:.0} items/s", self.written, self.failed, self.items_per_second)?;
        if let Some(left) = self.remaining {
            write!(f, ", about {} s left", left.as_secs())?;
        }
        Ok(())
    }
}
