//! The guide: how to use dynamo-entity, one chapter a subject, every example compiled as a
//! doctest. The crate's front page ([the crate's root](crate), the repository's `README.md`)
//! says what the crate is and how to try it; the chapters say the rest.
//!
//! Chapters, in reading order:
//!
//! 1. [Getting started](start): single-table design in one paragraph, a first entity, running
//!    the examples and the tests, a first program, DynamoDB served in the process for your
//!    program and tests.
//! 2. [Queries, item collections, conditions](queries): `Table`, queries and cursors, several
//!    entity types in one query, conditions, filters and scans.
//! 3. [Views: reading less](views): reading some of an entity's fields, indexes that project
//!    less.
//! 4. [Updates, versions, transactions](updates): typed updates, optimistic locking,
//!    transactions.
//! 5. [Nested documents, filled fields, validation](documents): `#[derive(Document)]` fields
//!    and paths into them, fields the library fills, validators.
//! 6. [Batches](batches): batch reads and writes, of one or several entity types.
//! 7. [Capacity, cost and hot partitions](capacity): what a request costs, rate limits, write
//!    sharding.
//! 8. [Changing the table: plan, apply, backfill, migrate](changes): the table's definition
//!    and settings, plans applied to a live table, backfills and migrations of items.
//! 9. [Unique values](unique): `#[unique]` fields, kept unique by a guard item per value.
//! 10. [Failure modes](failures): timeouts, writes whose answer is lost, batch writes that stop
//!     part way, throttling, bad items, cursors.
//! 11. [Streams and table exports for analytics](streams): typed changes from DynamoDB Streams
//!     and Lambda, exports to S3 read as typed items and Parquet.
//! 12. [Client-side encryption](encryption): `#[encrypt]` fields on AWS's Database Encryption
//!     SDK (feature `encryption`).
//! 13. [Exporting the table](exporting): table options, CloudFormation, Terraform and Markdown
//!     exports, the table drawn, NoSQL Workbench models.
//! 14. [Multi-tenant tables](tenancy): tenant handles and the IAM policy that keeps tenants
//!     apart.
//! 15. [Adopting an existing table](adopting): reading items other code wrote and writing them
//!     back as they are, tables keyed on a plain attribute (natural keys).
//! 16. [Regions and recovery](regions): the four recovery patterns (backup and restore, pilot
//!     light, warm standby, multi-site), global tables in the definition, what holds per Region,
//!     restores brought back in step.
//! 17. [Reference](mod@reference): every attribute of the derive, how values become key text, what
//!     the derive generates, errors, benchmarks.
//!
//! A chapter is `src/guide/<chapter>.md`, the docs of the module of that name below: its title,
//! its contents (a link to each section), the sections, and links to the chapters before and
//! after it. A new subject is a section of the chapter it belongs to, or a chapter of its own
//! (a file, a module, a line in this list and one in the README's feature list);
//! `tests/guide.rs` checks the chapters and the README's links to them.

#[doc = include_str!("start.md")]
pub mod start {}

#[doc = include_str!("queries.md")]
pub mod queries {}

#[doc = include_str!("views.md")]
pub mod views {}

#[doc = include_str!("updates.md")]
pub mod updates {}

#[doc = include_str!("documents.md")]
pub mod documents {}

#[doc = include_str!("batches.md")]
pub mod batches {}

#[doc = include_str!("capacity.md")]
pub mod capacity {}

#[doc = include_str!("changes.md")]
pub mod changes {}

#[doc = include_str!("unique.md")]
pub mod unique {}

#[doc = include_str!("failures.md")]
pub mod failures {}

#[doc = include_str!("streams.md")]
pub mod streams {}

#[doc = include_str!("encryption.md")]
pub mod encryption {}

#[doc = include_str!("exporting.md")]
pub mod exporting {}

#[doc = include_str!("tenancy.md")]
pub mod tenancy {}

#[doc = include_str!("adopting.md")]
pub mod adopting {}

#[doc = include_str!("regions.md")]
pub mod regions {}

#[doc = include_str!("reference.md")]
pub mod reference {}
