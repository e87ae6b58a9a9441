//! Transactions against DynamoDB Local: all or nothing, typed per-action reasons, limits
//! checked before sending, idempotency, versions, transactional reads.

mod common;

use dynamo_entity::{CancelCode, Check, Entity, Error, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<id>"]
#[sk = "BALANCE"]
pub struct Account {
    pub id: String,
    pub balance: i64,
    #[version]
    pub version: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<account>"]
#[sk = "TRANSFER#<id>"]
pub struct Transfer {
    pub account: String,
    pub id: String,
    pub amount: i64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<account>"]
#[sk = "NOTE#<id>"]
pub struct Note {
    pub account: String,
    pub id: u32,
    pub text: String,
}

async fn table(test: &str) -> Table {
    common::table(test, &[Account::SCHEMA, Transfer::SCHEMA]).await
}

fn account(id: &str, balance: i64) -> Account {
    Account { id: id.into(), balance, version: 0 }
}

async fn count(table: &Table) -> i32 {
    table.client().scan().table_name(table.name()).send().await.unwrap().count
}

#[tokio::test]
async fn all_actions_apply_together() {
    let table = table("tx-ok").await;
    table.put(&account("a", 100)).await.unwrap();
    table.put(&account("gone", 0)).await.unwrap();
    table
        .transact()
        .update(Account::update(Account::key("a")).set(Account::fields().balance, 70i64).if_version(1))
        .create(&Transfer { account: "a".into(), id: "t1".into(), amount: -30 })
        .create(&account("b", 30))
        .delete(Account::key("gone"))
        .condition_check(Transfer::key("a", "t0"), Check::NotExists)
        .send()
        .await
        .unwrap();
    let a = table.get(Account::key("a")).await.unwrap().unwrap();
    assert_eq!((a.balance, a.version), (70, 2));
    assert_eq!(table.get(Account::key("b")).await.unwrap().unwrap().balance, 30);
    assert!(table.get(Account::key("gone")).await.unwrap().is_none());
    assert!(table.get(Transfer::key("a", "t1")).await.unwrap().is_some());
}

#[tokio::test]
async fn a_failed_transaction_writes_nothing_and_names_the_failing_action() {
    let table = table("tx-fail").await;
    table.put(&account("a", 100)).await.unwrap();
    table.put(&account("b", 0)).await.unwrap();
    let result = table
        .transact()
        .create(&Transfer { account: "a".into(), id: "t1".into(), amount: 5 })
        .update(Account::update(Account::key("a")).add(Account::fields().balance, 5i64))
        .create(&account("b", 5))
        .send()
        .await;
    match result {
        Err(Error::TransactionCanceled { reasons }) => {
            assert_eq!(reasons.len(), 3);
            assert!(reasons.iter().any(|r| r.code == CancelCode::ConditionalCheckFailed), "{reasons:?}");
            let failing: Vec<usize> = reasons.iter().filter(|r| r.code != CancelCode::None).map(|r| r.index).collect();
            assert_eq!(failing, vec![2], "{reasons:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(count(&table).await, 2, "nothing of the transaction was written");
    assert_eq!(table.get(Account::key("a")).await.unwrap().unwrap().balance, 100);
}

#[tokio::test]
async fn a_stale_version_cancels_the_transaction() {
    let table = table("tx-version").await;
    table.put(&account("a", 1)).await.unwrap();
    let stale = account("a", 2); // version 0: "must not exist"
    let r = table.transact().put(&stale).create(&account("c", 1)).send().await;
    assert!(
        matches!(&r, Err(Error::TransactionCanceled { reasons }) if reasons[0].code == CancelCode::ConditionalCheckFailed),
        "{r:?}"
    );
    assert!(table.get(Account::key("c")).await.unwrap().is_none());
    let r =
        table.transact().condition_check(Account::key("a"), Check::Version(7)).create(&account("c", 1)).send().await;
    assert!(matches!(r, Err(Error::TransactionCanceled { .. })), "{r:?}");
    table
        .transact()
        .condition_check(Account::key("a"), Check::Version(1))
        .create(&account("c", 1))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn limits_are_checked_before_sending() {
    let table = table("tx-limits").await;
    let mut tx = table.transact();
    for i in 0..101 {
        tx = tx.put(&account(&format!("x{i}"), i));
    }
    assert_eq!(tx.len(), 101);
    assert!(matches!(tx.send().await, Err(Error::Validation(m)) if m.contains("101")));
    assert_eq!(count(&table).await, 0, "101 actions refused, nothing written");

    let mut tx = table.transact();
    for i in 0..100 {
        tx = tx.put(&account(&format!("x{i}"), i));
    }
    tx.send().await.unwrap();
    assert_eq!(count(&table).await, 100, "100 actions are fine");

    let twice = table.transact().put(&account("y", 1)).delete(Account::key("y")).send().await;
    assert!(matches!(twice, Err(Error::Validation(m)) if m.contains("two actions")));
    let long_token = table.transact().put(&account("z", 1)).idempotency_token("t".repeat(37)).send().await;
    assert!(matches!(long_token, Err(Error::Validation(_))));
    assert!(matches!(table.transact().send().await, Err(Error::Validation(_))));
}

#[tokio::test]
async fn an_idempotency_token_applies_a_transaction_once() {
    let table = table("tx-token").await;
    table.put(&account("a", 0)).await.unwrap();
    for _ in 0..2 {
        table
            .transact()
            .update(Account::update(Account::key("a")).add(Account::fields().balance, 10i64))
            .create(&Transfer { account: "a".into(), id: "deposit-1".into(), amount: 10 })
            .idempotency_token("deposit-1")
            .send()
            .await
            .unwrap();
    }
    assert_eq!(table.get(Account::key("a")).await.unwrap().unwrap().balance, 10, "applied once");
}

#[tokio::test]
async fn transact_get_reads_in_order() {
    let table = table("tx-get").await;
    table.put(&account("a", 1)).await.unwrap();
    table.put(&account("b", 2)).await.unwrap();
    let got = table.transact_get([Account::key("b"), Account::key("none"), Account::key("a")]).await.unwrap();
    let balances: Vec<Option<i64>> = got.iter().map(|a| a.as_ref().map(|a| a.balance)).collect();
    assert_eq!(balances, vec![Some(2), None, Some(1)]);
    let too_many = table.transact_get((0..101).map(|i| Account::key(format!("k{i}")))).await;
    assert!(matches!(too_many, Err(Error::Validation(_))));
    let dup = table.transact_get([Account::key("a"), Account::key("a")]).await;
    assert!(matches!(dup, Err(Error::Validation(_))));
}

#[tokio::test]
async fn updates_count_towards_the_4_mb_limit() {
    // A table that does not exist: a request sent would be an SDK error, so a Validation error
    // proves the size was checked before sending.
    let client = dynamo_entity::local::client().await.unwrap();
    let table = Table::new(client, "no-such-table");
    let big = "x".repeat(350 * 1024);
    let mut tx = table.transact();
    for id in 0..12 {
        tx = tx.update(Note::update(Note::key("a", id as u32)).set(Note::fields().text, big.clone()));
    }
    let r = tx.send().await;
    assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("bytes")), "{r:?}");
    // Below the limit, the same transaction is sent (and fails on the missing table).
    let mut tx = table.transact();
    for id in 0..11 {
        tx = tx.update(Note::update(Note::key("a", id as u32)).set(Note::fields().text, big.clone()));
    }
    let sent = tx.send().await;
    assert!(matches!(sent, Err(Error::Sdk(_)) | Err(Error::TransactionCanceled { .. })), "{sent:?}");
}

#[tokio::test]
async fn transactions_are_traced_with_entities_and_capacity() {
    // `table` installs the binary's span capture first (see `common::spans`).
    let table = table("tx-traced").await;

    table
        .transact()
        .create(&account("a", 1))
        .create(&Transfer { account: "a".into(), id: "t1".into(), amount: 1 })
        .send()
        .await
        .unwrap();
    table.transact_get([Account::key("a")]).await.unwrap();

    let ours: Vec<_> = common::spans::of_table(table.name())
        .into_iter()
        .filter(|s| s.name == "dynamodb" && s.field("operation").is_some_and(|o| o.starts_with("Transact")))
        .collect();
    assert_eq!(ours.len(), 2, "{ours:?}");
    let write = &ours[0];
    assert_eq!(write.field("operation"), Some("TransactWriteItems"));
    assert_eq!(write.field("entity"), Some("Account,Transfer"));
    assert_eq!(write.field("items"), Some("2"));
    assert!(write.field("consumed_capacity").is_some_and(|c| c.parse::<f64>().unwrap() > 0.0), "{write:?}");
    let get = &ours[1];
    assert_eq!(get.field("operation"), Some("TransactGetItems"));
    assert_eq!(get.field("entity"), Some("Account"));
    assert!(get.field("consumed_capacity").is_some_and(|c| c.parse::<f64>().unwrap() > 0.0), "{get:?}");
}
