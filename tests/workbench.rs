//! NoSQL Workbench data models: the seven models AWS's aws-dynamodb-examples publish
//! (`../shared/data/aws-designs/*.json`, files of others: read here, never committed) are read,
//! and a design declared as entities is written as a model that holds what Workbench's file
//! holds. `#[ignore]`d so that a clone without the files passes; `.ci/run` runs them with
//! `--ignored`.

use dynamo_entity::workbench::Model;
use dynamo_entity::{AttributeType, Entity, Item, TableDefinition};
use serde_json::Value;

fn designs() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/aws-designs");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// Every model reads whole: tables, key attributes, indexes, facets and items, checked against
/// the file's JSON itself.
#[test]
#[ignore = "reads ../shared/data/aws-designs (run with --ignored)"]
fn every_published_model_is_read() {
    let designs = designs();
    assert_eq!(designs.len(), 7, "{:?}", designs.iter().map(|d| &d.0).collect::<Vec<_>>());
    for (file, text) in &designs {
        let model = Model::from_json(text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let raw: Value = serde_json::from_str(text).unwrap();
        assert_eq!(model.name, raw["ModelName"].as_str().unwrap(), "{file}");
        let tables = raw["DataModel"].as_array().unwrap();
        assert_eq!(model.tables.len(), tables.len(), "{file}");
        for (t, r) in model.tables.iter().zip(tables) {
            assert_eq!(t.name, r["TableName"].as_str().unwrap());
            let pk = &r["KeyAttributes"]["PartitionKey"];
            assert_eq!(
                (t.partition_key.name.as_str(), t.partition_key.ty.as_str()),
                (pk["AttributeName"].as_str().unwrap(), pk["AttributeType"].as_str().unwrap())
            );
            let sk = &r["KeyAttributes"]["SortKey"];
            assert_eq!(t.sort_key.as_ref().map(|k| k.name.as_str()), sk["AttributeName"].as_str(), "{file}");
            let gsis = r["GlobalSecondaryIndexes"].as_array().map_or(&[][..], Vec::as_slice);
            assert_eq!(
                t.indexes.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
                gsis.iter().map(|g| g["IndexName"].as_str().unwrap()).collect::<Vec<_>>()
            );
            for (i, g) in t.indexes.iter().zip(gsis) {
                assert_eq!(i.partition_key.name, g["KeyAttributes"]["PartitionKey"]["AttributeName"].as_str().unwrap());
                assert_eq!(i.projection, g["Projection"]["ProjectionType"].as_str().unwrap());
            }
            let facets = r["TableFacets"].as_array().map_or(&[][..], Vec::as_slice);
            assert_eq!(t.facets.len(), facets.len(), "{file}");
            for (f, rf) in t.facets.iter().zip(facets) {
                assert_eq!(f.name, rf["FacetName"].as_str().unwrap());
                assert_eq!(f.partition_key_alias, rf["KeyAttributeAlias"]["PartitionKeyAlias"].as_str().unwrap());
                assert_eq!(f.items.len(), rf["TableData"].as_array().map_or(0, Vec::len), "{file}: {}", f.name);
            }
            let data = r["TableData"].as_array().map_or(&[][..], Vec::as_slice);
            assert_eq!(t.items.len(), data.len(), "{file}");
            // Each item's top-level members, as typed in the file.
            for (item, row) in t.items.iter().zip(data) {
                let row = row.as_object().unwrap();
                assert_eq!(item.len(), row.len(), "{file}");
                for (name, v) in row {
                    let ty = v.as_object().unwrap().keys().next().unwrap();
                    let ours = item.get(name).unwrap_or_else(|| panic!("{file}: {name}"));
                    let matches = match (ty.as_str(), ours) {
                        ("S", dynamo_entity::AttributeValue::S(s)) => Some(s.as_str()) == v["S"].as_str(),
                        ("N", dynamo_entity::AttributeValue::N(n)) => Some(n.as_str()) == v["N"].as_str(),
                        ("M", dynamo_entity::AttributeValue::M(_)) | ("L", dynamo_entity::AttributeValue::L(_)) => true,
                        ("BOOL", dynamo_entity::AttributeValue::Bool(b)) => v["BOOL"].as_bool() == Some(*b),
                        ("SS", dynamo_entity::AttributeValue::Ss(s)) => {
                            let file: Vec<&str> =
                                v["SS"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
                            file == s.iter().map(String::as_str).collect::<Vec<_>>()
                        }
                        _ => false,
                    };
                    assert!(matches, "{file}: {name} = {v} read as {ours:?}");
                }
            }
        }
    }
}

/// AWS's session store, declared as two entities over its items (the table's keys written as
/// Workbench's file writes them, an inverted index on `SK`/`PK`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "suuid#<session>"]
#[sk = "c#<customer>"]
#[gsi1(
    index = "GSI1_inverse",
    pk = "c#<customer>",
    pk_attr = "SK",
    sk = "suuid#<session>",
    sk_attr = "PK",
    query = "by_customer"
)]
#[entity(key_attributes = false, type_attr = false, type_name = "Session")]
pub struct Session {
    pub session: String,
    pub customer: String,
    pub last_login_time: String,
    pub access_token: String,
    pub session_state: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "suuid#<parent>"]
#[sk = "child#suuid#<child>"]
#[gsi1(
    index = "GSI1_inverse",
    pk = "child#suuid#<child>",
    pk_attr = "SK",
    sk = "suuid#<parent>",
    sk_attr = "PK",
    query = "by_child"
)]
#[entity(key_attributes = false, type_attr = false, type_name = "ChildSession")]
pub struct ChildSession {
    pub parent: String,
    pub child: String,
    pub access_token: String,
    pub session_state: String,
}

fn sorted(mut items: Vec<Item>) -> Vec<Item> {
    let key = |i: &Item| format!("{:?}{:?}", i.get("PK"), i.get("SK"));
    items.sort_by_key(key);
    items
}

#[test]
#[ignore = "reads ../shared/data/aws-designs (run with --ignored)"]
fn a_declared_design_is_written_as_workbench_wrote_it() {
    let (_, text) = designs().into_iter().find(|(f, _)| f == "SessionManagementSchema.json").unwrap();
    let aws = Model::from_json(&text).unwrap();
    let table = &aws.tables[0];
    // The entities read and write AWS's items byte for byte.
    for item in &table.items {
        let back = match item.get("SK") {
            Some(dynamo_entity::AttributeValue::S(sk)) if sk.starts_with("child#") => {
                ChildSession::from_item(item.clone()).unwrap().to_item().unwrap()
            }
            _ => Session::from_item(item.clone()).unwrap().to_item().unwrap(),
        };
        assert_eq!(&back, item);
    }
    let definition = TableDefinition::from_entities(&[Session::SCHEMA, ChildSession::SCHEMA]).unwrap();
    let written = definition.to_workbench_json(&table.name, &table.items);
    let ours = Model::from_json(&written).unwrap();
    let t = &ours.tables[0];
    assert_eq!(
        (t.name.as_str(), &t.partition_key, &t.sort_key),
        (table.name.as_str(), &table.partition_key, &table.sort_key)
    );
    assert_eq!(t.partition_key.ty, AttributeType::S);
    assert_eq!(t.indexes.len(), 1);
    let (i, a) = (&t.indexes[0], &table.indexes[0]);
    assert_eq!(
        (&i.name, &i.partition_key, &i.sort_key, &i.projection),
        (&a.name, &a.partition_key, &a.sort_key, &a.projection)
    );
    assert_eq!(sorted(t.items.clone()), sorted(table.items.clone()));
    // One facet per entity, every item in the facet of its entity.
    let facets: Vec<(&str, usize)> = t.facets.iter().map(|f| (f.name.as_str(), f.items.len())).collect();
    assert_eq!(facets, [("Session", 3), ("ChildSession", 3)]);
    assert_eq!(t.facets[1].sort_key_alias.as_deref(), Some("child#suuid#<child>"));
    for (name, _) in &table.non_key_attributes {
        assert!(
            t.non_key_attributes.iter().any(|(n, _)| n == name) || name == "customer_id" || name.starts_with("parent_"),
            "{name}"
        );
    }
}
