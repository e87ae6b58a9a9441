//! Global tables in the definition, planned and applied: replicas added one `UpdateTable` at a
//! time and waited for, removed only with `.remove_replicas()`, their own settings set; an MRSC
//! table made in one `UpdateTable` with its witness; what cannot change in place said as such.
//!
//! The embedded engine serves no global tables: its table is the replica of this handle's Region
//! (`us-east-1`, the local client's), and [`Global`] is AWS's side of it (`common::aws`): it answers
//! the `UpdateTable`s that change replicas (checking each), keeps the replicas, and adds them to
//! DescribeTable's answers as AWS reports them, `CREATING` (or `DELETING`, `UPDATING`) for a few
//! descriptions before they settle, so that the waits are seen.

mod common;

use common::aws::{Answers, Aws, Reply};

use aws_sdk_dynamodb::types::{
    GlobalTableWitnessDescription, MultiRegionConsistency as SdkConsistency, OnDemandThroughputOverride,
    ReplicaDescription, ReplicaStatus, TableClass as SdkClass, TableClassSummary, TableDescription, WitnessStatus,
};
use dynamo_entity::{
    Entity, Error, GlobalTable, MultiRegionConsistency, Replica, StreamView, TableChange, TableClass, TableDefinition,
};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
}

/// The local client's Region: the replica the engine's table is.
const HERE: &str = "us-east-1";

/// One replica as AWS holds it.
#[derive(Debug, Clone)]
struct Held {
    region: String,
    status: &'static str,
    /// Descriptions left before it settles (ACTIVE, or gone once DELETING).
    countdown: u32,
    class: Option<String>,
    reads: Option<i64>,
    kms: Option<String>,
}

/// AWS's side of the global table.
#[derive(Debug, Default)]
struct Global {
    consistency: Option<String>,
    replicas: Vec<Held>,
    witness: Option<Held>,
    /// A Region whose replica DynamoDB fails to create.
    fails: Option<String>,
}

const SETTLE: u32 = 2;

fn held(region: &str, status: &'static str) -> Held {
    Held { region: region.into(), status, countdown: SETTLE, class: None, reads: None, kms: None }
}

impl Answers for Global {
    fn reply(&mut self, operation: &str, body: &serde_json::Value) -> Reply {
        let replicas = body["ReplicaUpdates"].as_array();
        let witnesses = body["GlobalTableWitnessUpdates"].as_array();
        if operation != "UpdateTable" || (replicas.is_none() && witnesses.is_none()) {
            return Reply::Pass;
        }
        if self.replicas.is_empty() {
            // Once global, DynamoDB lists the table's own Region among the replicas.
            self.replicas.push(Held { status: "ACTIVE", countdown: 0, ..held(HERE, "ACTIVE") });
            self.consistency = Some(body["MultiRegionConsistency"].as_str().unwrap_or("EVENTUAL").to_owned());
        }
        for u in replicas.into_iter().flatten() {
            if let Some(c) = u.get("Create") {
                let region = c["RegionName"].as_str().unwrap();
                let status = if self.fails.as_deref() == Some(region) { "CREATION_FAILED" } else { "CREATING" };
                self.replicas.push(Held {
                    class: c["TableClassOverride"].as_str().map(str::to_owned),
                    reads: c["OnDemandThroughputOverride"]["MaxReadRequestUnits"].as_i64(),
                    kms: c["KMSMasterKeyId"].as_str().map(str::to_owned),
                    ..held(region, status)
                });
            } else if let Some(d) = u.get("Delete") {
                let r = self.replicas.iter_mut().find(|r| r.region == d["RegionName"].as_str().unwrap()).unwrap();
                r.status = "DELETING";
                r.countdown = SETTLE;
            } else if let Some(x) = u.get("Update") {
                let r = self.replicas.iter_mut().find(|r| r.region == x["RegionName"].as_str().unwrap()).unwrap();
                if let Some(c) = x["TableClassOverride"].as_str() {
                    r.class = Some(c.to_owned());
                }
                if let Some(n) = x["OnDemandThroughputOverride"]["MaxReadRequestUnits"].as_i64() {
                    r.reads = Some(n);
                }
                r.status = "UPDATING";
                r.countdown = SETTLE;
            }
        }
        for w in witnesses.into_iter().flatten() {
            if let Some(c) = w.get("Create") {
                self.witness = Some(held(c["RegionName"].as_str().unwrap(), "CREATING"));
            } else if w.get("Delete").is_some() {
                let w = self.witness.as_mut().unwrap();
                w.status = "DELETING";
                w.countdown = SETTLE;
            }
        }
        let table = body["TableName"].as_str().unwrap();
        Reply::Answer(200, format!(r#"{{"TableDescription":{{"TableName":"{table}","TableStatus":"UPDATING"}}}}"#))
    }

    fn describe(&mut self, t: &mut TableDescription) {
        let step = |h: &mut Held| -> bool {
            if h.countdown > 0 {
                h.countdown -= 1;
                return true;
            }
            match h.status {
                "DELETING" => false,
                "CREATION_FAILED" => true,
                _ => {
                    h.status = "ACTIVE";
                    true
                }
            }
        };
        self.replicas.retain_mut(step);
        if let Some(w) = self.witness.as_mut()
            && !step(w)
        {
            self.witness = None;
        }
        if self.replicas.len() <= 1 && self.witness.is_none() {
            // Back to one Region.
            self.replicas.clear();
            self.consistency = None;
            return;
        }
        t.replicas = Some(
            self.replicas
                .iter()
                .map(|r| {
                    ReplicaDescription::builder()
                        .region_name(&r.region)
                        .replica_status(ReplicaStatus::from(r.status))
                        .set_replica_status_description(
                            (r.status == "CREATION_FAILED").then(|| "the KMS key is not accessible".to_owned()),
                        )
                        .set_replica_table_class_summary(
                            r.class
                                .as_deref()
                                .map(|c| TableClassSummary::builder().table_class(SdkClass::from(c)).build()),
                        )
                        .set_on_demand_throughput_override(
                            r.reads.map(|n| OnDemandThroughputOverride::builder().max_read_request_units(n).build()),
                        )
                        .set_kms_master_key_id(r.kms.clone())
                        .build()
                })
                .collect(),
        );
        t.multi_region_consistency = self.consistency.as_deref().map(SdkConsistency::from);
        t.global_table_version = Some("2019.11.21".into());
        t.global_table_witnesses = self.witness.as_ref().map(|w| {
            vec![
                GlobalTableWitnessDescription::builder()
                    .region_name(&w.region)
                    .witness_status(WitnessStatus::from(w.status))
                    .build(),
            ]
        });
    }
}

fn def() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA]).unwrap()
}

fn lines(plan: &dynamo_entity::TablePlan) -> Vec<String> {
    plan.to_string().lines().map(str::to_owned).collect()
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

const FAST: std::time::Duration = std::time::Duration::from_millis(20);

#[tokio::test]
async fn replicas_are_added_one_update_table_at_a_time_and_waited_for() {
    let table = common::table("regions-add", &[Order::SCHEMA]).await;
    let aws = Aws::new(Global::default());
    let t = aws.on(&table);
    assert_eq!(t.region(), Some(HERE));
    let global = GlobalTable::eventual([
        Replica::new(HERE),
        Replica::new("eu-west-1").table_class(TableClass::StandardInfrequentAccess),
        Replica::new("ap-northeast-1").max_reads(300),
    ]);
    let wanted = def().global_table(global).unwrap();
    let plan = t.plan(&wanted).await.unwrap();
    let eu = Replica::new("eu-west-1").table_class(TableClass::StandardInfrequentAccess);
    assert_eq!(
        plan.changes,
        [
            TableChange::Stream { from: None, to: Some(StreamView::NewAndOldImages) },
            TableChange::AddReplicas {
                consistency: MultiRegionConsistency::Eventual,
                replicas: vec![eu.clone()],
                witness: None
            },
            TableChange::AddReplicas {
                consistency: MultiRegionConsistency::Eventual,
                replicas: vec![Replica::new("ap-northeast-1").max_reads(300)],
                witness: None
            },
        ],
        "{plan}"
    );
    let text = plan.to_string();
    for line in [
        "+ replica eu-west-1 (multi-Region eventual consistency; apply waits until it is ACTIVE)",
        "+ replica ap-northeast-1 (multi-Region eventual consistency; apply waits until it is ACTIVE)",
    ] {
        assert!(has_line(&text, line), "no line {line:?} in\n{text}");
    }
    assert!(
        plan.notes.iter().any(|n| n.starts_with("MREC: creates, #[version] checks, #[unique] guards, idempotent")),
        "{text}"
    );
    assert!(plan.notes.iter().any(|n| n.contains("compared for us-east-1 only")), "{text}");

    let progress = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = progress.clone();
    aws.seen();
    t.apply(&wanted).poll_interval(FAST).on_progress(move |p| seen.lock().unwrap().push(p.to_string())).await.unwrap();
    let sent = aws.seen();
    let updates = Aws::<Global>::bodies(&sent, "UpdateTable");
    let replica_updates: Vec<&serde_json::Value> =
        updates.iter().filter(|b| b.get("ReplicaUpdates").is_some()).collect();
    assert_eq!(replica_updates.len(), 2, "one UpdateTable per replica: {updates:?}");
    assert_eq!(
        replica_updates[0]["ReplicaUpdates"],
        serde_json::json!([{"Create": {"RegionName": "eu-west-1", "TableClassOverride": "STANDARD_INFREQUENT_ACCESS"}}])
    );
    assert_eq!(
        replica_updates[1]["ReplicaUpdates"],
        serde_json::json!([{"Create": {"RegionName": "ap-northeast-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 300}}}])
    );
    assert!(replica_updates.iter().all(|b| b.get("MultiRegionConsistency").is_none()), "MREC is the default");
    // The waits: each replica seen CREATING, then settled, before the next change.
    let progress = progress.lock().unwrap().clone();
    let creating = progress.iter().position(|p| p.contains("+ replica eu-west-1") && p.contains("replica CREATING"));
    let settled = progress.iter().position(|p| p.contains("+ replica eu-west-1") && p.contains("settled"));
    let next = progress.iter().position(|p| p.contains("+ replica ap-northeast-1") && p.contains("sent"));
    assert!(creating < settled && settled < next && creating.is_some(), "{progress:#?}");
    assert!(t.plan(&wanted).await.unwrap().is_empty(), "{}", t.plan(&wanted).await.unwrap());

    // A replica the definition lacks: listed, left without the opt-in, removed with it.
    let two = def().global_table(GlobalTable::eventual([Replica::new(HERE), eu.clone()])).unwrap();
    let plan = t.plan(&two).await.unwrap();
    assert_eq!(
        plan.changes,
        [TableChange::RemoveReplicas { regions: vec!["ap-northeast-1".into()], witness: None }],
        "{plan}"
    );
    assert!(
        has_line(
            &plan.to_string(),
            "- replica ap-northeast-1 (not in the definition; deleted, with the items in their Regions, only with \
             remove_replicas)"
        ),
        "{plan}"
    );
    aws.seen();
    let applied = t.apply(&two).poll_interval(FAST).await.unwrap();
    assert!(applied.changes.is_empty(), "{applied}");
    assert!(Aws::<Global>::bodies(&aws.seen(), "UpdateTable").is_empty(), "nothing deleted without the opt-in");
    assert_eq!(t.plan(&two).await.unwrap().changes.len(), 1, "it stays in the plan");
    t.apply(&two).remove_replicas().poll_interval(FAST).await.unwrap();
    let deletes = Aws::<Global>::bodies(&aws.seen(), "UpdateTable");
    assert_eq!(deletes.len(), 1);
    assert_eq!(deletes[0]["ReplicaUpdates"], serde_json::json!([{"Delete": {"RegionName": "ap-northeast-1"}}]));
    assert!(t.plan(&two).await.unwrap().is_empty());

    // A replica's own settings: only what differs is sent.
    let more = def().global_table(GlobalTable::eventual([Replica::new(HERE), eu.clone().max_reads(800)])).unwrap();
    let plan = t.plan(&more).await.unwrap();
    assert!(has_line(&plan.to_string(), "~ replica eu-west-1: maximum reads none -> 800 reads/s"), "{plan}");
    t.apply(&more).poll_interval(FAST).await.unwrap();
    let update = Aws::<Global>::bodies(&aws.seen(), "UpdateTable");
    assert_eq!(
        update[0]["ReplicaUpdates"],
        serde_json::json!([{"Update": {"RegionName": "eu-west-1", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 800}}}])
    );
    assert!(t.plan(&more).await.unwrap().is_empty());

    // Not stated: kept, and said so. Stated one Region: every other replica removed (opt-in).
    let plan = t.plan(&def()).await.unwrap();
    assert!(
        plan.kept.iter().any(|k| k == "replicas us-east-1, eu-west-1 (MREC) (kept: not in the definition)"),
        "{plan}"
    );
    let plan = t.plan(&def().no_global_table()).await.unwrap();
    assert_eq!(plan.changes, [TableChange::RemoveReplicas { regions: vec!["eu-west-1".into()], witness: None }]);
    t.apply(&def().no_global_table()).remove_replicas().poll_interval(FAST).await.unwrap();
    assert!(t.plan(&def().no_global_table()).await.unwrap().is_empty());
    assert!(t.described_global_table().await.unwrap().is_none(), "a table of one Region again");
}

#[tokio::test]
async fn a_table_becomes_strongly_consistent_in_one_update_table_with_its_witness() {
    let table = common::table("regions-mrsc", &[Order::SCHEMA]).await;
    let aws = Aws::new(Global::default());
    let t = aws.on(&table);
    let strong = GlobalTable::strong([HERE, "us-east-2"]).witness("us-west-2");
    let wanted = def().global_table(strong.clone()).unwrap();
    let plan = t.plan(&wanted).await.unwrap();
    let add = TableChange::AddReplicas {
        consistency: MultiRegionConsistency::Strong,
        replicas: vec![Replica::new("us-east-2")],
        witness: Some("us-west-2".into()),
    };
    assert_eq!(plan.changes.last(), Some(&add), "{plan}");
    assert!(
        has_line(
            &plan.to_string(),
            "+ replica us-east-2 and witness us-west-2 with multi-Region strong consistency (one UpdateTable, while \
             the table holds no items; apply waits until they are ACTIVE)"
        ),
        "{plan}"
    );
    assert!(plan.notes.iter().any(|n| n.starts_with("MRSC: strongly consistent reads and conditional writes")));
    aws.seen();
    t.apply(&wanted).poll_interval(FAST).await.unwrap();
    let updates = Aws::<Global>::bodies(&aws.seen(), "UpdateTable");
    let made: Vec<&serde_json::Value> = updates.iter().filter(|b| b.get("ReplicaUpdates").is_some()).collect();
    assert_eq!(made.len(), 1, "{updates:?}");
    assert_eq!(made[0]["ReplicaUpdates"], serde_json::json!([{"Create": {"RegionName": "us-east-2"}}]));
    assert_eq!(made[0]["GlobalTableWitnessUpdates"], serde_json::json!([{"Create": {"RegionName": "us-west-2"}}]));
    assert_eq!(made[0]["MultiRegionConsistency"], "STRONG");
    assert!(t.plan(&wanted).await.unwrap().is_empty());
    assert_eq!(t.described_global_table().await.unwrap(), Some(strong));

    // What DynamoDB cannot change in place: refused whole, nothing sent.
    for (other, what) in [
        (
            GlobalTable::eventual([HERE, "us-east-2"]),
            "! multi-Region consistency STRONG -> EVENTUAL: not possible in place",
        ),
        (
            GlobalTable::strong([HERE, "us-east-2", "us-west-2"]),
            "! MRSC replicas us-east-1, us-east-2, witness us-west-2 (MRSC) -> us-east-1, us-east-2, us-west-2 (MRSC): \
             not possible in place",
        ),
    ] {
        let other = def().global_table(other).unwrap();
        let plan = t.plan(&other).await.unwrap();
        assert!(plan.to_string().lines().any(|l| l.starts_with(what)), "{plan}");
        aws.seen();
        let Err(Error::TableMismatch { differences, .. }) = t.apply(&other).await else { panic!("not refused") };
        assert!(differences.starts_with("apply refused, nothing changed"), "{differences}");
        assert!(Aws::<Global>::bodies(&aws.seen(), "UpdateTable").is_empty());
    }
    // Back to one Region: the other replica and the witness together.
    let plan = t.plan(&def().no_global_table()).await.unwrap();
    assert_eq!(
        plan.changes,
        [TableChange::RemoveReplicas { regions: vec!["us-east-2".into()], witness: Some("us-west-2".into()) }]
    );
    t.apply(&def().no_global_table()).remove_replicas().poll_interval(FAST).await.unwrap();
    let removed = Aws::<Global>::bodies(&aws.seen(), "UpdateTable");
    assert_eq!(removed[0]["ReplicaUpdates"], serde_json::json!([{"Delete": {"RegionName": "us-east-2"}}]));
    assert_eq!(removed[0]["GlobalTableWitnessUpdates"], serde_json::json!([{"Delete": {"RegionName": "us-west-2"}}]));
    assert!(t.described_global_table().await.unwrap().is_none());
}

#[tokio::test]
async fn a_handle_outside_the_replicas_and_a_failed_replica_are_said() {
    let table = common::table("regions-refused", &[Order::SCHEMA]).await;
    let aws = Aws::new(Global { fails: Some("eu-west-1".into()), ..Global::default() });
    let t = aws.on(&table);
    // This handle's Region is not a replica: refused after the plan's Describe*, nothing changed.
    let elsewhere = def().global_table(GlobalTable::eventual(["eu-west-1", "ap-northeast-1"])).unwrap();
    let Err(Error::Validation(m)) = t.plan(&elsewhere).await else { panic!("not refused") };
    assert!(
        m.contains("this handle's Region (us-east-1) is not one of the replicas (eu-west-1, ap-northeast-1)"),
        "{m}"
    );
    aws.seen();
    assert!(matches!(t.apply(&elsewhere).await, Err(Error::Validation(_))));
    assert!(aws.seen().iter().all(|(op, _)| op.starts_with("Describe")), "nothing but the plan's Describe*");
    let Err(Error::Validation(m)) = t.create_table_from(&elsewhere).await else { panic!("not refused") };
    assert!(m.contains("not one of the replicas"), "{m}");
    // Through a handle in one of the Regions, the plan goes on (the engine serves every Region).
    let eu = t.in_region("eu-west-1").unwrap();
    assert_eq!(eu.region(), Some("eu-west-1"));
    assert!(eu.plan(&elsewhere).await.is_ok());
    assert!(matches!(t.in_region("Mars"), Err(Error::Validation(_))));

    // A replica DynamoDB cannot create: the apply stops with its reason, the next change unsent.
    let wanted = def().global_table(GlobalTable::eventual([HERE, "eu-west-1", "ap-northeast-1"])).unwrap();
    let Err(Error::Apply(e)) = t.apply(&wanted).poll_interval(FAST).await else { panic!("not stopped") };
    assert!(e.source.to_string().contains("replica eu-west-1 of table"), "{}", e.source);
    assert!(e.source.to_string().contains("CREATION_FAILED (the KMS key is not accessible)"), "{}", e.source);
    assert!(
        matches!(&e.not_applied().changes[0], TableChange::AddReplicas { replicas, .. } if replicas[0].region == "eu-west-1")
    );
    assert_eq!(e.not_applied().changes.len(), 2, "{}", e.not_applied());
    let creates: usize =
        Aws::<Global>::bodies(&aws.seen(), "UpdateTable").iter().filter(|b| b.get("ReplicaUpdates").is_some()).count();
    assert_eq!(creates, 1, "ap-northeast-1 was not sent");
    // And the plan says what is not ready.
    let plan = t.plan(&wanted).await.unwrap();
    assert!(lines(&plan).iter().any(|l| l.starts_with("* replica eu-west-1 CREATION_FAILED")), "{plan}");
}

#[tokio::test]
async fn a_new_global_table_is_created_then_replicated() {
    let client = dynamo_entity::local::client().await.unwrap();
    let aws = Aws::new(Global::default());
    let name = format!("regions-new-{}", std::process::id());
    let t = aws.on(&dynamo_entity::Table::new(client, name));
    let wanted = def()
        .table_class(TableClass::StandardInfrequentAccess)
        .tag("Env", "prod")
        .unwrap()
        .global_table(GlobalTable::eventual([HERE, "eu-west-1"]))
        .unwrap();
    let plan = t.plan(&wanted).await.unwrap();
    assert_eq!(plan.changes[0], TableChange::CreateTable);
    assert!(matches!(&plan.changes[1], TableChange::AddReplicas { replicas, .. } if replicas[0].region == "eu-west-1"));
    assert_eq!(plan.changes.len(), 2, "{plan}");
    t.apply(&wanted).poll_interval(FAST).await.unwrap();
    let sent = aws.seen();
    let create = &Aws::<Global>::bodies(&sent, "CreateTable")[0];
    assert_eq!(create["TableClass"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(create["Tags"], serde_json::json!([{"Key": "Env", "Value": "prod"}]));
    assert_eq!(create["StreamSpecification"]["StreamViewType"], "NEW_AND_OLD_IMAGES");
    // The engine keeps the class and the tags: nothing left to do.
    let plan = t.plan(&wanted).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    // A tag of another value, and a tag other tools added: set, and kept.
    t.client()
        .tag_resource()
        .resource_arn(
            t.client().describe_table().table_name(t.name()).send().await.unwrap().table.unwrap().table_arn.unwrap(),
        )
        .tags(aws_sdk_dynamodb::types::Tag::builder().key("CostCenter").value("42").build().unwrap())
        .send()
        .await
        .unwrap();
    let moved = wanted.clone().tag("Env", "staging").unwrap();
    let plan = t.plan(&moved).await.unwrap();
    assert!(has_line(&plan.to_string(), "~ tags: Env=staging (was prod)"), "{plan}");
    assert!(plan.kept.iter().any(|k| k == "tags CostCenter=42 (kept: not in the definition)"), "{plan}");
    t.apply(&moved).await.unwrap();
    assert!(t.plan(&moved).await.unwrap().is_empty());
    // The class back to Standard.
    let standard = moved.table_class(TableClass::Standard);
    let plan = t.plan(&standard).await.unwrap();
    assert_eq!(
        plan.changes,
        [TableChange::TableClass { from: TableClass::StandardInfrequentAccess, to: TableClass::Standard }]
    );
    t.apply(&standard).poll_interval(FAST).await.unwrap();
    assert!(t.plan(&standard).await.unwrap().is_empty());
}
