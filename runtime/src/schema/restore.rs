//! Backups and restores: a table's on-demand backups, created and listed; the table restored to a
//! point in time, or from a backup, into a new table, waited for until it is `ACTIVE`. DynamoDB
//! restores the keys, indexes, billing and encryption of the table, not its TTL, stream,
//! point-in-time recovery, tags, resource-based policy or auto scaling: `apply` of the definition
//! to the restored table sets those it states (its plan lists them).

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::time::{Duration, Instant, SystemTime};

use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{BackupStatus, BackupType, BackupTypeFilter, TableStatus};

use crate::error::{Error, sdk_error};
use crate::send::send;
use crate::table::Table;

/// The default of [`Restore::time_limit`]: six hours (DynamoDB restores a large table in hours).
pub const DEFAULT_RESTORE_TIME_LIMIT: Duration = Duration::from_secs(6 * 3600);

/// The moment a point-in-time restore brings the table back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestorePoint {
    /// The latest moment DynamoDB can restore (`UseLatestRestorableTime`, about five minutes ago).
    Latest,
    /// This moment (`RestoreDateTime`), within the table's recovery period.
    At(SystemTime),
}

/// An on-demand backup of a table, as DynamoDB lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    /// Its ARN: what [`Table::restore_from_backup`] takes.
    pub arn: String,
    /// Its name.
    pub name: String,
    /// The table backed up.
    pub table: String,
    /// When it was made (`None`: not reported).
    pub created: Option<SystemTime>,
    /// `CREATING`, `AVAILABLE` or `DELETED` (`None`: not reported).
    pub status: Option<BackupStatus>,
    /// `USER` (made on request, as [`Table::create_backup`] does), `SYSTEM` (made when a table was
    /// deleted) or `AWS_BACKUP` (made by AWS Backup).
    pub kind: Option<BackupType>,
    /// Its size in bytes (`None`: not reported yet).
    pub size_bytes: Option<u64>,
}

/// What a restore restores from.
#[derive(Debug, Clone)]
enum Source {
    PointInTime(RestorePoint),
    Backup(String),
}

/// A restore into a new table (`table.restore_to_point_in_time(..)`,
/// `table.restore_from_backup(..)`): `.await` starts it and waits until the new table is
/// `ACTIVE`, then resolves to a handle of it (this handle's client and options, a table of one
/// Region).
#[must_use = "a restore does nothing until awaited"]
#[derive(Debug)]
pub struct Restore<'a> {
    table: &'a Table,
    target: String,
    source: Source,
    time_limit: Duration,
    poll: Duration,
}

impl Restore<'_> {
    /// The most the wait for the restored table may take ([`DEFAULT_RESTORE_TIME_LIMIT`] unless
    /// set); past it, the restore (which DynamoDB goes on with) is [`Error::Validation`] saying so.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = limit;
        self
    }

    /// How often the restored table is described while the restore waits for it (ten seconds
    /// unless set).
    pub fn poll_interval(mut self, every: Duration) -> Self {
        self.poll = every.max(Duration::from_millis(10));
        self
    }
}

impl<'a> IntoFuture for Restore<'a> {
    type Output = Result<Table, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<Table, Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// `name` as a name DynamoDB takes for a table or a backup (`what`): 3 to 255 of `a-z A-Z 0-9 _ . -`.
fn check_name(what: &str, name: &str) -> Result<(), Error> {
    let ok = (3..=255).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(Error::Validation(format!(
            "{what} {name:?}: DynamoDB takes names of 3 to 255 letters, digits, `_`, `.` and `-`"
        )))
    }
}

impl Restore<'_> {
    async fn run(self) -> Result<Table, Error> {
        let t = self.table;
        t.refuse_on_tenant("a restore of the table")?;
        check_name("restore: the new table", &self.target)?;
        if self.target == *t.name {
            return Err(Error::Validation(format!(
                "restore: the new table is named {} as the table restored; a restore makes a new table",
                self.target
            )));
        }
        match &self.source {
            Source::PointInTime(point) => {
                let request = t
                    .client
                    .restore_table_to_point_in_time()
                    .source_table_name(&*t.name)
                    .target_table_name(&self.target);
                let request = match point {
                    RestorePoint::Latest => request.use_latest_restorable_time(true),
                    RestorePoint::At(at) => request.restore_date_time(DateTime::from(*at)),
                };
                let call = crate::send::call("RestoreTableToPointInTime", &self.target, "", None);
                send(&t.meter, &call, request).await.map_err(sdk_error)?;
            }
            Source::Backup(arn) => {
                if !arn.starts_with("arn:") || !arn.contains("/backup/") {
                    return Err(Error::Validation(format!(
                        "restore_from_backup: {arn:?} is not a backup's ARN (arn:aws:dynamodb:..:table/<table>/backup/<id>)"
                    )));
                }
                let request = t.client.restore_table_from_backup().backup_arn(arn).target_table_name(&self.target);
                let call = crate::send::call("RestoreTableFromBackup", &self.target, "", None);
                send(&t.meter, &call, request).await.map_err(sdk_error)?;
            }
        }
        let restored = Table { name: self.target.clone().into(), regions: None, ..t.clone() };
        let deadline = Instant::now() + self.time_limit;
        loop {
            let described = restored.describe_existing().await?;
            let done = described.as_ref().is_some_and(|d| {
                d.table_status() == Some(&TableStatus::Active)
                    && !d.restore_summary().is_some_and(|r| r.restore_in_progress())
            });
            if done {
                return Ok(restored);
            }
            if Instant::now() + self.poll > deadline {
                return Err(Error::Validation(format!(
                    "restore into table {}: not ACTIVE within {:?} (DynamoDB goes on restoring it: plan and apply it \
                     once it is)",
                    self.target, self.time_limit
                )));
            }
            tokio::time::sleep(self.poll).await;
        }
    }
}

/// A backup as `ListBackups` or `CreateBackup` describes it.
fn backup(
    arn: Option<&str>,
    name: Option<&str>,
    table: &str,
    created: Option<&DateTime>,
    status: Option<&BackupStatus>,
    kind: Option<&BackupType>,
    size: Option<i64>,
) -> Backup {
    Backup {
        arn: arn.unwrap_or_default().to_owned(),
        name: name.unwrap_or_default().to_owned(),
        table: table.to_owned(),
        created: created.and_then(|d| SystemTime::try_from(*d).ok()),
        status: status.cloned(),
        kind: kind.cloned(),
        size_bytes: size.and_then(|s| u64::try_from(s).ok()),
    }
}

impl Table {
    /// Restores this table as it was at `point` into a new table named `target`
    /// (`RestoreTableToPointInTime`; the table needs point-in-time recovery on), then waits until
    /// it is `ACTIVE`: `.await` resolves to a handle of the new table. DynamoDB restores keys,
    /// indexes, billing and encryption; `apply` of the definition to the new table then sets the
    /// TTL, stream, point-in-time recovery, tags and resource-based policy it states (its plan
    /// lists exactly those). A global table is restored as a table of one Region: `apply` adds its
    /// replicas.
    ///
    /// Refused before any request ([`Error::Validation`]): a `target` that is no table name, or
    /// this table's; on a tenant handle, [`Error::TenantRefused`].
    pub fn restore_to_point_in_time(&self, target: impl Into<String>, point: RestorePoint) -> Restore<'_> {
        self.restore(target.into(), Source::PointInTime(point))
    }

    /// Restores the backup `backup_arn` (of any table: see [`Table::backups`]) into a new table
    /// named `target` (`RestoreTableFromBackup`), then waits until it is `ACTIVE`, as
    /// [`Table::restore_to_point_in_time`] does.
    pub fn restore_from_backup(&self, backup_arn: impl Into<String>, target: impl Into<String>) -> Restore<'_> {
        self.restore(target.into(), Source::Backup(backup_arn.into()))
    }

    fn restore(&self, target: String, source: Source) -> Restore<'_> {
        Restore { table: self, target, source, time_limit: DEFAULT_RESTORE_TIME_LIMIT, poll: Duration::from_secs(10) }
    }

    /// Makes an on-demand backup of this table named `name` (`CreateBackup`), and returns it as
    /// DynamoDB answered (`CREATING` at first, `AVAILABLE` once made; see [`Table::backups`]). A
    /// name that is not 3 to 255 letters, digits, `_`, `.` and `-` is [`Error::Validation`]
    /// before any request; a tenant handle refuses it ([`Error::TenantRefused`]).
    pub async fn create_backup(&self, name: impl Into<String>) -> Result<Backup, Error> {
        let name = name.into();
        self.refuse_on_tenant("a backup of the table")?;
        check_name("create_backup", &name)?;
        let call = crate::send::call("CreateBackup", &self.name, "", None);
        let request = self.client.create_backup().table_name(&*self.name).backup_name(&name);
        let out = send(&self.meter, &call, request).await.map_err(sdk_error)?;
        let d = out.backup_details();
        Ok(backup(
            d.map(|d| d.backup_arn()),
            d.map(|d| d.backup_name()).or(Some(&name)),
            &self.name,
            d.map(|d| d.backup_creation_date_time()),
            d.map(|d| d.backup_status()),
            d.map(|d| d.backup_type()),
            d.and_then(|d| d.backup_size_bytes()),
        ))
    }

    /// This table's backups, every kind (on request, made when a table was deleted, AWS Backup's),
    /// every page of `ListBackups`, oldest first as DynamoDB lists them. A tenant handle refuses
    /// it ([`Error::TenantRefused`]).
    pub async fn backups(&self) -> Result<Vec<Backup>, Error> {
        self.refuse_on_tenant("the backups of the table")?;
        let mut out = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let call = crate::send::call("ListBackups", &self.name, "", None);
            let request = self
                .client
                .list_backups()
                .table_name(&*self.name)
                .backup_type(BackupTypeFilter::All)
                .set_exclusive_start_backup_arn(after.take());
            let page = send(&self.meter, &call, request).await.map_err(sdk_error)?;
            out.extend(page.backup_summaries().iter().map(|b| {
                backup(
                    b.backup_arn(),
                    b.backup_name(),
                    b.table_name().unwrap_or(&self.name),
                    b.backup_creation_date_time(),
                    b.backup_status(),
                    b.backup_type(),
                    b.backup_size_bytes(),
                )
            }));
            match page.last_evaluated_backup_arn() {
                Some(arn) => after = Some(arn.to_owned()),
                None => return Ok(out),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_dynamodb_takes() {
        for good in ["abc", "orders-2026.05_restored", &"x".repeat(255)] {
            assert!(check_name("n", good).is_ok(), "{good}");
        }
        for bad in ["ab", "orders restored", "orders/1", &"x".repeat(256), "ordérs"] {
            assert!(matches!(check_name("n", bad), Err(Error::Validation(_))), "{bad}");
        }
    }
}
