//! Evolving a live table: [`Table::backfill`] writes what the current code derives (index keys,
//! the type attribute, defaulted fields, key-field attributes) into the items that lack it, and
//! [`Table::migrate`] moves items to a new form. Both scan the table in parallel segments, write
//! each item with a condition that it is still as read (an item changed meanwhile is read again
//! and retried, so no concurrent update is lost), count what they did in a [`MigrationReport`],
//! resume from its cursor, report progress, and send through the table's send path (its rate
//! limit and capacity record included).

mod backfill;
mod migrate;
mod report;
mod run;

pub use backfill::BackfillJob;
pub use migrate::MigrateJob;
pub use report::{FailedItem, MigrationReport, Progress};
pub use run::Evolution;

/// `table.backfill::<E>()`: see [`Table::backfill`](crate::Table::backfill).
pub type Backfill<E> = Evolution<BackfillJob<E>>;

/// `table.migrate(f)`: see [`Table::migrate`](crate::Table::migrate).
pub type Migrate<Old, New, F> = Evolution<MigrateJob<Old, New, F>>;
