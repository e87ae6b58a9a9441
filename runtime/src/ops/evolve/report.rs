//! What a backfill or migration did ([`MigrationReport`]) and how far it is ([`Progress`]).

use std::fmt;
use std::time::Duration;

use crate::cursor::Cursor;
use crate::error::Error;

/// An item a backfill or migration could not handle, by key, with why.
#[derive(Debug)]
pub struct FailedItem {
    /// The item's partition-key and sort-key text.
    pub key: (String, Option<String>),
    /// Why: an item that does not decode ([`Error::Decode`]), one changed by other writers on
    /// every attempt, a write DynamoDB refused.
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
    /// Items that could not be handled, each with its key and error; the run went on.
    pub failed: Vec<FailedItem>,
    /// Writes whose condition failed because another writer changed the item after it was
    /// read: the item was read again and handled again (each counted once in the others).
    pub retried: u64,
    /// Where to resume (`.after(cursor)`) if the run did not reach the end of its segments
    /// (`None` when it did).
    pub cursor: Option<Cursor>,
}

impl MigrationReport {
    /// Adds the counts and failures of `other` (another worker's segment of the same run); the
    /// cursor is `other`'s if this report has none.
    pub fn merge(&mut self, other: MigrationReport) {
        self.scanned += other.scanned;
        self.written += other.written;
        self.already_current += other.already_current;
        self.stepped_over += other.stepped_over;
        self.retried += other.retried;
        self.failed.extend(other.failed);
        if self.cursor.is_none() {
            self.cursor = other.cursor;
        }
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
