//! Names the derive generates: attribute names are any text, generated locals never come from
//! user text, and generated helper types stay out of the user's namespace.

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
    let request = User::query_by_org("acme").user_id_eq("u1").request().unwrap();
    assert!(format!("{request:?}").contains("USER#u1"), "{request:?}");
    let update = User::update(User::key("acme", "u1")).set_name("Ann").request().unwrap();
    assert!(format!("{update:?}").contains("Ann"), "{update:?}");
}
