//! `#[entity(validate = "..")]` on fields and on the struct: every write path refuses an invalid
//! value with `Error::Invalid` before anything is sent (a batch or a transaction whole), checked
//! with raw SDK scans of the table. Against DynamoDB Local.

mod common;

use dynamo_entity::{Entity, Error, Table};

fn valid_email(v: &String) -> Result<(), String> {
    if v.contains('@') { Ok(()) } else { Err(format!("`{v}` is not an email address")) }
}

fn valid_nick(v: &Option<String>) -> Result<(), String> {
    match v {
        Some(n) if n.is_empty() => Err("an empty nickname".into()),
        _ => Ok(()),
    }
}

fn badge_kept(v: &Option<String>) -> Result<(), String> {
    match v {
        None => Err("a badge, once given, stays".into()),
        Some(_) => Ok(()),
    }
}

/// A field whose validator refuses `None`: removing it is a value the validator sees.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "BADGE#<id>"]
pub struct Badge {
    pub id: String,
    #[entity(validate = "badge_kept")]
    pub badge: Option<String>,
    pub note: Option<String>,
}

fn adult_or_guardian(p: &Profile) -> Result<(), String> {
    if p.age >= 18 || p.guardian.is_some() { Ok(()) } else { Err("a minor needs a guardian".into()) }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(validate = "adult_or_guardian")]
pub struct Profile {
    pub user_id: String,
    #[entity(validate = "valid_email")]
    pub email: String,
    #[entity(validate = "valid_nick")]
    pub nick: Option<String>,
    pub age: u32,
    pub guardian: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(type_name = "Profile")]
pub struct Unchecked {
    pub user_id: String,
    pub email: String,
    pub nick: Option<String>,
    pub age: u32,
    pub guardian: Option<String>,
}

fn good(id: &str) -> Profile {
    Profile { user_id: id.into(), email: format!("{id}@example.com"), nick: None, age: 30, guardian: None }
}

async fn table(test: &str) -> Table {
    common::table(test, &[Profile::SCHEMA]).await
}

fn is_field(e: &Error, field: &str) -> bool {
    matches!(e, Error::Invalid { entity: "Profile", field: Some(f), .. } if *f == field)
}

fn is_struct(e: &Error) -> bool {
    matches!(e, Error::Invalid { entity: "Profile", field: None, message } if message == "a minor needs a guardian")
}

#[tokio::test]
async fn single_writes_are_refused_before_sending() {
    let table = table("valid-single").await;
    let bad = Profile { email: "nope".into(), ..good("u1") };
    let e = table.create(&bad).await.unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    assert_eq!(e.to_string(), "invalid Profile `email`: `nope` is not an email address");
    let e = table.put(&Profile { nick: Some(String::new()), ..good("u1") }).await.unwrap_err();
    assert!(is_field(&e, "nick"), "{e:?}");
    let e = table.put(&Profile { age: 12, ..good("u1") }).returning().await.unwrap_err();
    assert!(is_struct(&e), "{e:?}");
    assert!(common::raw_items(&table).await.is_empty(), "nothing written");
    // Valid ones pass.
    table.create(&Profile { age: 12, guardian: Some("mum".into()), ..good("u2") }).await.unwrap();
    assert_eq!(common::raw_items(&table).await.len(), 1);
}

#[tokio::test]
async fn update_setters_run_the_fields_validators() {
    let table = table("valid-update").await;
    table.create(&good("u1")).await.unwrap();
    let before = common::raw_items(&table).await;
    let e = table
        .update(
            Profile::update(Profile::key("u1")).set(Profile::fields().email, "bad").set(Profile::fields().age, 40u32),
        )
        .await
        .unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    let e = table.update(Profile::update(Profile::key("u1")).set(Profile::fields().nick, "")).await.unwrap_err();
    assert!(is_field(&e, "nick"), "{e:?}");
    // An upsert of a missing item: nothing created.
    let e = table
        .update(
            Profile::update(Profile::key("u2"))
                .set(Profile::fields().email, "bad")
                .set(Profile::fields().age, 1u32)
                .upsert(),
        )
        .await
        .unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    assert_eq!(common::raw_items(&table).await, before, "nothing written");
    table.update(Profile::update(Profile::key("u1")).set(Profile::fields().email, "new@example.com")).await.unwrap();
}

#[tokio::test]
async fn a_transaction_with_one_invalid_action_is_refused_whole() {
    let table = table("valid-transact").await;
    table.create(&good("u0")).await.unwrap();
    let before = common::raw_items(&table).await;
    let e = table.transact().put(&good("u1")).put(&Profile { age: 3, ..good("u2") }).send().await.unwrap_err();
    assert!(is_struct(&e), "{e:?}");
    let e = table
        .transact()
        .put(&good("u1"))
        .update(Profile::update(Profile::key("u0")).set(Profile::fields().email, "x"))
        .send()
        .await
        .unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    assert_eq!(common::raw_items(&table).await, before, "nothing written");
}

#[tokio::test]
async fn a_batch_with_one_invalid_item_is_refused_whole() {
    let table = table("valid-batch").await;
    let mut items: Vec<Profile> = (0..40).map(|i| good(&format!("u{i}"))).collect();
    items[33].email = "broken".into();
    let e = table.batch_put(&items).await.unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    assert!(common::raw_items(&table).await.is_empty(), "nothing of the batch written");
    let mut batch = table.write_batch();
    for item in &items {
        batch = batch.put(item);
    }
    let e = batch.send().await.unwrap_err();
    assert!(is_field(&e, "email"), "{e:?}");
    let e = table.write_batch().put(&good("a")).put(&Profile { age: 1, ..good("b") }).send().await.unwrap_err();
    assert!(is_struct(&e), "{e:?}");
    assert!(common::raw_items(&table).await.is_empty(), "nothing of the write batch written");
}

#[tokio::test]
async fn migrate_and_backfill_refuse_invalid_items() {
    let table = table("valid-evolve").await;
    // Written by code without the validators, which kept the key field in the key only: the
    // backfill would write its `user_id` attribute, so it validates the item (and refuses it). An
    // item it would not write is not validated (tests/backfill.rs,
    // a_backfill_validates_only_the_items_it_writes).
    let mut unchecked =
        Unchecked { user_id: "u1".into(), email: "bad".into(), nick: None, age: 30, guardian: None }.to_item().unwrap();
    unchecked.remove("user_id");
    table.client().put_item().table_name(table.name()).set_item(Some(unchecked)).send().await.unwrap();
    table.create(&good("u2")).await.unwrap();
    let before = common::raw_items(&table).await;
    let report = table.backfill::<Profile>().run().await.unwrap();
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert!(is_field(&report.failed[0].error, "email"), "{report:?}");
    assert_eq!(common::raw_items(&table).await, before, "the refused item not written");
    // A migration whose output is invalid leaves the old item as it was.
    let report = table
        .migrate::<Unchecked, Profile, _>(|u| Profile {
            user_id: u.user_id,
            email: u.email,
            nick: u.nick,
            age: 5,
            guardian: None,
        })
        .run()
        .await
        .unwrap();
    assert_eq!(report.written, 0, "{report:?}");
    assert_eq!(report.failed.len(), 2, "{report:?}");
    assert!(is_field(&report.failed.iter().find(|f| f.key.0 == "USER#u1").unwrap().error, "email"));
    assert!(is_struct(&report.failed.iter().find(|f| f.key.0 == "USER#u2").unwrap().error));
    let mut after = common::raw_items(&table).await;
    let mut before = before;
    let key = |i: &dynamo_entity::Item| format!("{:?}", i["PK"]);
    after.sort_by_key(key);
    before.sort_by_key(key);
    assert_eq!(after, before, "nothing written");
}

#[test]
fn remove_and_set_if_not_exists_run_the_fields_validators() {
    let f = Badge::fields();
    let badge = |e: &Error| matches!(e, Error::Invalid { entity: "Badge", field: Some("badge"), .. });
    let e = Badge::update(Badge::key("b1")).remove(f.badge).request().unwrap_err();
    assert!(badge(&e), "{e:?}");
    let e = Badge::update(Badge::key("b1")).set(f.badge, None).request().unwrap_err();
    assert!(badge(&e), "{e:?}");
    let e = Badge::update(Badge::key("b1")).set_if_not_exists(f.badge, None).request().unwrap_err();
    assert!(badge(&e), "{e:?}");
    // A value it takes passes; removing another field is not its validator's business.
    assert!(Badge::update(Badge::key("b1")).set(f.badge, "gold").remove(f.note).request().is_ok());
}
