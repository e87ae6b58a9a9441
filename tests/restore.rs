//! A table restored (to a point in time, or from an on-demand backup) into a new table, waited for,
//! then brought back in step by `apply`: DynamoDB restores its keys, indexes, billing and
//! encryption, not its TTL, stream, point-in-time recovery, tags or resource-based policy, and the
//! plan of the freshly restored table lists exactly those. Backups created and listed.
//!
//! The embedded engine serves no backups or restores: [`Backups`] is AWS's side (`common::aws`). A
//! restore it answers as AWS does, and makes the restored table on the engine with the source's
//! `CreateTable` less what a restore does not bring back (stream, tags, resource policy; TTL and
//! point-in-time recovery are other requests), reporting it `RestoreInProgress` for a few
//! descriptions; continuous backups and resource policies it keeps per table.

mod common;

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::aws::{Answers, Aws, Reply};

use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{BackupStatus, BackupType, RestoreSummary, TableDescription};
use dynamo_entity::{Billing, Entity, Error, RestorePoint, StreamView, Table, TableChange, TableDefinition};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
    #[ttl]
    pub expires_at: SystemTime,
}

const POLICY: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"dynamodb:DeleteTable","Resource":"*"}]}"#;

/// Every setting a restore does not bring back, stated.
fn definition() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .billing(Billing::OnDemand)
        .stream(StreamView::NewAndOldImages)
        .point_in_time_recovery(true)
        .tag("Env", "prod")
        .unwrap()
        .resource_policy(POLICY)
        .unwrap()
}

const ARN: &str = "arn:aws:dynamodb:us-east-1:123456789012:table";

/// AWS's backups and restores.
#[derive(Debug, Default)]
struct Backups {
    /// Each table's CreateTable, as the library sent it.
    created: HashMap<String, serde_json::Value>,
    pitr: HashMap<String, bool>,
    policies: HashMap<String, String>,
    /// Tables being restored: the source's ARN and how many descriptions it stays in progress.
    restoring: HashMap<String, (String, u32)>,
    /// Backups made: ARN, name, table.
    backups: Vec<(String, String, String)>,
    /// DescribeTables of restored tables.
    described: u32,
}

impl Backups {
    /// The restored table's CreateTable: the source's, without what a restore does not restore.
    fn restored(&mut self, source: &str, target: &str) -> (String, String) {
        let mut body = self.created[source].clone();
        let made = body.as_object_mut().unwrap();
        for lost in ["StreamSpecification", "Tags", "ResourcePolicy", "DeletionProtectionEnabled"] {
            made.remove(lost);
        }
        made.insert("TableName".into(), target.into());
        self.restoring.insert(target.to_owned(), (format!("{ARN}/{source}"), 2));
        let answer = format!(
            r#"{{"TableDescription":{{"TableName":"{target}","TableStatus":"CREATING","RestoreSummary":{{"SourceTableArn":"{ARN}/{source}","RestoreDateTime":1700000000,"RestoreInProgress":true}}}}}}"#
        );
        (body.to_string(), answer)
    }
}

fn table_of(body: &serde_json::Value) -> String {
    let name = body["TableName"].as_str().or(body["ResourceArn"].as_str()).unwrap_or_default();
    name.rsplit('/').next().unwrap().to_owned()
}

impl Answers for Backups {
    fn reply(&mut self, operation: &str, body: &serde_json::Value) -> Reply {
        let table = table_of(body);
        match operation {
            "CreateTable" => {
                // CreateTable attaches its resource policy, as AWS does.
                if let Some(policy) = body["ResourcePolicy"].as_str() {
                    self.policies.insert(table.clone(), policy.to_owned());
                }
                self.created.insert(table, body.clone());
                Reply::Pass
            }
            "DescribeContinuousBackups" | "UpdateContinuousBackups" => {
                if let Some(on) = body["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"].as_bool() {
                    self.pitr.insert(table.clone(), on);
                }
                let status = if self.pitr.get(&table) == Some(&true) { "ENABLED" } else { "DISABLED" };
                Reply::Answer(
                    200,
                    format!(
                        r#"{{"ContinuousBackupsDescription":{{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{{"PointInTimeRecoveryStatus":"{status}"}}}}}}"#
                    ),
                )
            }
            "GetResourcePolicy" => match self.policies.get(&table) {
                Some(p) => Reply::Answer(200, serde_json::json!({"Policy": p, "RevisionId": "1"}).to_string()),
                None => Reply::Answer(
                    400,
                    r#"{"__type":"com.amazonaws.dynamodb.v20120810#PolicyNotFoundException","message":"Resource-based policy not found"}"#
                        .to_owned(),
                ),
            },
            "PutResourcePolicy" => {
                self.policies.insert(table, body["Policy"].as_str().unwrap().to_owned());
                Reply::Answer(200, r#"{"RevisionId":"2"}"#.to_owned())
            }
            "RestoreTableToPointInTime" => {
                let (body, answer) =
                    self.restored(body["SourceTableName"].as_str().unwrap(), body["TargetTableName"].as_str().unwrap());
                Reply::Instead { operation: "CreateTable".into(), body, status: 200, answer }
            }
            "RestoreTableFromBackup" => {
                let arn = body["BackupArn"].as_str().unwrap();
                let source = self.backups.iter().find(|(a, _, _)| a == arn).map(|(_, _, t)| t.clone()).unwrap();
                let (body, answer) = self.restored(&source, body["TargetTableName"].as_str().unwrap());
                Reply::Instead { operation: "CreateTable".into(), body, status: 200, answer }
            }
            "CreateBackup" => {
                let name = body["BackupName"].as_str().unwrap().to_owned();
                let arn = format!("{ARN}/{table}/backup/0170000000000{}-abcdefgh", self.backups.len());
                self.backups.push((arn.clone(), name.clone(), table));
                Reply::Answer(
                    200,
                    format!(
                        r#"{{"BackupDetails":{{"BackupArn":"{arn}","BackupName":"{name}","BackupStatus":"CREATING","BackupType":"USER","BackupCreationDateTime":1700000000}}}}"#
                    ),
                )
            }
            "ListBackups" => {
                // One backup a page, as a long list would come.
                let mine: Vec<&(String, String, String)> = self.backups.iter().filter(|(_, _, t)| *t == table).collect();
                let at = match body["ExclusiveStartBackupArn"].as_str() {
                    None => 0,
                    Some(after) => mine.iter().position(|(a, _, _)| a == after).unwrap() + 1,
                };
                let page: Vec<serde_json::Value> = mine[at..]
                    .iter()
                    .take(1)
                    .map(|(arn, name, t)| {
                        serde_json::json!({"TableName": t, "BackupArn": arn, "BackupName": name, "BackupStatus": "AVAILABLE",
                            "BackupType": "USER", "BackupSizeBytes": 2048, "BackupCreationDateTime": 1700000000})
                    })
                    .collect();
                let mut out = serde_json::json!({"BackupSummaries": page});
                if at + 1 < mine.len() {
                    out["LastEvaluatedBackupArn"] = mine[at].0.clone().into();
                }
                Reply::Answer(200, out.to_string())
            }
            _ => Reply::Pass,
        }
    }

    fn describe(&mut self, t: &mut TableDescription) {
        let Some((source, left)) = t.table_name.as_ref().and_then(|n| self.restoring.get_mut(n)) else { return };
        self.described += 1;
        t.restore_summary = Some(
            RestoreSummary::builder()
                .source_table_arn(source.clone())
                .restore_date_time(DateTime::from_secs(1_700_000_000))
                .restore_in_progress(*left > 0)
                .build()
                .unwrap(),
        );
        *left = left.saturating_sub(1);
    }
}

const FAST: Duration = Duration::from_millis(20);

/// The source table, made by `apply` with every setting of [`definition`].
async fn source(test: &str) -> (Aws<Backups>, Table) {
    let client = dynamo_entity::local::client().await.unwrap();
    let aws = Aws::new(Backups::default());
    let t = aws.on(&Table::new(client, format!("{test}-{}", std::process::id())));
    t.apply(&definition()).poll_interval(FAST).await.unwrap();
    let plan = t.plan(&definition()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    aws.seen();
    (aws, t)
}

#[tokio::test]
async fn a_table_restored_to_a_point_in_time_is_brought_back_in_step_by_apply() {
    let (aws, t) = source("restore-pitr").await;
    let target = format!("{}-restored", t.name());
    let restored = t.restore_to_point_in_time(&target, RestorePoint::Latest).poll_interval(FAST).await.unwrap();
    assert_eq!(restored.name(), target);
    let restore = &Aws::<Backups>::bodies(&aws.seen(), "RestoreTableToPointInTime")[0];
    assert_eq!(
        *restore,
        serde_json::json!({"SourceTableName": t.name(), "TargetTableName": target, "UseLatestRestorableTime": true})
    );
    // Waited for: returned once DynamoDB no longer reported the restore in progress.
    assert_eq!(aws.answers.lock().unwrap().described, 3, "two descriptions in progress, then done");

    // The plan of the freshly restored table: exactly what a restore does not bring back.
    let plan = restored.plan(&definition()).await.unwrap();
    let kinds: Vec<&str> = plan
        .changes
        .iter()
        .map(|c| match c {
            TableChange::Stream { from: None, to: Some(StreamView::NewAndOldImages) } => "stream",
            TableChange::Tags { .. } => "tags",
            TableChange::ResourcePolicy { from: None, .. } => "resource policy",
            TableChange::Ttl { from: None, .. } => "ttl",
            TableChange::PointInTimeRecovery { to: true } => "point-in-time recovery",
            other => panic!("a restore keeps {other}"),
        })
        .collect();
    assert_eq!(kinds, ["stream", "tags", "resource policy", "ttl", "point-in-time recovery"], "{plan}");
    assert!(
        plan.notes
            .iter()
            .any(|n| n.starts_with(&format!("restored from {ARN}/{}: DynamoDB restores the keys", t.name()))),
        "{plan}"
    );
    restored.apply(&definition()).poll_interval(FAST).await.unwrap();
    let plan = restored.plan(&definition()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");

    // A moment of the recovery period.
    let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let earlier = format!("{}-earlier", t.name());
    t.restore_to_point_in_time(&earlier, RestorePoint::At(at)).poll_interval(FAST).await.unwrap();
    let restore = &Aws::<Backups>::bodies(&aws.seen(), "RestoreTableToPointInTime")[0];
    assert_eq!(restore["RestoreDateTime"].as_f64(), Some(1_700_000_000.0), "{restore}");
    assert!(restore.get("UseLatestRestorableTime").is_none());
}

#[tokio::test]
async fn backups_are_created_listed_and_restored_into_a_new_table() {
    let (aws, t) = source("restore-backup").await;
    let first = t.create_backup("orders-2026-05-01").await.unwrap();
    assert_eq!(first.name, "orders-2026-05-01");
    assert_eq!(first.table, t.name());
    assert_eq!(first.status, Some(BackupStatus::Creating));
    assert_eq!(first.kind, Some(BackupType::User));
    assert_eq!(first.created, Some(UNIX_EPOCH + Duration::from_secs(1_700_000_000)));
    let second = t.create_backup("orders-2026-05-02").await.unwrap();
    let sent = aws.seen();
    assert_eq!(
        Aws::<Backups>::bodies(&sent, "CreateBackup")[0],
        serde_json::json!({"TableName": t.name(), "BackupName": "orders-2026-05-01"})
    );
    // Every page.
    let listed = t.backups().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["orders-2026-05-01", "orders-2026-05-02"]);
    assert!(listed.iter().all(|b| b.status == Some(BackupStatus::Available) && b.size_bytes == Some(2048)));
    let lists = Aws::<Backups>::bodies(&aws.seen(), "ListBackups");
    assert_eq!(lists.len(), 2, "two pages");
    assert_eq!(lists[0]["BackupType"], "ALL");
    assert_eq!(lists[1]["ExclusiveStartBackupArn"], first.arn.as_str());

    let target = format!("{}-from-backup", t.name());
    let restored = t.restore_from_backup(&second.arn, &target).poll_interval(FAST).await.unwrap();
    let body = &Aws::<Backups>::bodies(&aws.seen(), "RestoreTableFromBackup")[0];
    assert_eq!(*body, serde_json::json!({"BackupArn": second.arn, "TargetTableName": target}));
    assert_eq!(restored.plan(&definition()).await.unwrap().changes.len(), 5);
    restored.apply(&definition()).poll_interval(FAST).await.unwrap();
    assert!(restored.plan(&definition()).await.unwrap().is_empty());
}

#[tokio::test]
async fn what_dynamodb_refuses_of_a_restore_or_a_backup_is_refused_before_any_request() {
    let client = dynamo_entity::local::client().await.unwrap();
    let t = Table::new(client, "orders");
    let validation = |r: Result<Table, Error>| match r {
        Err(Error::Validation(m)) => m,
        other => panic!("not refused: {other:?}"),
    };
    assert!(validation(t.restore_to_point_in_time("ab", RestorePoint::Latest).await).contains("3 to 255"));
    assert!(validation(t.restore_to_point_in_time("orders", RestorePoint::Latest).await).contains("makes a new table"));
    assert!(validation(t.restore_to_point_in_time("a b c", RestorePoint::Latest).await).contains("letters, digits"));
    assert!(validation(t.restore_from_backup("orders-2026", "orders-b").await).contains("is not a backup's ARN"));
    assert!(matches!(t.create_backup("x").await, Err(Error::Validation(_))));
    let tenant = t.for_tenant("t1");
    assert!(matches!(
        tenant.restore_to_point_in_time("orders-t", RestorePoint::Latest).await,
        Err(Error::TenantRefused { .. })
    ));
    assert!(matches!(tenant.create_backup("orders-t").await, Err(Error::TenantRefused { .. })));
    assert!(matches!(tenant.backups().await, Err(Error::TenantRefused { .. })));
    assert_eq!(t.requests_sent(), 0, "nothing sent");
}
