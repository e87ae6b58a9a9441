//! `table.plan(&definition)` and `table.apply(&definition)` against DynamoDB Local: adding an
//! index to a table of older items (then `backfill`, or none for an index keyed on attributes
//! the items hold), a stream and a TTL change, what a definition does not state kept, a
//! refused impossible change, a changed index rebuilt only on request, unknown indexes,
//! retried UpdateTables, and what Local does with encryption at rest. Faults Local never
//! produces (LimitExceededException, throttling) are injected with an SDK interceptor.

mod common;

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::{IndexStatus, TimeToLiveStatus};
use dynamo_entity::{Entity, Error, Sse, StreamView, Table, TableChange, TableDefinition};

/// The orders as the previous release wrote them: no index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[entity(type_name = "Order")]
pub struct OrderV0 {
    pub customer: String,
    pub id: String,
    pub status: String,
}

/// The orders of this release: an index by status.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
}

/// Sessions that expire (TTL), on the same keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "SESSION#<id>"]
pub struct Session {
    pub customer: String,
    pub id: String,
    #[ttl]
    pub expires_at: std::time::SystemTime,
}

/// A design on other key attributes: not reachable from the orders' table in place.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[entity(pk_attr = "pk", sk_attr = "sk")]
pub struct Rekeyed {
    pub customer: String,
    pub id: String,
}

const TARGET: &str = "x-amz-target";
const FAULT: &str = "injected-fault";

/// Records the operation of every attempt the SDK sends (its `x-amz-target`) and the bodies of
/// CreateTable requests; answers the UpdateTable attempts numbered in `faults` (0-based) with
/// the given error instead of sending them (a harmless ListTables goes to Local instead).
#[derive(Debug, Clone, Default)]
struct Tap {
    sent: Arc<Mutex<Vec<String>>>,
    create_bodies: Arc<Mutex<Vec<String>>>,
    update_tables: Arc<Mutex<u32>>,
    faults: Arc<Vec<(u32, &'static str)>>,
}

impl Tap {
    fn failing(faults: Vec<(u32, &'static str)>) -> Tap {
        Tap { faults: Arc::new(faults), ..Tap::default() }
    }

    /// `table` seen through this tap.
    fn on(&self, table: &Table) -> Table {
        let config = table.client().config().to_builder().interceptor(self.clone());
        Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
    }

    fn sent(&self) -> Vec<String> {
        self.sent.lock().unwrap().clone()
    }
}

impl Intercept for Tap {
    fn name(&self) -> &'static str {
        "Tap"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let op = request.headers().get(TARGET).unwrap_or_default().trim_start_matches("DynamoDB_20120810.").to_owned();
        self.sent.lock().unwrap().push(op.clone());
        if op == "CreateTable" {
            let body = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            self.create_bodies.lock().unwrap().push(body);
        }
        if op != "UpdateTable" {
            return Ok(());
        }
        let n = {
            let mut n = self.update_tables.lock().unwrap();
            *n += 1;
            *n - 1
        };
        if let Some((_, code)) = self.faults.iter().find(|(k, _)| *k == n) {
            common::divert(request);
            cfg.interceptor_state().store_put(aws_sdk_dynamodb::config::AppName::new(format!("{FAULT}-{code}"))?);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let code = cfg
            .load::<aws_sdk_dynamodb::config::AppName>()
            .and_then(|n| n.as_ref().strip_prefix(FAULT).map(|c| c.trim_start_matches('-').to_owned()));
        if let Some(code) = code {
            let body = format!(
                r#"{{"__type":"com.amazonaws.dynamodb.v20120810#{code}","message":"injected by the test: {code}"}}"#
            );
            common::answer(ctx, 400, body)?;
        }
        Ok(())
    }
}

/// A second index on the orders' table (GSI2).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "SHIPMENT#<id>"]
#[gsi2(pk = "CARRIER#<carrier>", sk = "SHIPMENT#<id>", query = "by_carrier")]
pub struct Shipment {
    pub customer: String,
    pub id: String,
    pub carrier: String,
}

fn def(entities: &[dynamo_entity::EntitySchema]) -> TableDefinition {
    TableDefinition::from_entities(entities).unwrap()
}

async fn describe(table: &Table) -> aws_sdk_dynamodb::types::TableDescription {
    let out = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    out.table.unwrap()
}

fn v0(i: usize) -> OrderV0 {
    OrderV0 { customer: format!("c{}", i % 7), id: format!("o{i:03}"), status: ["NEW", "PAID"][i % 2].into() }
}

#[tokio::test]
async fn plan_lists_every_change_and_sends_only_describe_requests() {
    let table = common::table("plan-describe", &[OrderV0::SCHEMA]).await;
    let tap = Tap::default();
    let tapped = tap.on(&table);
    let wanted = def(&[Order::SCHEMA, Session::SCHEMA])
        .stream(StreamView::NewAndOldImages)
        .deletion_protection(true)
        .point_in_time_recovery(true)
        .billing(dynamo_entity::Billing::Provisioned(dynamo_entity::Throughput { read: 5, write: 5 }));
    let plan = tapped.plan(&wanted).await.unwrap();
    let sent = tap.sent();
    assert_eq!(sent, ["DescribeTable", "DescribeTimeToLive", "DescribeContinuousBackups"], "{sent:?}");
    assert_eq!(tapped.requests_sent(), 3, "every request through the send path");
    let text = plan.to_string();
    for line in [
        "~ billing: on demand -> provisioned (5 RCU, 5 WCU)",
        "~ deletion protection: off -> on",
        "~ stream: off -> NEW_AND_OLD_IMAGES",
        "+ global index GSI1 (GSI1PK, GSI1SK), projection ALL (then backfill its keys)",
        "~ ttl: off -> expires_at",
        "# point-in-time recovery not compared: this endpoint has no backups",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    assert_eq!(plan.changes.len(), 5, "{text}");
    assert!(!plan.is_empty());
    // Nothing changed.
    let d = describe(&table).await;
    assert!(d.global_secondary_indexes().is_empty() && d.stream_specification().is_none());
    // The table as it is plans nothing.
    assert!(table.plan(&def(&[OrderV0::SCHEMA])).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_index_added_to_a_table_of_older_items_is_applied_then_backfilled() {
    let table = common::table("plan-add-index", &[OrderV0::SCHEMA]).await;
    let old: Vec<OrderV0> = (0..40).map(v0).collect();
    table.batch_put(&old).await.unwrap();
    let wanted = def(&[Order::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    assert!(matches!(plan.changes.as_slice(), [TableChange::AddIndex(i)] if i.name == "GSI1"), "{plan}");

    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let tap = Tap::default();
    let tapped = tap.on(&table);
    let applied = tapped
        .apply(&wanted)
        .poll_interval(std::time::Duration::from_millis(50))
        .on_progress(move |p| seen.lock().unwrap().push(p.clone()))
        .await
        .unwrap();
    assert_eq!(applied.changes, plan.changes);
    assert_eq!(tap.sent().iter().filter(|op| *op == "UpdateTable").count(), 1, "one index, one UpdateTable");
    let events = events.lock().unwrap().clone();
    let settled = events.iter().find(|p| p.event == "settled").expect("a settled event");
    assert_eq!((settled.index_status.as_deref(), settled.table_status.as_deref()), (Some("ACTIVE"), Some("ACTIVE")));
    assert!(events.iter().all(|p| (p.step, p.steps) == (1, 1)));
    let d = describe(&table).await;
    assert_eq!(d.global_secondary_indexes()[0].index_status(), Some(&IndexStatus::Active));

    // The index holds only what is written (or backfilled) since.
    assert!(table.query_all(Order::query_by_status("PAID")).await.unwrap().is_empty());
    let report = table.backfill::<Order>().run().await.unwrap();
    assert_eq!(report.written, 40);
    let paid = table.query_all(Order::query_by_status("PAID")).await.unwrap();
    let new = table.query_all(Order::query_by_status("NEW")).await.unwrap();
    assert_eq!(paid.len() + new.len(), 40, "every item through the index");

    // Done: nothing left to plan, and a second apply changes nothing.
    assert!(table.plan(&wanted).await.unwrap().is_empty());
    let before = tap.sent().len();
    let again = tapped.apply(&wanted).await.unwrap();
    assert!(again.is_empty(), "{again}");
    assert!(tap.sent()[before..].iter().all(|op| op.starts_with("Describe")), "{:?}", &tap.sent()[before..]);
}

#[tokio::test]
async fn a_stream_and_a_ttl_change_are_planned_and_applied() {
    let table = common::table("plan-stream-ttl", &[OrderV0::SCHEMA]).await;
    let wanted = def(&[OrderV0::SCHEMA, Session::SCHEMA]).stream(StreamView::NewImage).deletion_protection(true);
    let plan = table.plan(&wanted).await.unwrap();
    assert_eq!(
        plan.changes,
        [
            TableChange::DeletionProtection { to: true },
            TableChange::Stream { from: None, to: Some(StreamView::NewImage) },
            TableChange::Ttl { from: None, to: Some("expires_at".into()) },
        ],
        "{plan}"
    );
    table.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    let d = describe(&table).await;
    assert_eq!(d.stream_specification().and_then(|s| s.stream_view_type()).map(|v| v.as_str()), Some("NEW_IMAGE"));
    assert_eq!(d.deletion_protection_enabled(), Some(true));
    let ttl = table.client().describe_time_to_live().table_name(table.name()).send().await.unwrap();
    let ttl = ttl.time_to_live_description().unwrap();
    assert_eq!(
        (ttl.time_to_live_status(), ttl.attribute_name()),
        (Some(&TimeToLiveStatus::Enabled), Some("expires_at"))
    );
    assert!(table.plan(&wanted).await.unwrap().is_empty());

    // Another view type: off, then on again; TTL and protection off, as stated.
    let wanted = def(&[OrderV0::SCHEMA]).stream(StreamView::KeysOnly).deletion_protection(false).no_ttl();
    let plan = table.plan(&wanted).await.unwrap();
    assert!(
        plan.to_string().contains("~ stream: NEW_IMAGE -> KEYS_ONLY (turned off, then on: a new stream ARN)"),
        "{plan}"
    );
    table.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    let d = describe(&table).await;
    assert_eq!(d.stream_specification().and_then(|s| s.stream_view_type()).map(|v| v.as_str()), Some("KEYS_ONLY"));
    assert_eq!(d.deletion_protection_enabled(), Some(false));
    assert!(table.plan(&wanted).await.unwrap().is_empty(), "{}", table.plan(&wanted).await.unwrap());
}

#[tokio::test]
async fn an_impossible_change_is_refused_whole_and_nothing_changes() {
    let table = common::table("plan-impossible", &[OrderV0::SCHEMA]).await;
    let before = describe(&table).await;
    // New keys for the table, and (possible on their own) an index and a stream.
    let wanted = def(&[Rekeyed::SCHEMA]).stream(StreamView::NewImage);
    let plan = table.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    assert!(
        text.lines().any(|l| l
            == "! table keys (PK, SK) -> (pk, sk): not possible in place; create a new table from \
                                    the definition and move the items with `migrate`"),
        "{text}"
    );
    assert_eq!(plan.impossible().count(), 1, "{text}");
    let tap = Tap::default();
    let err = tap.on(&table).apply(&wanted).await.unwrap_err();
    assert!(matches!(&err, Error::TableMismatch { differences, .. } if differences.contains("table keys")), "{err}");
    assert!(tap.sent().iter().all(|op| op.starts_with("Describe")), "{:?}", tap.sent());
    let after = describe(&table).await;
    assert_eq!(after.stream_specification(), before.stream_specification());
    assert_eq!(after.key_schema(), before.key_schema());

    // A local index cannot be added to a table either.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "CUSTOMER#<customer>"]
    #[sk = "ORDER#<id>"]
    #[lsi1(sk = "STATUS#<status>")]
    #[entity(type_name = "Order")]
    pub struct WithLocal {
        pub customer: String,
        pub id: String,
        pub status: String,
    }
    let plan = table.plan(&def(&[WithLocal::SCHEMA])).await.unwrap();
    assert!(plan.to_string().contains("! local index LSI1 is missing"), "{plan}");
    assert!(matches!(table.apply(&def(&[WithLocal::SCHEMA])).await, Err(Error::TableMismatch { .. })));
    assert!(describe(&table).await.local_secondary_indexes().is_empty());
}

#[tokio::test]
async fn an_unknown_index_stays_unless_asked_to_remove_it() {
    let table = common::table("plan-unknown", &[Order::SCHEMA]).await;
    let wanted = def(&[OrderV0::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    assert_eq!(plan.changes, [TableChange::UnknownIndex { name: "GSI1".into() }]);
    assert!(plan.to_string().starts_with("- global index GSI1 (not in the definition"), "{plan}");
    let applied = table.apply(&wanted).await.unwrap();
    assert!(applied.is_empty(), "{applied}");
    assert_eq!(describe(&table).await.global_secondary_indexes().len(), 1, "left in place");
    assert_eq!(table.plan(&wanted).await.unwrap().changes, plan.changes, "and still listed");

    let applied = table
        .apply(&wanted)
        .remove_unknown_indexes()
        .poll_interval(std::time::Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(applied.changes, plan.changes);
    assert!(describe(&table).await.global_secondary_indexes().is_empty(), "removed");
    assert!(table.plan(&wanted).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_limit_exceeded_or_throttled_update_table_is_sent_again() {
    let table = common::table("plan-retry", &[OrderV0::SCHEMA]).await;
    // The SDK retries LimitExceededException itself (3 attempts by default); past that, and
    // for ResourceInUseException (which it does not retry), apply sends it again.
    let tap = Tap::failing(vec![
        (0, "LimitExceededException"),
        (1, "LimitExceededException"),
        (2, "LimitExceededException"),
        (3, "ResourceInUseException"),
    ]);
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    tap.on(&table)
        .apply(&def(&[Order::SCHEMA]))
        .poll_interval(std::time::Duration::from_millis(50))
        .on_progress(move |p| seen.lock().unwrap().push(p.event.clone()))
        .await
        .unwrap();
    assert_eq!(*tap.update_tables.lock().unwrap(), 5, "four refused, the fifth applied");
    let events = events.lock().unwrap().clone();
    for code in ["LimitExceededException", "ResourceInUseException"] {
        let retried = format!("UpdateTable answered {code}: sent again");
        assert_eq!(events.iter().filter(|e| e.contains(&retried)).count(), 1, "{events:?}");
    }
    assert_eq!(describe(&table).await.global_secondary_indexes().len(), 1);
    assert!(table.plan(&def(&[Order::SCHEMA])).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_failure_half_way_returns_what_was_applied_and_what_was_not() {
    let table = common::table("plan-half-way", &[OrderV0::SCHEMA]).await;
    // The stream's UpdateTable passes, the index's is refused (not a retryable code).
    let tap = Tap::failing(vec![(1, "ValidationException")]);
    let wanted = def(&[Order::SCHEMA]).stream(StreamView::NewImage);
    let err = tap.on(&table).apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap_err();
    let Error::Apply(e) = &err else { panic!("{err}") };
    assert_eq!(e.applied().changes, [TableChange::Stream { from: None, to: Some(StreamView::NewImage) }]);
    assert!(matches!(e.not_applied().changes.as_slice(), [TableChange::AddIndex(i)] if i.name == "GSI1"));
    assert!(matches!(&e.source, Error::Sdk(_)), "{}", e.source);
    assert!(err.to_string().contains("applied 1 of 2 changes, not applied from `+ global index GSI1"), "{err}");
    // What the error says is what the table holds; the plan lists the rest.
    let d = describe(&table).await;
    assert!(d.stream_specification().is_some() && d.global_secondary_indexes().is_empty());
    assert_eq!(table.plan(&wanted).await.unwrap().changes, e.not_applied().changes);
}

#[tokio::test]
async fn encryption_at_rest_is_written_kept_and_compared() {
    let client = dynamo_entity::local::client().await.unwrap();
    let tap = Tap::default();
    let name = format!("plan-sse-{}", std::process::id());
    let table = tap.on(&Table::new(client, name));
    let key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    let wanted = def(&[Order::SCHEMA]).sse(Sse::CustomerManaged(key.into()));
    // A missing table is planned as created, and apply creates it.
    assert_eq!(table.plan(&wanted).await.unwrap().changes, [TableChange::CreateTable]);
    table.apply(&wanted).await.unwrap();
    let body = tap.create_bodies.lock().unwrap().join("\n");
    assert!(
        body.contains(&format!(r#""SSESpecification":{{"Enabled":true,"SSEType":"KMS","KMSMasterKeyId":"{key}"}}"#)),
        "{body}"
    );
    // The engine keeps and reports it, as DynamoDB does: the plan compares it.
    let sse = describe(&table).await.sse_description().cloned().expect("encryption at rest reported");
    assert_eq!(sse.kms_master_key_arn(), Some(key));
    let plan = table.plan(&wanted).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    assert!(plan.notes.is_empty(), "{plan}");
    // Another key is a change.
    let other = def(&[Order::SCHEMA]).sse(Sse::CustomerManaged(key.replace("1234abcd", "99999999")));
    assert!(matches!(table.plan(&other).await.unwrap().changes.as_slice(), [TableChange::Sse { .. }]));
}

#[tokio::test]
async fn an_index_whose_keys_changed_is_deleted_and_created_again() {
    /// The index by status without its sort key.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "CUSTOMER#<customer>"]
    #[sk = "ORDER#<id>"]
    #[gsi1(pk = "STATUS#<status>", query = "by_status")]
    #[entity(type_name = "Order")]
    pub struct OrderByStatus {
        pub customer: String,
        pub id: String,
        pub status: String,
    }
    let table = common::table("plan-replace", &[Order::SCHEMA]).await;
    let wanted = def(&[OrderByStatus::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    assert!(matches!(plan.changes.as_slice(), [TableChange::ReplaceIndex { index, .. }] if index.name == "GSI1"));
    assert!(
        plan.to_string().contains("-/+ global index GSI1 (GSI1PK), projection ALL: keys (GSI1PK, GSI1SK) -> (GSI1PK)")
    );
    assert!(plan.to_string().contains("only with rebuild_changed_indexes"), "{plan}");
    let tap = Tap::default();
    tap.on(&table)
        .apply(&wanted)
        .rebuild_changed_indexes()
        .poll_interval(std::time::Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(tap.sent().iter().filter(|op| *op == "UpdateTable").count(), 2, "delete, then create");
    let d = describe(&table).await;
    let keys: Vec<&str> = d.global_secondary_indexes()[0].key_schema().iter().map(|k| k.attribute_name()).collect();
    assert_eq!(keys, ["GSI1PK"]);
    assert!(table.plan(&wanted).await.unwrap().is_empty());
}

#[tokio::test]
async fn billing_and_index_capacity_are_planned_and_applied() {
    use dynamo_entity::{Billing, Throughput};
    // The engine does not keep an index's provisioned capacity; AWS does and DescribeTable
    // reports it: `KeptCapacity` adds it to the engine's answers.
    let table = common::capacity::KeptCapacity::default().on(&common::table("plan-billing", &[Order::SCHEMA]).await);
    let provisioned = def(&[Order::SCHEMA])
        .billing(Billing::Provisioned(Throughput { read: 4, write: 3 }))
        .index_throughput("GSI1", Throughput { read: 2, write: 1 })
        .unwrap();
    let plan = table.plan(&provisioned).await.unwrap();
    assert_eq!(
        plan.changes,
        [TableChange::Billing { from: Billing::OnDemand, to: Billing::Provisioned(Throughput { read: 4, write: 3 }) }]
    );
    table.apply(&provisioned).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    let d = describe(&table).await;
    let gsi = d.global_secondary_indexes()[0].provisioned_throughput().unwrap();
    assert_eq!((gsi.read_capacity_units(), gsi.write_capacity_units()), (Some(2), Some(1)));
    assert!(table.plan(&provisioned).await.unwrap().is_empty());

    let more = provisioned.clone().index_throughput("GSI1", Throughput { read: 6, write: 1 }).unwrap();
    let plan = table.plan(&more).await.unwrap();
    assert_eq!(plan.to_string().lines().next(), Some("~ global index GSI1 capacity: 2 RCU, 1 WCU -> 6 RCU, 1 WCU"));
    table.apply(&more).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    assert!(table.plan(&more).await.unwrap().is_empty());

    // A definition that does not state billing keeps the live table's mode and capacity: adding
    // an index to a provisioned table creates it with the table's capacity, not on demand.
    let unstated = def(&[Order::SCHEMA, Shipment::SCHEMA]);
    let plan = table.plan(&unstated).await.unwrap();
    assert!(plan.changes.iter().all(|c| !matches!(c, TableChange::Billing { .. })), "{plan}");
    assert!(
        plan.kept.contains(&"billing provisioned (4 RCU, 3 WCU) (kept: not in the definition)".to_owned()),
        "{plan}"
    );
    table.apply(&unstated).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    let d = describe(&table).await;
    let mode = d.billing_mode_summary().and_then(|b| b.billing_mode());
    assert_ne!(mode, Some(&aws_sdk_dynamodb::types::BillingMode::PayPerRequest), "still provisioned");
    let t = d.provisioned_throughput().unwrap();
    assert_eq!((t.read_capacity_units(), t.write_capacity_units()), (Some(4), Some(3)));
    for g in d.global_secondary_indexes() {
        let p = g.provisioned_throughput().unwrap();
        assert!(p.read_capacity_units().unwrap_or(0) > 0, "{:?} was created with capacity", g.index_name());
    }
    assert!(table.plan(&unstated).await.unwrap().is_empty());

    let on_demand = def(&[Order::SCHEMA]).billing(Billing::OnDemand);
    table.apply(&on_demand).remove_unknown_indexes().poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    assert!(table.plan(&on_demand).await.unwrap().is_empty());
}

/// A table with a stream, deletion protection and TTL on (point-in-time recovery too where the
/// endpoint has backups), holding the orders of the previous release.
async fn protected_table(test: &str) -> Table {
    let table = common::table(test, &[OrderV0::SCHEMA, Session::SCHEMA]).await;
    let on = def(&[OrderV0::SCHEMA, Session::SCHEMA]).stream(StreamView::NewAndOldImages).deletion_protection(true);
    table.apply(&on).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    table.batch_put(&(0..10).map(v0).collect::<Vec<_>>()).await.unwrap();
    let d = describe(&table).await;
    assert_eq!(d.deletion_protection_enabled(), Some(true));
    assert!(d.stream_specification().is_some_and(|s| s.stream_enabled()));
    table
}

/// DescribeContinuousBackups' point-in-time recovery status; `None` where the endpoint has no
/// backups (DynamoDB Local answers UnknownOperationException).
async fn pitr(table: &Table) -> Option<bool> {
    use aws_sdk_dynamodb::error::ProvideErrorMetadata;
    match table.client().describe_continuous_backups().table_name(table.name()).send().await {
        Ok(out) => Some(
            out.continuous_backups_description()
                .and_then(|d| d.point_in_time_recovery_description())
                .and_then(|p| p.point_in_time_recovery_status())
                == Some(&aws_sdk_dynamodb::types::PointInTimeRecoveryStatus::Enabled),
        ),
        Err(e) => {
            assert_eq!(e.code(), Some("UnknownOperationException"), "{e:?}");
            None
        }
    }
}

async fn ttl_attr(table: &Table) -> Option<String> {
    let ttl = table.client().describe_time_to_live().table_name(table.name()).send().await.unwrap();
    let d = ttl.time_to_live_description()?;
    (d.time_to_live_status() == Some(&TimeToLiveStatus::Enabled)).then(|| d.attribute_name().unwrap().to_owned())
}

#[tokio::test]
async fn apply_from_the_entities_adding_an_index_keeps_what_the_definition_does_not_state() {
    let table = protected_table("plan-keep").await;
    let before = describe(&table).await;
    let backups = pitr(&table).await;
    // The new code's definition: an index more, no stream, protection, TTL or backups stated.
    let wanted = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    let plan = table.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    assert!(matches!(plan.changes.as_slice(), [TableChange::AddIndex(i)] if i.name == "GSI1"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with('~')), "nothing turned off or changed:\n{text}");
    for line in [
        "+ global index GSI1 (GSI1PK, GSI1SK), projection ALL (then backfill its keys)",
        "= stream NEW_AND_OLD_IMAGES (kept: not in the definition)",
        "= deletion protection on (kept: not in the definition)",
        "= ttl expires_at (kept: not in the definition)",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    if let Some(on) = backups {
        let line = format!("= point-in-time recovery {} (kept: not in the definition)", if on { "on" } else { "off" });
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }

    let tap = Tap::default();
    let applied = tap.on(&table).apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    assert_eq!(applied.changes, plan.changes);
    assert_eq!(tap.sent().iter().filter(|op| *op == "UpdateTable").count(), 1, "the index only: {:?}", tap.sent());
    assert!(!tap.sent().iter().any(|op| op == "UpdateTimeToLive" || op == "UpdateContinuousBackups"));
    let after = describe(&table).await;
    assert_eq!(after.stream_specification(), before.stream_specification());
    assert_eq!(after.latest_stream_arn(), before.latest_stream_arn(), "the same stream: its readers go on");
    assert_eq!(after.deletion_protection_enabled(), Some(true));
    assert_eq!(ttl_attr(&table).await.as_deref(), Some("expires_at"));
    assert_eq!(pitr(&table).await, backups);
    assert_eq!(after.global_secondary_indexes().len(), 1);
    // Protected still: DynamoDB refuses to delete it.
    assert!(table.client().delete_table().table_name(table.name()).send().await.is_err());
    assert!(table.plan(&wanted).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_explicit_off_turns_the_stream_protection_and_ttl_off() {
    let table = protected_table("plan-off").await;
    let wanted = def(&[OrderV0::SCHEMA])
        .no_stream()
        .deletion_protection(false)
        .no_ttl()
        .billing(dynamo_entity::Billing::OnDemand)
        .sse(Sse::AwsOwned);
    let plan = table.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    assert_eq!(
        plan.changes,
        [
            TableChange::DeletionProtection { to: false },
            TableChange::Stream { from: Some(StreamView::NewAndOldImages), to: None },
            TableChange::Ttl { from: Some("expires_at".into()), to: None },
        ],
        "{text}"
    );
    for line in ["~ stream: NEW_AND_OLD_IMAGES -> off", "~ deletion protection: on -> off", "~ ttl: expires_at -> off"]
    {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    assert!(!text.lines().any(|l| l.starts_with('=')), "everything is stated:\n{text}");
    table.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    let d = describe(&table).await;
    assert!(!d.stream_specification().is_some_and(|s| s.stream_enabled()), "{:?}", d.stream_specification());
    assert_eq!(d.deletion_protection_enabled(), Some(false));
    assert_eq!(ttl_attr(&table).await, None);
    assert!(table.plan(&wanted).await.unwrap().is_empty());
    // Unprotected now: the table can be deleted.
    table.client().delete_table().table_name(table.name()).send().await.unwrap();
}

/// The index by status without its sort key: GSI1 keyed otherwise than [`Order`]'s.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", query = "by_status")]
#[entity(type_name = "Order")]
pub struct OrderByStatusOnly {
    pub customer: String,
    pub id: String,
    pub status: String,
}

#[tokio::test]
async fn a_changed_index_is_not_rebuilt_without_the_opt_in_and_nothing_is_sent() {
    let table = common::table("plan-no-rebuild", &[Order::SCHEMA]).await;
    let orders: Vec<Order> =
        (0..6).map(|i| Order { customer: format!("c{i}"), id: format!("o{i}"), status: "PAID".into() }).collect();
    table.batch_put(&orders).await.unwrap();
    let before = describe(&table).await;
    let wanted = def(&[OrderByStatusOnly::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    assert!(matches!(plan.changes.as_slice(), [TableChange::ReplaceIndex { index, .. }] if index.name == "GSI1"));

    let tap = Tap::default();
    let err = tap.on(&table).apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap_err();
    let Error::TableMismatch { differences, .. } = &err else { panic!("{err}") };
    assert!(differences.contains("index GSI1") && differences.contains(".rebuild_changed_indexes()"), "{err}");
    assert!(tap.sent().iter().all(|op| op.starts_with("Describe")), "only the plan's requests: {:?}", tap.sent());
    // The table as it was, and the old index answers its queries.
    let after = describe(&table).await;
    assert_eq!(after.global_secondary_indexes(), before.global_secondary_indexes());
    assert_eq!(after.attribute_definitions(), before.attribute_definitions());
    assert_eq!(table.query_all(Order::query_by_status("PAID")).await.unwrap().len(), 6);
    assert_eq!(table.plan(&wanted).await.unwrap().changes, plan.changes, "still planned");
}

/// The orders with two indexes keyed on attributes the items hold: a multi-attribute one and
/// one on the `status` field's own attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(index = "ByCustomerStatus", pk = ["customer", "status"], sk = ["id"], query = "by_customer_status")]
#[gsi2(index = "ByStatus", pk = "<status>", pk_attr = "status", query = "by_plain_status")]
#[entity(type_name = "Order")]
pub struct OrderOnOwnAttributes {
    pub customer: String,
    pub id: String,
    pub status: String,
}

#[tokio::test]
async fn the_plan_says_which_new_index_needs_a_backfill() {
    let table = common::table("plan-no-backfill", &[OrderV0::SCHEMA]).await;
    table.batch_put(&(0..14).map(v0).collect::<Vec<_>>()).await.unwrap();
    let wanted = def(&[OrderOnOwnAttributes::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    for line in [
        "+ global index ByCustomerStatus (customer + status, id), projection ALL (no backfill: a multi-attribute \
         index is keyed on attributes the items hold, DynamoDB indexes the items already written)",
        "+ global index ByStatus (status), projection ALL (no backfill: keyed on attributes the items hold, \
         DynamoDB indexes the items already written)",
    ] {
        assert!(text.lines().any(|l| l == line), "no line {line:?} in\n{text}");
    }
    assert!(!text.contains("then backfill"), "{text}");
    table.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    // True as the plan says: the items written before either index are in it, no backfill run.
    let paid = table.query_all(OrderOnOwnAttributes::query_by_plain_status("PAID")).await.unwrap();
    assert_eq!(paid.len(), 7);
    let c1 = table.query_all(OrderOnOwnAttributes::query_by_customer_status("c1", "PAID")).await.unwrap();
    assert_eq!(c1.len(), (0..14).filter(|i| i % 7 == 1 && i % 2 == 1).count());
    assert!(!c1.is_empty());
}

const BACKUPS: &str = "aws-backups";

/// Answers DescribeContinuousBackups and UpdateContinuousBackups as AWS does (DynamoDB Local
/// has no backups: it answers UnknownOperationException), keeping the point-in-time recovery
/// status the updates set, and records the body of every UpdateContinuousBackups. The
/// requests go to Local as a harmless ListTables.
#[derive(Debug, Clone)]
struct AwsBackups {
    enabled: Arc<Mutex<bool>>,
    updates: Arc<Mutex<Vec<String>>>,
}

impl AwsBackups {
    fn enabled() -> AwsBackups {
        AwsBackups { enabled: Arc::new(Mutex::new(true)), updates: Arc::default() }
    }

    fn on(&self, table: &Table) -> Table {
        let config = table.client().config().to_builder().interceptor(self.clone());
        Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
    }

    fn updates(&self) -> Vec<String> {
        self.updates.lock().unwrap().clone()
    }
}

impl Intercept for AwsBackups {
    fn name(&self) -> &'static str {
        "AwsBackups"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let op = request.headers().get(TARGET).unwrap_or_default().trim_start_matches("DynamoDB_20120810.").to_owned();
        if op != "DescribeContinuousBackups" && op != "UpdateContinuousBackups" {
            return Ok(());
        }
        if op == "UpdateContinuousBackups" {
            let body = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            *self.enabled.lock().unwrap() = body.contains(r#""PointInTimeRecoveryEnabled":true"#);
            self.updates.lock().unwrap().push(body);
        }
        common::divert(request);
        cfg.interceptor_state().store_put(aws_sdk_dynamodb::config::AppName::new(BACKUPS)?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<aws_sdk_dynamodb::config::AppName>().is_some_and(|n| n.as_ref() == BACKUPS) {
            let status = if *self.enabled.lock().unwrap() { "ENABLED" } else { "DISABLED" };
            let body = format!(
                r#"{{"ContinuousBackupsDescription":{{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{{"PointInTimeRecoveryStatus":"{status}"}}}}}}"#
            );
            common::answer(ctx, 200, body)?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn point_in_time_recovery_is_kept_unless_stated_as_aws_answers_it() {
    // DynamoDB Local has no backups: AWS's answers (recovery on) are injected.
    let table = common::table("plan-pitr", &[OrderV0::SCHEMA]).await;
    let backups = AwsBackups::enabled();
    let aws = backups.on(&table);
    let wanted = def(&[Order::SCHEMA]);
    let plan = aws.plan(&wanted).await.unwrap();
    let text = plan.to_string();
    assert!(text.lines().any(|l| l == "= point-in-time recovery on (kept: not in the definition)"), "{text}");
    assert!(!plan.changes.iter().any(|c| matches!(c, TableChange::PointInTimeRecovery { .. })), "{text}");
    aws.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    assert!(backups.updates().is_empty(), "{:?}", backups.updates());
    assert!(*backups.enabled.lock().unwrap());

    // Stated off: turned off, with the request AWS takes.
    let off = wanted.clone().point_in_time_recovery(false);
    let plan = aws.plan(&off).await.unwrap();
    assert_eq!(plan.changes, [TableChange::PointInTimeRecovery { to: false }], "{plan}");
    assert!(plan.to_string().lines().any(|l| l == "~ point-in-time recovery: on -> off"), "{plan}");
    aws.apply(&off).await.unwrap();
    let updates = backups.updates();
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert!(
        updates[0].contains(r#""PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":false}"#),
        "{updates:?}"
    );
    assert!(aws.plan(&off).await.unwrap().is_empty());
}

/// DescribeTable as AWS answers while it builds an index: GSI1 `CREATING` and backfilling for the
/// first `creating` describes, then `ACTIVE` (the engine makes a new global index ACTIVE at once,
/// so its answers are changed here, in the SDK's model).
#[derive(Debug, Clone)]
struct StillCreating {
    creating: u32,
    described: Arc<Mutex<u32>>,
}

impl Intercept for StillCreating {
    fn name(&self) -> &'static str {
        "StillCreating"
    }

    fn modify_before_attempt_completion(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(Ok(output)) = ctx.output_or_error_mut() else { return Ok(()) };
        let Some(out) = output.downcast_mut::<aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput>()
        else {
            return Ok(());
        };
        let mut n = self.described.lock().unwrap();
        *n += 1;
        if *n <= self.creating
            && let Some(t) = out.table.as_mut()
        {
            for g in t.global_secondary_indexes.iter_mut().flatten() {
                g.index_status = Some(IndexStatus::Creating);
                g.backfilling = Some(true);
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn an_index_still_creating_is_planned_as_not_ready_and_apply_waits_for_it() {
    let table = common::table("plan-creating", &[Order::SCHEMA]).await;
    let creating = StillCreating { creating: 4, described: Arc::default() };
    let config = table.client().config().to_builder().interceptor(creating.clone());
    let t = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name());
    let wanted = def(&[Order::SCHEMA]);
    let plan = t.plan(&wanted).await.unwrap();
    assert_eq!(plan.changes, [TableChange::NotReady { what: "global index GSI1 CREATING, backfilling".into() }]);
    assert!(!plan.is_empty());
    assert!(
        plan.to_string().lines().any(|l| l
            == "* global index GSI1 CREATING, backfilling: not ready (requests through it fail until it is ACTIVE); \
                apply waits for it"),
        "{plan}"
    );
    // Apply waits until it is ACTIVE: it describes the table until then, and sends nothing else.
    let applied = t.apply(&wanted).poll_interval(std::time::Duration::from_millis(10)).await.unwrap();
    assert_eq!(applied.changes.len(), 1);
    assert!(*creating.described.lock().unwrap() > 4, "apply returned while the index was CREATING");
    assert!(t.plan(&wanted).await.unwrap().is_empty());
}

/// An index keyed on a field's own attribute, whose type changes from a string to a number.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<id>"]
#[gsi1(index = "ByScore", pk = "<league>", pk_attr = "league", sk = "<score>", sk_attr = "score", query = "by_score")]
#[entity(type_name = "Player")]
pub struct PlayerV1 {
    pub id: String,
    pub league: String,
    pub score: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<id>"]
#[gsi1(index = "ByScore", pk = "<league>", pk_attr = "league", sk = "<score>", sk_attr = "score", query = "by_score")]
#[entity(type_name = "Player")]
pub struct PlayerV2 {
    pub id: String,
    pub league: String,
    pub score: f64,
}

#[tokio::test]
async fn a_global_index_whose_key_attribute_changes_type_is_rebuilt() {
    let table = common::table("plan-retype", &[PlayerV1::SCHEMA]).await;
    let wanted = def(&[PlayerV2::SCHEMA]);
    let plan = table.plan(&wanted).await.unwrap();
    assert!(
        matches!(plan.changes.as_slice(), [TableChange::ReplaceIndex { index, why }]
            if index.name == "ByScore" && why == "key attribute `score` type S -> N"),
        "{plan}"
    );
    assert!(plan.impossible().next().is_none(), "{plan}");
    // Refused without the opt-in, as any rebuild; made with it.
    assert!(matches!(table.apply(&wanted).await, Err(Error::TableMismatch { .. })));
    let tap = Tap::default();
    tap.on(&table)
        .apply(&wanted)
        .rebuild_changed_indexes()
        .poll_interval(std::time::Duration::from_millis(20))
        .await
        .unwrap();
    assert_eq!(tap.sent().iter().filter(|op| *op == "UpdateTable").count(), 2, "delete, then create");
    let d = describe(&table).await;
    let score = d.attribute_definitions().iter().find(|a| a.attribute_name() == "score").unwrap();
    assert_eq!(score.attribute_type().as_str(), "N");
    assert!(table.plan(&wanted).await.unwrap().is_empty());
    // The new index serves queries on the number.
    table.put(&PlayerV2 { id: "p1".into(), league: "gold".into(), score: 9.5 }).await.unwrap();
    let found = table.query_all(PlayerV2::query_by_score("gold")).await.unwrap();
    assert_eq!(found.len(), 1);
}

/// The table's keys cannot change type in place: still impossible.
#[tokio::test]
async fn a_table_key_attribute_of_another_type_is_still_impossible() {
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "<n>"]
    #[entity(type_name = "Counter", pk_attr = "n")]
    pub struct ByText {
        pub n: String,
    }
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "<n>"]
    #[entity(type_name = "Counter", pk_attr = "n")]
    pub struct ByNumber {
        pub n: u64,
    }
    let table = common::table("plan-retype-key", &[ByText::SCHEMA]).await;
    let plan = table.plan(&def(&[ByNumber::SCHEMA])).await.unwrap();
    assert!(plan.impossible().any(|c| c.to_string().contains("key attribute `n` type S -> N")), "{plan}");
}
