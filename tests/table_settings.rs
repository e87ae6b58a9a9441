//! The table settings of 2024-2026 on `TableDefinition`: warm throughput, maximum on-demand
//! throughput (table and index), the point-in-time recovery period, Contributor Insights and
//! the resource-based policy, created, planned and applied.
//!
//! What the embedded engine answers: CreateTable and UpdateTable accept the maximum on-demand
//! throughput (checking it as DynamoDB does) and keep none of it, nor any warm throughput;
//! DescribeContinuousBackups, UpdateContinuousBackups, Describe/UpdateContributorInsights and
//! Get/PutResourcePolicy are UnknownOperationException. So the first test runs against the
//! engine with what AWS keeps of the capacity settings added to DescribeTable's answers
//! (`common::capacity::KeptCapacity`); the others inject AWS's answers with an SDK interceptor
//! (`common::aws`, with [`Settings`]) that checks each request the crate sends and answers as the
//! SDK's model defines the operation.

mod common;

use common::aws::{Answers, Aws, Reply};

use aws_sdk_dynamodb::types::{OnDemandThroughput, TableStatus, TableWarmThroughputDescription};
use dynamo_entity::{Billing, Entity, Error, InsightsMode, Table, TableChange, TableDefinition, Throughput};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
}

const POLICY: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"dynamodb:DeleteTable","Resource":"*"}]}"#;
/// The same document, other whitespace and key order.
const POLICY_AGAIN: &str = r#"{ "Statement": [ { "Action": "dynamodb:DeleteTable", "Resource": "*", "Effect": "Deny",
    "Principal": { "AWS": "arn:aws:iam::123456789012:root" } } ], "Version": "2012-10-17" }"#;

fn def() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA]).unwrap()
}

fn units(read: u64, write: u64) -> Throughput {
    Throughput { read, write }
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

#[tokio::test]
async fn the_maximum_on_demand_throughput_is_kept_and_the_plan_compares_it() {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let kept = common::capacity::KeptCapacity::default();
    let table = kept.on(&Table::new(client.clone(), format!("settings-local-{}", std::process::id())));
    let wanted = def()
        .max_on_demand(200, 100)
        .unwrap()
        .index_max_on_demand("GSI1", 50, 25)
        .unwrap()
        .warm_throughput(15_000, 6_000)
        .unwrap()
        .recovery_period_days(7)
        .unwrap()
        .contributor_insights(InsightsMode::ThrottledKeys)
        .resource_policy(POLICY)
        .unwrap();
    // The engine takes the whole CreateTable; point-in-time recovery and Contributor Insights are
    // skipped where it has no such operation.
    table.create_table_from(&wanted).await.unwrap();
    let t = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let max = t.on_demand_throughput().unwrap();
    assert_eq!((max.max_read_request_units(), max.max_write_request_units()), (Some(200), Some(100)));
    let gsi = &t.global_secondary_indexes()[0];
    let max = gsi.on_demand_throughput().unwrap();
    assert_eq!((max.max_read_request_units(), max.max_write_request_units()), (Some(50), Some(25)));
    assert!(t.warm_throughput().is_none(), "the engine now reports warm throughput: test it against the engine");

    // As created: nothing to change; what the engine cannot report is noted, not changed.
    let plan = table.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    assert!(plan.is_empty(), "{text}");
    for line in [
        "# warm throughput not compared: this endpoint does not report it",
        "# contributor insights THROTTLED_KEYS not compared: this endpoint has no Contributor Insights",
        "# resource policy not compared: this endpoint has no resource-based policies",
        "# point-in-time recovery not compared: this endpoint has no backups",
    ] {
        assert!(has_line(&text, line), "no line {line:?} in\n{text}");
    }
    // Not stated: kept, and said so.
    let plan = table.plan(&def()).await.unwrap();
    let text = plan.to_string();
    assert!(plan.is_empty(), "{text}");
    assert!(
        has_line(&text, "= maximum on-demand throughput 200 reads/s, 100 writes/s (kept: not in the definition)"),
        "{text}"
    );
    // Another maximum, the table's and the index's: a change each.
    let more = def().max_on_demand(300, 100).unwrap().index_max_on_demand("GSI1", 60, 25).unwrap();
    let plan = table.plan(&more).await.unwrap();
    assert_eq!(
        plan.changes,
        [
            TableChange::MaxOnDemand { index: None, from: Some(units(200, 100)), to: units(300, 100) },
            TableChange::MaxOnDemand { index: Some("GSI1".into()), from: Some(units(50, 25)), to: units(60, 25) },
        ],
        "{plan}"
    );
    let text = plan.to_string();
    assert!(
        has_line(&text, "~ table maximum on-demand throughput: 200 reads/s, 100 writes/s -> 300 reads/s, 100 writes/s"),
        "{text}"
    );
    assert!(
        has_line(
            &text,
            "~ global index GSI1 maximum on-demand throughput: 50 reads/s, 25 writes/s -> 60 reads/s, 25 writes/s"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_maximum_on_demand_throughput_on_a_provisioned_table_is_refused_before_any_request() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("settings-refused-{}", std::process::id()));
    let provisioned = def().billing(Billing::Provisioned(units(5, 5)));
    for wanted in [
        provisioned.clone().max_on_demand(10, 10).unwrap(),
        provisioned.clone().index_max_on_demand("GSI1", 10, 10).unwrap(),
    ] {
        let Err(Error::Validation(m)) = table.create_table_from(&wanted).await else { panic!("not refused") };
        assert!(m.starts_with("max_on_demand") && m.contains("provisioned"), "{m}");
        let Err(Error::Validation(m)) = table.plan(&wanted).await else { panic!("not refused") };
        assert!(m.starts_with("max_on_demand"), "{m}");
        let Err(Error::Validation(m)) = table.apply(&wanted).await else { panic!("not refused") };
        assert!(m.starts_with("max_on_demand"), "{m}");
    }
    assert_eq!(table.requests_sent(), 0, "nothing sent");
    // A live provisioned table, billing not stated: refused after the plan's Describe* only.
    table.create_table_from(&provisioned).await.unwrap();
    let sent = table.requests_sent();
    let Err(Error::Validation(m)) = table.apply(&def().max_on_demand(10, 10).unwrap()).await else {
        panic!("not refused")
    };
    assert!(m.contains("max_on_demand: the table is provisioned"), "{m}");
    assert_eq!(
        table.requests_sent() - sent,
        3,
        "the plan's DescribeTable, DescribeTimeToLive, DescribeContinuousBackups"
    );
}

/// What AWS would hold of the settings Local does not keep.
#[derive(Debug, Default)]
struct Settings {
    warm: (i64, i64),
    max_on_demand: Option<(i64, i64)>,
    pitr_days: i64,
    insights: Option<&'static str>,
    policy: Option<String>,
}

/// AWS's DynamoDB, for what Local does not answer (`common::aws`): DescribeTable goes to Local and
/// its answer gets the warm throughput (every AWS table reports one) and the table's maximum
/// on-demand throughput held here; an UpdateTable of either, UpdateContinuousBackups,
/// Describe/UpdateContributorInsights and Get/PutResourcePolicy are checked, recorded and
/// answered here (the request goes to Local as a harmless ListTables), in the shapes of the
/// SDK's model (`aws-sdk-dynamodb` 1.136: `TableWarmThroughputDescription`,
/// `DescribeContributorInsightsOutput`, `GetResourcePolicyOutput`, `PolicyNotFoundException`, ...).
impl Answers for Settings {
    fn reply(&mut self, op: &str, body: &serde_json::Value) -> Reply {
        let s = self;
        let table = body["TableName"].as_str().or(body["ResourceArn"].as_str()).unwrap_or_default();
        let table = table.rsplit('/').next().unwrap_or_default().to_owned();
        let n = |v: &serde_json::Value| v.as_i64().unwrap();
        let (status, answer) = match op {
            "UpdateTable" => {
                let warm = &body["WarmThroughput"];
                let max = &body["OnDemandThroughput"];
                if warm.is_null() && max.is_null() {
                    return Reply::Pass;
                }
                if !warm.is_null() {
                    s.warm = (n(&warm["ReadUnitsPerSecond"]), n(&warm["WriteUnitsPerSecond"]));
                }
                if !max.is_null() {
                    s.max_on_demand = Some((n(&max["MaxReadRequestUnits"]), n(&max["MaxWriteRequestUnits"])));
                }
                (200, format!(r#"{{"TableDescription":{{"TableName":"{table}","TableStatus":"UPDATING"}}}}"#))
            }
            "DescribeContinuousBackups" | "UpdateContinuousBackups" => {
                let spec = &body["PointInTimeRecoverySpecification"];
                if let Some(days) = spec["RecoveryPeriodInDays"].as_i64() {
                    s.pitr_days = days;
                }
                (
                    200,
                    format!(
                        r#"{{"ContinuousBackupsDescription":{{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{{"PointInTimeRecoveryStatus":"ENABLED","RecoveryPeriodInDays":{}}}}}}}"#,
                        s.pitr_days
                    ),
                )
            }
            "DescribeContributorInsights" => {
                let (status, mode) = match s.insights {
                    Some(mode) => ("ENABLED", format!(r#","ContributorInsightsMode":"{mode}""#)),
                    None => ("DISABLED", String::new()),
                };
                (200, format!(r#"{{"TableName":"{table}","ContributorInsightsStatus":"{status}"{mode}}}"#))
            }
            "UpdateContributorInsights" => {
                s.insights = match body["ContributorInsightsAction"].as_str() {
                    Some("ENABLE") => Some(match body["ContributorInsightsMode"].as_str() {
                        Some("THROTTLED_KEYS") => "THROTTLED_KEYS",
                        _ => "ACCESSED_AND_THROTTLED_KEYS",
                    }),
                    _ => None,
                };
                let status = if s.insights.is_some() { "ENABLING" } else { "DISABLING" };
                (200, format!(r#"{{"TableName":"{table}","ContributorInsightsStatus":"{status}"}}"#))
            }
            "GetResourcePolicy" => match &s.policy {
                Some(p) => (200, serde_json::json!({"Policy": p, "RevisionId": "1700000000000"}).to_string()),
                None => (
                    400,
                    r#"{"__type":"com.amazonaws.dynamodb.v20120810#PolicyNotFoundException","message":"Resource-based policy not found for the provided ResourceArn"}"#
                        .to_owned(),
                ),
            },
            "PutResourcePolicy" => {
                s.policy = Some(body["Policy"].as_str().unwrap().to_owned());
                (200, r#"{"RevisionId":"1700000000001"}"#.to_owned())
            }
            _ => return Reply::Pass,
        };
        Reply::Answer(status, answer)
    }

    fn describe(&mut self, t: &mut aws_sdk_dynamodb::types::TableDescription) {
        t.warm_throughput = Some(
            TableWarmThroughputDescription::builder()
                .read_units_per_second(self.warm.0)
                .write_units_per_second(self.warm.1)
                .status(TableStatus::Active)
                .build(),
        );
        if let Some((r, w)) = self.max_on_demand {
            t.on_demand_throughput =
                Some(OnDemandThroughput::builder().max_read_request_units(r).max_write_request_units(w).build());
        }
    }
}

fn aws() -> Aws<Settings> {
    Aws::new(Settings { warm: (12_000, 4_000), pitr_days: 35, ..Settings::default() })
}

#[tokio::test]
async fn the_settings_are_planned_and_applied_as_aws_answers_them() {
    let table = common::table("settings-aws", &[Order::SCHEMA]).await;
    let aws = aws();
    let t = aws.on(&table);
    let wanted = def()
        .warm_throughput(15_000, 6_000)
        .unwrap()
        .max_on_demand(200, 100)
        .unwrap()
        .recovery_period_days(7)
        .unwrap()
        .contributor_insights(InsightsMode::ThrottledKeys)
        .resource_policy(POLICY)
        .unwrap();
    // Not stated: kept, and said so.
    let text = t.plan(&def()).await.unwrap().to_string();
    assert!(!text.contains("maximum on-demand"), "no maximum, nothing to keep:\n{text}");
    for line in [
        "= warm throughput 12000 reads/s, 4000 writes/s (kept: not in the definition)",
        "= point-in-time recovery period 35 days (kept: not in the definition)",
    ] {
        assert!(has_line(&text, line), "no line {line:?} in\n{text}");
    }
    let plan = t.plan(&wanted).await.unwrap();
    assert_eq!(
        plan.changes,
        [
            TableChange::WarmThroughput { from: Some(units(12_000, 4_000)), to: units(15_000, 6_000) },
            TableChange::MaxOnDemand { index: None, from: None, to: units(200, 100) },
            TableChange::ContributorInsights { from: None, to: Some(InsightsMode::ThrottledKeys) },
            TableChange::ResourcePolicy { from: None, to: POLICY.into() },
            TableChange::RecoveryPeriod { from: Some(35), to: 7 },
        ],
        "{plan}"
    );
    let text = plan.to_string();
    for line in [
        "~ warm throughput: 12000 reads/s, 4000 writes/s -> 15000 reads/s, 6000 writes/s",
        "~ table maximum on-demand throughput: none -> 200 reads/s, 100 writes/s",
        "~ contributor insights: off -> THROTTLED_KEYS",
        "~ resource policy: none -> attached",
        "~ point-in-time recovery period: 35 days -> 7 days",
    ] {
        assert!(has_line(&text, line), "no line {line:?} in\n{text}");
    }
    aws.answered();
    t.apply(&wanted).poll_interval(std::time::Duration::from_millis(20)).await.unwrap();
    let sent = aws.answered();
    let ops: Vec<&str> = sent.iter().map(|(op, _)| op.as_str()).collect();
    assert_eq!(
        ops,
        [
            "DescribeContinuousBackups",
            "DescribeContributorInsights",
            "GetResourcePolicy",
            "UpdateTable",
            "UpdateTable",
            "UpdateContributorInsights",
            "PutResourcePolicy",
            "UpdateContinuousBackups"
        ],
        "{sent:?}"
    );
    let body = |i: usize| -> serde_json::Value { serde_json::from_str(&sent[i].1).unwrap() };
    assert_eq!(
        body(3)["WarmThroughput"],
        serde_json::json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 6000})
    );
    assert_eq!(
        body(4)["OnDemandThroughput"],
        serde_json::json!({"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 100})
    );
    assert_eq!(body(5)["ContributorInsightsAction"], "ENABLE");
    assert_eq!(body(5)["ContributorInsightsMode"], "THROTTLED_KEYS");
    // The table's ARN, as DescribeTable gives it (each engine names its own region and account).
    let described = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let arn = described.table().and_then(|t| t.table_arn()).unwrap().to_owned();
    assert!(arn.ends_with(&format!(":table/{}", table.name())), "{arn}");
    assert_eq!(body(6)["ResourceArn"], arn.as_str());
    assert_eq!(body(6)["Policy"], POLICY);
    assert_eq!(
        body(7)["PointInTimeRecoverySpecification"],
        serde_json::json!({"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7})
    );
    // Applied: nothing left; the same policy written otherwise is no change.
    let plan = t.plan(&wanted).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    let again = wanted.clone().resource_policy(POLICY_AGAIN).unwrap();
    assert!(t.plan(&again).await.unwrap().is_empty());

    // DynamoDB raised the table's warm throughput as its traffic grew (to 30000/9000): a
    // definition below it is in step, said in a kept line, and apply sends nothing.
    aws.answers.lock().unwrap().warm = (30_000, 9_000);
    aws.answered();
    let lower = wanted.clone().warm_throughput(15_000, 5_000).unwrap();
    let plan = t.plan(&lower).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    assert!(
        plan.kept.iter().any(|k| k
            == "warm throughput 30000 reads/s, 9000 writes/s (at or above the definition's 15000 reads/s, 5000 \
                writes/s: DynamoDB raised it)"),
        "{plan}"
    );
    t.apply(&lower).await.unwrap();
    let sent = aws.answered();
    assert!(sent.iter().all(|(op, _)| op.starts_with("Describe") || op.starts_with("Get")), "{sent:?}");
    // A rise of one of the two is sent, the other kept where the table has it.
    let more_writes = wanted.clone().warm_throughput(15_000, 12_000).unwrap();
    let plan = t.plan(&more_writes).await.unwrap();
    assert_eq!(
        plan.changes,
        [TableChange::WarmThroughput { from: Some(units(30_000, 9_000)), to: units(30_000, 12_000) }],
        "{plan}"
    );
    t.apply(&more_writes).poll_interval(std::time::Duration::from_millis(20)).await.unwrap();
    let sent = aws.answered();
    let update = sent.iter().find(|(op, _)| op == "UpdateTable").expect("an UpdateTable");
    let body: serde_json::Value = serde_json::from_str(&update.1).unwrap();
    assert_eq!(body["WarmThroughput"], serde_json::json!({"ReadUnitsPerSecond": 30000, "WriteUnitsPerSecond": 12000}));
    assert!(t.plan(&more_writes).await.unwrap().is_empty());

    // Stated off: Contributor Insights turned off.
    let off = wanted.clone().no_contributor_insights();
    let plan = t.plan(&off).await.unwrap();
    assert_eq!(plan.changes, [TableChange::ContributorInsights { from: Some(InsightsMode::ThrottledKeys), to: None }]);
    assert!(has_line(&plan.to_string(), "~ contributor insights: THROTTLED_KEYS -> off"), "{plan}");
    aws.answered();
    t.apply(&off).await.unwrap();
    let sent = aws.answered();
    let update = sent.iter().find(|(op, _)| op == "UpdateContributorInsights").unwrap();
    let body: serde_json::Value = serde_json::from_str(&update.1).unwrap();
    assert_eq!(body["ContributorInsightsAction"], "DISABLE");
    assert!(t.plan(&off).await.unwrap().is_empty());
}
