//! Streams as typed changes: the Streams API reader against DynamoDB Local (whose Streams API is
//! real), Lambda event JSON in the shape AWS documents, and the Lambda filter patterns.

use std::collections::BTreeMap;
use std::time::Duration;

use dynamo_entity::stream::{
    Change, ChangeKind, Checkpoint, EventName, Position, StreamError, StreamReader, filter_patterns,
};
use dynamo_entity::{AttributeValue, Collection, Entity, Error, StreamView, Table, TableDefinition};
use futures_util::StreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "orders_by_status")]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub status: String,
    pub total: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<order_id>"]
#[sk = "ITEM#<sku>"]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct OrderItem {
    pub order_id: String,
    pub sku: String,
    pub quantity: u32,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum OrderChange {
    Order(Order),
    Item(OrderItem),
}

fn order(id: &str, status: &str, total: u64) -> Order {
    Order { id: id.into(), status: status.into(), total }
}

fn item(order_id: &str, sku: &str, quantity: u32) -> OrderItem {
    OrderItem { order_id: order_id.into(), sku: sku.into(), quantity }
}

/// A client of the Streams API on the same DynamoDB Local as the tests' tables.
async fn streams_client() -> dynamo_entity::stream::aws_sdk_dynamodbstreams::Client {
    dynamo_entity::local::streams_client().await.expect("DynamoDB Local")
}

async fn stream_table(test: &str) -> Table {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("{test}-{}", std::process::id()));
    let def = TableDefinition::from_entities(&[Order::SCHEMA, OrderItem::SCHEMA])
        .unwrap()
        .stream(StreamView::NewAndOldImages);
    table.create_table_from(&def).await.expect("create table");
    table
}

/// An item of an entity outside the collection, under an order's partition.
async fn put_foreign(table: &Table, n: u32) {
    let item = [
        ("PK", AttributeValue::S("ORDER#o1".into())),
        ("SK", AttributeValue::S(format!("INVOICE#{n}"))),
        ("entityType", AttributeValue::S("Invoice".into())),
        ("amount", AttributeValue::N(n.to_string())),
    ];
    table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(item.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
        .send()
        .await
        .unwrap();
}

async fn delete_foreign(table: &Table, n: u32) {
    table
        .client()
        .delete_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S("ORDER#o1".into()))
        .key("SK", AttributeValue::S(format!("INVOICE#{n}")))
        .send()
        .await
        .unwrap();
}

async fn read<T: dynamo_entity::Readable>(reader: StreamReader) -> Vec<Change<T>> {
    let changes: Vec<Result<Change<T>, Error>> = reader.changes::<T>().collect().await;
    changes.into_iter().map(|c| c.expect("a change")).collect()
}

/// The changes per key, in order: the only order a stream promises.
fn per_key<T: Clone>(changes: &[Change<T>]) -> BTreeMap<(String, Option<String>), Vec<ChangeKind<T>>> {
    let mut map: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for c in changes {
        map.entry((c.pk.clone(), c.sk.clone())).or_default().push(c.kind.clone());
    }
    map
}

fn key(pk: &str, sk: &str) -> (String, Option<String>) {
    (pk.to_owned(), Some(sk.to_owned()))
}

#[tokio::test]
async fn reader_yields_typed_changes_in_order_and_resumes_after_a_checkpoint() {
    let table = stream_table("streams-reader").await;
    let streams = streams_client().await;

    // Two entities and a foreign item: inserted, modified, deleted.
    table.put(&order("o1", "PENDING", 100)).await.unwrap();
    table.put(&item("o1", "sku-a", 1)).await.unwrap();
    put_foreign(&table, 1).await;
    table.put(&order("o1", "PAID", 100)).await.unwrap();
    table.put(&item("o1", "sku-a", 3)).await.unwrap();
    put_foreign(&table, 2).await;
    delete_foreign(&table, 1).await;
    table.delete(OrderItem::key("o1", "sku-a")).await.unwrap();
    table.put(&order("o2", "PENDING", 20)).await.unwrap();

    let reader = StreamReader::for_table(&table, streams.clone())
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let changes = read::<OrderChange>(reader.clone()).await;
    let expected = BTreeMap::from([
        (
            key("ORDER#o1", "METADATA"),
            vec![
                ChangeKind::Inserted(OrderChange::Order(order("o1", "PENDING", 100))),
                ChangeKind::Modified {
                    old: OrderChange::Order(order("o1", "PENDING", 100)),
                    new: OrderChange::Order(order("o1", "PAID", 100)),
                },
            ],
        ),
        (
            key("ORDER#o1", "ITEM#sku-a"),
            vec![
                ChangeKind::Inserted(OrderChange::Item(item("o1", "sku-a", 1))),
                ChangeKind::Modified {
                    old: OrderChange::Item(item("o1", "sku-a", 1)),
                    new: OrderChange::Item(item("o1", "sku-a", 3)),
                },
                ChangeKind::Removed(OrderChange::Item(item("o1", "sku-a", 3))),
            ],
        ),
        (key("ORDER#o2", "METADATA"), vec![ChangeKind::Inserted(OrderChange::Order(order("o2", "PENDING", 20)))]),
    ]);
    assert_eq!(per_key(&changes), expected, "exactly the collection's changes, none for the invoice");
    assert_eq!(changes.len(), 6);
    assert!(changes.iter().all(|c| c.shard_id.is_some() && !c.sequence_number.is_empty()));

    // One entity of the two: the other's records are stepped over too.
    let orders = read::<Order>(reader.clone()).await;
    let kinds: Vec<_> = orders.iter().map(|c| c.kind.clone()).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Inserted(order("o1", "PENDING", 100)),
            ChangeKind::Modified { old: order("o1", "PENDING", 100), new: order("o1", "PAID", 100) },
            ChangeKind::Inserted(order("o2", "PENDING", 20)),
        ]
    );

    // Resume after the third change: the rest, and what was written since, each once.
    let mut checkpoint = Checkpoint::new();
    for c in &changes[..3] {
        checkpoint.advance(c);
    }
    table.put(&order("o3", "PENDING", 5)).await.unwrap();
    let resumed = read::<OrderChange>(reader.clone().position(Position::After(checkpoint.clone()))).await;
    let seen: Vec<&str> = changes[..3].iter().map(|c| c.sequence_number.as_str()).collect();
    assert!(resumed.iter().all(|c| !seen.contains(&c.sequence_number.as_str())), "no change twice");
    let rest: Vec<_> = changes[3..].iter().map(|c| (c.sequence_number.clone(), c.kind.clone())).collect();
    let got: Vec<_> = resumed.iter().map(|c| (c.sequence_number.clone(), c.kind.clone())).collect();
    assert_eq!(got[..rest.len()], rest[..]);
    assert_eq!(
        got[rest.len()..],
        [(got[rest.len()].0.clone(), ChangeKind::Inserted(OrderChange::Order(order("o3", "PENDING", 5))))]
    );

    // A checkpoint saved as text comes back equal.
    let saved: Vec<(String, String)> = checkpoint.iter().map(|(s, n)| (s.to_owned(), n.to_owned())).collect();
    assert_eq!(saved.into_iter().collect::<Checkpoint>(), checkpoint);
}

#[tokio::test]
async fn reader_from_latest_sees_only_later_writes() {
    let table = stream_table("streams-latest").await;
    let streams = streams_client().await;
    table.put(&order("old", "PENDING", 1)).await.unwrap();
    let reader = StreamReader::for_table(&table, streams)
        .await
        .unwrap()
        .position(Position::Latest)
        .poll_interval(Duration::from_millis(50));
    let mut changes = Box::pin(reader.changes::<Order>());
    // The reader takes its LATEST positions on its first poll; the write comes after it.
    let writer = {
        let table = table.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            table.put(&order("new", "PENDING", 2)).await.unwrap();
        })
    };
    let first = tokio::time::timeout(Duration::from_secs(60), changes.next()).await.expect("a change in time");
    writer.await.unwrap();
    let first = first.expect("stream goes on").unwrap();
    assert_eq!(first.kind, ChangeKind::Inserted(order("new", "PENDING", 2)));
}

#[tokio::test]
async fn a_table_without_stream_is_a_clear_error() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("streams-none-{}", std::process::id()));
    table.create_table(&[Order::SCHEMA]).await.unwrap();
    let err = StreamReader::for_table(&table, streams_client().await).await.unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("no stream")), "{err}");
}

// Lambda events, in the shape of AWS's documented DynamoDB event (plus a TTL delete, whose
// userIdentity is the DynamoDB service).

fn order_image(id: &str, status: &str, total: u64) -> serde_json::Value {
    serde_json::json!({
        "PK": {"S": format!("ORDER#{id}")}, "SK": {"S": "METADATA"},
        "GSI1PK": {"S": format!("STATUS#{status}")}, "GSI1SK": {"S": format!("ORDER#{id}")},
        "entityType": {"S": "Order"}, "id": {"S": id}, "status": {"S": status}, "total": {"N": total.to_string()}
    })
}

fn record(
    name: &str,
    seq: &str,
    keys_of: &str,
    new: Option<serde_json::Value>,
    old: Option<serde_json::Value>,
    ttl: bool,
) -> serde_json::Value {
    let mut dynamodb = serde_json::json!({
        "ApproximateCreationDateTime": 1_709_234_567.0,
        "Keys": {"PK": {"S": keys_of}, "SK": {"S": "METADATA"}},
        "SequenceNumber": seq,
        "SizeBytes": 59,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
    });
    if let Some(new) = new {
        dynamodb["NewImage"] = new;
    }
    if let Some(old) = old {
        dynamodb["OldImage"] = old;
    }
    let mut r = serde_json::json!({
        "eventID": format!("id-{seq}"),
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": dynamodb,
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/Orders/stream/2026-03-01T00:00:00.000"
    });
    if ttl {
        r["userIdentity"] = serde_json::json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});
    }
    r
}

fn lambda_event() -> dynamo_entity::stream::aws_lambda_events::event::dynamodb::Event {
    let invoice = serde_json::json!({
        "PK": {"S": "ORDER#o1"}, "SK": {"S": "INVOICE#1"}, "entityType": {"S": "Invoice"}, "amount": {"N": "1"}
    });
    let json = serde_json::json!({ "Records": [
        record("INSERT", "111", "ORDER#o1", Some(order_image("o1", "PENDING", 100)), None, false),
        record("INSERT", "112", "ORDER#o1", Some(invoice), None, false),
        record("MODIFY", "222", "ORDER#o1", Some(order_image("o1", "PAID", 100)), Some(order_image("o1", "PENDING", 100)), false),
        record("REMOVE", "333", "ORDER#o1", None, Some(order_image("o1", "PAID", 100)), false),
        record("REMOVE", "444", "ORDER#o2", None, Some(order_image("o2", "PENDING", 20)), true),
    ]});
    serde_json::from_value(json).expect("the documented event shape")
}

#[test]
fn lambda_event_decodes_into_the_same_typed_changes() {
    let changes: Vec<Change<OrderChange>> =
        dynamo_entity::stream::lambda::changes::<OrderChange>(lambda_event()).map(Result::unwrap).collect();
    let got: Vec<_> = changes.iter().map(|c| (c.sequence_number.as_str(), c.pk.as_str(), c.kind.clone())).collect();
    let o = |id, status, total| OrderChange::Order(order(id, status, total));
    assert_eq!(
        got,
        [
            ("111", "ORDER#o1", ChangeKind::Inserted(o("o1", "PENDING", 100))),
            ("222", "ORDER#o1", ChangeKind::Modified { old: o("o1", "PENDING", 100), new: o("o1", "PAID", 100) }),
            ("333", "ORDER#o1", ChangeKind::Removed(o("o1", "PAID", 100))),
            ("444", "ORDER#o2", ChangeKind::Expired(o("o2", "PENDING", 20))),
        ]
    );
    assert!(changes.iter().all(|c| c.sk.as_deref() == Some("METADATA") && c.shard_id.is_none()));
}

#[test]
fn a_missing_image_is_a_typed_error_naming_the_record() {
    let mut json = serde_json::json!({ "Records": [
        record("MODIFY", "555", "ORDER#o1", Some(order_image("o1", "PAID", 100)), None, false),
    ]});
    json["Records"][0]["dynamodb"]["StreamViewType"] = "NEW_IMAGE".into();
    let event = serde_json::from_value(json).unwrap();
    let errors: Vec<Error> = dynamo_entity::stream::lambda::changes::<Order>(event).map(Result::unwrap_err).collect();
    assert_eq!(errors.len(), 1);
    let Error::Stream(e) = &errors[0] else { panic!("{:?}", errors[0]) };
    assert!(
        matches!(&**e, StreamError::MissingImage { event: EventName::Modify, sequence_number, view_type: Some(v), .. }
            if sequence_number == "555" && v == "NEW_IMAGE"),
        "{e:?}"
    );
    assert!(errors[0].to_string().contains("OldImage"), "{}", errors[0]);
}

#[test]
fn a_bad_image_of_the_entity_is_a_decode_error_and_the_rest_still_come() {
    let mut bad = order_image("o9", "PAID", 1);
    bad["total"] = serde_json::json!({"S": "not a number"});
    let json = serde_json::json!({ "Records": [
        record("INSERT", "601", "ORDER#o9", Some(bad), None, false),
        record("INSERT", "602", "ORDER#o1", Some(order_image("o1", "PENDING", 100)), None, false),
    ]});
    let results: Vec<_> =
        dynamo_entity::stream::lambda::changes::<Order>(serde_json::from_value(json).unwrap()).collect();
    // The error names its record (for `ReportBatchItemFailures`) and holds the decode error.
    let Err(e) = &results[0] else { panic!("{:?}", results[0]) };
    assert_eq!(e.sequence_number(), Some("601"));
    let Error::Stream(s) = e else { panic!("{e:?}") };
    let dynamo_entity::stream::StreamError::Decode { source, shard_id: None, .. } = &**s else { panic!("{s:?}") };
    assert!(
        matches!(&**source, Error::Decode { entity: "Order", attribute, .. } if attribute == "total"),
        "{source:?}"
    );
    assert!(e.to_string().starts_with("stream record 601: "), "{e}");
    assert_eq!(results[1].as_ref().unwrap().kind, ChangeKind::Inserted(order("o1", "PENDING", 100)));
}

#[test]
fn filter_patterns_match_the_seed_and_cover_collections() {
    let json = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
    let order = filter_patterns(&[&Order::SCHEMA], &[EventName::Insert, EventName::Modify]);
    assert_eq!(order.len(), 1);
    assert_eq!(
        json(&order[0]),
        serde_json::json!({"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"entityType": {"S": ["Order"]}}}})
    );
    let all = filter_patterns(OrderChange::MEMBERS, &[]);
    assert_eq!(
        all.iter().map(|p| json(p)).collect::<Vec<_>>(),
        [
            serde_json::json!({"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"entityType": {"S": ["Order", "OrderItem"]}}}}),
            serde_json::json!({"eventName": ["REMOVE"], "dynamodb": {"OldImage": {"entityType": {"S": ["Order", "OrderItem"]}}}}),
        ]
    );
}

#[tokio::test]
async fn the_reader_has_the_table_s_default_timeouts_and_a_stalled_endpoint_is_an_error() {
    use dynamo_entity::Timeouts;
    use dynamo_entity::stream::aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
    // A client that sets no timeout of its own gets the Table's defaults.
    let bare = dynamo_entity::stream::aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "test"))
        .build();
    let bare = dynamo_entity::stream::aws_sdk_dynamodbstreams::Client::from_conf(bare);
    assert_eq!(bare.config().timeout_config().and_then(|t| t.operation_timeout()), None);
    let reader = StreamReader::new(bare, "arn");
    assert_eq!(reader.timeouts(), (Some(Timeouts::DEFAULT_OPERATION), Some(Timeouts::DEFAULT_ATTEMPT)));

    // A server that accepts connections and never answers (a listener of this test, on loopback).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().take(8) {
            open.push(stream); // keep each connection open, say nothing
        }
        std::thread::sleep(Duration::from_secs(90));
    });
    let config = dynamo_entity::stream::aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(format!("http://127.0.0.1:{port}"))
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "test"))
        .build();
    let client = dynamo_entity::stream::aws_sdk_dynamodbstreams::Client::from_conf(config);
    let reader = StreamReader::new(client, "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/x")
        .with_timeouts(Timeouts::new(Duration::from_secs(3), Duration::from_secs(1)))
        .until_caught_up();
    let mut changes = Box::pin(reader.changes::<Order>());
    // Far above the 3 s asked for: the guard only keeps a broken build from hanging the suite.
    let first =
        tokio::time::timeout(Duration::from_secs(60), changes.next()).await.expect("the reader gave up by itself");
    let err = first.expect("an item").unwrap_err();
    assert!(err.to_string().contains("DynamoDB Streams request failed"), "{err}");
    drop(held);
}

#[tokio::test]
async fn a_bad_record_read_through_the_streams_api_names_its_sequence_number_and_shard() {
    let table = stream_table("streams-bad").await;
    let mut bad = order("o7", "PAID", 1).to_item().unwrap();
    bad.insert("total".into(), AttributeValue::S("not a number".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(bad)).send().await.unwrap();
    table.put(&order("o8", "PAID", 2)).await.unwrap();
    let reader = StreamReader::for_table(&table, streams_client().await)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let results: Vec<Result<Change<Order>, Error>> = reader.changes::<Order>().collect().await;
    assert_eq!(results.len(), 2, "{results:?}");
    let e = results[0].as_ref().unwrap_err();
    let ok = results[1].as_ref().unwrap();
    assert!(e.sequence_number().is_some_and(|s| s < ok.sequence_number.as_str()), "{e:?}");
    let Error::Stream(s) = e else { panic!("{e:?}") };
    let dynamo_entity::stream::StreamError::Decode { shard_id: Some(shard), .. } = &**s else { panic!("{s:?}") };
    assert_eq!(Some(shard.as_str()), ok.shard_id.as_deref());
}
