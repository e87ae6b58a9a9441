//! The stream reader against what real DynamoDB Streams do and DynamoDB Local does not (issue
//! 21, item 12): empty `GetRecords` pages before a shard's records, and an iterator that expires
//! before its first record. An SDK interceptor on the Streams client injects them: it rewrites
//! `GetRecords` answers (an empty page that keeps the request's own iterator, so nothing is
//! consumed; or `ExpiredIteratorException`), the requests still reach DynamoDB Local.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dynamo_entity::stream::aws_sdk_dynamodbstreams as streams;
use dynamo_entity::stream::{ChangeKind, Position, StreamReader};
use dynamo_entity::{Entity, StreamView, Table, TableDefinition};
use futures_util::StreamExt;
use streams::config::interceptors::{BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut};
use streams::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use streams::error::BoxError;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
pub struct Order {
    pub id: String,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    Empty,
    Expired,
    /// One record whose new image holds a value of a type the SDK does not know.
    UnknownValue,
}

/// Answers `GetRecords` call `n` (from 0) with `faults(n)`, counting the calls.
#[derive(Debug)]
struct Faults {
    faults: fn(u32) -> Option<Fault>,
    calls: Arc<AtomicU32>,
    /// Each faulted call's fault and request iterator, by call number.
    pending: Mutex<HashMap<u32, (Fault, String)>>,
}

const TOKEN: &str = "fault-";

impl Intercept for Faults {
    fn name(&self) -> &'static str {
        "StreamFaults"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDBStreams_20120810.GetRecords") {
            return Ok(());
        }
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let Some(fault) = (self.faults)(n) else { return Ok(()) };
        let body: serde_json::Value = serde_json::from_slice(request.body().bytes().unwrap_or_default())?;
        let iterator = body["ShardIterator"].as_str().unwrap_or_default().to_owned();
        self.pending.lock().unwrap().insert(n, (fault, iterator));
        cfg.interceptor_state().store_put(AppName::new(format!("{TOKEN}{n}"))?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let Some(n) = cfg.load::<AppName>().and_then(|a| a.as_ref().strip_prefix(TOKEN)?.parse::<u32>().ok()) else {
            return Ok(());
        };
        let Some((fault, iterator)) = self.pending.lock().unwrap().remove(&n) else { return Ok(()) };
        let (status, body) = match fault {
            Fault::Empty => (200u16, serde_json::json!({"Records": [], "NextShardIterator": iterator}).to_string()),
            Fault::UnknownValue => {
                let image = serde_json::json!({
                    "PK": {"S": "ORDER#u"}, "SK": {"S": "METADATA"}, "entity_type": {"S": "Order"},
                    "id": {"L": [{"S": "x"}, {"X1": "?"}]},
                });
                let record = serde_json::json!({
                    "eventID": "1", "eventName": "INSERT", "eventSource": "aws:dynamodb",
                    "dynamodb": {
                        "Keys": {"PK": {"S": "ORDER#u"}, "SK": {"S": "METADATA"}},
                        "NewImage": image, "SequenceNumber": "000000000000000000042",
                        "StreamViewType": "NEW_AND_OLD_IMAGES", "SizeBytes": 10,
                    },
                });
                (200, serde_json::json!({"Records": [record], "NextShardIterator": iterator}).to_string())
            }
            Fault::Expired => (
                400,
                r#"{"__type":"com.amazonaws.dynamodb.v20120810#ExpiredIteratorException","message":"injected"}"#
                    .to_owned(),
            ),
        };
        common::answer(ctx, status, body)
    }
}

async fn faulty_client(faults: fn(u32) -> Option<Fault>) -> (streams::Client, Arc<AtomicU32>) {
    use streams::config::{BehaviorVersion, Credentials, Region};
    let endpoint = dynamo_entity::local::shared_endpoint().await.expect("DynamoDB Local");
    let calls = Arc::new(AtomicU32::new(0));
    let config = streams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "test"))
        .interceptor(Faults { faults, calls: calls.clone(), pending: Mutex::default() })
        .build();
    (streams::Client::from_conf(config), calls)
}

async fn stream_table(test: &str) -> Table {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("{test}-{}", std::process::id()));
    let def = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap().stream(StreamView::NewAndOldImages);
    table.create_table_from(&def).await.expect("create table");
    table
}

fn order(id: &str) -> Order {
    Order { id: id.into() }
}

#[tokio::test]
async fn until_caught_up_reads_on_through_empty_pages() {
    let table = stream_table("faults-empty").await;
    table.put(&order("a")).await.unwrap();
    table.put(&order("b")).await.unwrap();
    // The first two GetRecords answer an empty page, as real Streams may before records.
    let (client, calls) = faulty_client(|n| (n < 2).then_some(Fault::Empty)).await;
    let reader = StreamReader::for_table(&table, client)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(20))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Order>().collect().await;
    let ids: Vec<String> = changes
        .into_iter()
        .map(|c| match c.unwrap().kind {
            ChangeKind::Inserted(o) => o.id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, vec!["a", "b"]);
    assert!(calls.load(Ordering::SeqCst) >= 3);
}

#[tokio::test]
async fn a_latest_iterator_that_expires_before_its_first_record_loses_nothing() {
    let table = stream_table("faults-expired").await;
    // A record of the minute before the reader starts may come again (creation times are
    // approximate), so the test tells the write after it by its id.
    table.put(&order("old")).await.unwrap();
    // GetRecords call 1 (the second, after a write made once the reader was at LATEST) expires.
    let (client, calls) = faulty_client(|n| (n == 1).then_some(Fault::Expired)).await;
    let reader = StreamReader::for_table(&table, client)
        .await
        .unwrap()
        .position(Position::Latest)
        .poll_interval(Duration::from_millis(800));
    let mut changes = Box::pin(reader.changes::<Order>());
    let writer = {
        let table = table.clone();
        let calls = calls.clone();
        tokio::spawn(async move {
            // Once the reader has its LATEST iterator and read it once (an empty page): the
            // first GetRecords is on its way, the next one comes a poll interval after it.
            while calls.load(Ordering::SeqCst) < 1 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            table.put(&order("new")).await.unwrap();
        })
    };
    let mut seen = Vec::new();
    while !seen.contains(&"new".to_owned()) {
        let next = tokio::time::timeout(Duration::from_secs(30), changes.next()).await.expect("the write is delivered");
        match next.unwrap().unwrap().kind {
            ChangeKind::Inserted(o) => seen.push(o.id),
            other => panic!("{other:?}"),
        }
    }
    writer.await.unwrap();
    assert!(seen.len() <= 2 && seen.iter().all(|id| id == "old" || id == "new"), "{seen:?}");
    assert!(calls.load(Ordering::SeqCst) >= 3, "the expired iterator was answered");
}

#[tokio::test]
async fn a_record_holding_an_unknown_type_is_an_error_naming_it_and_the_stream_goes_on() {
    let table = stream_table("faults-unknown").await;
    table.put(&order("real")).await.unwrap();
    let (client, _) = faulty_client(|n| (n == 0).then_some(Fault::UnknownValue)).await;
    let reader = StreamReader::for_table(&table, client)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(20))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Order>().collect().await;
    assert_eq!(changes.len(), 2, "{changes:?}");
    let e = changes[0].as_ref().unwrap_err();
    assert_eq!(e.sequence_number(), Some("000000000000000000042"));
    assert!(e.to_string().contains("attribute `id` holds a value of a type this version does not know"), "{e}");
    assert_eq!(changes[1].as_ref().unwrap().kind, ChangeKind::Inserted(order("real")));
}
