//! The table definition a set of entities needs: key schema, every index they use, TTL.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::key::attr::AttributeType;
use crate::model::entity::EntitySchema;
use crate::model::entity::IndexKind;
use crate::model::entity::KeySchema;

mod apply;
pub mod cost;
mod create;
pub mod export;
mod global;
mod global_export;
mod iam;
mod options;
mod picture;
mod plan;
mod restore;
mod sse;
pub mod workbench;

pub use apply::{Apply, ApplyError, ApplyProgress, DEFAULT_APPLY_TIME_LIMIT};
pub use global::{GlobalTable, MultiRegionConsistency, Replica, WriteMode};
pub use iam::IamPolicy;
pub use options::{Billing, InsightsMode, Projection, StreamView, TableClass, TableOptions, Throughput};
pub use plan::{TableChange, TablePlan};
pub use restore::{Backup, DEFAULT_RESTORE_TIME_LIMIT, Restore, RestorePoint};
pub use sse::Sse;

/// A secondary index of a [`TableDefinition`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDefinition {
    /// The index name.
    pub name: String,
    /// Global or local.
    pub kind: IndexKind,
    /// The partition-key attribute (the table's, for a local index).
    pub pk_attr: String,
    /// The sort-key attribute, if any.
    pub sk_attr: Option<String>,
    /// Every partition-key attribute, in order: `[pk_attr]`, or a multi-attribute index's one
    /// to four (`#[gsi1(pk = ["tournament_id", "region"], ..)]`; `pk_attr` is the first).
    pub pk_attrs: Vec<String>,
    /// Every sort-key attribute, in order: none, `[sk_attr]`, or a multi-attribute index's one
    /// to four (`sk_attr` is the first).
    pub sk_attrs: Vec<String>,
    /// The attributes it holds ([`Projection::All`] unless set).
    pub projection: Projection,
    /// Its own provisioned capacity (global indexes, provisioned billing only).
    pub throughput: Option<Throughput>,
    /// Its most read and write request units per second (global indexes, on-demand billing;
    /// [`TableDefinition::index_max_on_demand`]): `None` not stated (kept; no maximum for a new
    /// index).
    pub max_on_demand: Option<Throughput>,
    /// Whether items written before the index was added lack its keys, so that `backfill`
    /// must write them: a key made from a template (`GSI1PK` = `STATUS#<status>`), an attribute
    /// the library writes for the index only. `false` when every key attribute is one the items
    /// hold anyway (a field's own attribute, the table's keys of an inverted index, each
    /// attribute of a multi-attribute index): DynamoDB indexes the items already written.
    pub needs_backfill: bool,
}

impl IndexDefinition {
    /// Whether the index is keyed on more than one attribute on a side (a multi-attribute
    /// index, DynamoDB's November 2025 keys): its key schema lists [`IndexDefinition::pk_attrs`]
    /// as HASH and [`IndexDefinition::sk_attrs`] as RANGE.
    pub fn is_multi_attribute(&self) -> bool {
        self.pk_attrs.len() > 1 || self.sk_attrs.len() > 1
    }
}

/// What CreateTable needs, derived from the entities of one table. Every key attribute is a
/// string (S), except the attribute of a field that keys an index as it is (`pk_attr = "map"`
/// with `pk = "<map>"`), which has the field's type ([`TableDefinition::attribute_types`]).
/// [`TableDefinition::from_entities`] gives an on-demand table whose indexes project what
/// the entities declare (see [`crate::IndexProjection`]: `ALL` unless every entity on an index
/// says `keys_only` or `include`); the options ([`TableOptions`], [`Projection`] per index) are set with its builder
/// methods, applied by `Table::create_table_from` and written out as Terraform, CloudFormation and
/// Markdown by [`TableDefinition::to_terraform`], [`TableDefinition::to_cloudformation_json`],
/// [`TableDefinition::to_cloudformation_yaml`] and [`TableDefinition::to_markdown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDefinition {
    /// The table's partition-key attribute.
    pub pk_attr: String,
    /// The table's sort-key attribute, if any.
    pub sk_attr: Option<String>,
    /// Secondary indexes, by name.
    pub indexes: Vec<IndexDefinition>,
    /// The TTL attribute, if any entity has one: TTL on for it. `None`: TTL not stated (`apply`
    /// leaves the table's TTL as it is), unless [`TableOptions::ttl_off`] states it off.
    pub ttl_attr: Option<String>,
    /// Stream, backups, deletion protection, billing ([`TableOptions::default`] from the entities).
    pub options: TableOptions,
    /// The entities the definition was built from, for the access-pattern document.
    pub entities: Vec<EntitySchema>,
    /// The type of every key attribute of the table and its indexes.
    pub attribute_types: BTreeMap<String, AttributeType>,
    /// IAM policies written beside the table by the Terraform and CloudFormation exports
    /// ([`TableDefinition::with_iam_policy`]).
    pub iam_policies: Vec<IamPolicy>,
    /// The entities' vector indexes (`#[vector(..)]`), by name: carried by `CreateTable`'s
    /// `VectorIndexes`.
    pub vector_indexes: Vec<crate::model::vector::VectorIndexSchema>,
}

impl TableDefinition {
    /// The definition for `entities`; conflicting definitions are [`Error::Validation`]: two
    /// entities with different table keys, one index with different key attributes, two TTL
    /// attributes, a `tenant_shared` entity whose partition keys could be a tenant entity's
    /// (its literal prefix starts a tenant entity's keys: `ORG#<org_id>` beside
    /// `ORG#<tenant_id>#USER#..`).
    ///
    /// `entities` are schemas (`&[User::SCHEMA, Order::SCHEMA]`) or references to them, such as a
    /// collection's members (`TableDefinition::from_entities(Chat::MEMBERS)`).
    pub fn from_entities<S: std::borrow::Borrow<EntitySchema>>(entities: &[S]) -> Result<TableDefinition, Error> {
        let entities: Vec<&EntitySchema> = entities.iter().map(std::borrow::Borrow::borrow).collect();
        let Some(first) = entities.first().copied() else {
            return Err(Error::Validation("a table needs at least one entity".into()));
        };
        crate::model::tenant::check_shared_apart(entities.iter().copied())?;
        let pk_attr = first.pk.attr;
        let sk_attr = first.sk.map(|k| k.attr);
        let mut indexes: BTreeMap<&str, (IndexDefinition, &str)> = BTreeMap::new();
        let mut ttl: Option<(&str, &str)> = None;
        // Key attribute → (type, who declares it): one attribute has one type in a table.
        let mut types: BTreeMap<&str, (AttributeType, String)> = BTreeMap::new();
        let mut declare = |key: &KeySchema, owner: String| -> Result<(), Error> {
            match types.get(key.attr) {
                Some((ty, first)) if *ty != key.ty => Err(Error::Validation(format!(
                    "attribute `{}` is {} as {first} but {} as {owner}: one attribute has one type in a table",
                    key.attr,
                    ty.describe(),
                    key.ty.describe()
                ))),
                Some(_) => Ok(()),
                None => {
                    types.insert(key.attr, (key.ty, owner));
                    Ok(())
                }
            }
        };
        for &e in &entities {
            declare(&e.pk, format!("the partition key of {}", e.entity_type))?;
            if let Some(sk) = &e.sk {
                declare(sk, format!("the sort key of {}", e.entity_type))?;
            }
            for i in e.indexes {
                let pk = i.partition_keys().iter().map(|k| (k, "partition"));
                for (key, which) in pk.chain(i.sort_keys().iter().map(|k| (k, "sort"))) {
                    declare(key, format!("the {which} key of index {} of {}", i.name, e.entity_type))?;
                }
            }
        }
        for &e in &entities {
            if e.pk.attr != pk_attr || e.sk.map(|k| k.attr) != sk_attr {
                return Err(Error::Validation(format!(
                    "{} has keys {}/{:?} but {} has {pk_attr}/{sk_attr:?}: one table has one key schema",
                    e.entity_type,
                    e.pk.attr,
                    e.sk.map(|k| k.attr),
                    first.entity_type
                )));
            }
            for i in e.indexes {
                let def = IndexDefinition {
                    name: i.name.to_owned(),
                    kind: i.kind,
                    pk_attr: i.pk.map_or(pk_attr, |k| k.attr).to_owned(),
                    sk_attr: i.sk.map(|k| k.attr.to_owned()),
                    pk_attrs: match i.partition_keys() {
                        [] => vec![pk_attr.to_owned()],
                        keys => keys.iter().map(|k| k.attr.to_owned()).collect(),
                    },
                    sk_attrs: i.sort_keys().iter().map(|k| k.attr.to_owned()).collect(),
                    projection: entity_projection(e, i),
                    throughput: None,
                    max_on_demand: None,
                    needs_backfill: written_for_index(e, i),
                };
                match indexes.get_mut(i.name) {
                    Some((existing, owner))
                        if (existing.kind, &existing.pk_attrs, &existing.sk_attrs)
                            != (def.kind, &def.pk_attrs, &def.sk_attrs) =>
                    {
                        return Err(Error::Validation(format!(
                            "index {} is {existing:?} for {owner} but {def:?} for {}",
                            i.name, e.entity_type
                        )));
                    }
                    Some((existing, _)) => {
                        existing.projection = merge_projection(&existing.projection, def.projection);
                        existing.needs_backfill |= def.needs_backfill;
                    }
                    None => {
                        indexes.insert(i.name, (def, e.entity_type));
                    }
                }
            }
            if let Some(attr) = e.ttl_attr {
                match ttl {
                    Some((other, owner)) if other != attr => {
                        return Err(Error::Validation(format!(
                            "{owner} has TTL attribute `{other}` but {} has `{attr}`: DynamoDB allows one per table",
                            e.entity_type
                        )));
                    }
                    _ => ttl = Some((attr, e.entity_type)),
                }
            }
        }
        for (d, _) in indexes.values() {
            if d.projection.attributes().len() > 100 {
                return Err(Error::Validation(format!(
                    "index {}: the entities include {} attributes; DynamoDB's INCLUDE projection names at most 100",
                    d.name,
                    d.projection.attributes().len()
                )));
            }
        }
        // A default ALL beside a declared narrower projection would widen a shared index
        // without anyone saying so: one of the two must.
        for name in indexes.keys() {
            let uses = entities.iter().flat_map(|e| e.indexes.iter().filter(|i| i.name == *name).map(move |i| (e, i)));
            let silent = uses.clone().find(|(_, i)| !i.projection_declared);
            let narrow = uses
                .clone()
                .find(|(_, i)| i.projection_declared && i.projection != crate::model::entity::IndexProjection::All);
            if let (Some((silent, _)), Some((narrow, _))) = (silent, narrow) {
                return Err(Error::Validation(format!(
                    "index {name}: {} declares a narrower projection, but {} declares none, which means ALL and would \
                     widen the index to ALL for both: write `projection = \"all\"` on {}'s index if it reads whole \
                     items through it, or give it the projection it needs",
                    narrow.entity_type, silent.entity_type, silent.entity_type
                )));
            }
        }
        let local = indexes.values().filter(|(d, _)| d.kind == IndexKind::Local).count();
        let global = indexes.len() - local;
        if global > 20 || local > 5 {
            return Err(Error::Validation(format!(
                "{global} global and {local} local indexes: DynamoDB allows 20 and 5 per table"
            )));
        }
        if local > 0 && sk_attr.is_none() {
            return Err(Error::Validation("local secondary indexes need a table with a sort key".into()));
        }
        let mut vector_indexes: Vec<crate::model::vector::VectorIndexSchema> = Vec::new();
        // A search schema's attributes are declared in AttributeDefinitions as key attributes
        // are (DynamoDB requires it), with one type each in the table.
        for &e in &entities {
            for v in e.vectors {
                for (attr, ty) in v.search_attributes() {
                    declare(
                        &KeySchema::of(attr, "", ty),
                        format!("the search schema of vector index {} of {}", v.name, e.entity_type),
                    )?;
                }
            }
        }
        for v in entities.iter().flat_map(|e| e.vectors) {
            match vector_indexes.iter().find(|x| x.name == v.name) {
                Some(x) if x != v => {
                    return Err(Error::Validation(format!(
                        "vector index {} is declared twice, differently: one index has one definition",
                        v.name
                    )));
                }
                Some(_) => {}
                None if indexes.contains_key(v.name) => {
                    return Err(Error::Validation(format!("{} names a secondary index and a vector index", v.name)));
                }
                None => vector_indexes.push(*v),
            }
        }
        Ok(TableDefinition {
            pk_attr: pk_attr.to_owned(),
            sk_attr: sk_attr.map(str::to_owned),
            indexes: indexes.into_values().map(|(d, _)| d).collect(),
            ttl_attr: ttl.map(|(a, _)| a.to_owned()),
            options: TableOptions::default(),
            entities: entities.iter().map(|e| **e).collect(),
            attribute_types: types.into_iter().map(|(a, (t, _))| (a.to_owned(), t)).collect(),
            iam_policies: Vec::new(),
            vector_indexes,
        })
    }

    /// Every key attribute of the table and its indexes, once each.
    pub fn key_attributes(&self) -> Vec<String> {
        let mut attrs: Vec<String> = std::iter::once(self.pk_attr.clone())
            .chain(self.sk_attr.clone())
            .chain(self.indexes.iter().flat_map(|i| i.pk_attrs.iter().chain(&i.sk_attrs).cloned()))
            .collect();
        attrs.sort();
        attrs.dedup();
        attrs
    }

    /// The attributes CreateTable declares (`AttributeDefinitions`), with their types: every key
    /// attribute of the table and its indexes, and every attribute of a vector index's search
    /// schema, once each, in name order.
    pub fn attribute_definitions(&self) -> Vec<(String, AttributeType)> {
        let mut attrs = self.key_attributes();
        attrs.extend(self.vector_indexes.iter().flat_map(|v| v.search_attributes().map(|(a, _)| a.to_owned())));
        attrs.sort();
        attrs.dedup();
        attrs.into_iter().map(|a| (self.attribute_type(&a), a)).map(|(t, a)| (a, t)).collect()
    }

    /// The type of key attribute `attr` (S for one the definition does not know).
    pub fn attribute_type(&self, attr: &str) -> AttributeType {
        self.attribute_types.get(attr).copied().unwrap_or_default()
    }
}

/// Whether entity `e` writes an attribute of its own for a key of index `i` (a key template),
/// rather than keying it on attributes its items hold anyway (a field's own attribute, the
/// table's keys): items written before the index lack such an attribute.
fn written_for_index(e: &EntitySchema, i: &crate::model::entity::IndexSchema) -> bool {
    let held = |attr: &str| attr == e.pk.attr || e.sk.is_some_and(|k| k.attr == attr) || e.attributes.contains(&attr);
    i.partition_keys().iter().chain(i.sort_keys()).any(|k| !held(k.attr))
}

/// The projection entity `e` declares for index `i`: an `INCLUDE` also holds the type
/// attribute (a query through the index steps over other entities' items by it); key
/// attributes are projected always and not listed.
fn entity_projection(e: &EntitySchema, i: &crate::model::entity::IndexSchema) -> Projection {
    match i.projection {
        crate::model::entity::IndexProjection::All => Projection::All,
        crate::model::entity::IndexProjection::KeysOnly => Projection::KeysOnly,
        crate::model::entity::IndexProjection::Include(attrs) => {
            let mut keys = vec![Some(e.pk.attr), e.sk.map(|k| k.attr)];
            keys.extend(i.partition_keys().iter().chain(i.sort_keys()).map(|k| Some(k.attr)));
            let mut out: Vec<String> = Vec::with_capacity(attrs.len() + 1);
            for a in attrs.iter().chain(std::iter::once(&e.type_attr)) {
                if !a.is_empty() && !keys.contains(&Some(*a)) && !out.iter().any(|o| o == a) {
                    out.push((*a).to_owned());
                }
            }
            Projection::Include(out)
        }
    }
}

/// The partition- and sort-key attributes of a key schema DescribeTable reports.
fn key_names(schema: &[aws_sdk_dynamodb::types::KeySchemaElement]) -> (Option<&str>, Option<&str>) {
    use aws_sdk_dynamodb::types::KeyType;
    let of = |kind: KeyType| schema.iter().find(|k| *k.key_type() == kind).map(|k| k.attribute_name());
    (of(KeyType::Hash), of(KeyType::Range))
}

/// Key attributes as `(PK, SK)`.
fn show_keys((pk, sk): (Option<&str>, Option<&str>)) -> String {
    match (pk, sk) {
        (Some(pk), Some(sk)) => format!("({pk}, {sk})"),
        (Some(pk), None) => format!("({pk})"),
        (None, _) => "(no partition key)".to_owned(),
    }
}

/// Every partition- and sort-key attribute of a key schema DescribeTable reports, in order (a
/// multi-attribute index has up to four of each).
fn all_keys(schema: &[aws_sdk_dynamodb::types::KeySchemaElement]) -> (Vec<&str>, Vec<&str>) {
    use aws_sdk_dynamodb::types::KeyType;
    let of = |kind: KeyType| schema.iter().filter(|k| *k.key_type() == kind).map(|k| k.attribute_name()).collect();
    (of(KeyType::Hash), of(KeyType::Range))
}

/// Key attributes as `(a + b, c + d)`.
fn show_all((pk, sk): &(Vec<&str>, Vec<&str>)) -> String {
    if sk.is_empty() { format!("({})", pk.join(" + ")) } else { format!("({}, {})", pk.join(" + "), sk.join(" + ")) }
}

/// What an existing index's projection lacks of `wanted`, in words; `None` when it holds at
/// least that (holding more is fine: other code may read it).
fn lacks(found: &aws_sdk_dynamodb::types::Projection, wanted: &Projection) -> Option<String> {
    use aws_sdk_dynamodb::types::ProjectionType;
    let found_type = found.projection_type().cloned().unwrap_or(ProjectionType::All);
    let found_attrs = found.non_key_attributes();
    match (wanted, &found_type) {
        (_, ProjectionType::All) | (Projection::KeysOnly, _) => None,
        (Projection::All, other) => Some(format!("projects {}, the entities need ALL", other.as_str())),
        (Projection::Include(attrs), _) => {
            let missing: Vec<&str> =
                attrs.iter().map(String::as_str).filter(|a| !found_attrs.iter().any(|f| f == a)).collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "projects {} without {}, which the entities read through it",
                    found_type.as_str(),
                    missing.join(", ")
                )
            })
        }
    }
}

/// The projection of an index two entities use: one that holds what each of them needs. Any
/// `ALL` makes `ALL`; `INCLUDE`s add up (with `KEYS_ONLY`, an `INCLUDE` stays one).
fn merge_projection(a: &Projection, b: Projection) -> Projection {
    match (a, b) {
        (Projection::All, _) | (_, Projection::All) => Projection::All,
        (Projection::KeysOnly, b) => b,
        (Projection::Include(x), Projection::KeysOnly) => Projection::Include(x.clone()),
        (Projection::Include(x), Projection::Include(y)) => {
            let mut out = x.clone();
            for a in y {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
            Projection::Include(out)
        }
    }
}

impl TableDefinition {
    /// How an existing table (DescribeTable's description) differs from this definition, in
    /// words; empty when it can hold the entities: the same key schema, every key attribute of
    /// its type (S, or the field's type for an index keyed on a field's own attribute), and every index with the same kind and key schema, holding at least
    /// the attributes the entities read through it (an index that projects more is fine).
    /// Indexes the table has and the entities do not use are allowed (other code may use
    /// them); billing and TTL are not compared.
    pub fn differences(&self, table: &aws_sdk_dynamodb::types::TableDescription) -> Vec<String> {
        let (keys, show) = (key_names, show_keys);
        let mut out = Vec::new();
        let wanted = (Some(self.pk_attr.as_str()), self.sk_attr.as_deref());
        let found = keys(table.key_schema());
        if found != wanted {
            out.push(format!("key schema is {}, the entities need {}", show(found), show(wanted)));
        }
        for attr in self.key_attributes() {
            let def = table.attribute_definitions().iter().find(|d| d.attribute_name() == attr);
            let wanted = self.attribute_type(&attr).as_str();
            match def.map(|d| d.attribute_type()) {
                None => {}
                Some(found) if found.as_str() == wanted => {}
                Some(other) => out.push(format!("key attribute `{attr}` is of type {}, not {wanted}", other.as_str())),
            }
        }
        for index in &self.indexes {
            let wanted = (Some(index.pk_attr.as_str()), index.sk_attr.as_deref());
            let global = table.global_secondary_indexes().iter().find(|i| i.index_name() == Some(&index.name));
            let local = table.local_secondary_indexes().iter().find(|i| i.index_name() == Some(&index.name));
            let (kind, found, found_all) = match (global, local) {
                (Some(g), _) => (IndexKind::Global, keys(g.key_schema()), all_keys(g.key_schema())),
                (None, Some(l)) => (IndexKind::Local, keys(l.key_schema()), all_keys(l.key_schema())),
                (None, None) => {
                    out.push(format!("index {} is missing", index.name));
                    continue;
                }
            };
            if kind != index.kind {
                out.push(format!("index {} is {kind:?}, the entities need {:?}", index.name, index.kind));
            } else if index.is_multi_attribute() || found_all.0.len() > 1 || found_all.1.len() > 1 {
                // A multi-attribute key on either side: every attribute, in order.
                let wanted_all = (
                    index.pk_attrs.iter().map(String::as_str).collect::<Vec<_>>(),
                    index.sk_attrs.iter().map(String::as_str).collect::<Vec<_>>(),
                );
                if found_all != wanted_all {
                    out.push(format!(
                        "index {} has keys {}, the entities need {}",
                        index.name,
                        show_all(&found_all),
                        show_all(&wanted_all)
                    ));
                }
            } else if found != wanted {
                out.push(format!("index {} has keys {}, the entities need {}", index.name, show(found), show(wanted)));
            }
            let projection = global.and_then(|g| g.projection()).or_else(|| local.and_then(|l| l.projection()));
            if let Some(missing) = projection.and_then(|p| lacks(p, &index.projection)) {
                out.push(format!("index {} {missing}", index.name));
            }
        }
        out
    }
}
