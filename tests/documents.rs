//! Nested documents against DynamoDB Local: typed paths into maps and lists for updates,
//! conditions and filters; map keys any text; missing parents a typed error; two writers of two
//! fields of one document both kept.

mod common;

use dynamo_entity::prelude::*;
use std::collections::{BTreeMap, HashMap};

use dynamo_entity::{Document, Entity, Error, Table, View};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    pub city: String,
    pub zip_code: String,
    pub lines: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<Geo>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Geo {
    #[serde(rename = "lat itude")]
    pub latitude: f64,
    pub visits: u32,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Line {
    pub sku: String,
    pub qty: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "REGION#<region>", sk = "<id>", query = "in_region")]
pub struct Customer {
    pub id: String,
    pub region: String,
    pub address: Address,
    pub billing: Option<Address>,
    pub lines: Vec<Line>,
    pub prefs: BTreeMap<String, String>,
    pub counts: HashMap<String, u32>,
    #[version]
    pub version: u64,
}

/// Another entity of the table with a document of the same type: filters must not pick its items.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "STORE#<id>"]
#[sk = "STORE"]
pub struct Store {
    pub id: String,
    pub address: Address,
}

/// A view projects a document as a whole field.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Customer")]
pub struct CustomerAddress {
    pub id: String,
    pub address: Address,
    pub billing: Option<Address>,
}

fn address(city: &str, zip: &str) -> Address {
    Address { city: city.into(), zip_code: zip.into(), lines: vec!["1 rue A".into()], geo: None }
}

fn customer(id: &str, city: &str, zip: &str) -> Customer {
    Customer {
        id: id.into(),
        region: "eu".into(),
        address: address(city, zip),
        billing: None,
        lines: vec![Line { sku: "a".into(), qty: 1 }, Line { sku: "b".into(), qty: 2 }],
        prefs: BTreeMap::from([("theme".into(), "dark".into()), ("lang".into(), "fr".into())]),
        counts: HashMap::new(),
        version: 0,
    }
}

async fn table(test: &str) -> Table {
    common::table(test, &[Customer::SCHEMA, Store::SCHEMA]).await
}

#[test]
fn every_segment_is_a_placeholder_and_indexes_are_numbers() {
    let f = Customer::fields();
    assert_eq!(f.address.city.path_text(), "address.city");
    assert_eq!(f.address.zip_code.path_text(), "address.zipCode", "serde's rename_all");
    assert_eq!(f.address.geo.latitude.path_text(), "address.geo[\"lat itude\"]", "serde's rename");
    assert_eq!(f.lines.at(2).sku.path_text(), "lines[2].sku");
    assert_eq!(f.prefs.key("a.b").path_text(), "prefs[\"a.b\"]");
    let r = Customer::update(Customer::key("c1")).set(f.lines.at(2).sku, "x").request().unwrap();
    assert_eq!(r.update_expression, "SET #d0_0[2].#d0_2 = :d0 ADD #a0 :v0");
    assert_eq!(r.expression_attribute_names["#d0_0"], "lines");
    assert_eq!(r.expression_attribute_names["#d0_2"], "sku");
    let c = Customer::update(Customer::key("c1"))
        .set(f.prefs.key("a.b#[c] d"), "x")
        .condition(f.address.geo.visits.gt(1u32))
        .request()
        .unwrap();
    assert!(c.update_expression.starts_with("SET #d0_0.#d0_1 = :d0"), "{}", c.update_expression);
    assert_eq!(c.expression_attribute_names["#d0_1"], "a.b#[c] d");
    let cond = c.condition_expression.unwrap();
    assert!(cond.ends_with(" AND (#c4.#c5.#c6 > :c2)"), "{cond}");
    let names = &c.expression_attribute_names;
    assert_eq!([&names["#c4"], &names["#c5"], &names["#c6"]], ["address", "geo", "visits"]);
}

#[test]
fn overlapping_paths_are_refused_before_sending_naming_both() {
    let f = Customer::fields();
    let r = Customer::update(Customer::key("c1")).set(f.address.city, "A").remove(f.address).request();
    // `address` is not an `Option`: removing it would leave an item that cannot be read.
    assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("removes `address`")), "{r:?}");
    let r = Customer::update(Customer::key("c1"))
        .set(f.address.geo.visits, 1u32)
        .set_if_not_exists(f.address.geo, Geo::default())
        .request();
    assert!(
        matches!(&r, Err(Error::Validation(m)) if m.contains("`address.geo.visits`") && m.contains("`address.geo`")),
        "{r:?}"
    );
    let r = Customer::update(Customer::key("c1"))
        .set(Customer::fields().address, address("A", "1"))
        .set(f.address.city, "B")
        .request();
    assert!(
        matches!(&r, Err(Error::Validation(m)) if m.contains("`address.city`") && m.contains("`address`")),
        "{r:?}"
    );
    let r = Customer::update(Customer::key("c1"))
        .set(f.lines.at(1), Line { sku: "x".into(), qty: 1 })
        .set(f.lines.at(1).qty, 3u32);
    assert!(r.request().is_err());
    // Disjoint paths of one document are fine: two fields, two list elements, two map keys.
    let ok = Customer::update(Customer::key("c1"))
        .set(f.address.city, "A")
        .set(f.address.zip_code, "1")
        .set(f.lines.at(0).qty, 1u32)
        .set(f.lines.at(1).qty, 1u32)
        .set(f.prefs.key("a"), "x")
        .set(f.prefs.key("ab"), "y")
        .request();
    assert!(ok.is_ok(), "{ok:?}");
}

#[tokio::test]
async fn each_action_on_nested_paths() {
    let table = table("doc-actions").await;
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let f = Customer::fields();
    let c = table
        .update(
            Customer::update(Customer::key("c1"))
                .set(f.address.city, "Lyon")
                .append(f.address.lines, ["Bldg 2".to_string()])
                .remove(f.prefs.key("theme"))
                .set(f.lines.at(1).qty, 7u32)
                .set_if_not_exists(f.address.geo, Geo { latitude: 48.5, visits: 0 })
                .set(f.counts.key("x"), 1u32),
        )
        .await
        .unwrap();
    assert_eq!(c.address.city, "Lyon");
    assert_eq!(c.address.zip_code, "75001", "the document's other fields are kept");
    assert_eq!(c.address.lines, vec!["1 rue A", "Bldg 2"]);
    assert_eq!(c.prefs, BTreeMap::from([("lang".into(), "fr".into())]));
    assert_eq!(c.lines[1], Line { sku: "b".into(), qty: 7 });
    assert_eq!(c.address.geo, Some(Geo { latitude: 48.5, visits: 0 }));
    assert_eq!(c.version, 2, "a nested update bumps the version like any update");
    // `add` counts atomically; `set_if_not_exists` keeps what is there.
    let c = table
        .update(
            Customer::update(Customer::key("c1"))
                .add(f.address.geo.visits, 2)
                .add(f.counts.key("x"), 4)
                .set_if_not_exists(f.prefs.key("lang"), "en"),
        )
        .await
        .unwrap();
    assert_eq!(c.address.geo.as_ref().map(|g| g.visits), Some(2));
    assert_eq!(c.counts["x"], 5);
    assert_eq!(c.prefs["lang"], "fr");
    assert_eq!(c.version, 3);
    // A list element removed: later ones move down.
    let c = table.update(Customer::update(Customer::key("c1")).remove(f.lines.at(0))).await.unwrap();
    assert_eq!(c.lines, vec![Line { sku: "b".into(), qty: 7 }]);
    assert_eq!(table.get(Customer::key("c1")).await.unwrap(), Some(c));
}

#[tokio::test]
async fn map_keys_with_dots_hashes_brackets_and_spaces() {
    let table = table("doc-keys").await;
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let f = Customer::fields();
    let keys = ["a.b", "#c", "[0]", "with space", "lat itude"];
    let mut u = Customer::update(Customer::key("c1")).set(f.prefs.key(keys[0]), "v0");
    for (i, k) in keys.iter().enumerate().skip(1) {
        u = u.set(f.prefs.key(k), format!("v{i}"));
    }
    let c = table.update(u).await.unwrap();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(c.prefs.get(*k).map(String::as_str), Some(format!("v{i}").as_str()), "{k}");
    }
    assert_eq!(c.prefs["theme"], "dark");
    // Conditions and removals through the same keys.
    let c = table
        .update(
            Customer::update(Customer::key("c1"))
                .remove(f.prefs.key("a.b"))
                .condition(f.prefs.key("#c").eq("v1").and(f.prefs.key("[0]").exists())),
        )
        .await
        .unwrap();
    assert!(!c.prefs.contains_key("a.b") && c.prefs.contains_key("#c"));
    let raw = common::raw_items(&table).await;
    let prefs = raw[0]["prefs"].as_m().unwrap();
    assert!(prefs.contains_key("with space") && prefs.contains_key("[0]"), "{prefs:?}");
}

#[tokio::test]
async fn a_condition_on_a_nested_value_fails_with_nothing_changed() {
    let table = table("doc-cond").await;
    let c1 = customer("c1", "Paris", "75001");
    table.put(&c1).await.unwrap();
    let f = Customer::fields();
    let before = table.get(Customer::key("c1")).await.unwrap();
    let r = table
        .update(
            Customer::update(Customer::key("c1")).set(f.address.city, "Lyon").condition(f.address.zip_code.eq("69001")),
        )
        .await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    let r = table
        .update(Customer::update(Customer::key("c1")).add(f.lines.at(0).qty, 1).condition(f.lines.at(0).sku.eq("z")))
        .await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    // On a put and in a transaction too.
    let mut other = before.clone().unwrap();
    other.address.city = "Nice".into();
    let r = table.put(&other).condition(f.address.city.eq("Nice")).await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    let r = table
        .transact()
        .update(
            Customer::update(Customer::key("c1"))
                .set(f.address.city, "Lyon")
                .condition(f.address.lines.size().gt(5).or(f.address.geo.exists())),
        )
        .send()
        .await;
    assert!(matches!(r, Err(Error::TransactionCanceled { .. })), "{r:?}");
    assert_eq!(table.get(Customer::key("c1")).await.unwrap(), before, "nothing changed");
    // The same condition holding: written.
    let c = table
        .update(
            Customer::update(Customer::key("c1"))
                .set(f.address.city, "Lyon")
                .condition(f.address.zip_code.begins_with("75").and(f.lines.at(1).qty.eq(2u32))),
        )
        .await
        .unwrap();
    assert_eq!(c.address.city, "Lyon");
}

#[tokio::test]
async fn filters_return_exactly_the_matching_items() {
    let table = table("doc-filter").await;
    for (i, zip) in ["75001", "75011", "69001", "13001", "75020"].iter().enumerate() {
        table.put(&customer(&format!("c{i}"), "X", zip)).await.unwrap();
        table.put(&Store { id: format!("s{i}"), address: address("X", zip) }).await.unwrap();
    }
    let f = Customer::fields();
    let mut paris: Vec<String> = table
        .scan::<Customer>()
        .filter(f.address.zip_code.begins_with("75"))
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    paris.sort();
    assert_eq!(paris, ["c0", "c1", "c4"]);
    let stores = table.scan::<Store>().filter(Store::fields().address.zip_code.eq("69001")).all().await.unwrap();
    assert_eq!(stores.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["s2"]);
    let q = table
        .query_all(
            Customer::query_in_region("eu").filter(f.address.zip_code.gte("69000").and(f.address.zip_code.lt("75005"))),
        )
        .await
        .unwrap();
    let mut ids: Vec<_> = q.into_iter().map(|c| c.id).collect();
    ids.sort();
    assert_eq!(ids, ["c0", "c2"]);
    let none = table.scan::<Customer>().filter(f.lines.at(5).sku.exists()).all().await.unwrap();
    assert!(none.is_empty());
    let second = table.scan::<Customer>().filter(f.lines.at(1).sku.eq("b")).all().await.unwrap();
    assert_eq!(second.len(), 5);
}

#[tokio::test]
async fn a_missing_parent_writes_nothing_and_names_the_path() {
    let table = table("doc-parent").await;
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let before = table.get(Customer::key("c1")).await.unwrap();
    let f = Customer::fields();
    let r = table.update(Customer::update(Customer::key("c1")).set(f.billing.city, "Lyon")).await;
    match &r {
        Err(e @ Error::MissingParent { entity: "Customer", paths }) => {
            assert_eq!(paths, &["billing.city"]);
            assert!(e.to_string().contains("set_if_not_exists"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let r = table.update(Customer::update(Customer::key("c1")).add(f.address.geo.visits, 1)).await;
    assert!(matches!(&r, Err(Error::MissingParent { paths, .. }) if paths == &["address.geo.visits"]), "{r:?}");
    let r = table.transact().update(Customer::update(Customer::key("c1")).set(f.billing.city, "Lyon")).send().await;
    assert!(matches!(&r, Err(Error::MissingParent { paths, .. }) if paths == &["billing.city"]), "{r:?}");
    assert_eq!(table.get(Customer::key("c1")).await.unwrap(), before, "nothing written");
    // The documented way: create the parent in an update of its own, then write under it.
    table
        .update(Customer::update(Customer::key("c1")).set(Customer::fields().billing, address("Nice", "06000")))
        .await
        .unwrap();
    table.update(Customer::update(Customer::key("c1")).set_if_not_exists(f.address.geo, Geo::default())).await.unwrap();
    let c = table
        .update(Customer::update(Customer::key("c1")).set(f.billing.city, "Lyon").add(f.address.geo.visits, 1))
        .await
        .unwrap();
    assert_eq!(c.billing.map(|b| b.city), Some("Lyon".into()));
    assert_eq!(c.address.geo.map(|g| g.visits), Some(1));
}

#[tokio::test]
async fn two_writers_of_two_fields_of_one_document_both_land() {
    let table = table("doc-concurrent").await;
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let f = Customer::fields();
    for round in 0..10u32 {
        let city = format!("city-{round}");
        let zip = format!("zip-{round}");
        let (a, b) = tokio::join!(
            table.update(Customer::update(Customer::key("c1")).set(f.address.city, city.as_str())),
            table.update(Customer::update(Customer::key("c1")).set(f.address.zip_code, zip.as_str())),
        );
        a.unwrap();
        b.unwrap();
        let c = table.get(Customer::key("c1")).await.unwrap().unwrap();
        assert_eq!((c.address.city, c.address.zip_code), (city, zip), "neither update lost");
    }
}

#[tokio::test]
async fn a_view_projects_a_document_whole_and_a_nested_update_keeps_it_readable() {
    let table = table("doc-view").await;
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let f = Customer::fields();
    table.update(Customer::update(Customer::key("c1")).set(f.address.zip_code, "75002")).await.unwrap();
    let v = table.get_view::<CustomerAddress>(Customer::key("c1")).await.unwrap().unwrap();
    assert_eq!(
        v,
        CustomerAddress {
            id: "c1".into(),
            address: Address { zip_code: "75002".into(), ..address("Paris", "") },
            billing: None
        }
    );
    let q = table.query_all(Customer::query_in_region("eu").into_query().view::<CustomerAddress>()).await.unwrap();
    assert_eq!(q, vec![v]);
}

/// A document whose fields serde stores absent (`skip_serializing_if`) or NULL (`None` without
/// it) when empty.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Contact {
    pub email: String,
    /// Absent when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// Absent when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// NULL when `None`; absent in contacts written before the field was added.
    #[serde(default)]
    pub fax: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MEMBER#<id>"]
#[sk = "MEMBER"]
pub struct Member {
    pub id: String,
    pub contact: Contact,
}

fn member(id: &str, phone: Option<&str>, tags: &[&str], fax: Option<&str>) -> Member {
    Member {
        id: id.into(),
        contact: Contact {
            email: format!("{id}@example.com"),
            phone: phone.map(Into::into),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            fax: fax.map(Into::into),
        },
    }
}

async fn member_ids(table: &Table, filter: dynamo_entity::Condition<Member>) -> Vec<String> {
    let mut ids: Vec<String> =
        table.scan::<Member>().filter(filter).all().await.unwrap().into_iter().map(|m| m.id).collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn none_stored_absent_in_a_document_compares_as_absent() {
    let table = common::table("doc-absent", &[Member::SCHEMA]).await;
    table.put(&member("m0", None, &[], None)).await.unwrap();
    table.put(&member("m1", Some("+33 1"), &["vip"], Some("+33 2"))).await.unwrap();
    table.put(&member("m2", None, &["new"], None)).await.unwrap();
    // Written by code from before `fax` existed: the contact's map lacks it.
    let mut old = member("m3", Some("+33 3"), &[], None).to_item().unwrap();
    let Some(dynamo_entity::AttributeValue::M(contact)) = old.get_mut("contact") else { panic!("{old:?}") };
    assert_eq!(contact.remove("fax"), Some(dynamo_entity::AttributeValue::Null(true)), "serde stores `None` as NULL");
    table.client().put_item().table_name(table.name()).set_item(Some(old)).send().await.unwrap();
    assert_eq!(table.get(Member::key("m3")).await.unwrap().unwrap().contact.fax, None);

    let f = Member::fields();
    // Filters: `None` (or an empty list) that serde leaves out is an absent attribute.
    assert_eq!(member_ids(&table, f.contact.phone.eq(None)).await, ["m0", "m2"]);
    assert_eq!(member_ids(&table, f.contact.phone.ne(None)).await, ["m1", "m3"]);
    assert_eq!(member_ids(&table, f.contact.phone.eq("+33 1")).await, ["m1"]);
    assert_eq!(member_ids(&table, f.contact.tags.eq(Vec::new())).await, ["m0", "m3"]);
    assert_eq!(member_ids(&table, f.contact.tags.ne(Vec::new())).await, ["m1", "m2"]);
    // A field stored NULL for `None`: NULL or absent, both read as `None`.
    assert_eq!(member_ids(&table, f.contact.fax.eq(None)).await, ["m0", "m2", "m3"]);
    assert_eq!(member_ids(&table, f.contact.fax.ne(None)).await, ["m1"]);

    // A conditional update whose condition holds is written; one whose condition fails is not.
    let m = table
        .update(
            Member::update(Member::key("m0"))
                .set(f.contact.email, "first@example.com")
                .condition(f.contact.phone.eq(None).and(f.contact.fax.eq(None))),
        )
        .await
        .unwrap();
    assert_eq!(m.contact.email, "first@example.com");
    let r = table
        .update(
            Member::update(Member::key("m1")).set(f.contact.email, "x@example.com").condition(f.contact.phone.eq(None)),
        )
        .await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    // Conditions on a put and a delete.
    let mut m2 = member("m2", Some("+33 4"), &["new"], None);
    table.put(&m2).condition(f.contact.phone.eq(None)).await.unwrap();
    m2.contact.phone = None;
    let r = table.put(&m2).condition(f.contact.phone.eq(None)).await;
    assert!(matches!(r, Err(Error::ConditionFailed { .. })), "{r:?}");
    table.delete(Member::key("m3")).condition(f.contact.phone.ne(None).and(f.contact.fax.eq(None))).await.unwrap();

    // Setting `None` where serde stores it absent removes it, as serde would write it.
    let m = table.update(Member::update(Member::key("m1")).set(f.contact.phone, None)).await.unwrap();
    assert_eq!(m.contact.phone, None);
    let raw = common::raw_items(&table).await;
    let m1 = raw.iter().find(|i| i.get("PK") == Some(&dynamo_entity::AttributeValue::S("MEMBER#m1".into()))).unwrap();
    let Some(dynamo_entity::AttributeValue::M(contact)) = m1.get("contact") else { panic!("{m1:?}") };
    assert!(!contact.contains_key("phone"), "{contact:?}");
    assert_eq!(member_ids(&table, f.contact.phone.eq(None)).await, ["m0", "m1"]);
}

#[test]
fn none_stored_absent_renders_as_attribute_not_exists() {
    let f = Member::fields();
    let render = |c: dynamo_entity::Condition<Member>| {
        let (mut names, mut values) = (HashMap::new(), HashMap::new());
        let text = c.render(&mut names, &mut values).unwrap();
        (text, values.len())
    };
    assert_eq!(render(f.contact.phone.eq(None)), ("attribute_not_exists(#c0.#c1)".to_string(), 0));
    assert_eq!(render(f.contact.phone.ne(None)), ("attribute_exists(#c0.#c1)".to_string(), 0));
    assert_eq!(render(f.contact.fax.eq(None)), ("(attribute_not_exists(#c0.#c1) OR #c0.#c1 = :c0)".to_string(), 1));
    assert_eq!(render(f.contact.fax.ne(None)), ("(attribute_exists(#c0.#c1) AND #c0.#c1 <> :c0)".to_string(), 1));
}

/// An entity with a `#[unique]` value and a document: an update that sets the value takes the
/// guarded path (a transaction with its guard), as does a transaction that holds such an update.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GMEMBER#<id>"]
#[sk = "MEMBER"]
pub struct GuardedMember {
    pub id: String,
    #[unique]
    pub email: String,
    pub home: Address,
    pub work: Option<Address>,
}

#[tokio::test]
async fn a_missing_parent_is_the_same_error_on_every_write_path() {
    let table = common::table("doc-parent-paths", &[GuardedMember::SCHEMA, Customer::SCHEMA]).await;
    let member = GuardedMember { id: "m1".into(), email: "a@x".into(), home: address("Paris", "75001"), work: None };
    table.create(&member).await.unwrap();
    table.put(&customer("c1", "Paris", "75001")).await.unwrap();
    let f = GuardedMember::fields();
    let missing = |r: &Result<(), Error>, entity: &str| matches!(r, Err(Error::MissingParent { entity: e, paths }) if *e == entity && paths == &["work.city"]);
    // The plain path: an update that leaves the unique value alone.
    let r = table.update(GuardedMember::update(GuardedMember::key("m1")).set(f.work.city, "Lyon")).await.map(|_| ());
    assert!(missing(&r, "GuardedMember"), "{r:?}");
    // The guarded path: the update sets the unique value.
    let r = table
        .update(
            GuardedMember::update(GuardedMember::key("m1"))
                .set(GuardedMember::fields().email, "b@x")
                .set(f.work.city, "Lyon"),
        )
        .await
        .map(|_| ());
    assert!(missing(&r, "GuardedMember"), "{r:?}");
    // A transaction holding a guarded update, and one holding it beside a plain write.
    let guarded = || {
        GuardedMember::update(GuardedMember::key("m1"))
            .set(GuardedMember::fields().email, "b@x")
            .set(f.work.city, "Lyon")
    };
    let r = table.transact().update(guarded()).send().await;
    assert!(missing(&r, "GuardedMember"), "{r:?}");
    let r = table
        .transact()
        .update(Customer::update(Customer::key("c1")).set(Customer::fields().region, "us"))
        .update(guarded())
        .send()
        .await;
    assert!(missing(&r, "GuardedMember"), "{r:?}");
    assert_eq!(table.get(GuardedMember::key("m1")).await.unwrap(), Some(member), "nothing written");
    // The value stays free: another member takes it.
    let other = GuardedMember { id: "m2".into(), email: "b@x".into(), home: address("Nice", "06000"), work: None };
    table.create(&other).await.unwrap();
}

/// serde's `with`: a list stored as one comma-separated string.
mod comma_separated {
    pub fn serialize<S: serde::Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.join(","))
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        Ok(text.split(',').map(str::to_owned).collect())
    }
}

/// A document with a field serde stores `with` a module: its path compares the whole value, as
/// the module stores it (and reaches into nothing: `tests/ui/documents/path-into-with-field.rs`).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Badge {
    pub name: String,
    #[serde(with = "comma_separated")]
    pub langs: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "HOLDER#<id>"]
#[sk = "HOLDER"]
pub struct Holder {
    pub id: String,
    pub badge: Badge,
}

#[tokio::test]
async fn a_document_field_stored_with_a_module_compares_as_the_module_stores_it() {
    let table = common::table("doc-with", &[Holder::SCHEMA]).await;
    let holder = |id: &str, langs: &[&str]| Holder {
        id: id.into(),
        badge: Badge { name: id.into(), langs: langs.iter().map(|l| l.to_string()).collect() },
    };
    table.put(&holder("h0", &["fr", "en"])).await.unwrap();
    table.put(&holder("h1", &["de"])).await.unwrap();
    let f = Holder::fields();
    let langs = |l: &[&str]| l.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let found = table.scan::<Holder>().filter(f.badge.langs.eq(langs(&["fr", "en"]))).all().await.unwrap();
    assert_eq!(found, [holder("h0", &["fr", "en"])]);
    let found = table.scan::<Holder>().filter(f.badge.langs.ne(langs(&["fr", "en"]))).all().await.unwrap();
    assert_eq!(found, [holder("h1", &["de"])]);
    assert_eq!(f.badge.langs.path_text(), "badge.langs");
}
