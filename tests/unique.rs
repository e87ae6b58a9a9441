//! `#[unique]` fields on DynamoDB Local: each value owns a guard item, kept in step with the item
//! by transactions; taken values are refused with nothing written, updates and deletes free the
//! old value, concurrent claims have one winner, transactions and backfills keep the guards.

mod common;

use std::collections::BTreeSet;

use dynamo_entity::{AttributeValue, Entity, Error, Item, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "ORG#<org>", sk = "USER#<user_id>", query = "by_org")]
pub struct Account {
    pub user_id: String,
    pub org: String,
    #[unique]
    pub email: String,
    #[unique]
    pub handle: Option<String>,
    pub name: String,
}

/// Another entity in the same partitions, with a unique field of the same name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "DEVICE#<device>"]
pub struct Device {
    pub user_id: String,
    pub device: String,
    #[unique]
    pub email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "VERSIONED"]
pub struct Versioned {
    pub user_id: String,
    #[unique]
    pub code: u32,
    #[version]
    pub version: u64,
}

/// An older form of accounts, moved to `Account` by a migration.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCT#<id>"]
#[sk = "PROFILE"]
pub struct LegacyAccount {
    pub id: String,
    #[unique]
    pub email: String,
}

/// Accounts as an older release typed them: the same keys, another type name (moved in place).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "PROFILE"]
pub struct AccountV0 {
    pub user_id: String,
    #[unique]
    pub email: String,
}

/// Accounts under an older key, with the type name of today's (moved to a new key).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<user_id>"]
#[sk = "PROFILE"]
#[entity(type_name = "Account")]
pub struct AccountOldKey {
    pub user_id: String,
    #[unique]
    pub email: String,
}

/// Products that gained a defaulted unique `code` and an index by name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SHOP#<shop>"]
#[sk = "ITEM#<id>"]
#[gsi2(pk = "NAME#<name>", sk = "ITEM#<id>", query = "by_name")]
pub struct Product {
    pub shop: String,
    pub id: String,
    #[unique]
    pub sku: String,
    #[unique]
    #[entity(default = "unset_code")]
    pub code: String,
    pub name: String,
}

fn unset_code() -> String {
    "unset".into()
}

/// A tenant's members: an email is unique within the tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#MEMBER#<user_id>"]
#[sk = "PROFILE"]
#[entity(tenant = "tenant_id")]
pub struct Member {
    pub tenant_id: String,
    pub user_id: String,
    #[unique]
    pub email: String,
}

/// An entity without unique fields.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<id>"]
pub struct Note {
    pub id: String,
}

fn account(id: &str, email: &str, handle: Option<&str>) -> Account {
    Account {
        user_id: id.into(),
        org: "acme".into(),
        email: email.into(),
        handle: handle.map(Into::into),
        name: format!("user {id}"),
    }
}

async fn table(test: &str) -> Table {
    common::table(
        test,
        &[Account::SCHEMA, Device::SCHEMA, Versioned::SCHEMA, LegacyAccount::SCHEMA, Member::SCHEMA, Product::SCHEMA],
    )
    .await
}

fn s(item: &Item, attr: &str) -> Option<String> {
    match item.get(attr) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    }
}

/// The guard items of the table, as (partition key, owner's partition key).
async fn guards(table: &Table) -> BTreeSet<(String, String)> {
    common::raw_items(table)
        .await
        .iter()
        .filter(|i| s(i, "SK").as_deref() == Some("UNIQUE"))
        .map(|i| (s(i, "PK").unwrap(), s(i, "owner_pk").unwrap_or_default()))
        .collect()
}

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

fn is_violation(e: &Error, field: &str) -> bool {
    matches!(e, Error::UniqueViolation { entity: "Account", field: f } if *f == field)
}

#[tokio::test]
async fn taken_values_are_refused_with_nothing_written_and_old_values_are_freed() {
    let table = table("unique-basic").await;
    let a = account("a", "a@x.io", Some("alpha"));
    table.reset_capacity();
    table.create(&a).await.unwrap();
    // One transaction (the item and two guards), counted for the entity with the item's GSI1
    // copy: 6 units for the table (2 an item, a transaction's prepare and commit) and 1 for GSI1
    // (DynamoDB applies a transaction's factor of 2 to the table alone; DynamoDB Local gave 2).
    let report = table.capacity();
    let c = report.entity("Account");
    let rows = report.rows();
    assert_eq!(c.requests, 1, "{rows:?}");
    assert!(rows.iter().all(|r| r.operation == "TransactWriteItems"), "{rows:?}");
    let gsi1 = rows.iter().find(|r| r.index.as_deref() == Some("GSI1")).map(|r| r.capacity.write_units);
    assert_eq!(gsi1, Some(1.0), "{rows:?}");
    assert!(c.write_units >= 6.0, "{c:?}");
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#a@x.io", "USER#a"), ("UNIQUE#Account#handle#alpha", "USER#a")])
    );

    // Another item with a taken value: refused, nothing of it written.
    let before = common::raw_items(&table).await.len();
    let e = table.create(&account("b", "a@x.io", Some("beta"))).await.unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
    assert_eq!(e.to_string(), "Account: the `email` value is taken by another item (unique)");
    let e = table.put(&account("b", "b@x.io", Some("alpha"))).await.unwrap_err();
    assert!(is_violation(&e, "handle"), "{e:?}");
    assert_eq!(common::raw_items(&table).await.len(), before);
    assert_eq!(table.get(Account::key("b")).await.unwrap(), None);

    // The same value in another entity is another value; `None` holds nothing.
    table.create(&Device { user_id: "b".into(), device: "phone".into(), email: "a@x.io".into() }).await.unwrap();
    table.create(&account("b", "b@x.io", None)).await.unwrap();
    // Creating an existing item is still AlreadyExists, not a unique violation.
    let e = table.create(&account("b", "c@x.io", None)).await.unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e:?}");

    // A put over the item swaps the guards whose values changed; one left as it was stays.
    table.put(&account("a", "a2@x.io", Some("alpha"))).await.unwrap();
    // The old value is free again: b takes it by update.
    let updated = table
        .update(Account::update(Account::key("b")).set(Account::fields().email, "a@x.io".to_owned()))
        .await
        .unwrap();
    assert_eq!(updated.email, "a@x.io");
    // An update that removes the value frees it; an update of other fields keeps the guards.
    table.update(Account::update(Account::key("a")).remove(Account::fields().handle)).await.unwrap();
    table.update(Account::update(Account::key("a")).set(Account::fields().name, "renamed".to_owned())).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[
            ("UNIQUE#Account#email#a2@x.io", "USER#a"),
            ("UNIQUE#Account#email#a@x.io", "USER#b"),
            ("UNIQUE#Device#email#a@x.io", "USER#b"),
        ])
    );
    // An update to a taken value: refused, the item as it was.
    let e = table
        .update(Account::update(Account::key("a")).set(Account::fields().email, "a@x.io".to_owned()))
        .await
        .unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
    assert_eq!(table.get(Account::key("a")).await.unwrap().unwrap().email, "a2@x.io");
    // An update of a missing item is NotFound, as without unique fields; nothing created.
    let e = table
        .update(Account::update(Account::key("zz")).set(Account::fields().email, "z@x.io".to_owned()))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::NotFound { .. }), "{e:?}");
    // The item's own conditions hold: a user condition that fails is ConditionFailed.
    let f = Account::fields();
    let e = table
        .update(
            Account::update(Account::key("a"))
                .set(Account::fields().email, "a3@x.io".to_owned())
                .condition(f.name.eq("nobody")),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, Error::ConditionFailed { .. }), "{e:?}");

    // A delete removes the item's guards; a delete of a missing item does nothing.
    table.delete(Account::key("a")).await.unwrap();
    table.delete(Account::key("nobody")).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#a@x.io", "USER#b"), ("UNIQUE#Device#email#a@x.io", "USER#b")])
    );
    // A value freed by a delete can be taken again.
    table.create(&account("c", "a2@x.io", Some("alpha"))).await.unwrap();

    // Versions still hold: a stale put is a VersionConflict, and the guard is not moved.
    let v = Versioned { user_id: "v".into(), code: 7, version: 0 };
    table.create(&v).await.unwrap();
    let e = table.put(&Versioned { code: 8, ..v.clone() }).await.unwrap_err();
    assert!(matches!(e, Error::VersionConflict { .. }), "{e:?}");
    table.put(&Versioned { code: 8, version: 1, ..v }).await.unwrap();
    let g = guards(&table).await;
    assert!(g.contains(&("UNIQUE#Versioned#code#8".to_owned(), "USER#v".to_owned())), "{g:?}");
    assert!(!g.iter().any(|(pk, _)| pk == "UNIQUE#Versioned#code#7"), "{g:?}");

    // Queries, scans and collections step over the guards.
    let by_org = table.query_all(Account::query_by_org("acme")).await.unwrap();
    assert_eq!(by_org.iter().map(|a| a.user_id.as_str()).collect::<Vec<_>>(), ["b", "c"]);
    let scanned = table.scan::<Account>().all().await.unwrap();
    assert_eq!(scanned.len(), 2);

    // Batches cannot check guards: refused before sending.
    let e = table.batch_put(&[account("d", "d@x.io", None)]).await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("#[unique]")), "{e:?}");
    let e = table.batch_delete([Account::key("b")]).await.unwrap_err();
    assert!(matches!(e, Error::Validation(_)), "{e:?}");
    assert!(table.get(Account::key("b")).await.unwrap().is_some());
}

#[tokio::test]
async fn of_twenty_concurrent_claims_of_one_value_exactly_one_wins() {
    let table = table("unique-race").await;
    let mut tasks = Vec::new();
    for i in 0..20 {
        let table = table.clone();
        tasks.push(tokio::spawn(async move {
            let a = account(&format!("u{i}"), "race@x.io", None);
            if i % 2 == 0 { table.create(&a).await } else { table.put(&a).await }
        }));
    }
    let mut won = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(()) => won += 1,
            Err(e) => assert!(is_violation(&e, "email"), "{e:?}"),
        }
    }
    assert_eq!(won, 1);
    let items = table.scan::<Account>().all().await.unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(guards(&table).await, set(&[("UNIQUE#Account#email#race@x.io", &format!("USER#{}", items[0].user_id))]));

    // Concurrent swaps of one item's value: the guards end in step with the item.
    let mut tasks = Vec::new();
    for i in 0..10 {
        let table = table.clone();
        let id = items[0].user_id.clone();
        tasks.push(tokio::spawn(async move {
            table.update(Account::update(Account::key(id)).set(Account::fields().email, format!("swap{i}@x.io"))).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let now = table.get(Account::key(items[0].user_id.clone())).await.unwrap().unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[(&format!("UNIQUE#Account#email#{}", now.email), &format!("USER#{}", now.user_id))])
    );
}

#[tokio::test]
async fn transactions_write_the_guards_of_their_items() {
    let table = table("unique-transact").await;
    table.create(&account("a", "a@x.io", None)).await.unwrap();
    // Several items with unique fields, and one that names a taken value: refused whole.
    let e = table
        .transact()
        .create(&account("b", "b@x.io", Some("bee")))
        .create(&account("c", "a@x.io", None))
        .send()
        .await
        .unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
    assert_eq!(table.scan::<Account>().all().await.unwrap().len(), 1);
    // Two items of one transaction with one value.
    let e = table
        .transact()
        .create(&account("b", "same@x.io", None))
        .create(&account("c", "same@x.io", None))
        .send()
        .await
        .unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");

    // Create, put over, update and delete in one transaction: the guards follow each.
    table
        .transact()
        .create(&account("b", "b@x.io", Some("bee")))
        .put(&account("a", "a2@x.io", None))
        .send()
        .await
        .unwrap();
    table
        .transact()
        .update(Account::update(Account::key("b")).set(Account::fields().handle, "bee2".to_owned()))
        .delete(Account::key("a"))
        .create(&account("c", "a2@x.io", None))
        .send()
        .await
        .unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[
            ("UNIQUE#Account#email#a2@x.io", "USER#c"),
            ("UNIQUE#Account#email#b@x.io", "USER#b"),
            ("UNIQUE#Account#handle#bee2", "USER#b"),
        ])
    );
    // A failed condition of the caller's own actions is a TransactionCanceled with its reasons,
    // indexed as the caller added them.
    let e = table
        .transact()
        .create(&account("d", "d@x.io", None))
        .create(&account("b", "other@x.io", None))
        .send()
        .await
        .unwrap_err();
    match e {
        Error::TransactionCanceled { reasons } => {
            assert_eq!(reasons.len(), 2);
            assert_eq!(reasons[1].code, dynamo_entity::CancelCode::ConditionalCheckFailed);
        }
        e => panic!("{e:?}"),
    }
    // The guards count towards the 100 actions: a put and 40 creates with two values each are
    // 121 at least, whatever the put's item holds.
    let mut t = table.transact().put(&account("p", "p@x.io", None));
    for i in 0..40 {
        t = t.create(&account(&format!("m{i}"), &format!("m{i}@x.io"), Some(&format!("m{i}"))));
    }
    let sent = table.requests_sent();
    let e = t.send().await.unwrap_err();
    assert!(matches!(&e, Error::Validation(m) if m.contains("121 actions")), "{e:?}");
    // Refused before the put's item was read: a create's values are all claimed.
    assert_eq!(table.requests_sent(), sent);
    assert_eq!(table.scan::<Account>().all().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_backfill_writes_missing_guards_and_reports_duplicates() {
    let table = table("unique-backfill").await;
    // Items written before the field was unique (raw, without guards), two with one value.
    for (id, email) in [("a", "a@x.io"), ("b", "b@x.io"), ("c", "a@x.io"), ("d", "d@x.io")] {
        let mut item = account(id, email, None).to_item().unwrap();
        item.remove("handle");
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    // One item already has its guard (written through the library).
    table.create(&account("e", "e@x.io", Some("eee"))).await.unwrap();

    let dry = table.backfill::<Account>().dry_run().run().await.unwrap();
    assert_eq!(guards(&table).await.len(), 2, "a dry run writes nothing");
    assert_eq!(dry.written, 4, "{dry}");

    let report = table.backfill::<Account>().run().await.unwrap();
    assert_eq!(report.scanned, 7, "{report}");
    assert_eq!(report.stepped_over, 2, "the two guards: {report}");
    assert_eq!(report.written, 3, "{report}");
    assert_eq!(report.already_current, 1, "{report}");
    assert_eq!(report.failed.len(), 1, "{report}");
    let failed = &report.failed[0];
    assert!(failed.key.0 == "USER#a" || failed.key.0 == "USER#c", "{failed:?}");
    assert!(is_violation(&failed.error, "email"), "{failed:?}");
    let g = guards(&table).await;
    assert_eq!(g.len(), 5, "{g:?}");
    assert!(g.contains(&("UNIQUE#Account#email#b@x.io".to_owned(), "USER#b".to_owned())));

    // A second run writes nothing and reports the duplicate again.
    let again = table.backfill::<Account>().run().await.unwrap();
    assert_eq!((again.written, again.failed.len()), (0, 1), "{again}");
}

#[tokio::test]
async fn a_migration_moves_the_guards_to_the_new_type() {
    let table = table("unique-migrate").await;
    for (id, email) in [("1", "one@x.io"), ("2", "two@x.io"), ("3", "taken@x.io")] {
        table.create(&LegacyAccount { id: id.into(), email: email.into() }).await.unwrap();
    }
    // An account that already holds the third one's address.
    table.create(&account("9", "taken@x.io", None)).await.unwrap();
    let report = table
        .migrate(|old: LegacyAccount| Account {
            user_id: old.id,
            org: "acme".into(),
            email: old.email,
            handle: None,
            name: "migrated".into(),
        })
        .run()
        .await
        .unwrap();
    assert_eq!(report.written, 2, "{report}");
    assert_eq!(report.failed.len(), 1, "{report}");
    assert_eq!(report.failed[0].key.0, "ACCT#3");
    assert!(is_violation(&report.failed[0].error, "email"), "{report}");
    assert_eq!(
        guards(&table).await,
        set(&[
            ("UNIQUE#Account#email#one@x.io", "USER#1"),
            ("UNIQUE#Account#email#two@x.io", "USER#2"),
            ("UNIQUE#Account#email#taken@x.io", "USER#9"),
            ("UNIQUE#LegacyAccount#email#taken@x.io", "ACCT#3"),
        ])
    );
    // The item that could not move is kept as it was.
    assert!(table.get(LegacyAccount::key("3")).await.unwrap().is_some());
    assert_eq!(table.get(LegacyAccount::key("1")).await.unwrap(), None);
}

#[tokio::test]
async fn with_a_tenant_a_value_is_unique_within_the_tenant_and_its_guard_leads_with_it() {
    let table = table("unique-tenant").await;
    let member = |t: &str, u: &str, email: &str| Member { tenant_id: t.into(), user_id: u.into(), email: email.into() };
    let (t1, t2) = (table.for_tenant("t1"), table.for_tenant("t2"));
    t1.create(&member("t1", "u1", "a@x.io")).await.unwrap();
    let e = t1.create(&member("t1", "u2", "a@x.io")).await.unwrap_err();
    assert!(matches!(e, Error::UniqueViolation { entity: "Member", field: "email" }), "{e:?}");
    // Another tenant holds its own values; a tenant handle still refuses another tenant's item.
    t2.create(&member("t2", "u1", "a@x.io")).await.unwrap();
    let e = t1.create(&member("t2", "u9", "z@x.io")).await.unwrap_err();
    assert!(matches!(e, Error::OutsideTenant { .. }), "{e:?}");
    t1.update(Member::update(Member::key("t1", "u1")).set(Member::fields().email, "b@x.io".to_owned())).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[
            ("TENANT#t1#UNIQUE#Member#email#b@x.io", "TENANT#t1#MEMBER#u1"),
            ("TENANT#t2#UNIQUE#Member#email#a@x.io", "TENANT#t2#MEMBER#u1"),
        ])
    );
    // The tenant policy's leading keys cover the guards (`TENANT#<tag>#*`).
    let policy = dynamo_entity::TableDefinition::from_entities(&[Member::SCHEMA])
        .unwrap()
        .iam_policy(&dynamo_entity::IamPolicy::read_write().tenant_tag("TenantId").table_name("members"))
        .unwrap();
    assert!(policy.contains("\"TENANT#${aws:PrincipalTag/TenantId}#*\""), "{policy}");
    let doc = dynamo_entity::TableDefinition::from_entities(&[Member::SCHEMA]).unwrap().to_markdown("members");
    assert!(doc.contains("`PK` = `TENANT#<tenant_id>#UNIQUE#Member#email#<email>`"), "{doc}");
}

#[test]
fn the_access_pattern_document_lists_the_guards() {
    let def = dynamo_entity::TableDefinition::from_entities(&[Account::SCHEMA, Device::SCHEMA]).unwrap();
    let doc = def.to_markdown("users");
    assert!(doc.contains("| Account | `email` | `PK` = `UNIQUE#Account#email#<email>` | `SK` = `UNIQUE` |"), "{doc}");
    assert!(doc.contains("| Account | `handle` |"), "{doc}");
    assert!(doc.contains("| Device | `email` |"), "{doc}");
    // Entities without unique fields add no section.
    let plain = dynamo_entity::TableDefinition::from_entities(&[Note::SCHEMA]).unwrap();
    assert!(!plain.to_markdown("v").contains("## Unique values"));
}

#[tokio::test]
async fn a_stream_of_the_entity_steps_over_the_guards() {
    use dynamo_entity::stream::{ChangeKind, StreamReader};
    use futures_util::StreamExt;
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("unique-stream-{}", std::process::id()));
    let def = dynamo_entity::TableDefinition::from_entities(&[Account::SCHEMA])
        .unwrap()
        .stream(dynamo_entity::StreamView::NewAndOldImages);
    table.create_table_from(&def).await.unwrap();
    table.create(&account("a", "a@x.io", Some("alpha"))).await.unwrap();
    table.update(Account::update(Account::key("a")).set(Account::fields().email, "b@x.io".to_owned())).await.unwrap();
    table.delete(Account::key("a")).await.unwrap();

    let streams = dynamo_entity::local::streams_client().await.unwrap();
    let reader = StreamReader::for_table(&table, streams)
        .await
        .unwrap()
        .poll_interval(std::time::Duration::from_millis(50))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Account>().collect().await;
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| match &c.as_ref().expect("a change").kind {
            ChangeKind::Inserted(_) => "insert",
            ChangeKind::Modified { .. } => "modify",
            ChangeKind::Removed(_) | ChangeKind::Expired(_) => "remove",
        })
        .collect();
    // The item's three changes; the five guard writes (two claims, a swap, two releases) are
    // stepped over.
    assert_eq!(kinds, ["insert", "modify", "remove"]);
    assert!(changes.iter().all(|c| c.as_ref().unwrap().pk == "USER#a"));
}

/// A handle of `table` on a client whose requests are counted.
fn counted(table: &Table) -> (Table, common::Executed) {
    let executed = common::Executed::default();
    let config = table.client().config().to_builder().interceptor(executed.clone()).build();
    (Table::new(aws_sdk_dynamodb::Client::from_conf(config), table.name()), executed)
}

#[tokio::test]
async fn a_failed_create_sends_one_transaction_and_is_not_attributed_to_a_partition() {
    let table = table("unique-create-once").await;
    let (counted, executed) = counted(&table);
    table.create(&account("a", "a@x.io", Some("alpha"))).await.unwrap();

    // The item exists: ALL_OLD returns it, which is the create's failure, not a stale read.
    let before = executed.count();
    let e = counted.create(&account("a", "other@x.io", None)).await.unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e:?}");
    assert_eq!(executed.count() - before, 1, "one transaction");
    // The same with a value taken by the item itself.
    let before = executed.count();
    let e = counted.create(&account("a", "a@x.io", None)).await.unwrap_err();
    assert!(matches!(e, Error::AlreadyExists { .. }), "{e:?}");
    assert_eq!(executed.count() - before, 1, "one transaction");
    // A value taken by another item: one transaction too.
    let before = executed.count();
    let e = counted.create(&account("b", "a@x.io", None)).await.unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
    assert_eq!(executed.count() - before, 1, "one transaction");

    // A guarded write is a transaction: it spans the guards' partitions, and hot partitions
    // attribute none (the read before a put is a single-item read: attributed).
    let hot = |t: &Table| t.capacity().hot_partitions(10).into_iter().map(|(k, _)| k.to_owned()).collect::<Vec<_>>();
    assert!(hot(&table).is_empty(), "{:?}", hot(&table));
    table.put(&account("a", "a3@x.io", None)).await.unwrap();
    let report = table.capacity();
    let rows = report.hot_partitions(10);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0].0, rows[0].1.read_units, rows[0].1.write_units), ("USER#a", 1.0, 0.0), "{rows:?}");
}

#[tokio::test]
async fn a_migration_in_place_to_a_new_type_name_moves_the_guards_to_it() {
    let table = table("unique-migrate-in-place").await;
    for (id, email) in [("1", "one@x.io"), ("2", "two@x.io")] {
        table.create(&AccountV0 { user_id: id.into(), email: email.into() }).await.unwrap();
    }
    let report = table.migrate(|old: AccountV0| account(&old.user_id, &old.email, None)).run().await.unwrap();
    assert_eq!((report.written, report.failed.len()), (2, 0), "{report}");
    // The new type's guards claimed, the old type's freed: in the same transaction as the put.
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#one@x.io", "USER#1"), ("UNIQUE#Account#email#two@x.io", "USER#2")])
    );
    let e = table.create(&account("3", "one@x.io", None)).await.unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
    // A writer still holding the old type (the soak's seed 3 found it): the item under its key is
    // now an `Account`, whose guards an `AccountV0` write would not release. Refused before
    // sending, the item and its guard kept; a delete as `AccountV0` used to remove the item and
    // leave `UNIQUE#Account#email#one@x.io` behind, owned by nothing.
    let e = table.delete(AccountV0::key("1")).await.unwrap_err();
    assert!(e.to_string().contains("the item is a `Account`, not a `AccountV0`"), "{e}");
    let e = table
        .update(AccountV0::update(AccountV0::key("2")).set(AccountV0::fields().email, "other@x.io".to_owned()))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("not a `AccountV0`"), "{e}");
    assert!(table.get(Account::key("1")).await.unwrap().is_some());
    assert_eq!(table.get(Account::key("2")).await.unwrap().map(|a| a.email), Some("two@x.io".to_owned()));
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#one@x.io", "USER#1"), ("UNIQUE#Account#email#two@x.io", "USER#2")])
    );
}

#[tokio::test]
async fn a_migration_to_a_new_key_under_the_same_type_name_passes_the_guards_on() {
    let table = table("unique-migrate-new-key").await;
    for (id, email) in [("1", "one@x.io"), ("2", "two@x.io")] {
        table.create(&AccountOldKey { user_id: id.into(), email: email.into() }).await.unwrap();
    }
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#one@x.io", "ACCOUNT#1"), ("UNIQUE#Account#email#two@x.io", "ACCOUNT#2")])
    );
    let report = table.migrate(|old: AccountOldKey| account(&old.user_id, &old.email, None)).run().await.unwrap();
    assert_eq!((report.written, report.failed.len()), (2, 0), "{report:?}");
    // Each guard passed to the new owner in the transaction that moved the item.
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#one@x.io", "USER#1"), ("UNIQUE#Account#email#two@x.io", "USER#2")])
    );
    assert_eq!(table.get(AccountOldKey::key("1")).await.unwrap(), None);
    let e = table.create(&account("3", "one@x.io", None)).await.unwrap_err();
    assert!(is_violation(&e, "email"), "{e:?}");
}

/// A product as the code before `code` and the index by name wrote it: no guards, no `code`,
/// no index keys.
async fn raw_product(table: &Table, id: &str, sku: &str, code: Option<&str>) {
    let p = Product {
        shop: "s".into(),
        id: id.into(),
        sku: sku.into(),
        code: code.unwrap_or("").into(),
        name: "mug".into(),
    };
    let mut item = p.to_item().unwrap();
    item.remove("GSI2PK");
    item.remove("GSI2SK");
    if code.is_none() {
        item.remove("code");
    }
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

#[tokio::test]
async fn a_backfill_claims_the_guard_of_a_defaulted_value_and_writes_no_duplicate_of_it() {
    let table = table("unique-backfill-default").await;
    raw_product(&table, "1", "sku-1", None).await;
    raw_product(&table, "2", "sku-2", None).await;
    let report = table.backfill::<Product>().run().await.unwrap();
    // One item takes `code = "unset"` with its guard; the other cannot: reported, its `code`
    // left out, everything else written (its sku's guard, its index keys).
    assert_eq!((report.written, report.failed.len()), (2, 1), "{report}");
    let failed = &report.failed[0];
    assert!(matches!(failed.error, Error::UniqueViolation { entity: "Product", field: "code" }), "{failed:?}");
    let g = guards(&table).await;
    let codes: Vec<_> = g.iter().filter(|(pk, _)| pk.starts_with("UNIQUE#Product#code#")).collect();
    assert_eq!(codes.len(), 1, "{g:?}");
    assert_eq!(codes[0].0, "UNIQUE#Product#code#unset");
    assert_eq!(g.iter().filter(|(pk, _)| pk.starts_with("UNIQUE#Product#sku#")).count(), 2, "{g:?}");
    let holders: Vec<Item> =
        common::raw_items(&table).await.into_iter().filter(|i| s(i, "code").as_deref() == Some("unset")).collect();
    assert_eq!(holders.len(), 1, "one item holds the value: {holders:?}");
    assert_eq!(s(&holders[0], "PK"), Some(codes[0].1.clone()));
    assert_eq!(table.query_all(Product::query_by_name("mug")).await.unwrap().len(), 2);
    // The value is guarded: a third item cannot take it.
    let third =
        Product { shop: "s".into(), id: "3".into(), sku: "sku-3".into(), code: "unset".into(), name: "x".into() };
    let e = table.create(&third).await.unwrap_err();
    assert!(matches!(e, Error::UniqueViolation { entity: "Product", field: "code" }), "{e:?}");
}

#[tokio::test]
async fn a_backfill_writes_the_index_keys_of_an_item_with_a_duplicate_value_and_reports_it() {
    let table = table("unique-backfill-dup-index").await;
    raw_product(&table, "1", "dup", Some("c1")).await;
    raw_product(&table, "2", "dup", Some("c2")).await;
    let report = table.backfill::<Product>().run().await.unwrap();
    assert_eq!((report.written, report.failed.len()), (2, 1), "{report}");
    let failed = &report.failed[0];
    assert!(matches!(failed.error, Error::UniqueViolation { entity: "Product", field: "sku" }), "{failed:?}");
    // Both items are in the new index; the one whose sku another holds has no sku guard.
    assert_eq!(table.query_all(Product::query_by_name("mug")).await.unwrap().len(), 2);
    let g = guards(&table).await;
    assert_eq!(g.iter().filter(|(pk, _)| pk.starts_with("UNIQUE#Product#sku#")).count(), 1, "{g:?}");
    assert_eq!(g.iter().filter(|(pk, _)| pk.starts_with("UNIQUE#Product#code#")).count(), 2, "{g:?}");
    // A second run writes nothing and reports the duplicate again.
    let again = table.backfill::<Product>().run().await.unwrap();
    assert_eq!((again.written, again.failed.len()), (0, 1), "{again}");
}

#[tokio::test]
async fn a_backfill_frees_guards_whose_owner_no_longer_holds_the_value() {
    let table = table("unique-backfill-orphans").await;
    table.create(&account("a", "a@x.io", None)).await.unwrap();
    table.create(&account("b", "b@x.io", None)).await.unwrap();
    table.create(&account("c", "c@x.io", None)).await.unwrap();
    // Code that knows nothing of guards: changes a's address, deletes b.
    table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S("USER#a".into()))
        .key("SK", AttributeValue::S("PROFILE".into()))
        .update_expression("SET email = :e")
        .expression_attribute_values(":e", AttributeValue::S("a2@x.io".into()))
        .send()
        .await
        .unwrap();
    table
        .client()
        .delete_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S("USER#b".into()))
        .key("SK", AttributeValue::S("PROFILE".into()))
        .send()
        .await
        .unwrap();
    let dry = table.backfill::<Account>().dry_run().run().await.unwrap();
    assert_eq!(guards(&table).await.len(), 3, "a dry run frees nothing");
    // a's new guard, and the two orphans freed.
    assert_eq!(dry.written, 3, "{dry}");

    let report = table.backfill::<Account>().run().await.unwrap();
    assert_eq!((report.written, report.failed.len()), (3, 0), "{report}");
    // c's guard is in use: stepped over, as is every guard of another entity.
    assert_eq!(
        guards(&table).await,
        set(&[("UNIQUE#Account#email#a2@x.io", "USER#a"), ("UNIQUE#Account#email#c@x.io", "USER#c")])
    );
    // The freed values can be taken again.
    table.create(&account("d", "a@x.io", None)).await.unwrap();
    table.create(&account("e", "b@x.io", None)).await.unwrap();
    let again = table.backfill::<Account>().run().await.unwrap();
    assert_eq!(again.written, 0, "{again}");
}
