//! What a handle of a global table promises per Region (`Table::on_global_table`): on multi-Region
//! eventual consistency (MREC), a write whose promise holds only within the Region that takes it (a
//! create, a `#[version]` or `#[unique]` entity's write, an idempotent update, a transaction with a
//! token, a condition) is refused before anything is sent unless the handle's write mode sends
//! such writes through one Region; on multi-Region strong consistency (MRSC), a write refused for
//! a replicated write conflict is sent again as a transaction cancelled by a conflict is.
//!
//! The engine is the replica of the local client's Region (`us-east-1`); it serves every Region's
//! client the same tables, so a handle "in" `eu-west-1` writes to it too. The conflicts are
//! injected by an SDK interceptor (`common::aws`, with [`Conflicts`]), as DynamoDB answers them.

mod common;

use common::aws::{Answers, Aws, Reply};

use dynamo_entity::{
    DEFAULT_CONFLICT_RETRIES, Entity, Error, GlobalTable, RegionLocal, Table, TableDefinition, WriteMode,
};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<id>"]
#[sk = "NOTE"]
pub struct Note {
    pub id: String,
    pub text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCOUNT#<id>"]
#[sk = "ACCOUNT"]
pub struct Account {
    pub id: String,
    pub balance: i64,
    #[version]
    pub version: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<id>"]
#[sk = "USER"]
pub struct User {
    pub id: String,
    #[unique]
    pub email: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "COUNTER#<id>"]
#[sk = "COUNTER"]
pub struct Counter {
    pub id: String,
    pub hits: u64,
}

fn entities() -> [dynamo_entity::EntitySchema; 4] {
    [Note::SCHEMA, Account::SCHEMA, User::SCHEMA, Counter::SCHEMA]
}

/// The global table the definition states: MREC in the local client's Region and eu-west-1.
fn global() -> GlobalTable {
    GlobalTable::eventual(["us-east-1", "eu-west-1"])
}

fn note(id: &str) -> Note {
    Note { id: id.into(), text: "t".into() }
}

/// The promise of a refusal, after checking that it names the entity and says why.
fn refused<T: std::fmt::Debug>(r: Result<T, Error>, entity: &str) -> (RegionLocal, String) {
    match r {
        Err(Error::RegionLocalWrite { entity: e, promise, why }) => {
            assert_eq!(e, entity);
            (promise, why)
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[tokio::test]
async fn on_mrec_writes_of_region_local_promises_are_refused_unless_sent_through_one_region() {
    let table = common::table("guarantees", &entities()).await;
    // The definition the handle knows its global table from.
    let definition = TableDefinition::from_entities(&entities()).unwrap().global_table(global()).unwrap();
    assert!(definition.options.global_table.is_some());
    let any = table.on_global_table(&global(), WriteMode::AnyRegion).unwrap();
    let sent = any.requests_sent();
    let (p, why) = refused(any.create(&note("n1")).await, "Note");
    assert_eq!(p, RegionLocal::Create);
    assert!(why.contains("WriteMode::AnyRegion"), "{why}");
    let account = Account { id: "a".into(), balance: 10, version: 0 };
    assert_eq!(refused(any.put(&account).await, "Account").0, RegionLocal::Version);
    let user = User { id: "u".into(), email: "u@example.com".into() };
    assert_eq!(refused(any.put(&user).await, "User").0, RegionLocal::Unique);
    assert_eq!(refused(any.delete(User::key("u")).await, "User").0, RegionLocal::Unique);
    let idem = Counter::update(Counter::key("c")).add(Counter::fields().hits, 1).upsert().idempotent();
    assert_eq!(refused(any.update(idem).await, "Counter").0, RegionLocal::Idempotent);
    let conditional = any.delete(Note::key("n1")).condition(Note::fields().text.eq("t"));
    assert_eq!(refused(conditional.await, "Note").0, RegionLocal::Condition);
    let versioned = Account::update(Account::key("a")).set(Account::fields().balance, 5);
    assert_eq!(refused(any.update(versioned).await, "Account").0, RegionLocal::Version);
    // In a transaction: the first action that carries one refuses it whole.
    let tx = any.transact().put(&note("n2")).create(&note("n3"));
    assert_eq!(refused(tx.send().await, "Note").0, RegionLocal::Create);
    let tx = any.transact().put(&note("n2")).idempotency_token("t-1");
    assert_eq!(refused(tx.send().await, "Note").0, RegionLocal::Idempotent);
    assert_eq!(any.requests_sent(), sent, "nothing was sent");
    // Writes without such a promise, and reads, are sent: the last writer wins for them anyway.
    any.put(&note("n1")).await.unwrap();
    any.update(Counter::update(Counter::key("c")).add(Counter::fields().hits, 1).upsert()).await.unwrap();
    any.transact().put(&note("n4")).delete(Note::key("n4x")).send().await.unwrap();
    assert_eq!(any.get(Note::key("n1")).await.unwrap(), Some(note("n1")));
    any.delete(Note::key("n1")).await.unwrap();
    // A plain handle of the same table refuses nothing: it does not know the table is global.
    table.create(&note("n5")).await.unwrap();

    // Write to one Region: sent by a handle in the home Region, refused by any other.
    let home = table.on_global_table(&global(), WriteMode::OneRegion("us-east-1".into())).unwrap();
    home.create(&note("n6")).await.unwrap();
    home.put(&account).await.unwrap();
    home.put(&user).await.unwrap();
    home.update(Counter::update(Counter::key("c")).add(Counter::fields().hits, 1).idempotent()).await.unwrap();
    home.transact().create(&note("n7")).idempotency_token("t-2").send().await.unwrap();
    let away = home.in_region("eu-west-1").unwrap();
    let (p, why) = refused(away.create(&note("n8")).await, "Note");
    assert_eq!(p, RegionLocal::Create);
    assert!(why.contains("writes through eu-west-1, not the home Region us-east-1"), "{why}");
    away.put(&note("n8")).await.unwrap();
    // After a failover, the new home is named: its handle sends them.
    let failover = table
        .on_global_table(&global(), WriteMode::OneRegion("eu-west-1".into()))
        .unwrap()
        .in_region("eu-west-1")
        .unwrap();
    failover.create(&note("n9")).await.unwrap();
    // Write to your Region: the application's word that no two Regions write an item.
    let yours = table.on_global_table(&global(), WriteMode::YourRegion).unwrap();
    yours.in_region("eu-west-1").unwrap().create(&note("n10")).await.unwrap();

    // The error as the user reads it.
    let e = any.create(&note("n11")).await.unwrap_err().to_string();
    assert!(
        e.starts_with(
            "Note: a create's check that no item has the key holds only within the Region that takes the write on \
             this MREC global table, and this handle writes to any Region"
        ) && e.ends_with("nothing was sent"),
        "{e}"
    );
    // A home Region that is not a replica is a mistake.
    let Err(Error::Validation(m)) = table.on_global_table(&global(), WriteMode::OneRegion("ap-south-1".into())) else {
        panic!("not refused")
    };
    assert!(m.contains("the home Region ap-south-1 is not one of the replicas (us-east-1, eu-west-1)"), "{m}");
}

#[tokio::test]
async fn the_plan_of_an_mrec_definition_names_the_entities_whose_promises_hold_per_region() {
    let table = common::table("guarantees-plan", &entities()).await;
    let definition = TableDefinition::from_entities(&entities()).unwrap().global_table(global()).unwrap();
    let plan = table.plan(&definition).await.unwrap();
    assert!(
        plan.notes.iter().any(|n| n
            == "MREC: creates, #[version] checks, #[unique] guards (Account's #[version], User's #[unique] email), \
                idempotent updates and conditions hold only within the Region that takes the write; a handle made \
                by Table::on_global_table refuses such writes unless its WriteMode sends them through one Region"),
        "{plan}"
    );
}

/// Answers the next `left` PutItem attempts with DynamoDB's `ReplicatedWriteConflictException`
/// (`common::aws`: the request goes to the engine as a harmless ListTables), and lets the others
/// through; counts every PutItem attempt.
#[derive(Debug, Default)]
struct Conflicts {
    left: u32,
    attempts: u32,
}

impl Answers for Conflicts {
    fn reply(&mut self, operation: &str, _: &serde_json::Value) -> Reply {
        if operation != "PutItem" {
            return Reply::Pass;
        }
        self.attempts += 1;
        if self.left == 0 {
            return Reply::Pass;
        }
        self.left -= 1;
        let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ReplicatedWriteConflictException","message":"One or more items in this request are being modified by a request in another Region."}"#;
        Reply::Answer(400, body.to_owned())
    }
}

/// `aws` in front of `table`, the SDK retrying without a wait (its backoff aside).
fn with(aws: &Aws<Conflicts>, table: &Table) -> Table {
    let retry = aws_sdk_dynamodb::config::retry::RetryConfig::standard()
        .with_initial_backoff(std::time::Duration::from_millis(1));
    let config = table.client().config().to_builder().retry_config(retry);
    aws.on(&Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name()))
}

/// The next `left` PutItems refused; the attempts counted from zero.
fn script(aws: &Aws<Conflicts>, left: u32) {
    *aws.answers.lock().unwrap() = Conflicts { left, attempts: 0 };
}

fn attempts(aws: &Aws<Conflicts>) -> u32 {
    aws.answers.lock().unwrap().attempts
}

#[tokio::test]
async fn on_mrsc_a_replicated_write_conflict_is_retried_as_a_transaction_conflict() {
    let table = common::table("guarantees-mrsc", &entities()).await;
    let aws = Aws::new(Conflicts::default());
    let strong = GlobalTable::strong(["us-east-1", "us-east-2"]).witness("us-west-2");
    let mrsc = with(&aws, &table).on_global_table(&strong, WriteMode::AnyRegion).unwrap();
    // Nothing is refused on MRSC: every promise holds across Regions.
    script(&aws, 2);
    mrsc.create(&note("m1")).await.unwrap();
    assert_eq!(attempts(&aws), 3, "sent again twice, by the table alone");
    assert_eq!(table.get(Note::key("m1")).await.unwrap(), Some(note("m1")));
    // Conflicts past the retries: the typed error, after 1 + DEFAULT_CONFLICT_RETRIES attempts.
    script(&aws, 100);
    let e = mrsc.put(&note("m2")).await.unwrap_err();
    assert!(matches!(e, Error::ReplicatedWriteConflict { .. }), "{e:?}");
    assert_eq!(attempts(&aws), 1 + DEFAULT_CONFLICT_RETRIES);
    assert!(e.to_string().contains("another Region wrote the same item at the same time"), "{e}");
    // A handle that does not know the table is MRSC: the SDK's own retries (three attempts by
    // default), then the same typed error.
    script(&aws, 100);
    let e = with(&aws, &table).put(&note("m3")).await.unwrap_err();
    assert!(matches!(e, Error::ReplicatedWriteConflict { .. }), "{e:?}");
    assert_eq!(attempts(&aws), 3);
}
