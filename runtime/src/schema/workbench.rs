//! NoSQL Workbench data models (format version 3.0): read one ([`Model::from_json`]) and write a
//! table definition as one ([`TableDefinition::to_workbench_json`]), so that a design opens in
//! Workbench and a design drawn in Workbench can be read here.
//!
//! The format is not published as a schema; this follows the files Workbench writes: a model
//! (`ModelName`, `ModelMetadata`, `DataModel`) of tables, each with its `KeyAttributes`,
//! `NonKeyAttributes`, `GlobalSecondaryIndexes`, `TableFacets` (one per entity: its name, the
//! aliases of its keys and its items) and `TableData` (items in DynamoDB's JSON). Workbench
//! writes the members of a map either typed (`{"S": "x"}`) or as plain JSON (`"x"`): both are
//! read.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Map, Value, json};

use super::TableDefinition;
use crate::error::Error;
use crate::key::attr::AttributeType;
use crate::model::Item;
use crate::model::entity::EntitySchema;

/// A NoSQL Workbench data model: its name and its tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// `ModelName`.
    pub name: String,
    /// `DataModel`: one entry per table.
    pub tables: Vec<WorkbenchTable>,
}

/// A key attribute of a table or index: its name and type (`KeyAttributes.PartitionKey` or
/// `.SortKey`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDef {
    /// `AttributeName`.
    pub name: String,
    /// `AttributeType` (`S`, `N` or `B`).
    pub ty: AttributeType,
}

/// One table of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkbenchTable {
    /// `TableName`.
    pub name: String,
    /// `KeyAttributes.PartitionKey`.
    pub partition_key: KeyDef,
    /// `KeyAttributes.SortKey`.
    pub sort_key: Option<KeyDef>,
    /// `NonKeyAttributes`: name and type (`S`, `N`, `M`, `L`, `BOOL`, ...).
    pub non_key_attributes: Vec<(String, String)>,
    /// `GlobalSecondaryIndexes`.
    pub indexes: Vec<WorkbenchIndex>,
    /// `TableFacets`: one per entity.
    pub facets: Vec<Facet>,
    /// `TableData`: the table's items.
    pub items: Vec<Item>,
    /// `BillingMode` (`PAY_PER_REQUEST` or `PROVISIONED`), if stated.
    pub billing_mode: Option<String>,
}

/// A global secondary index of a model's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkbenchIndex {
    /// `IndexName`.
    pub name: String,
    /// `KeyAttributes.PartitionKey`.
    pub partition_key: KeyDef,
    /// `KeyAttributes.SortKey`.
    pub sort_key: Option<KeyDef>,
    /// `Projection.ProjectionType`: `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection: String,
    /// `Projection.NonKeyAttributes` of an `INCLUDE` projection.
    pub included: Vec<String>,
}

/// A facet: one entity of a table, its key aliases and items.
#[derive(Debug, Clone, PartialEq)]
pub struct Facet {
    /// `FacetName`.
    pub name: String,
    /// `KeyAttributeAlias.PartitionKeyAlias`.
    pub partition_key_alias: String,
    /// `KeyAttributeAlias.SortKeyAlias`.
    pub sort_key_alias: Option<String>,
    /// `NonKeyAttributes`.
    pub non_key_attributes: Vec<String>,
    /// `TableData`: the facet's items.
    pub items: Vec<Item>,
}

fn invalid(what: impl std::fmt::Display) -> Error {
    Error::Validation(format!("not a NoSQL Workbench data model: {what}"))
}

fn text<'v>(v: &'v Value, field: &str, at: &str) -> Result<&'v str, Error> {
    v.get(field).and_then(Value::as_str).ok_or_else(|| invalid(format!("{at} has no `{field}` string")))
}

fn key_attribute(v: &Value, at: &str) -> Result<KeyDef, Error> {
    let ty = match text(v, "AttributeType", at)? {
        "S" => AttributeType::S,
        "N" => AttributeType::N,
        "B" => AttributeType::B,
        other => return Err(invalid(format!("{at}: a key attribute of type `{other}`"))),
    };
    Ok(KeyDef { name: text(v, "AttributeName", at)?.to_owned(), ty })
}

fn keys_of(v: &Value, at: &str) -> Result<(KeyDef, Option<KeyDef>), Error> {
    let keys = v.get("KeyAttributes").ok_or_else(|| invalid(format!("{at} has no `KeyAttributes`")))?;
    let pk = key_attribute(keys.get("PartitionKey").unwrap_or(&Value::Null), &format!("{at}'s partition key"))?;
    let sk = match keys.get("SortKey") {
        Some(sk) if !sk.is_null() => Some(key_attribute(sk, &format!("{at}'s sort key"))?),
        _ => None,
    };
    Ok((pk, sk))
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// A value in DynamoDB's JSON (`{"S": "x"}`), or, inside a map, plain JSON as Workbench also
/// writes it.
fn attribute(v: &Value, at: &str) -> Result<AttributeValue, Error> {
    if let Some(typed) = typed(v, at)? {
        return Ok(typed);
    }
    Ok(plain(v))
}

/// `Some` for a value in DynamoDB's JSON: an object of one member named after a type.
fn typed(v: &Value, at: &str) -> Result<Option<AttributeValue>, Error> {
    let Some(obj) = v.as_object().filter(|o| o.len() == 1) else { return Ok(None) };
    let (ty, inner) = obj.iter().next().expect("one member");
    let bad = || invalid(format!("{at}: `{ty}` holds {inner}"));
    let list_of = |f: &dyn Fn(&Value) -> Option<String>| -> Result<Vec<String>, Error> {
        inner.as_array().ok_or_else(bad)?.iter().map(|x| f(x).ok_or_else(bad)).collect()
    };
    let number = |x: &Value| x.as_str().map(str::to_owned).or_else(|| x.as_number().map(ToString::to_string));
    Ok(Some(match ty.as_str() {
        "S" => AttributeValue::S(inner.as_str().ok_or_else(bad)?.to_owned()),
        "N" => AttributeValue::N(number(inner).ok_or_else(bad)?),
        "BOOL" => AttributeValue::Bool(inner.as_bool().ok_or_else(bad)?),
        "NULL" => AttributeValue::Null(true),
        "B" => AttributeValue::B(Blob::new(base64(inner.as_str().ok_or_else(bad)?).ok_or_else(bad)?)),
        "SS" => AttributeValue::Ss(list_of(&|x| x.as_str().map(str::to_owned))?),
        "NS" => AttributeValue::Ns(list_of(&number)?),
        "L" => AttributeValue::L(
            inner.as_array().ok_or_else(bad)?.iter().map(|x| attribute(x, at)).collect::<Result<_, _>>()?,
        ),
        "M" => AttributeValue::M(
            inner
                .as_object()
                .ok_or_else(bad)?
                .iter()
                .map(|(k, x)| Ok((k.clone(), attribute(x, at)?)))
                .collect::<Result<_, Error>>()?,
        ),
        _ => return Ok(None),
    }))
}

/// Plain JSON as an attribute: strings S, numbers N, arrays L, objects M.
fn plain(v: &Value) -> AttributeValue {
    match v {
        Value::Null => AttributeValue::Null(true),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::String(s) => AttributeValue::S(s.clone()),
        Value::Array(a) => AttributeValue::L(a.iter().map(plain).collect()),
        // Members typed or plain, as in any map Workbench writes.
        Value::Object(o) => AttributeValue::M(
            o.iter().map(|(k, x)| (k.clone(), typed(x, "").ok().flatten().unwrap_or_else(|| plain(x)))).collect(),
        ),
    }
}

fn items(v: Option<&Value>, at: &str) -> Result<Vec<Item>, Error> {
    let Some(rows) = v.and_then(Value::as_array) else { return Ok(Vec::new()) };
    rows.iter()
        .enumerate()
        .map(|(n, row)| {
            let at = format!("{at}, item {n}");
            let obj = row.as_object().ok_or_else(|| invalid(format!("{at} is not an object")))?;
            obj.iter()
                .map(|(k, x)| {
                    let value = typed(x, &at)?.ok_or_else(|| invalid(format!("{at}: `{k}` is not typed ({x})")))?;
                    Ok((k.clone(), value))
                })
                .collect()
        })
        .collect()
}

impl Model {
    /// Reads a data model Workbench wrote (or [`TableDefinition::to_workbench_json`]);
    /// [`Error::Validation`] naming what is missing where the text is not one.
    pub fn from_json(text_of_model: &str) -> Result<Model, Error> {
        let root: Value = serde_json::from_str(text_of_model).map_err(|e| invalid(format!("not JSON: {e}")))?;
        let name = text(&root, "ModelName", "the model")?.to_owned();
        let tables = root
            .get("DataModel")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no `DataModel` list"))?
            .iter()
            .map(|t| {
                let at = format!("table `{}`", t.get("TableName").and_then(Value::as_str).unwrap_or("?"));
                let (partition_key, sort_key) = keys_of(t, &at)?;
                let non_key_attributes = t
                    .get("NonKeyAttributes")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| {
                                Some((
                                    x.get("AttributeName")?.as_str()?.to_owned(),
                                    x.get("AttributeType")?.as_str()?.to_owned(),
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let indexes = t
                    .get("GlobalSecondaryIndexes")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|g| {
                                let name = text(g, "IndexName", &at)?.to_owned();
                                let (partition_key, sort_key) = keys_of(g, &format!("index `{name}`"))?;
                                let projection = g.get("Projection").unwrap_or(&Value::Null);
                                Ok(WorkbenchIndex {
                                    name,
                                    partition_key,
                                    sort_key,
                                    projection: projection
                                        .get("ProjectionType")
                                        .and_then(Value::as_str)
                                        .unwrap_or("ALL")
                                        .to_owned(),
                                    included: strings(projection.get("NonKeyAttributes")),
                                })
                            })
                            .collect::<Result<Vec<_>, Error>>()
                    })
                    .transpose()?
                    .unwrap_or_default();
                let facets = t
                    .get("TableFacets")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|f| {
                                let name = text(f, "FacetName", &at)?.to_owned();
                                let alias = f.get("KeyAttributeAlias").unwrap_or(&Value::Null);
                                Ok(Facet {
                                    partition_key_alias: text(alias, "PartitionKeyAlias", &format!("facet `{name}`"))?
                                        .to_owned(),
                                    sort_key_alias: alias
                                        .get("SortKeyAlias")
                                        .and_then(Value::as_str)
                                        .map(str::to_owned),
                                    non_key_attributes: strings(f.get("NonKeyAttributes")),
                                    items: items(f.get("TableData"), &format!("facet `{name}`"))?,
                                    name,
                                })
                            })
                            .collect::<Result<Vec<_>, Error>>()
                    })
                    .transpose()?
                    .unwrap_or_default();
                Ok(WorkbenchTable {
                    name: text(t, "TableName", "a table")?.to_owned(),
                    partition_key,
                    sort_key,
                    non_key_attributes,
                    indexes,
                    facets,
                    items: items(t.get("TableData"), &at)?,
                    billing_mode: t.get("BillingMode").and_then(Value::as_str).map(str::to_owned),
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Model { name, tables })
    }

    /// The model as Workbench's JSON (format version 3.0).
    pub fn to_json(&self) -> String {
        let key = |k: &KeyDef| json!({"AttributeName": k.name, "AttributeType": k.ty.as_str()});
        let keys = |pk: &KeyDef, sk: &Option<KeyDef>| {
            let mut m = Map::new();
            m.insert("PartitionKey".into(), key(pk));
            if let Some(sk) = sk {
                m.insert("SortKey".into(), key(sk));
            }
            Value::Object(m)
        };
        let tables: Vec<Value> = self
            .tables
            .iter()
            .map(|t| {
                let mut table = Map::new();
                table.insert("TableName".into(), json!(t.name));
                table.insert("KeyAttributes".into(), keys(&t.partition_key, &t.sort_key));
                let non_key: Vec<Value> =
                    t.non_key_attributes.iter().map(|(n, ty)| json!({"AttributeName": n, "AttributeType": ty})).collect();
                table.insert("NonKeyAttributes".into(), Value::Array(non_key));
                let facets: Vec<Value> = t
                    .facets
                    .iter()
                    .map(|f| {
                        let mut alias = Map::new();
                        alias.insert("PartitionKeyAlias".into(), json!(f.partition_key_alias));
                        if let Some(sk) = &f.sort_key_alias {
                            alias.insert("SortKeyAlias".into(), json!(sk));
                        }
                        json!({
                            "FacetName": f.name,
                            "KeyAttributeAlias": alias,
                            "TableData": f.items.iter().map(item_json).collect::<Vec<_>>(),
                            "NonKeyAttributes": f.non_key_attributes,
                            "DataAccess": {"MySql": {}},
                        })
                    })
                    .collect();
                table.insert("TableFacets".into(), Value::Array(facets));
                let indexes: Vec<Value> = t
                    .indexes
                    .iter()
                    .map(|i| {
                        let mut projection = Map::new();
                        projection.insert("ProjectionType".into(), json!(i.projection));
                        if !i.included.is_empty() {
                            projection.insert("NonKeyAttributes".into(), json!(i.included));
                        }
                        json!({"IndexName": i.name, "KeyAttributes": keys(&i.partition_key, &i.sort_key), "Projection": projection})
                    })
                    .collect();
                table.insert("GlobalSecondaryIndexes".into(), Value::Array(indexes));
                table.insert("TableData".into(), Value::Array(t.items.iter().map(item_json).collect()));
                table.insert("DataAccess".into(), json!({"MySql": {}}));
                table.insert("BillingMode".into(), json!(t.billing_mode.as_deref().unwrap_or("PAY_PER_REQUEST")));
                Value::Object(table)
            })
            .collect();
        let model = json!({
            "ModelName": self.name,
            "ModelMetadata": {
                "Author": "",
                "DateCreated": "",
                "DateLastModified": "",
                "Description": "written by dynamo-entity",
                "AWSService": "Amazon DynamoDB",
                "Version": "3.0",
            },
            "DataModel": tables,
        });
        serde_json::to_string_pretty(&model).expect("a JSON value is always written")
    }
}

/// An item in DynamoDB's JSON, members in name order.
fn item_json(item: &Item) -> Value {
    let sorted: BTreeMap<&String, &AttributeValue> = item.iter().collect();
    Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), value_json(v))).collect())
}

fn value_json(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({"S": s}),
        AttributeValue::N(n) => json!({"N": n}),
        AttributeValue::Bool(b) => json!({"BOOL": b}),
        AttributeValue::Null(_) => json!({"NULL": true}),
        AttributeValue::B(b) => json!({"B": base64_encode(b.as_ref())}),
        AttributeValue::Ss(s) => json!({"SS": s}),
        AttributeValue::Ns(n) => json!({"NS": n}),
        AttributeValue::Bs(b) => json!({"BS": b.iter().map(|b| base64_encode(b.as_ref())).collect::<Vec<_>>()}),
        AttributeValue::L(l) => json!({"L": l.iter().map(value_json).collect::<Vec<_>>()}),
        AttributeValue::M(m) => json!({"M": item_json(m)}),
        _ => Value::Null,
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(BASE64[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64(text: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = BASE64.iter().position(|b| *b == c)? as u32;
        bits = (bits << 6) | v;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

/// The entity of `schema` an item is: its type attribute names it, or (no type attribute) its
/// keys start with the literal text of the entity's key templates.
fn is_of(schema: &EntitySchema, item: &Item) -> bool {
    if !schema.type_attr.is_empty()
        && let Some(AttributeValue::S(t)) = item.get(schema.type_attr)
    {
        return t == schema.entity_type;
    }
    let prefix = |template: &str| template.split('<').next().unwrap_or_default().to_owned();
    let starts = |k: &crate::model::entity::KeySchema| match item.get(k.attr).and_then(|v| k.text_of(v)) {
        Some(text) => text.starts_with(&prefix(k.template)),
        None => false,
    };
    starts(&schema.pk) && schema.sk.as_ref().is_none_or(starts)
}

impl TableDefinition {
    /// The table as a NoSQL Workbench data model named `table_name`: its keys, global indexes,
    /// one facet per entity (key aliases: the entity's key templates; items: the samples that are
    /// the entity's), and `samples` as the table's data. Attribute types are read from the
    /// samples (`S` where no sample holds the attribute).
    pub fn to_workbench(&self, table_name: &str, samples: &[Item]) -> Model {
        let key = |attr: &str| KeyDef { name: attr.to_owned(), ty: self.attribute_type(attr) };
        let mut non_key: BTreeMap<String, String> = BTreeMap::new();
        let is_key = |a: &str| a == self.pk_attr || self.sk_attr.as_deref() == Some(a);
        for e in &self.entities {
            for a in e.attributes.iter().chain(std::iter::once(&e.type_attr)).filter(|a| !a.is_empty() && !is_key(a)) {
                non_key.entry((*a).to_owned()).or_insert_with(|| "S".to_owned());
            }
        }
        for item in samples {
            for (a, v) in item.iter().filter(|(a, _)| !is_key(a)) {
                let ty = value_json(v).as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_else(|| "S".into());
                non_key.insert(a.clone(), ty);
            }
        }
        let facets = self
            .entities
            .iter()
            .map(|e| Facet {
                name: e.entity_type.to_owned(),
                partition_key_alias: e.pk.template.to_owned(),
                sort_key_alias: e.sk.map(|k| k.template.to_owned()),
                non_key_attributes: e.attributes.iter().filter(|a| !is_key(a)).map(|a| (*a).to_owned()).collect(),
                items: samples.iter().filter(|i| is_of(e, i)).cloned().collect(),
            })
            .collect();
        let indexes = self
            .indexes
            .iter()
            .filter(|i| i.kind == crate::model::entity::IndexKind::Global)
            .map(|i| WorkbenchIndex {
                name: i.name.clone(),
                partition_key: key(&i.pk_attr),
                sort_key: i.sk_attr.as_deref().map(key),
                projection: i.projection.type_name().to_owned(),
                included: match &i.projection {
                    super::Projection::Include(a) => a.clone(),
                    _ => Vec::new(),
                },
            })
            .collect();
        let billing = match &self.options.billing {
            Some(super::Billing::Provisioned(_)) => "PROVISIONED",
            _ => "PAY_PER_REQUEST",
        };
        Model {
            name: table_name.to_owned(),
            tables: vec![WorkbenchTable {
                name: table_name.to_owned(),
                partition_key: key(&self.pk_attr),
                sort_key: self.sk_attr.as_deref().map(key),
                non_key_attributes: non_key.into_iter().collect(),
                indexes,
                facets,
                items: samples.to_vec(),
                billing_mode: Some(billing.to_owned()),
            }],
        }
    }

    /// [`TableDefinition::to_workbench`] as Workbench's JSON: a file Workbench imports.
    pub fn to_workbench_json(&self, table_name: &str, samples: &[Item]) -> String {
        self.to_workbench(table_name, samples).to_json()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"abcd", &[0, 255, 16, 7, 200]] {
            let text = base64_encode(bytes);
            assert_eq!(base64(&text).as_deref(), Some(bytes), "{text}");
        }
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
    }

    #[test]
    fn maps_hold_typed_or_plain_members() {
        let model = r#"{"ModelName": "m", "DataModel": [{"TableName": "t",
            "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
            "TableData": [{"PK": {"S": "a"}, "m": {"M": {"plain": true, "typed": {"N": "2"}, "n": 1.5}}}]}]}"#;
        let m = Model::from_json(model).unwrap();
        let AttributeValue::M(map) = &m.tables[0].items[0]["m"] else { panic!() };
        assert_eq!(map["plain"], AttributeValue::Bool(true));
        assert_eq!(map["typed"], AttributeValue::N("2".into()));
        assert_eq!(map["n"], AttributeValue::N("1.5".into()));
        let again = Model::from_json(&m.to_json()).unwrap();
        assert_eq!(again.tables[0].items, m.tables[0].items);
    }

    #[test]
    fn what_is_not_a_model_is_refused_by_name() {
        assert!(matches!(Model::from_json("{}"), Err(Error::Validation(m)) if m.contains("ModelName")));
        let no_keys = r#"{"ModelName": "m", "DataModel": [{"TableName": "t"}]}"#;
        assert!(matches!(Model::from_json(no_keys), Err(Error::Validation(m)) if m.contains("KeyAttributes")));
        assert!(matches!(Model::from_json("not json"), Err(Error::Validation(_))));
    }
}
