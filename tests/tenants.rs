//! `#[entity(tenant = "field")]` and `table.for_tenant(id)`: a tenant handle refuses, before
//! sending anything, every key, item, partition, batch and transaction of another tenant, every
//! scan, and entities without tenant (unless `tenant_shared`). "Nothing sent" is counted twice:
//! by an SDK interceptor on the handle's client and by the send path's own count.

#[allow(dead_code)]
mod apart;
mod common;

use apart::{Audit, Project};
use common::Executed;
use dynamo_entity::prelude::*;
use dynamo_entity::{Collection, Entity, Error, Table, Tenancy, View};
use futures_util::StreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "TENANT#<tenant_id>#EMAIL#<email>", sk = "USER", query = "by_email")]
#[entity(tenant = "tenant_id")]
pub struct User {
    pub tenant_id: String,
    pub user_id: String,
    pub email: String,
    pub name: String,
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "User")]
pub struct UserName {
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#ROOM#<room>"]
#[sk = "META"]
#[entity(tenant = "tenant_id")]
pub struct Room {
    pub tenant_id: String,
    pub room: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#ROOM#<room>"]
#[sk = "MSG#<id>"]
#[entity(tenant = "tenant_id", query = "by_room")]
pub struct Message {
    pub tenant_id: String,
    pub room: String,
    pub id: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RoomItems {
    Room(Room),
    Message(Message),
}

/// Items every tenant may read and write.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAN#<plan_id>"]
#[sk = "PLAN"]
#[entity(tenant_shared)]
pub struct Plan {
    pub plan_id: String,
    pub price: u32,
}

/// An entity without tenant: a tenant handle refuses it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LOG#<day>"]
#[sk = "AT#<at:13>"]
pub struct Log {
    pub day: String,
    pub at: u64,
}

fn user(tenant: &str, id: &str) -> User {
    User { tenant_id: tenant.into(), user_id: id.into(), email: format!("{id}@{tenant}"), name: format!("user {id}") }
}

fn message(tenant: &str, id: &str) -> Message {
    Message { tenant_id: tenant.into(), room: "r".into(), id: id.into() }
}

/// A fresh table (the unrestricted handle) and a handle of the same table on a client whose
/// requests are counted.
async fn tables(test: &str) -> (Table, Table, Executed) {
    let table = common::table(test, &[User::SCHEMA, Room::SCHEMA, Message::SCHEMA, Plan::SCHEMA, Log::SCHEMA]).await;
    let executed = Executed::default();
    let client =
        aws_sdk_dynamodb::Client::from_conf(table.client().config().to_builder().interceptor(executed.clone()).build());
    (table.clone(), Table::new(client, table.name()), executed)
}

/// Asserts that `result` is `OutsideTenant { expected, found }` and that nothing was sent.
#[track_caller]
fn refused<T: std::fmt::Debug>(what: &str, result: Result<T, Error>, found: &str, counted: &Counted<'_>) {
    match result {
        Err(Error::OutsideTenant { expected, found: f }) => {
            assert_eq!((expected.as_str(), f.as_str()), ("t1", found), "{what}");
        }
        other => panic!("{what}: expected OutsideTenant, got {other:?}"),
    }
    counted.nothing_sent(what);
}

/// The requests of a counted handle so far, by the SDK and by the send path.
struct Counted<'a> {
    executed: &'a Executed,
    table: &'a Table,
    at: (u64, u64),
}

impl<'a> Counted<'a> {
    fn new(executed: &'a Executed, table: &'a Table) -> Self {
        Counted { executed, table, at: (executed.count(), table.requests_sent()) }
    }

    #[track_caller]
    fn nothing_sent(&self, what: &str) {
        let now = (self.executed.count(), self.table.requests_sent());
        assert_eq!(now, self.at, "{what}: requests were sent");
    }
}

#[tokio::test]
async fn every_operation_refuses_another_tenants_keys_before_sending() {
    let (admin, counted, executed) = tables("tenant-refuse").await;
    admin.put(&user("t2", "u")).await.unwrap();
    admin.put(&message("t2", "m")).await.unwrap();
    let t1 = counted.for_tenant("t1");
    assert_eq!(t1.tenant(), Some("t1"));
    let c = Counted::new(&executed, &t1);

    refused("get", t1.get(User::key("t2", "u")).await, "t2", &c);
    refused("get_consistent", t1.get_consistent(User::key("t2", "u")).await, "t2", &c);
    refused("get_view", t1.get_view::<UserName>(User::key("t2", "u")).await, "t2", &c);
    refused("put", t1.put(&user("t2", "u")).await, "t2", &c);
    refused("create", t1.create(&user("t2", "new")).await, "t2", &c);
    refused("delete", t1.delete(User::key("t2", "u")).await, "t2", &c);
    refused("update", t1.update(User::update(User::key("t2", "u")).set(User::fields().name, "x")).await, "t2", &c);
    refused("query", t1.query(Message::query_by_room("t2", "r")).await, "t2", &c);
    refused("query_all", t1.query_all(Message::query_by_room("t2", "r")).await, "t2", &c);
    refused("query of an index", t1.query_all(User::query_by_email("t2", "u@t2")).await, "t2", &c);
    refused(
        "query of a view",
        t1.query_all(Message::query_by_room("t2", "r").into_query().view::<MessageId>()).await,
        "t2",
        &c,
    );
    let first = Box::pin(t1.query_stream(Message::query_by_room("t2", "r"))).next().await;
    refused("query_stream", first.expect("the stream's error"), "t2", &c);
    refused("collection query", t1.query_all(RoomItems::query(Room::partition("t2", "r"))).await, "t2", &c);
    refused("collection get", t1.get(RoomItemsKey::from(Room::key("t2", "r"))).await, "t2", &c);
    refused("batch_get", t1.batch_get([User::key("t2", "u")]).await, "t2", &c);
    refused("batch_put", t1.batch_put(&[user("t2", "v")]).await, "t2", &c);
    refused("batch_delete", t1.batch_delete([User::key("t2", "u")]).await, "t2", &c);
    refused("transact_get", t1.transact_get([User::key("t2", "u")]).await, "t2", &c);
    refused("transaction", t1.transact().put(&user("t2", "w")).send().await, "t2", &c);
    refused("transaction check", t1.transact().delete(Message::key("t2", "r", "m")).send().await, "t2", &c);

    // The whole component is compared: t1 is not a prefix of t10's keys.
    refused("t10 get", t1.get(User::key("t10", "u")).await, "t10", &c);
    refused("t10 query", t1.query_all(Message::query_by_room("t10", "r")).await, "t10", &c);
    refused("empty tenant", t1.get(User::key("", "u")).await, "", &c);

    // Nothing was written by the refused writes.
    let items = common::raw_items(&admin).await;
    assert_eq!(items.len(), 2, "{items:?}");
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Message")]
pub struct MessageId {
    pub id: String,
}

#[tokio::test]
async fn a_mixed_batch_or_transaction_is_refused_whole() {
    let (admin, counted, executed) = tables("tenant-mixed").await;
    let t1 = counted.for_tenant("t1");
    let c = Counted::new(&executed, &t1);

    // 30 items: the first 25 (one whole BatchWriteItem) are t1's, the last is t2's.
    let mut items: Vec<User> = (0..29).map(|i| user("t1", &format!("u{i:02}"))).collect();
    items.push(user("t2", "late"));
    refused("mixed batch_put", t1.batch_put(&items).await, "t2", &c);
    let keys = items.iter().map(Entity::primary_key).collect::<Vec<_>>();
    refused("mixed batch_delete", t1.batch_delete(keys.clone()).await, "t2", &c);
    refused("mixed batch_get", t1.batch_get(keys).await, "t2", &c);
    let mixed = vec![RoomItemsKey::from(Room::key("t1", "r")), Message::key("t2", "r", "m").into()];
    refused("mixed collection batch_get", t1.batch_get(mixed.clone()).await, "t2", &c);
    refused("mixed transact_get", t1.transact_get(mixed).await, "t2", &c);

    let tx = t1
        .transact()
        .put(&user("t1", "a"))
        .create(&message("t1", "m"))
        .put(&user("t2", "b"))
        .delete(User::key("t1", "c"));
    refused("mixed transaction", tx.send().await, "t2", &c);
    let tx =
        t1.transact().put(&user("t1", "a")).update(User::update(User::key("t2", "u")).set(User::fields().name, "x"));
    refused("mixed transaction with an update", tx.send().await, "t2", &c);

    assert!(common::raw_items(&admin).await.is_empty(), "a refused batch or transaction wrote items");
}

#[tokio::test]
async fn the_tenants_own_items_pass() {
    let (admin, counted, _) = tables("tenant-own").await;
    let t1 = counted.for_tenant("t1");
    let t10 = counted.for_tenant("t10");

    t1.create(&user("t1", "a")).await.unwrap();
    t1.put(&user("t1", "b")).await.unwrap();
    t10.put(&user("t10", "a")).await.unwrap();
    assert_eq!(t1.get(User::key("t1", "a")).await.unwrap(), Some(user("t1", "a")));
    assert_eq!(t1.get_view::<UserName>(User::key("t1", "a")).await.unwrap().unwrap().name, "user a");
    let renamed = t1.update(User::update(User::key("t1", "b")).set(User::fields().name, "bee")).await.unwrap();
    assert_eq!(renamed.name, "bee");
    assert_eq!(t1.query_all(User::query_by_email("t1", "a@t1")).await.unwrap(), vec![user("t1", "a")]);

    t1.batch_put(&[message("t1", "m1"), message("t1", "m2")]).await.unwrap();
    t1.put(&Room { tenant_id: "t1".into(), room: "r".into() }).await.unwrap();
    assert_eq!(t1.query_all(Message::query_by_room("t1", "r")).await.unwrap().len(), 2);
    let stream: Vec<_> = t1.query_stream(Message::query_by_room("t1", "r")).collect().await;
    assert_eq!(stream.len(), 2);
    assert_eq!(t1.query_all(RoomItems::query(Room::partition("t1", "r"))).await.unwrap().len(), 3);
    let keys = [Message::key("t1", "r", "m1"), Message::key("t1", "r", "m2")];
    assert_eq!(t1.batch_get(keys.clone()).await.unwrap().len(), 2);
    assert_eq!(t1.transact_get(keys.clone()).await.unwrap().len(), 2);
    t1.transact().put(&user("t1", "c")).delete(User::key("t1", "a")).send().await.unwrap();
    t1.batch_delete(keys).await.unwrap();
    t1.delete(User::key("t1", "c")).await.unwrap();

    // Shared entities pass whatever their key.
    t1.put(&Plan { plan_id: "pro".into(), price: 10 }).await.unwrap();
    assert_eq!(t10.get(Plan::key("pro")).await.unwrap().map(|p| p.price), Some(10));

    // Every write landed where the unrestricted handle sees it.
    let users = admin.scan::<User>().all().await.unwrap();
    let mut ids: Vec<_> = users.iter().map(|u| (u.tenant_id.as_str(), u.user_id.as_str())).collect();
    ids.sort_unstable();
    assert_eq!(ids, [("t1", "b"), ("t10", "a")]);
}

#[tokio::test]
async fn scans_and_untenanted_entities_are_refused() {
    let (admin, counted, executed) = tables("tenant-scan").await;
    admin.put(&Log { day: "d".into(), at: 1 }).await.unwrap();
    let t1 = counted.for_tenant("t1");
    let c = Counted::new(&executed, &t1);
    let is_refused = |what: &str, e: Error| match e {
        Error::TenantRefused { tenant, what: why } => {
            assert_eq!(tenant, "t1", "{what}");
            assert!(!why.is_empty());
        }
        other => panic!("{what}: expected TenantRefused, got {other:?}"),
    };
    is_refused("scan", t1.scan::<User>().all().await.unwrap_err());
    is_refused("parallel scan", t1.scan::<User>().segments(2).all().await.unwrap_err());
    is_refused("scan page", t1.scan::<User>().page().await.unwrap_err());
    is_refused("backfill", t1.backfill::<User>().run().await.unwrap_err());
    is_refused("migrate", t1.migrate(|u: User| -> User { u }).run().await.unwrap_err());
    is_refused("untenanted get", t1.get(Log::key("d", 1u64)).await.unwrap_err());
    is_refused("untenanted put", t1.put(&Log { day: "d".into(), at: 2 }).await.unwrap_err());
    is_refused("untenanted query", t1.query_all(Log::query_by_day("d")).await.unwrap_err());
    is_refused("untenanted in a transaction", {
        t1.transact().put(&user("t1", "a")).put(&Log { day: "d".into(), at: 3 }).send().await.unwrap_err()
    });
    c.nothing_sent("refused scans and untenanted entities");
    assert_eq!(common::raw_items(&admin).await.len(), 1);

    assert_eq!(User::SCHEMA.tenant, Tenancy::Field("tenant_id"));
    assert_eq!(Plan::SCHEMA.tenant, Tenancy::Shared);
    assert_eq!(Log::SCHEMA.tenant, Tenancy::Untenanted);
}

#[tokio::test]
async fn tenant_ids_whose_key_text_differs_are_refused() {
    let (_admin, counted, executed) = tables("tenant-ids").await;
    for id in ["", "a b", "t#1", "t%1", "acme$", "t*", "t?"] {
        let t = counted.for_tenant(id);
        let c = Counted::new(&executed, &t);
        match t.get(User::key(id, "u")).await {
            Err(Error::Validation(message)) => assert!(message.contains("tenant id"), "{id:?}: {message}"),
            other => panic!("{id:?}: expected Validation, got {other:?}"),
        }
        match t.put(&Plan { plan_id: "p".into(), price: 1 }).await {
            Err(Error::Validation(_)) => {}
            other => panic!("{id:?}, shared entity: expected Validation, got {other:?}"),
        }
        match t.scan::<User>().all().await {
            Err(Error::Validation(_)) => {}
            other => panic!("{id:?}, scan: expected Validation, got {other:?}"),
        }
        c.nothing_sent(id);
    }
    // Ids whose key text is themselves work.
    let t = counted.for_tenant("acme-corp.eu_1");
    t.put(&user("acme-corp.eu_1", "u")).await.unwrap();
    assert!(t.get(User::key("acme-corp.eu_1", "u")).await.unwrap().is_some());
}

/// A tenant entity whose index is sharded at random: a query reads every shard, and each shard's
/// partition names the tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#EVENT#<id>"]
#[sk = "EVENT"]
#[gsi1(pk = "TENANT#<tenant_id>#DAY#<day>#<shard>", sk = "<id>", query = "by_day", shards = 4)]
#[entity(tenant = "tenant_id")]
pub struct Event {
    pub tenant_id: String,
    pub id: String,
    pub day: String,
}

#[tokio::test]
async fn sharded_queries_and_stream_readers() {
    let table = common::table("tenant-shards", &[Event::SCHEMA]).await;
    let event = |tenant: &str, id: &str| Event { tenant_id: tenant.into(), id: id.into(), day: "d".into() };
    let events: Vec<Event> = (0..12).map(|i| event("t1", &format!("e{i:02}"))).collect();
    table.batch_put(&events).await.unwrap();
    table.put(&event("t2", "other")).await.unwrap();

    let executed = Executed::default();
    let client =
        aws_sdk_dynamodb::Client::from_conf(table.client().config().to_builder().interceptor(executed.clone()).build());
    let t1 = Table::new(client, table.name()).for_tenant("t1");
    assert_eq!(t1.query_all(Event::query_by_day("t1", "d")).await.unwrap(), events);
    let c = Counted::new(&executed, &t1);
    refused("sharded query", t1.query_all(Event::query_by_day("t2", "d")).await, "t2", &c);
    refused("sharded page", t1.query(Event::query_by_day("t2", "d").limit(3)).await, "t2", &c);

    // A reader of the table's stream holds every tenant's changes.
    let streams = dynamo_entity::local::streams_client().await.unwrap();
    match dynamo_entity::stream::StreamReader::for_table(&t1, streams).await {
        Err(Error::TenantRefused { tenant, .. }) => assert_eq!(tenant, "t1"),
        Err(other) => panic!("expected TenantRefused, got {other:?}"),
        Ok(_) => panic!("expected TenantRefused, got a reader"),
    }
    c.nothing_sent("stream reader");
}

/// An integer tenant (`u32`: key text `0000000007`) leading a multi-attribute index and keying
/// another index on its own number attribute (issue 45, item 3). The tenant id is the key text
/// on every key form: the template keys hold `0000000007`, the indexes the number 7.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#GAME#<game>"]
#[sk = "GAME"]
#[gsi1(index = "ByRegion", pk = ["tenant_id", "region"], sk = ["score"], query = "by_region")]
#[gsi2(
    index = "ByTenant",
    pk = "<tenant_id>",
    pk_attr = "tenant_id",
    sk = "<game>",
    sk_attr = "game",
    query = "by_tenant"
)]
#[entity(tenant = "tenant_id", query = "game")]
pub struct Game {
    pub tenant_id: u32,
    pub game: String,
    pub region: String,
    pub score: u64,
}

/// A second member of the multi-attribute index, for a collection query on it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#TEAM#<team>"]
#[sk = "TEAM"]
#[gsi1(index = "ByRegion", pk = ["tenant_id", "region"], sk = ["score"], query = "team_by_region")]
#[entity(tenant = "tenant_id")]
pub struct Team {
    pub tenant_id: u32,
    pub team: String,
    pub region: String,
    pub score: u64,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Board {
    Game(Game),
    Team(Team),
}

fn game(tenant: u32, id: &str, score: u64) -> Game {
    Game { tenant_id: tenant, game: id.into(), region: "EU".into(), score }
}

/// Asserts `OutsideTenant { expected, found }`, and that nothing was sent.
#[track_caller]
fn outside<T: std::fmt::Debug>(what: &str, result: Result<T, Error>, expected: &str, found: &str, c: &Counted<'_>) {
    match result {
        Err(Error::OutsideTenant { expected: e, found: f }) => {
            assert_eq!((e.as_str(), f.as_str()), (expected, found), "{what}");
        }
        other => panic!("{what}: expected OutsideTenant, got {other:?}"),
    }
    c.nothing_sent(what);
}

#[tokio::test]
async fn an_integer_tenant_is_its_key_text_on_every_key_form() {
    let table = common::table("tenant-int", &[Game::SCHEMA, Team::SCHEMA]).await;
    let mine: Vec<Game> = (0..3).map(|i| game(7, &format!("g{i}"), i)).collect();
    table.batch_put(&mine).await.unwrap();
    table.put(&game(8, "other", 1)).await.unwrap();
    table.put(&game(70, "seventy", 1)).await.unwrap();
    table.put(&Team { tenant_id: 7, team: "t".into(), region: "EU".into(), score: 9 }).await.unwrap();
    assert_eq!(Game::key(7u32, "g0").pk(), "TENANT#0000000007#GAME#g0");

    let executed = Executed::default();
    let client =
        aws_sdk_dynamodb::Client::from_conf(table.client().config().to_builder().interceptor(executed.clone()).build());
    let counted = Table::new(client, table.name());
    let seven = "0000000007";
    let padded = counted.for_tenant(seven);
    let unpadded = counted.for_tenant("7");

    // The tenant's own index queries pass, on the multi-attribute index and on the number
    // attribute alone, and read only its items.
    assert_eq!(padded.query_all(Game::query_by_region(7u32, "EU")).await.unwrap(), mine);
    assert_eq!(padded.query_all(Game::query_by_tenant(7u32)).await.unwrap(), mine);
    let page = padded.query(Game::query_by_region(7u32, "EU").score().gte(1u64).limit(1)).await.unwrap();
    assert_eq!(page.items, vec![game(7, "g1", 1)]);
    // Every other path too.
    assert_eq!(padded.get(Game::key(7u32, "g0")).await.unwrap(), Some(game(7, "g0", 0)));
    padded.put(&game(7, "g9", 9)).await.unwrap();
    padded.update(Game::update(Game::key(7u32, "g9")).set(Game::fields().score, 10u64)).await.unwrap();
    assert_eq!(padded.batch_get([Game::key(7u32, "g9")]).await.unwrap().len(), 1);
    assert_eq!(padded.transact_get([Game::key(7u32, "g9")]).await.unwrap().len(), 1);
    padded.transact().delete(Game::key(7u32, "g9")).send().await.unwrap();
    padded.batch_put(&[game(7, "g9", 9)]).await.unwrap();
    padded.batch_delete([Game::key(7u32, "g9")]).await.unwrap();
    assert_eq!(padded.query_all(Game::query_game(7u32, "g0")).await.unwrap(), vec![game(7, "g0", 0)]);
    // A collection query on the number attribute: each member's tenant key text is its own
    // (a `u64` tenant writes 7 as twenty digits), and the partition carries only the starting
    // member's, so the other member cannot be checked: refused, nothing sent.
    let c = Counted::new(&executed, &padded);
    match padded.query_all(Board::query(Game::partition_by_region(7u32, "EU"))).await {
        Err(Error::TenantRefused { tenant, what }) => assert!(tenant == seven && what.contains("Team"), "{what}"),
        other => panic!("collection query: expected TenantRefused, got {other:?}"),
    }
    c.nothing_sent("collection query");

    // The unpadded text names no tenant: every form of key names `0000000007`.
    let c = Counted::new(&executed, &unpadded);
    outside("multi-attribute query", unpadded.query_all(Game::query_by_region(7u32, "EU")).await, "7", seven, &c);
    outside("multi-attribute page", unpadded.query(Game::query_by_region(7u32, "EU")).await, "7", seven, &c);
    outside("number attribute query", unpadded.query_all(Game::query_by_tenant(7u32)).await, "7", seven, &c);
    let first = Box::pin(unpadded.query_stream(Game::query_by_tenant(7u32))).next().await;
    outside("number attribute stream", first.expect("the stream's error"), "7", seven, &c);
    let board = Board::query(Game::partition_by_region(7u32, "EU"));
    outside("collection query", unpadded.query_all(board).await, "7", seven, &c);
    outside("get", unpadded.get(Game::key(7u32, "g0")).await, "7", seven, &c);
    outside("put", unpadded.put(&game(7, "x", 1)).await, "7", seven, &c);
    outside(
        "update",
        unpadded.update(Game::update(Game::key(7u32, "g0")).set(Game::fields().score, 5u64)).await,
        "7",
        seven,
        &c,
    );
    outside("delete", unpadded.delete(Game::key(7u32, "g0")).await, "7", seven, &c);
    outside("batch_get", unpadded.batch_get([Game::key(7u32, "g0")]).await, "7", seven, &c);
    outside("batch_put", unpadded.batch_put(&[game(7, "x", 1)]).await, "7", seven, &c);
    outside("transact_get", unpadded.transact_get([Game::key(7u32, "g0")]).await, "7", seven, &c);
    outside("transaction", unpadded.transact().put(&game(7, "x", 1)).send().await, "7", seven, &c);
    outside("table query", unpadded.query_all(Game::query_game(7u32, "g0")).await, "7", seven, &c);

    // Another tenant's partitions are refused to the padded id, whatever the key form.
    let c = Counted::new(&executed, &padded);
    for (other, text) in [(8u32, "0000000008"), (70, "0000000070"), (0, "0000000000")] {
        outside("other multi-attribute", padded.query_all(Game::query_by_region(other, "EU")).await, seven, text, &c);
        outside("other number attribute", padded.query_all(Game::query_by_tenant(other)).await, seven, text, &c);
        let board = Board::query(Team::partition_team_by_region(other, "EU"));
        assert!(padded.query_all(board).await.is_err(), "other collection");
        c.nothing_sent("other collection");
        outside("other get", padded.get(Game::key(other, "other")).await, seven, text, &c);
    }
    // An id that is not a key text never matches a number key either.
    let c = Counted::new(&executed, &counted);
    for id in ["07", "00000000007", "7.0", "0x7"] {
        let t = counted.for_tenant(id);
        outside("odd id, multi-attribute", t.query_all(Game::query_by_region(7u32, "EU")).await, id, seven, &c);
        outside("odd id, number attribute", t.query_all(Game::query_by_tenant(7u32)).await, id, seven, &c);
    }

    // The refused writes wrote nothing: tenant 7's three games (and the team), 8's, 70's.
    assert_eq!(common::raw_items(&table).await.len(), 6);
}

/// A `String` tenant keying an index on its own attribute: the value is the tenant id itself.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#DOC#<id>"]
#[sk = "DOC"]
#[gsi1(index = "DocsOfTenant", pk = "<tenant_id>", pk_attr = "tenant_id", sk = "<id>", sk_attr = "id", query = "docs")]
#[entity(tenant = "tenant_id")]
pub struct Doc {
    pub tenant_id: String,
    pub id: String,
}

/// A `String` tenant leading a multi-attribute index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#MATCH#<id>"]
#[sk = "MATCH"]
#[gsi1(index = "MatchesByRegion", pk = ["tenant_id", "region"], sk = ["id"], query = "matches")]
#[entity(tenant = "tenant_id")]
pub struct Match {
    pub tenant_id: String,
    pub id: String,
    pub region: String,
}

/// A signed integer tenant keying an index on its own number attribute: its key text
/// (`2147483655` for 7, the sign bit flipped) is another number's digits.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#LEDGER#<id>"]
#[sk = "LEDGER"]
#[gsi1(index = "LedgersOfTenant", pk = "<tenant_id>", pk_attr = "tenant_id", query = "ledgers")]
#[entity(tenant = "tenant_id")]
pub struct Ledger {
    pub tenant_id: i32,
    pub id: String,
}

#[test]
fn the_tenant_policy_refuses_indexes_leading_keys_cannot_confine() {
    use dynamo_entity::{IamPolicy, TableDefinition};
    let policy = IamPolicy::read_write().tenant_tag("TenantId").table_name("T");
    let refused = |schemas: &[dynamo_entity::EntitySchema], index: &str, why: &str| {
        let def = TableDefinition::from_entities(schemas).unwrap();
        match def.iam_policy(&policy) {
            Err(Error::Validation(m)) => {
                assert!(m.contains(&format!("index {index} of")) && m.contains(why), "{index}: {m}");
            }
            other => panic!("{index}: expected Validation, got {other:?}"),
        }
        match def.with_iam_policy(policy.clone()) {
            Err(Error::Validation(_)) => {}
            other => panic!("{index}, exports: expected Validation, got {other:?}"),
        }
    };
    // A multi-attribute partition key: AWS documents no `dynamodb:LeadingKeys` value for it.
    refused(&[Match::SCHEMA], "MatchesByRegion", "several attributes");
    refused(&[Game::SCHEMA], "ByRegion", "several attributes");
    // The tenant's own number attribute: its text in a request is not the tenant id.
    refused(&[Ledger::SCHEMA], "LedgersOfTenant", "number attribute");
    refused(&[Doc::SCHEMA, Match::SCHEMA], "MatchesByRegion", "several attributes");

    // The tenant's own string attribute holds the tenant id as it is: the tag, exactly.
    let json = TableDefinition::from_entities(&[Doc::SCHEMA]).unwrap().iam_policy(&policy).unwrap();
    let leading = json.split("\"dynamodb:LeadingKeys\": [").nth(1).and_then(|r| r.split(']').next()).unwrap();
    let mut patterns: Vec<&str> = leading.split(',').map(|p| p.trim().trim_matches('"')).collect();
    patterns.sort_unstable();
    assert_eq!(patterns, ["${aws:PrincipalTag/TenantId}", "TENANT#${aws:PrincipalTag/TenantId}#*"], "{json}");
}

#[test]
fn the_tenant_policy_refuses_tenant_entities_whose_keys_name_the_tenant_at_different_places() {
    use dynamo_entity::{IamPolicy, TableDefinition};
    let policy = IamPolicy::read_write().tenant_tag("TenantId").table_name("T");
    // Tenant `AUDIT`'s pattern `ORG#AUDIT#*` (of its projects) would grant every tenant's audit
    // trail: refused, naming both templates.
    let def = TableDefinition::from_entities(&[Project::SCHEMA, Audit::SCHEMA]).unwrap();
    for r in [def.iam_policy(&policy).map(|_| ()), def.with_iam_policy(policy.clone()).map(|_| ())] {
        match r {
            Err(Error::Validation(m)) => {
                assert!(m.contains("ORG#<org>#PROJECTS") && m.contains("ORG#AUDIT#<org>"), "{m}");
            }
            other => panic!("expected Validation, got {other:?}"),
        }
    }
    // Each alone, or beside entities with the same prefix, is confined.
    for schemas in [&[Project::SCHEMA][..], &[Audit::SCHEMA], &[User::SCHEMA, Message::SCHEMA]] {
        TableDefinition::from_entities(schemas).unwrap().iam_policy(&policy).unwrap();
    }
}

#[tokio::test]
async fn a_string_tenant_on_its_own_attribute_is_the_whole_value() {
    let table = common::table("tenant-own-attr", &[Doc::SCHEMA, Match::SCHEMA]).await;
    let doc = |t: &str, id: &str| Doc { tenant_id: t.into(), id: id.into() };
    for d in [doc("t1", "a"), doc("t1#x", "b"), doc("t10", "c")] {
        table.put(&d).await.unwrap();
    }
    table.put(&Match { tenant_id: "t1#x".into(), id: "m".into(), region: "EU".into() }).await.unwrap();
    let t1 = table.for_tenant("t1");
    assert_eq!(t1.query_all(Doc::query_docs("t1")).await.unwrap(), vec![doc("t1", "a")]);
    // `t1#x` is another tenant's value (one no handle can have): its `#` is not an end.
    let none = Executed::default();
    let c = Counted::new(&none, &t1);
    outside("a value holding #", t1.query_all(Doc::query_docs("t1#x")).await, "t1", "t1#x", &c);
    outside("a longer value", t1.query_all(Doc::query_docs("t10")).await, "t1", "t10", &c);
    outside("multi-attribute, holding #", t1.query_all(Match::query_matches("t1#x", "EU")).await, "t1", "t1#x", &c);
}
