//! Issue 70, one way to write (a module of `tests/update.rs`): what the generic update actions, the `QueryOptions` and the
//! `SortKey` operators decide in the runtime, before anything is sent (`request()`, no engine).

use dynamo_entity::prelude::*;
use dynamo_entity::{Error, QueryRequest};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MSG#<ts:13>#<id>"]
#[gsi1(pk = "SENDER#<sender>", sk = "<ts:13>", query = "by_sender")]
#[lsi1(sk = "LEN#<length:6>", query = "by_length")]
pub struct Msg {
    pub room: String,
    pub ts: u64,
    pub id: String,
    pub sender: String,
    pub length: u32,
    pub likes: u64,
    pub tags: Vec<String>,
    #[created_at]
    pub created: std::time::SystemTime,
}

fn sort_key(r: &QueryRequest) -> (&str, &std::collections::HashMap<String, dynamo_entity::AttributeValue>) {
    (&r.key_condition_expression, &r.expression_attribute_values)
}

#[test]
fn a_strongly_consistent_read_of_a_global_index_is_refused_before_sending() {
    // DynamoDB reads global secondary indexes eventually consistently only.
    let e = Msg::query_by_sender("ann").consistent_read().request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("global secondary index")), "{e:?}");
    // The table and a local index take it.
    assert!(Msg::query_by_room("r1").consistent_read().request().unwrap().consistent_read);
    assert!(Msg::query_by_length("r1").consistent_read().request().unwrap().consistent_read);
}

#[test]
fn options_keep_the_query_type_so_a_sort_key_condition_may_follow() {
    let f = Msg::fields();
    let after = Msg::query_by_room("r1").descending().filter(f.likes.gt(3u64)).limit(5).ts().gt(7u64).request();
    let before = Msg::query_by_room("r1").ts().gt(7u64).descending().filter(f.likes.gt(3u64)).limit(5).request();
    let (after, before) = (after.unwrap(), before.unwrap());
    assert_eq!(sort_key(&after), sort_key(&before));
    assert_eq!((after.scan_index_forward, after.filter_expression.is_some()), (false, true));
    // `eq` on a placeholder others follow leads to the next one; the same query either way.
    let eq = Msg::query_by_room("r1").ts().eq(7u64).id().begins_with("a").request().unwrap();
    assert!(eq.key_condition_expression.contains("begins_with"), "{}", eq.key_condition_expression);
}

#[test]
fn an_action_that_cannot_keep_an_index_key_in_step_is_refused() {
    let f = Msg::fields();
    // `length` makes LSI1's key text: an `ADD` gives no value to write it from.
    let e = Msg::update(Msg::key("r1", 1u64, "m1")).add(f.length, 1u32).request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("adds to `length`") && m.contains("index key")), "{e:?}");
    let e = Msg::update(Msg::key("r1", 1u64, "m1")).set_if_not_exists(f.sender, "bob").request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("`sender`")), "{e:?}");
    // Setting it writes the index key with it; a field no index key holds takes an `ADD`.
    let r = Msg::update(Msg::key("r1", 1u64, "m1")).set(f.length, 12u32).add(f.likes, 1u64).request().unwrap();
    assert!(r.update_expression.contains("ADD"), "{}", r.update_expression);
    assert!(r.expression_attribute_names.values().any(|n| n == "LSI1SK"), "{:?}", r.expression_attribute_names);
}

#[test]
fn a_read_only_path_reached_through_deref_is_still_refused() {
    // `ReadOnly` paths are no `FieldPath` (a compile error, tests/ui/filled/created-at-setter);
    // the `Path` behind one, taken by hand, is refused when the update is built.
    let f = Msg::fields();
    let e = Msg::update(Msg::key("r1", 1u64, "m1")).set(*f.id, "m2").request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("primary key")), "{e:?}");
    let now = std::time::SystemTime::now();
    let e = Msg::update(Msg::key("r1", 1u64, "m1")).set(*f.created, now).request().unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("filled by the library")), "{e:?}");
}

#[test]
fn a_key_shows_its_key_texts() {
    let key = Msg::key("r1", 1_709_234_567_000u64, "m1");
    assert_eq!(format!("{key:?}"), r#"MsgKey { pk: "ROOM#r1", sk: "MSG#1709234567000#m1" }"#);
    assert_eq!((key.pk(), key.sk()), ("ROOM#r1".to_owned(), "MSG#1709234567000#m1".to_owned()));
    assert_eq!(key.try_sk().unwrap().as_deref(), Some("MSG#1709234567000#m1"));
}
