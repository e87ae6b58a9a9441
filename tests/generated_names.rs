//! Names the derive generates: attribute names are any text, generated locals never come from
//! user text, and generated helper types stay out of the user's namespace.

mod common;

use dynamo_entity::{AttributeValue, Entity};

/// Attribute names that are not identifiers (the derive panicked on `GSI1-PK`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "ORG#<org>", sk = "USER#<user_id>", pk_attr = "GSI1-PK", sk_attr = "gsi 1 sk")]
#[gsi2(pk = "TEAM#<team>", pk_attr = "2nd.pk")]
pub struct Member {
    pub user_id: String,
    pub org: String,
    pub team: String,
}

/// Two attribute names that differ only in case (both became one local `__i_gsi`, and both
/// attributes got the sort-key text).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "ORG#<org>", sk = "TEAM#<team>", pk_attr = "gsi", sk_attr = "GSI")]
pub struct Seat {
    pub user_id: String,
    pub org: String,
    pub team: String,
}

fn s(item: &dynamo_entity::Item, attr: &str) -> Option<String> {
    match item.get(attr) {
        Some(AttributeValue::S(s)) => Some(s.clone()),
        _ => None,
    }
}

#[test]
fn attribute_names_are_any_text() {
    let m = Member { user_id: "u1".into(), org: "acme".into(), team: "red".into() };
    let item = m.to_item().unwrap();
    assert_eq!(s(&item, "GSI1-PK").as_deref(), Some("ORG#acme"));
    assert_eq!(s(&item, "gsi 1 sk").as_deref(), Some("USER#u1"));
    assert_eq!(s(&item, "2nd.pk").as_deref(), Some("TEAM#red"));
    assert_eq!(Member::from_item(item).unwrap(), m);
    let schema = Member::SCHEMA;
    assert_eq!(schema.indexes[0].pk.map(|k| k.attr), Some("GSI1-PK"));
    assert_eq!(schema.indexes[0].sk.map(|k| k.attr), Some("gsi 1 sk"));
    assert_eq!(schema.indexes[1].pk.map(|k| k.attr), Some("2nd.pk"));
}

#[test]
fn attribute_names_differing_in_case_keep_their_own_values() {
    let seat = Seat { user_id: "u1".into(), org: "acme".into(), team: "red".into() };
    let item = seat.to_item().unwrap();
    assert_eq!(s(&item, "gsi").as_deref(), Some("ORG#acme"));
    assert_eq!(s(&item, "GSI").as_deref(), Some("TEAM#red"));
}

/// User types named like the builders the derive generates: the generated ones live in an
/// anonymous block, so both coexist (E0428 "defined multiple times" before).
pub mod same_names {
    use dynamo_entity::Entity;

    #[derive(Debug, PartialEq)]
    pub struct UserUpdate(pub u32);

    #[derive(Debug, PartialEq)]
    pub struct UserByOrgQuery(pub u32);

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[pk = "ORG#<org>"]
    #[sk = "USER#<user_id>"]
    #[entity(query = "by_org")]
    pub struct User {
        pub org: String,
        pub user_id: String,
        pub name: String,
    }
}

#[test]
fn user_types_named_like_generated_builders_coexist() {
    use same_names::{User, UserByOrgQuery, UserUpdate};
    assert_eq!(UserUpdate(1), UserUpdate(1));
    assert_eq!(UserByOrgQuery(2).0, 2);
    let request = User::query_by_org("acme").user_id().eq("u1").request().unwrap();
    assert!(format!("{request:?}").contains("USER#u1"), "{request:?}");
    let update = User::update(User::key("acme", "u1")).set(User::fields().name, "Ann").request().unwrap();
    assert!(format!("{update:?}").contains("Ann"), "{update:?}");
}

/// A table made outside the library whose key attributes carry the key fields' own names
/// (`customerId`, `orderId`): with the key fields kept in the keys only, no attribute of that
/// name is written twice, so the names are free. The derive refused it ("attribute `customerId`
/// is used by both the partition key and field `customer_id`") though it writes no such field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<customer_id>"]
#[sk = "ORDER#<order_id>"]
#[entity(pk_attr = "customerId", sk_attr = "orderId", rename_all = "camelCase", key_attributes = false)]
pub struct CustomerOrder {
    pub customer_id: String,
    pub order_id: String,
    pub total: u32,
}

/// The same per field: `key_attribute = false` frees the name of the one field it keeps in the
/// keys (here the partition key's attribute, `complaint_id`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<complaint_id>"]
#[sk = "comm#<comm_id>"]
#[entity(pk_attr = "complaint_id")]
pub struct Comm {
    #[entity(key_attribute = false)]
    pub complaint_id: String,
    pub comm_id: String,
    pub text: String,
}

#[tokio::test]
async fn a_key_field_kept_in_the_keys_only_claims_no_attribute_name() {
    // Values the key text escapes: the field is read back from the key, not from the attribute
    // of its name (which holds the key text).
    let order = CustomerOrder { customer_id: "c#1 x".into(), order_id: "o1".into(), total: 7 };
    let item = order.to_item().unwrap();
    assert_eq!(item.len(), 4, "{item:?}"); // customerId, orderId, entity_type, total
    assert_eq!(s(&item, "orderId").as_deref(), Some("ORDER#o1"));
    assert_eq!(CustomerOrder::from_item(item).unwrap(), order);
    let comm = Comm { complaint_id: "Complaint#123".into(), comm_id: "comm2".into(), text: "hello".into() };
    let item = comm.to_item().unwrap();
    assert_eq!(s(&item, "comm_id").as_deref(), Some("comm2"));
    assert_eq!(Comm::from_item(item).unwrap(), comm);

    // Each on a table keyed as it says (the two name their key attributes differently).
    let orders = common::table("free-key-names", &[CustomerOrder::SCHEMA]).await;
    orders.put(&order).await.unwrap();
    let stored = common::raw_items(&orders).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].len(), 4, "{stored:?}");
    assert_eq!(orders.get(CustomerOrder::key("c#1 x", "o1")).await.unwrap(), Some(order.clone()));
    assert_eq!(orders.query_all(CustomerOrder::query_by_customer("c#1 x")).await.unwrap(), vec![order]);
    let comms = common::table("free-key-names-field", &[Comm::SCHEMA]).await;
    comms.put(&comm).await.unwrap();
    assert_eq!(comms.get(Comm::key("Complaint#123", "comm2")).await.unwrap(), Some(comm.clone()));
    assert_eq!(comms.query_all(Comm::query_by_complaint("Complaint#123")).await.unwrap(), vec![comm]);
}
