//! Table options carried by the definition and applied by `create_table_from`, checked with
//! DescribeTable against DynamoDB Local; invalid options are refused before any request.

use aws_sdk_dynamodb::types::{BillingMode, ProjectionType, StreamViewType};
use dynamo_entity::{Billing, Entity, Error, Projection, StreamView, Table, TableDefinition, Throughput};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "orders_by_status")]
#[gsi2(pk = "USER#<user_id>", sk = "ORDER#<id>", query = "orders_of_user")]
#[lsi1(sk = "TOTAL#<total>")]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub user_id: String,
    pub status: String,
    pub total: u64,
    #[ttl]
    pub expires_at: std::time::SystemTime,
}

fn definition() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .stream(StreamView::NewAndOldImages)
        .point_in_time_recovery(true)
        .deletion_protection(true)
        .billing(Billing::Provisioned(Throughput { read: 5, write: 4 }))
        .projection("GSI1", Projection::KeysOnly)
        .unwrap()
        .projection("GSI2", Projection::Include(vec!["total".into(), "status".into()]))
        .unwrap()
        .index_throughput("GSI2", Throughput { read: 3, write: 2 })
        .unwrap()
}

#[tokio::test]
async fn create_table_from_applies_the_options() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client.clone(), format!("options-{}", std::process::id()));
    table.create_table_from(&definition()).await.expect("create table");
    let t = client.describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let stream = t.stream_specification().unwrap();
    assert!(stream.stream_enabled());
    assert_eq!(stream.stream_view_type(), Some(&StreamViewType::NewAndOldImages));
    assert!(t.latest_stream_arn().is_some());
    let throughput = t.provisioned_throughput().unwrap();
    assert_eq!((throughput.read_capacity_units(), throughput.write_capacity_units()), (Some(5), Some(4)));
    // DynamoDB Local does not report a billing mode summary for provisioned tables; when it
    // does, it must be PROVISIONED.
    if let Some(b) = t.billing_mode_summary().and_then(|b| b.billing_mode()) {
        assert_eq!(b, &BillingMode::Provisioned);
    }
    let gsis = t.global_secondary_indexes();
    let gsi = |name: &str| gsis.iter().find(|i| i.index_name() == Some(name)).unwrap();
    let p1 = gsi("GSI1").projection().unwrap();
    assert_eq!(p1.projection_type(), Some(&ProjectionType::KeysOnly));
    let p2 = gsi("GSI2").projection().unwrap();
    assert_eq!(p2.projection_type(), Some(&ProjectionType::Include));
    assert_eq!(p2.non_key_attributes(), ["total", "status"]);
    let g1 = gsi("GSI1").provisioned_throughput().unwrap();
    assert_eq!((g1.read_capacity_units(), g1.write_capacity_units()), (Some(5), Some(4)), "the table's capacity");
    let g2 = gsi("GSI2").provisioned_throughput().unwrap();
    assert_eq!((g2.read_capacity_units(), g2.write_capacity_units()), (Some(3), Some(2)), "its own");
    let lsi = &t.local_secondary_indexes()[0];
    assert_eq!(lsi.projection().unwrap().projection_type(), Some(&ProjectionType::All));

    let ttl = client.describe_time_to_live().table_name(table.name()).send().await.unwrap();
    assert_eq!(ttl.time_to_live_description().unwrap().attribute_name(), Some("expiresAt"));

    // DynamoDB Local has no backups (UnknownOperationException): create_table_from skips PITR
    // there; anywhere else it must be on.
    match client.describe_continuous_backups().table_name(table.name()).send().await {
        Ok(backups) => {
            let d = backups.continuous_backups_description().unwrap().point_in_time_recovery_description().unwrap();
            assert_eq!(
                d.point_in_time_recovery_status(),
                Some(&aws_sdk_dynamodb::types::PointInTimeRecoveryStatus::Enabled)
            );
        }
        Err(e) => {
            use aws_sdk_dynamodb::error::ProvideErrorMetadata;
            assert_eq!(e.code(), Some("UnknownOperationException"), "{e:?}");
        }
    }

    // Deletion protection: DynamoDB refuses to delete the table.
    assert_eq!(t.deletion_protection_enabled(), Some(true));
    let deleted = client.delete_table().table_name(table.name()).send().await;
    assert!(deleted.is_err(), "a protected table was deleted");
    // Items still work as usual.
    let order = Order {
        id: "o1".into(),
        user_id: "u1".into(),
        status: "PAID".into(),
        total: 7,
        expires_at: std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(4_000_000_000),
    };
    table.put(&order).await.unwrap();
    assert_eq!(table.get(Order::key("o1")).await.unwrap(), Some(order));
}

#[test]
fn invalid_options_are_refused_before_any_request() {
    let def = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    let err = |r: Result<TableDefinition, Error>| r.unwrap_err().to_string();
    assert!(err(def.clone().projection("GSI9", Projection::All)).contains("GSI9"));
    assert!(err(def.clone().projection("GSI1", Projection::Include(vec![]))).contains("1 to 100"));
    assert!(err(def.clone().projection("GSI1", Projection::Include(vec!["GSI2PK".into()]))).contains("key attribute"));
    assert!(err(def.clone().index_throughput("LSI1", Throughput { read: 1, write: 1 })).contains("local"));
    // The defaults are the table `create_table` has always made.
    assert_eq!(def.options, dynamo_entity::TableOptions::default());
    assert!(def.indexes.iter().all(|i| i.projection == Projection::All && i.throughput.is_none()));
}

#[test]
fn the_entities_state_no_setting_and_the_builders_state_each() {
    use dynamo_entity::Sse;
    let def = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    // Not stated: `apply` keeps each as the live table has it.
    let o = &def.options;
    assert_eq!(
        (o.stream, o.point_in_time_recovery, o.deletion_protection, &o.sse, o.ttl_off),
        (None, None, None, &None, false)
    );
    // TTL is stated by the entity's `#[ttl]` field.
    assert_eq!(def.ttl_attr.as_deref(), Some("expiresAt"));
    let on = def
        .clone()
        .stream(StreamView::NewImage)
        .point_in_time_recovery(true)
        .deletion_protection(true)
        .sse(Sse::AwsManaged);
    let o = &on.options;
    assert_eq!(
        (o.stream, o.point_in_time_recovery, o.deletion_protection, &o.sse),
        (Some(Some(StreamView::NewImage)), Some(true), Some(true), &Some(Sse::AwsManaged))
    );
    let off = def.no_stream().point_in_time_recovery(false).deletion_protection(false).no_ttl().sse(Sse::AwsOwned);
    let o = &off.options;
    assert_eq!(
        (o.stream, o.point_in_time_recovery, o.deletion_protection, &o.sse, o.ttl_off),
        (Some(None), Some(false), Some(false), &Some(Sse::AwsOwned), true)
    );
    assert_eq!(off.ttl_attr, None);
}

#[tokio::test]
async fn a_table_created_from_a_definition_that_states_nothing_has_dynamodbs_defaults() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client.clone(), format!("options-defaults-{}", std::process::id()));
    table.create_table_from(&TableDefinition::from_entities(&[Order::SCHEMA]).unwrap()).await.expect("create table");
    let t = client.describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    assert!(!t.stream_specification().is_some_and(|s| s.stream_enabled()), "{:?}", t.stream_specification());
    assert!(!t.deletion_protection_enabled().unwrap_or(false));
    let ttl = client.describe_time_to_live().table_name(table.name()).send().await.unwrap();
    assert_eq!(ttl.time_to_live_description().unwrap().attribute_name(), Some("expiresAt"), "stated by #[ttl]");
    client.delete_table().table_name(table.name()).send().await.expect("unprotected");
}
