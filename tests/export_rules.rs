//! Rules of the table definition and its exports (issue 21, item 15): the access-pattern
//! document lists only the conditions the builder offers, `differences` compares projections,
//! and a shared index is never widened to ALL silently.

mod common;

use dynamo_entity::{Entity, Error, Projection, SortCondition, Table, TableDefinition};

/// AWS's online shop keys an entity's own item with the same value in both keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "c#<customer_id>"]
#[sk = "c#<customer_id>"]
#[gsi1(pk = "CUSTOMER#<customer_id>", sk = "<customer_id>#<joined>", query = "joined", include = "name")]
pub struct Customer {
    pub customer_id: String,
    pub joined: String,
    pub name: String,
}

/// Shares GSI1 with `Customer`, declaring nothing: ALL by default.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "METADATA"]
#[gsi1(pk = "CUSTOMER#<customer_id>", sk = "o#<order_id>")]
pub struct Order {
    pub order_id: String,
    pub customer_id: String,
}

/// The same, saying it reads whole items through the index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "o#<order_id>"]
#[sk = "METADATA"]
#[gsi1(pk = "CUSTOMER#<customer_id>", sk = "o#<order_id>", projection = "all")]
pub struct WholeOrder {
    pub order_id: String,
    pub customer_id: String,
}

#[test]
fn conditions_on_placeholders_fixed_by_the_partition_are_neither_offered_nor_listed() {
    // The sort key holds only the partition's field: one exact key.
    let q = Customer::query_by_customer("ana").request().unwrap();
    assert_eq!(q.sort_condition, SortCondition::Equals("c#ana".into()));
    // Its leading placeholder is the partition's: the builder starts at `joined`.
    let q = Customer::query_joined("ana").joined().gte("2024").request().unwrap();
    assert_eq!(
        q.sort_condition,
        SortCondition::Range { lower: Some("ana#2024".into()), upper: Some(q.sort_condition_upper()) }
    );
    let md = TableDefinition::from_entities(&[Customer::SCHEMA]).unwrap().to_markdown("t");
    assert!(md.contains("| the exact key `c#<customer_id>` |"), "{md}");
    assert!(md.contains("`.joined().eq/lt/lte/gt/gte/between(..)` |"), "{md}");
    assert!(!md.contains(".customer_id()"), "{md}");
}

trait Upper {
    fn sort_condition_upper(&self) -> String;
}

impl Upper for dynamo_entity::QueryRequest {
    fn sort_condition_upper(&self) -> String {
        match &self.sort_condition {
            SortCondition::Range { upper: Some(u), .. } => u.clone(),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_default_projection_never_widens_a_shared_index_silently() {
    let e = TableDefinition::from_entities(&[Customer::SCHEMA, Order::SCHEMA]).unwrap_err();
    let Error::Validation(m) = e else { panic!("{e:?}") };
    assert!(m.contains("index GSI1: Customer declares a narrower projection, but Order declares none"), "{m}");
    // Said out loud, ALL is what the index gets.
    let def = TableDefinition::from_entities(&[Customer::SCHEMA, WholeOrder::SCHEMA]).unwrap();
    assert_eq!(def.indexes[0].projection, Projection::All);
}

#[tokio::test]
async fn differences_report_an_index_that_holds_less_than_the_entities_read() {
    // An existing table whose GSI1 projects the keys only.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, format!("export-rules-{}", std::process::id()));
    let mut def = TableDefinition::from_entities(&[Customer::SCHEMA]).unwrap();
    def.indexes[0].projection = Projection::KeysOnly;
    table.create_table_from(&def).await.unwrap();
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();

    let wanted = TableDefinition::from_entities(&[Customer::SCHEMA]).unwrap();
    assert_eq!(
        wanted.differences(&desc),
        vec!["index GSI1 projects KEYS_ONLY without name, entity_type, which the entities read through it".to_owned()]
    );
    let whole = TableDefinition::from_entities(&[WholeOrder::SCHEMA]).unwrap();
    assert_eq!(whole.differences(&desc), vec!["index GSI1 projects KEYS_ONLY, the entities need ALL".to_owned()]);
    // Holding more than needed is fine.
    assert!(def.differences(&desc).is_empty());
}
