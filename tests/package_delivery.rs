//! The package delivery app of awslabs/mcp's DynamoDB data-modelling fixtures, read from
//! `../shared/data/awslabs-package-delivery` (published files of others: read here, never
//! committed). Its Shipments table is keyed on a plain attribute, `shipment_id`, with five
//! global indexes on plain attributes (three of them multi-attribute, two sparse), each
//! projecting an INCLUDE list. Against DynamoDB Local: the table created from the fixture's own
//! schema by raw SDK calls, the fixture's items written raw, every access pattern of the schema
//! run through the entity, the items written back byte for byte, and plan empty.

mod common;

use dynamo_entity::prelude::*;
use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType,
};
use dynamo_entity::{Document, Entity, Item, Table, TableDefinition, View};
use serde_json::Value;

#[derive(Document, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Package {
    pub name: String,
    pub product_id: String,
    pub qty: u32,
    pub weight: f64,
}

/// The fixture's Shipment: keyed on `shipment_id`, its own attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<shipment_id>"]
#[entity(pk_attr = "shipment_id", type_attr = false, owns_partition = true)]
#[gsi1(index = "ShipmentsByRecipient", pk = ["recipient_id"], sk = ["status", "created_at"],
       include = "warehouse_name, total_weight", query = "by_recipient")]
#[gsi2(index = "ShipmentsByWarehouse", pk = ["warehouse_id"], sk = ["status", "created_at"],
       include = "recipient_name, total_weight", query = "by_warehouse")]
#[gsi3(index = "ShipmentsByCourier", pk = ["courier_id"], sk = ["status", "created_at"],
       include = "warehouse_name, total_weight", query = "by_courier")]
#[gsi4(index = "AvailableShipmentsByCity", pk = ["available_city"], sk = ["created_at"],
       include = "warehouse_name, origin_address, destination_address", query = "available_in")]
#[gsi5(index = "CourierActiveDelivery", pk = ["active_delivery"],
       include = "warehouse_name, status, destination_address, origin_address", query = "active_delivery_of")]
pub struct Shipment {
    pub shipment_id: String,
    pub recipient_id: String,
    pub warehouse_id: String,
    pub warehouse_name: String,
    pub recipient_name: String,
    pub status: String,
    pub packages: Vec<Package>,
    pub total_weight: f64,
    pub destination_address: String,
    pub origin_address: String,
    pub created_at: String,
    pub updated_at: Option<String>,
    pub courier_id: Option<String>,
    pub available_city: Option<String>,
    pub active_delivery: Option<String>,
}

/// What ShipmentsByRecipient holds: the keys and its INCLUDE list.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Shipment")]
pub struct RecipientShipment {
    pub shipment_id: String,
    pub recipient_id: String,
    pub status: String,
    pub created_at: String,
    pub warehouse_name: String,
    pub total_weight: f64,
}

/// What AvailableShipmentsByCity holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Shipment")]
pub struct AvailableShipment {
    pub shipment_id: String,
    pub available_city: Option<String>,
    pub created_at: String,
    pub warehouse_name: String,
    pub origin_address: String,
    pub destination_address: String,
}

/// What CourierActiveDelivery holds.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Shipment")]
pub struct ActiveDelivery {
    pub shipment_id: String,
    pub active_delivery: Option<String>,
    pub status: String,
    pub warehouse_name: String,
    pub destination_address: String,
    pub origin_address: String,
}

fn fixture(file: &str) -> Value {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/awslabs-package-delivery").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The fixture's Shipments table: its key and its global indexes, as the schema file says.
fn shipments_table(schema: &Value) -> &Value {
    schema["tables"].as_array().unwrap().iter().find(|t| t["table_config"]["table_name"] == "Shipments").unwrap()
}

/// Creates the Shipments table by raw SDK calls, from the fixture's schema alone: every key
/// attribute a string (the schema's fields say so), projections as the schema lists them.
async fn create_from_fixture(client: &aws_sdk_dynamodb::Client, name: &str, table: &Value) {
    let ks = |n: &str, t: KeyType| KeySchemaElement::builder().attribute_name(n).key_type(t).build().unwrap();
    let mut attrs = BTreeMap::new();
    let pk = table["table_config"]["partition_key"].as_str().unwrap();
    attrs.insert(pk.to_owned(), ());
    let mut create = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(ks(pk, KeyType::Hash));
    for g in table["gsi_list"].as_array().unwrap() {
        let list = |v: &Value| -> Vec<String> {
            match v {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
                _ => Vec::new(),
            }
        };
        let mut b = GlobalSecondaryIndex::builder().index_name(g["name"].as_str().unwrap());
        for a in list(&g["partition_key"]) {
            b = b.key_schema(ks(&a, KeyType::Hash));
            attrs.insert(a, ());
        }
        for a in list(&g["sort_key"]) {
            b = b.key_schema(ks(&a, KeyType::Range));
            attrs.insert(a, ());
        }
        let mut p = Projection::builder().projection_type(ProjectionType::from(g["projection"].as_str().unwrap()));
        for a in list(&g["included_attributes"]) {
            p = p.non_key_attributes(a);
        }
        create = create.global_secondary_indexes(b.projection(p.build()).build().unwrap());
    }
    for a in attrs.keys() {
        let def = AttributeDefinition::builder().attribute_name(a).attribute_type(ScalarAttributeType::S).build();
        create = create.attribute_definitions(def.unwrap());
    }
    if let Err(e) = create.send().await {
        panic!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e));
    }
}

/// The fixture's shipments as DynamoDB items (its `sample_data`, `access_pattern_data`, and the
/// sample after its `update_data`), converted as the AWS SDKs marshal JSON: numbers N, arrays L,
/// objects M.
fn fixture_items(usage: &Value) -> Vec<Item> {
    let s = &usage["entities"]["Shipment"];
    let mut updated = s["sample_data"].clone();
    for (k, v) in s["update_data"].as_object().unwrap() {
        updated[k] = v.clone();
    }
    updated["shipment_id"] = Value::String("shp_7892".into());
    [s["sample_data"].clone(), s["access_pattern_data"].clone(), updated]
        .into_iter()
        .map(|v| serde_dynamo::to_item(v).unwrap())
        .collect()
}

#[tokio::test]
#[ignore = "reads ../shared/data (files of others, not in the repository): .ci/run runs it with --ignored"]
async fn the_fixtures_shipments_table_through_the_entity() {
    let (schema, usage) =
        (fixture("package_delivery_app_schema.json"), fixture("package_delivery_app_usage_data.json"));
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("Shipments-{}", std::process::id());
    create_from_fixture(&client, &name, shipments_table(&schema)).await;
    let items = fixture_items(&usage);
    for item in &items {
        client.put_item().table_name(&name).set_item(Some(item.clone())).send().await.unwrap();
    }
    let table = Table::new(client, name);

    // The entity's definition is the fixture's table: plan empty.
    let plan = table.plan(&TableDefinition::from_entities(&[Shipment::SCHEMA]).unwrap()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");

    // Read as written, and written back byte for byte.
    for item in &items {
        let s = Shipment::from_item(item.clone()).unwrap();
        assert_eq!(&s.to_item().unwrap(), item, "{}", s.shipment_id);
    }

    // get_shipment
    let sample = table.get(Shipment::key("shp_7891")).await.unwrap().unwrap();
    assert_eq!((sample.status.as_str(), sample.packages[0].qty), ("DELIVERED", 2));
    // get_recipient_shipments, get_recipient_shipments_by_status (a view: the index includes less)
    let mine = table.query_all(Shipment::query_by_recipient("rcpt_7891").view::<RecipientShipment>()).await.unwrap();
    assert_eq!(mine.iter().map(|s| s.status.as_str()).collect::<Vec<_>>(), ["DELIVERED", "IN_TRANSIT"]);
    let delivered = Shipment::query_by_recipient("rcpt_7891").status().eq("DELIVERED").view::<RecipientShipment>();
    let delivered = table.query_all(delivered).await.unwrap();
    assert_eq!(delivered.len(), 1);
    assert_eq!((delivered[0].warehouse_name.as_str(), delivered[0].total_weight), ("Metro Warehouse", 1.0));
    // get_warehouse_shipments_by_status, with the creation time compared by key condition
    let q = Shipment::query_by_warehouse("wh_7891").status().eq("IN_TRANSIT").created_at().gte("2026-02-19T14:00:00Z");
    let in_transit = table.query_all(q.view::<RecipientShipmentByWarehouse>()).await.unwrap();
    assert_eq!(in_transit.iter().map(|s| s.shipment_id.as_str()).collect::<Vec<_>>(), ["shp_7892"]);
    // get_courier_shipments: sparse, only shipments with a courier
    let courier = table.query_all(Shipment::query_by_courier("cour_7891").view::<CourierShipment>()).await.unwrap();
    assert_eq!(courier.len(), 2);
    // get_available_shipments_by_city: sparse
    let portland = table.query_all(Shipment::query_available_in("Portland").view::<AvailableShipment>()).await.unwrap();
    assert_eq!(portland.iter().map(|s| s.shipment_id.as_str()).collect::<Vec<_>>(), ["shp_5432"]);
    // get_courier_active_delivery
    let active =
        table.query_all(Shipment::query_active_delivery_of("cour_7891").view::<ActiveDelivery>()).await.unwrap();
    assert_eq!((active.len(), active[0].status.as_str()), (1, "IN_TRANSIT"));

    // accept_delivery: one UpdateItem moves the shipment into the courier's indexes.
    let accepted = table
        .update(
            Shipment::update(Shipment::key("shp_5432"))
                .set(Shipment::fields().courier_id, "cour_5432")
                .set(Shipment::fields().active_delivery, "cour_5432")
                .remove(Shipment::fields().available_city)
                .set(Shipment::fields().status, "IN_TRANSIT"),
        )
        .await
        .unwrap();
    assert_eq!(accepted.courier_id.as_deref(), Some("cour_5432"));
    assert!(
        table.query_all(Shipment::query_available_in("Portland").view::<AvailableShipment>()).await.unwrap().is_empty()
    );
    let now_active = table.query_all(Shipment::query_active_delivery_of("cour_5432").view::<ActiveDelivery>()).await;
    assert_eq!(now_active.unwrap().len(), 1);
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Shipment")]
pub struct RecipientShipmentByWarehouse {
    pub shipment_id: String,
    pub warehouse_id: String,
    pub status: String,
    pub created_at: String,
    pub recipient_name: String,
    pub total_weight: f64,
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Shipment")]
pub struct CourierShipment {
    pub shipment_id: String,
    pub courier_id: Option<String>,
    pub status: String,
    pub created_at: String,
    pub warehouse_name: String,
    pub total_weight: f64,
}
