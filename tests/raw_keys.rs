//! `<field:raw>`: keys holding raw text (spaces, `#`), as other programs write them, are read
//! and written byte for byte. Against DynamoDB Local; the other writer is the SDK's PutItem.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeValue, Entity, Item, Table};

/// The AWS game tutorial's user: `USER#<username>` / `#METADATA#<username>`, usernames as typed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<username:raw>"]
#[sk = "#METADATA#<username:raw>"]
pub struct User {
    pub username: String,
    pub name: String,
}

/// The e-commerce seed's customer: an email index whose key holds the address as it is.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "EMAIL#<email:raw>", sk = "USER", query = "by_email")]
pub struct Customer {
    pub user_id: String,
    pub email: String,
}

/// A raw last component of a sort key, for ranges.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MEMBER#<member:raw>"]
pub struct Member {
    pub room: String,
    pub member: String,
}

/// Another entity sharing `Member`'s partition and prefix.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MEMBER#<member>#ROLE#<role>"]
pub struct Role {
    pub room: String,
    pub member: String,
    pub role: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn item(attrs: &[(&str, &str)]) -> Item {
    attrs.iter().map(|(k, v)| ((*k).to_owned(), s(v))).collect()
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.expect("raw PutItem");
}

async fn raw_get(table: &Table, pk: &str, sk: &str) -> Option<Item> {
    let key = item(&[("PK", pk), ("SK", sk)]);
    table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.expect("raw GetItem").item
}

#[test]
fn raw_components_are_written_as_they_are() {
    let k = User::key("ana maria");
    assert_eq!((k.pk(), k.sk()), ("USER#ana maria".to_owned(), "#METADATA#ana maria".to_owned()));
    assert_eq!(User::key("a#b%23 c").pk(), "USER#a#b%23 c");
    // The key reads back whatever the value holds: it is the rest of the key.
    for v in ["ana maria", "sales#jp@example.com", "%", "#", "", "a#METADATA#b"] {
        let k = User::key(v);
        assert_eq!(dynamo_entity::EntityKey::parse_keys(&k.pk(), Some(&k.sk())).ok(), Some(k.clone()), "{v:?}");
    }
    // Both keys must agree on the value.
    assert!(UserKey::parse("USER#a", "#METADATA#b").is_err());
    // Escaped placeholders stay escaped.
    assert_eq!(Member::key("r 1", "x y").pk(), "ROOM#r%201");
    assert_eq!(Member::key("r 1", "x y").sk(), "MEMBER#x y");
}

proptest::proptest! {
    /// Every string round-trips through a raw last component, and raw keys sort as the strings.
    #[test]
    fn raw_components_round_trip_and_keep_string_order(a in "\\PC*", b in "[ #$%a-c\\x00-\\x1f]{0,6}") {
        for v in [&a, &b] {
            let k = Member::key("r", v.clone());
            proptest::prop_assert_eq!(MemberKey::parse(&k.pk(), &k.sk()).ok(), Some(k));
            let u = User::key(v.clone());
            proptest::prop_assert_eq!(UserKey::parse(&u.pk(), &u.sk()).ok(), Some(u));
        }
        let (ka, kb) = (Member::key("r", a.clone()).sk(), Member::key("r", b.clone()).sk());
        proptest::prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
    }
}

#[tokio::test]
async fn raw_keys_written_by_others_are_read_and_ours_match_them_byte_for_byte() {
    let table = common::table("raw-keys", &[User::SCHEMA, Customer::SCHEMA]).await;
    // As the game tutorial writes it: no type attribute, the username only in the keys.
    raw_put(&table, item(&[("PK", "USER#ana maria"), ("SK", "#METADATA#ana maria"), ("name", "Ana")])).await;
    let got = table.get(User::key("ana maria")).await.unwrap();
    assert_eq!(got, Some(User { username: "ana maria".into(), name: "Ana".into() }));

    // What we write has exactly the other writer's bytes: a put replaces the same item.
    table.put(&User { username: "ana maria".into(), name: "Ana M.".into() }).await.unwrap();
    let stored = raw_get(&table, "USER#ana maria", "#METADATA#ana maria").await.expect("same key");
    assert_eq!(stored.get("name"), Some(&s("Ana M.")));
    table.put(&User { username: "jo#hn doe".into(), name: "John".into() }).await.unwrap();
    assert!(raw_get(&table, "USER#jo#hn doe", "#METADATA#jo#hn doe").await.is_some());
    assert_eq!(table.get(User::key("jo#hn doe")).await.unwrap().unwrap().name, "John");

    // As the e-commerce seed writes it: `GSI1PK = EMAIL#<email>` with the address as it is.
    raw_put(
        &table,
        item(&[
            ("PK", "USER#u1"),
            ("SK", "PROFILE"),
            ("GSI1PK", "EMAIL#sales#jp@example.com"),
            ("GSI1SK", "USER"),
            ("email", "sales#jp@example.com"),
        ]),
    )
    .await;
    let found = table.query_all(Customer::query_by_email("sales#jp@example.com")).await.unwrap();
    assert_eq!(found, vec![Customer { user_id: "u1".into(), email: "sales#jp@example.com".into() }]);
    table.put(&Customer { user_id: "u2".into(), email: "a b#c@example.com".into() }).await.unwrap();
    let ours = raw_get(&table, "USER#u2", "PROFILE").await.unwrap();
    assert_eq!(ours.get("GSI1PK"), Some(&s("EMAIL#a b#c@example.com")));
    assert_eq!(table.query_all(Customer::query_by_email("a b#c@example.com")).await.unwrap().len(), 1);
}

#[tokio::test]
async fn ranges_over_a_raw_component_are_exact_and_other_entities_are_stepped_over() {
    let table = common::table("raw-ranges", &[Member::SCHEMA]).await;
    // Values around `#` and `$`, the bytes escaping keeps components away from.
    let mut names: Vec<&str> = vec!["a", "a b", "a!", "a#b", "a$", "a%", "a\u{1}", "ab", "b", "#", ""];
    for n in &names {
        table.put(&Member { room: "r".into(), member: (*n).into() }).await.unwrap();
    }
    // Another entity's items in the same partition, under the same prefix.
    table.put(&Role { room: "r".into(), member: "a".into(), role: "admin".into() }).await.unwrap();
    table.put(&Role { room: "r".into(), member: "a b".into(), role: "owner".into() }).await.unwrap();
    names.sort_unstable();

    let members = |q: dynamo_entity::Query<Member>| {
        let table = table.clone();
        async move {
            let got: Vec<Member> = table.query_all(q).await.unwrap();
            got.into_iter().map(|m| m.member).collect::<Vec<String>>()
        }
    };
    let expect = |f: &dyn Fn(&str) -> bool| names.iter().filter(|n| f(n)).map(|n| (*n).to_owned()).collect::<Vec<_>>();
    assert_eq!(members(Member::query_by_room("r").into_query()).await, expect(&|_| true));
    for pivot in ["a", "a b", "a#b", "a$", "b", ""] {
        assert_eq!(
            members(Member::query_by_room("r").member().gt(pivot)).await,
            expect(&|n| n > pivot),
            "gt {pivot:?}"
        );
        assert_eq!(
            members(Member::query_by_room("r").member().gte(pivot)).await,
            expect(&|n| n >= pivot),
            "gte {pivot:?}"
        );
        assert_eq!(
            members(Member::query_by_room("r").member().lt(pivot)).await,
            expect(&|n| n < pivot),
            "lt {pivot:?}"
        );
        assert_eq!(
            members(Member::query_by_room("r").member().lte(pivot)).await,
            expect(&|n| n <= pivot),
            "lte {pivot:?}"
        );
        assert_eq!(
            members(Member::query_by_room("r").member().eq(pivot)).await,
            expect(&|n| n == pivot),
            "eq {pivot:?}"
        );
    }
    assert_eq!(
        members(Member::query_by_room("r").member().between("a", "a%")).await,
        expect(&|n| ("a"..="a%").contains(&n))
    );
    // A page of two resumes after the last member returned, whatever lies between.
    let mut seen = Vec::new();
    let mut q = Member::query_by_room("r").limit(2);
    loop {
        let page = table.query(q.clone()).await.unwrap();
        seen.extend(page.items.into_iter().map(|m| m.member));
        match page.next {
            Some(c) => q = Member::query_by_room("r").limit(2).after(c),
            None => break,
        }
    }
    assert_eq!(seen, expect(&|_| true));
}

/// A key of 16 fields, the most `Reader::key_fields` (the runtime's filling of key fields from
/// the key) takes as one tuple.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "W#<a>#<b>#<c>#<d>#<e>#<f>#<g>#<h>"]
#[sk = "<i>#<j>#<k>#<l>#<m>#<n>#<o>#<p>"]
pub struct Wide16 {
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    pub e: String,
    pub f: String,
    pub g: String,
    pub h: String,
    pub i: String,
    pub j: String,
    pub k: String,
    pub l: String,
    pub m: u32,
    pub n: String,
    pub o: String,
    pub p: String,
    pub note: String,
}

/// A key of 17 fields: the derive fills them with a `match` of its own.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "X#<a>#<b>#<c>#<d>#<e>#<f>#<g>#<h>"]
#[sk = "<i>#<j>#<k>#<l>#<m>#<n>#<o>#<p>#<q>"]
pub struct Wide17 {
    pub a: String,
    pub b: String,
    pub c: String,
    pub d: String,
    pub e: String,
    pub f: String,
    pub g: String,
    pub h: String,
    pub i: String,
    pub j: String,
    pub k: String,
    pub l: String,
    pub m: u32,
    pub n: String,
    pub o: String,
    pub p: String,
    pub q: String,
    pub note: String,
}

/// Key fields kept only in the keys (written by other code) are read from them, whichever way
/// the derive fills them: the runtime's for 16 fields, its own `match` for 17. Some fields are
/// present and must agree with the key; one that contradicts it is a decoding error.
#[tokio::test]
async fn many_key_fields_kept_only_in_the_keys_are_read_from_them() {
    let table = common::table("raw-wide", &[Wide16::SCHEMA, Wide17::SCHEMA]).await;
    let letters = "abcdefghijklmnopq";
    for (n, prefix) in [(16usize, "W"), (17, "X")] {
        let value = |c: char| if c == 'm' { "0000000007".to_owned() } else { format!("v{c}") };
        let pk = format!("{prefix}#{}", letters.chars().take(8).map(value).collect::<Vec<_>>().join("#"));
        let sk = letters.chars().skip(8).take(n - 8).map(value).collect::<Vec<_>>().join("#");
        // Only `a` and `note` besides the keys: every other key field is in the keys alone.
        let mut raw = item(&[("PK", &pk), ("SK", &sk), ("a", "va"), ("note", "written elsewhere")]);
        raw_put(&table, raw.clone()).await;
        if n == 16 {
            let got = table
                .get(Wide16::key(
                    "va", "vb", "vc", "vd", "ve", "vf", "vg", "vh", "vi", "vj", "vk", "vl", 7u32, "vn", "vo", "vp",
                ))
                .await
                .unwrap()
                .expect("the item");
            assert_eq!((got.a.as_str(), got.h.as_str(), got.m, got.p.as_str()), ("va", "vh", 7, "vp"));
            assert_eq!(got.note, "written elsewhere");
        } else {
            let got = table
                .get(Wide17::key(
                    "va", "vb", "vc", "vd", "ve", "vf", "vg", "vh", "vi", "vj", "vk", "vl", 7u32, "vn", "vo", "vp",
                    "vq",
                ))
                .await
                .unwrap()
                .expect("the item");
            assert_eq!((got.a.as_str(), got.h.as_str(), got.m, got.q.as_str()), ("va", "vh", 7, "vq"));
        }
        // A present field that contradicts the key is refused, naming the key attribute.
        raw.insert("a".to_owned(), s("other"));
        let decoded = if n == 16 { Wide16::from_item(raw).map(drop) } else { Wide17::from_item(raw).map(drop) };
        let err = decoded.expect_err("a contradicting key field");
        assert!(err.to_string().contains("PK"), "{err}");
    }
}
