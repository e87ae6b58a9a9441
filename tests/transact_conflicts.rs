//! A transaction cancelled for conflicts alone is sent again (issue 21, item 22); one cancelled
//! for a failed condition never is.
//!
//! DynamoDB Local rarely reports a conflict on its own, so an SDK interceptor on a second client
//! of the same table injects it honestly: for the first `n` `TransactWriteItems` it turns the
//! request into a harmless `ListTables` before signing (nothing is written) and answers
//! `TransactionCanceledException` with the reasons given, as DynamoDB does.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use dynamo_entity::{CancelCode, Entity, Error, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<id>"]
#[sk = "BALANCE"]
pub struct Account {
    pub id: String,
    pub balance: i64,
}

/// Cancels the first `cancel` transactions with `reasons` (DynamoDB's codes), counting all.
#[derive(Debug)]
struct Canceller {
    cancel: u32,
    reasons: &'static [&'static str],
    seen: Arc<AtomicU32>,
}

/// Marks an operation whose request was replaced (the SDK's `AppName` is the one storable
/// free-text type it re-exports; its only effect is a user-agent entry).
const CANCELLED: &str = "cancelled-tx";

fn is_cancelled(cfg: &ConfigBag) -> bool {
    cfg.load::<AppName>().is_some_and(|a| a.as_ref() == CANCELLED)
}

impl Intercept for Canceller {
    fn name(&self) -> &'static str {
        "Canceller"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.TransactWriteItems") {
            return Ok(());
        }
        if self.seen.fetch_add(1, Ordering::SeqCst) < self.cancel {
            common::divert(request);
            cfg.interceptor_state().store_put(AppName::new(CANCELLED)?);
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !is_cancelled(cfg) {
            return Ok(());
        }
        let reasons: Vec<String> = self.reasons.iter().map(|c| format!(r#"{{"Code":"{c}"}}"#)).collect();
        let body = format!(
            r#"{{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"injected","CancellationReasons":[{}]}}"#,
            reasons.join(",")
        );
        common::answer(ctx, 400, body)
    }
}

/// `table` through a client that cancels the first `cancel` transactions with `reasons`.
fn cancelling(table: &Table, cancel: u32, reasons: &'static [&'static str]) -> (Table, Arc<AtomicU32>) {
    let seen = Arc::new(AtomicU32::new(0));
    let config = table.client().config().to_builder().interceptor(Canceller { cancel, reasons, seen: seen.clone() });
    let client = aws_sdk_dynamodb::Client::from_conf(config.build());
    (Table::new(client, table.name().to_owned()), seen)
}

/// An entity with a unique value: its writes take the guarded path (one transaction with the
/// guards), which counts conflicts the same way.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MEMBER#<id>"]
#[sk = "PROFILE"]
pub struct Member {
    pub id: String,
    #[unique]
    pub email: String,
}

fn member(id: &str, email: &str) -> Member {
    Member { id: id.into(), email: email.into() }
}

fn account(id: &str, balance: i64) -> Account {
    Account { id: id.into(), balance }
}

#[tokio::test]
async fn a_transaction_cancelled_by_conflicts_is_sent_again_until_it_applies() {
    let base = common::table("tx-conflict", &[Account::SCHEMA]).await;
    let (table, seen) = cancelling(&base, 2, &["TransactionConflict", "None"]);
    table.transact().create(&account("a", 1)).create(&account("b", 2)).send().await.unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 3, "two conflicts, then applied");
    assert_eq!(base.get(Account::key("a")).await.unwrap(), Some(account("a", 1)));
    assert_eq!(base.get(Account::key("b")).await.unwrap(), Some(account("b", 2)));
}

#[tokio::test]
async fn retries_are_bounded_and_can_be_turned_off() {
    let base = common::table("tx-conflict-bound", &[Account::SCHEMA]).await;
    let (table, seen) = cancelling(&base, u32::MAX, &["TransactionConflict"]);
    let e = table.transact().create(&account("c", 1)).send().await;
    assert!(
        matches!(&e, Err(Error::TransactionCanceled { reasons }) if reasons[0].code == CancelCode::TransactionConflict),
        "{e:?}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 1 + dynamo_entity::DEFAULT_CONFLICT_RETRIES);

    let (table, seen) = cancelling(&base, u32::MAX, &["TransactionConflict"]);
    let e = table.transact().create(&account("c", 1)).retry_conflicts(0).send().await;
    assert!(matches!(e, Err(Error::TransactionCanceled { .. })), "{e:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert_eq!(base.get(Account::key("c")).await.unwrap(), None);
}

#[tokio::test]
async fn a_failed_condition_is_never_retried() {
    let base = common::table("tx-condition", &[Account::SCHEMA]).await;
    // Injected: a conflict beside a failed condition is no conflict alone.
    let (table, seen) = cancelling(&base, 1, &["ConditionalCheckFailed", "TransactionConflict"]);
    let e = table.transact().create(&account("d", 1)).create(&account("e", 1)).send().await;
    assert!(
        matches!(&e, Err(Error::TransactionCanceled { reasons }) if reasons[0].code == CancelCode::ConditionalCheckFailed),
        "{e:?}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    // Real: DynamoDB Local refuses a create over an existing item, once.
    base.put(&account("f", 1)).await.unwrap();
    let (table, seen) = cancelling(&base, 0, &[]);
    let e = table.transact().create(&account("f", 2)).send().await;
    assert!(matches!(e, Err(Error::TransactionCanceled { .. })), "{e:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_guarded_transaction_counts_conflicts_as_a_plain_one() {
    let base = common::table("tx-conflict-guarded", &[Account::SCHEMA, Member::SCHEMA]).await;
    // Two conflicts, then applied: the item and its guard.
    let (table, seen) = cancelling(&base, 2, &["TransactionConflict", "None", "None"]);
    table.transact().create(&member("a", "a@x.io")).create(&account("a", 1)).send().await.unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    assert_eq!(base.get(Member::key("a")).await.unwrap(), Some(member("a", "a@x.io")));
    let e = base.create(&member("b", "a@x.io")).await.unwrap_err();
    assert!(matches!(e, Error::UniqueViolation { field: "email", .. }), "{e:?}");

    // Bounded by the transaction's own setting, and turned off by 0.
    let (table, seen) = cancelling(&base, u32::MAX, &["TransactionConflict"]);
    let e = table.transact().create(&member("c", "c@x.io")).retry_conflicts(2).send().await;
    assert!(
        matches!(&e, Err(Error::TransactionCanceled { reasons }) if reasons[0].code == CancelCode::TransactionConflict),
        "{e:?}"
    );
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    let (table, seen) = cancelling(&base, u32::MAX, &["TransactionConflict"]);
    let e = table.transact().put(&member("a", "a2@x.io")).retry_conflicts(0).send().await;
    assert!(matches!(e, Err(Error::TransactionCanceled { .. })), "{e:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert_eq!(base.get(Member::key("c")).await.unwrap(), None);
    assert_eq!(base.get(Member::key("a")).await.unwrap(), Some(member("a", "a@x.io")));
}

#[tokio::test]
async fn a_guarded_transaction_sent_again_with_its_token_is_never_applied_twice() {
    let table = common::table("tx-token-guarded", &[Account::SCHEMA, Member::SCHEMA]).await;
    table.put(&account("t", 0)).await.unwrap();
    table.create(&member("m", "old@x.io")).await.unwrap();
    let balance = || async { table.get(Account::key("t")).await.unwrap().unwrap().balance };
    let moving = || {
        table
            .transact()
            .put(&member("m", "new@x.io"))
            .update(Account::update(Account::key("t")).add(Account::fields().balance, 5))
            .idempotency_token("move-email-1")
            .send()
    };
    moving().await.unwrap();
    // Built again from the item as it is now (the guards to move depend on it): another request
    // under the same token, which DynamoDB refuses rather than applying it a second time.
    let e = moving().await.unwrap_err();
    assert!(
        matches!(&e, Error::Sdk(s) if matches!(**s, aws_sdk_dynamodb::Error::IdempotentParameterMismatchException(_))),
        "{e:?}"
    );
    assert_eq!(balance().await, 5);
    // A create is built without reading: the same request, answered as the first time.
    let creating = || {
        table
            .transact()
            .create(&member("n", "n@x.io"))
            .update(Account::update(Account::key("t")).add(Account::fields().balance, 1))
            .idempotency_token("create-n")
            .send()
    };
    creating().await.unwrap();
    creating().await.unwrap();
    assert_eq!(balance().await, 6);
}

/// Answers the first `GetItem` with `stale` (DynamoDB JSON of an item, as it was), counting the
/// `TransactWriteItems` attempts: a guarded write then builds its transaction on a read that
/// the stored item no longer matches, and DynamoDB itself cancels it.
#[derive(Debug)]
struct StaleRead {
    stale: String,
    reads: Arc<AtomicU32>,
    transactions: Arc<AtomicU32>,
}

const STALE: &str = "stale-read";

impl Intercept for StaleRead {
    fn name(&self) -> &'static str {
        "StaleRead"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        match ctx.request().headers().get("x-amz-target") {
            Some("DynamoDB_20120810.GetItem") if self.reads.fetch_add(1, Ordering::SeqCst) == 0 => {
                cfg.interceptor_state().store_put(AppName::new(STALE)?);
            }
            Some("DynamoDB_20120810.TransactWriteItems") => {
                self.transactions.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<AppName>().is_some_and(|a| a.as_ref() == STALE) {
            common::answer(ctx, 200, format!(r#"{{"Item":{}}}"#, self.stale))?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_guarded_transaction_rebuilt_after_a_cancellation_keeps_its_token_and_applies_once() {
    let base = common::table("tx-token-rebuilt", &[Account::SCHEMA, Member::SCHEMA]).await;
    base.put(&account("t", 0)).await.unwrap();
    base.create(&member("m", "other@x.io")).await.unwrap();
    // The member as it was before another writer moved it to `other@x.io`.
    let mut was: Vec<String> = common::raw_items(&base)
        .await
        .into_iter()
        .find(|i| i.get("PK") == Some(&dynamo_entity::AttributeValue::S("MEMBER#m".into())))
        .unwrap()
        .into_iter()
        .map(|(k, v)| match v {
            dynamo_entity::AttributeValue::S(s) if s == "other@x.io" => format!(r#""{k}":{{"S":"old@x.io"}}"#),
            dynamo_entity::AttributeValue::S(s) => format!(r#""{k}":{{"S":"{s}"}}"#),
            other => panic!("{other:?}"),
        })
        .collect();
    was.sort();
    let (reads, transactions) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let stale =
        StaleRead { stale: format!("{{{}}}", was.join(",")), reads: reads.clone(), transactions: transactions.clone() };
    let config = base.client().config().to_builder().interceptor(stale);
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), base.name().to_owned());

    // Built on the stale read, the transaction is cancelled by the engine (the member's email is
    // not what was read); read again and built again (other guards move), it is sent under the
    // caller's token once more: a cancelled transaction leaves no token behind, so the engine,
    // which checks tokens, applies it rather than answering IdempotentParameterMismatch.
    table
        .transact()
        .put(&member("m", "new@x.io"))
        .update(Account::update(Account::key("t")).add(Account::fields().balance, 5))
        .idempotency_token("move-email-2")
        .send()
        .await
        .unwrap();
    assert_eq!(transactions.load(Ordering::SeqCst), 2, "cancelled, then applied");
    assert_eq!(reads.load(Ordering::SeqCst), 2, "read again after the cancellation");
    assert_eq!(base.get(Member::key("m")).await.unwrap(), Some(member("m", "new@x.io")));
    assert_eq!(base.get(Account::key("t")).await.unwrap().unwrap().balance, 5, "applied once");
    // The guards follow the member as it was stored: `other@x.io` freed, `new@x.io` taken.
    base.create(&member("o", "other@x.io")).await.unwrap();
    let e = base.create(&member("n", "new@x.io")).await.unwrap_err();
    assert!(matches!(e, Error::UniqueViolation { field: "email", .. }), "{e:?}");
    // The token now belongs to the transaction applied: sent again, it is built from the item
    // as it is now, and refused rather than applied a second time.
    let e = base
        .transact()
        .put(&member("m", "new@x.io"))
        .update(Account::update(Account::key("t")).add(Account::fields().balance, 5))
        .idempotency_token("move-email-2")
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Sdk(s) if matches!(**s, aws_sdk_dynamodb::Error::IdempotentParameterMismatchException(_))),
        "{e:?}"
    );
    assert_eq!(base.get(Account::key("t")).await.unwrap().unwrap().balance, 5);
}
