//! Tables keyed on plain attributes (issue 46), as AWS publishes its multi-attribute designs:
//! the table's key is a field's own attribute (`matchId`, `customerId`), typed S or N by the
//! field, and a multi-attribute index may list it. Against DynamoDB Local: AWS's tournament
//! table created and filled by raw SDK calls and read, queried and written back byte for byte;
//! a numeric (N) key through every operation that reads keys; plan empty on AWS's tables.

mod common;

use aws_sdk_dynamodb::types::{BillingMode, KeyType};
use dynamo_entity::prelude::*;
use dynamo_entity::{AttributeType, AttributeValue, Entity, Error, Item, Table, TableDefinition};

#[path = "../examples/tournament/model.rs"]
mod tournament;

use tournament::{MATCHES, TournamentMatch, TournamentMatchKey, ad, create_as_aws_does, gsi, ks, raw as raw_match};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn tournament_table(test: &str) -> Table {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("{test}-{}", std::process::id());
    create_as_aws_does(&client, &name).await.unwrap();
    Table::new(client, name)
}

fn ids(matches: &[TournamentMatch]) -> Vec<&str> {
    matches.iter().map(|m| m.match_id.as_str()).collect()
}

/// The schema says what AWS's table is: one key attribute, `matchId`, a string.
#[test]
fn the_table_key_is_the_fields_attribute() {
    let schema = TournamentMatch::SCHEMA;
    assert_eq!((schema.pk.attr, schema.pk.ty), ("matchId", AttributeType::S));
    assert!(schema.sk.is_none());
    let key = TournamentMatch::key("match-001");
    assert_eq!(key.try_pk().unwrap(), "match-001");
    let item = dynamo_entity::EntityKey::to_key_item(&key).unwrap();
    assert_eq!(item, Item::from([("matchId".to_owned(), s("match-001"))]));
    // A `#` is an ordinary character of a natural key: the value is the key.
    assert_eq!(TournamentMatch::key("a#b").try_pk().unwrap(), "a#b");
    assert_eq!(TournamentMatchKey::parse("a#b").unwrap(), TournamentMatch::key("a#b"));
}

/// AWS's items, written by raw calls, are read by `get` and by every query of AWS's page, and
/// written back by the entity byte for byte.
#[tokio::test]
async fn aws_tournament_table_read_queried_and_written_byte_for_byte() {
    let table = tournament_table("natural-tournament").await;

    let m1 = table.get(TournamentMatch::key("match-001")).await.unwrap().expect("match-001");
    assert_eq!((m1.round.as_str(), m1.winner.as_deref()), ("SEMIFINALS", Some("101")));
    assert!(table.get(TournamentMatch::key("match-999")).await.unwrap().is_none());

    // Every match of a tournament and region, by round, bracket, match.
    let all = table.query_all(TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST")).await.unwrap();
    assert_eq!(ids(&all), ["match-004", "match-003", "match-001", "match-002"]);
    let semis = table
        .query_all(TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST").round().eq("SEMIFINALS"))
        .await
        .unwrap();
    assert_eq!(ids(&semis), ["match-003", "match-001", "match-002"]);
    let upper =
        TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST").round().eq("SEMIFINALS").bracket().eq("UPPER");
    assert_eq!(ids(&table.query_all(upper.clone()).await.unwrap()), ["match-001", "match-002"]);
    // The table's key as the last sort attribute: `matchId =` and `matchId >`.
    let one = table.query_all(upper.clone().match_id().eq("match-002")).await.unwrap();
    assert_eq!(ids(&one), ["match-002"]);
    let after = table.query_all(upper.clone().match_id().gt("match-001")).await.unwrap();
    assert_eq!(ids(&after), ["match-002"]);
    let request = upper.match_id().gt("match-001").request().unwrap();
    assert!(request.filter_expression.is_none(), "a key condition, never a filter");
    assert!(request.key_condition_expression.ends_with("#sk > :sk"), "{}", request.key_condition_expression);

    // A player's history, by date then round.
    let history = table.query_all(TournamentMatch::query_by_player("101")).await.unwrap();
    assert_eq!(ids(&history), ["match-001", "match-004", "match-006"]);
    let january = TournamentMatch::query_by_player("101").match_date().between("2024-01-01", "2024-01-31");
    assert_eq!(ids(&table.query_all(january).await.unwrap()), ["match-001", "match-004"]);

    // Exact cursors: one item per page, each page resuming where the last stopped.
    let mut cursor = None;
    let mut paged = Vec::new();
    loop {
        let mut q = TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST").limit(1);
        if let Some(c) = cursor.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        paged.extend(page.items.iter().map(|m| m.match_id.clone()));
        match page.next {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(paged, ["match-004", "match-003", "match-001", "match-002"]);

    // Byte for byte: the entity writes exactly the item AWS's page writes, and nothing else.
    for m in &MATCHES {
        let raw = raw_match(m);
        let read = TournamentMatch::from_item(raw.clone()).unwrap();
        assert_eq!(read.to_item().unwrap(), raw);
    }
    let new = TournamentMatch {
        match_id: "match-007".into(),
        tournament_id: "WINTER2024".into(),
        region: "NA-WEST".into(),
        round: "FINALS".into(),
        bracket: "CHAMPIONSHIP".into(),
        player1_id: "201".into(),
        player2_id: "205".into(),
        match_date: "2024-01-21".into(),
        winner: None,
    };
    table.create(&new).await.unwrap();
    let stored = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("matchId", s("match-007"))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    let expected: Item = [
        ("matchId", "match-007"),
        ("tournamentId", "WINTER2024"),
        ("region", "NA-WEST"),
        ("round", "FINALS"),
        ("bracket", "CHAMPIONSHIP"),
        ("player1Id", "201"),
        ("player2Id", "205"),
        ("matchDate", "2024-01-21"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), s(v)))
    .collect();
    assert_eq!(stored, expected);
    // Creating must not overwrite.
    assert!(matches!(table.create(&new).await, Err(Error::AlreadyExists { .. })));

    // Updates: the key field's path is `ReadOnly`; the others are set, and `None` removes.
    let updated = table
        .update(
            TournamentMatch::update(TournamentMatch::key("match-007"))
                .set(TournamentMatch::fields().winner, "201")
                .condition(TournamentMatch::fields().match_id.eq("match-007")),
        )
        .await
        .unwrap();
    assert_eq!(updated.winner.as_deref(), Some("201"));
    // Updates never create by accident.
    let missing = table
        .update(TournamentMatch::update(TournamentMatch::key("match-404")).set(TournamentMatch::fields().winner, "x"))
        .await;
    assert!(matches!(missing, Err(Error::NotFound { .. })), "{missing:?}");

    // A filter on the key field: an ordinary attribute where the query does not key on it.
    let f = TournamentMatch::fields();
    let q = TournamentMatch::query_by_player("201").filter(f.match_id.ne("match-005"));
    assert_eq!(ids(&table.query_all(q).await.unwrap()), ["match-007"]);
    // Where the queried index keys on it, DynamoDB refuses the filter: refused before sending.
    let q = TournamentMatch::query_by_tournament("WINTER2024", "NA-WEST").filter(f.match_id.ne("match-005"));
    let refused = table.query_all(q).await;
    assert!(matches!(&refused, Err(Error::Validation(m)) if m.contains("matchId")), "{refused:?}");
    let q = TournamentMatch::query_by_tournament("WINTER2024", "NA-WEST").filter(f.bracket.eq("UPPER"));
    assert!(
        matches!(q.request(), Err(Error::Validation(_))),
        "every key attribute of the index, not only the compared"
    );

    // Batches and transactions address items by the natural key.
    let got = table
        .batch_get([TournamentMatch::key("match-001"), TournamentMatch::key("match-007"), TournamentMatch::key("nope")])
        .await
        .unwrap();
    let mut got_ids: Vec<String> = got.into_iter().map(|m| m.match_id).collect();
    got_ids.sort();
    assert_eq!(got_ids, ["match-001", "match-007"]);
    let snapshot = table.transact_get([TournamentMatch::key("match-002"), TournamentMatch::key("none")]).await.unwrap();
    assert_eq!(
        snapshot.iter().map(|m| m.as_ref().map(|m| m.match_id.as_str())).collect::<Vec<_>>(),
        [Some("match-002"), None]
    );
    table.delete(TournamentMatch::key("match-007")).await.unwrap();
    assert!(table.get(TournamentMatch::key("match-007")).await.unwrap().is_none());

    // The plan against AWS's own table is empty: nothing to create, rebuild or drop.
    let plan = table.plan(&TableDefinition::from_entities(&[TournamentMatch::SCHEMA]).unwrap()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
}

/// A table keyed on a number attribute and a string sort attribute, created by the library.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<customer_id>"]
#[sk = "<order_date>"]
#[entity(
    pk_attr = "customerId",
    sk_attr = "orderDate",
    rename_all = "camelCase",
    type_attr = false,
    owns_partition = true
)]
#[gsi1(index = "ByStatus", pk = ["status"], sk = ["total", "customer_id"], query = "by_status")]
pub struct Order {
    pub customer_id: u64,
    pub order_date: String,
    pub status: String,
    pub total: i64,
    #[version]
    pub version: u64,
}

fn order(customer: u64, date: &str, status: &str, total: i64) -> Order {
    Order { customer_id: customer, order_date: date.into(), status: status.into(), total, version: 0 }
}

#[tokio::test]
async fn a_number_key_through_every_operation() {
    let table = common::table("natural-number", &[Order::SCHEMA]).await;
    let described = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let d = described.table.unwrap();
    let keys: Vec<(&str, &str)> = d.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(keys, [("customerId", "HASH"), ("orderDate", "RANGE")]);
    let mut types: Vec<(&str, &str)> =
        d.attribute_definitions().iter().map(|a| (a.attribute_name(), a.attribute_type().as_str())).collect();
    types.sort();
    assert_eq!(types, [("customerId", "N"), ("orderDate", "S"), ("status", "S"), ("total", "N")]);

    for o in [
        order(7, "2026-01-02", "PAID", 250),
        order(7, "2026-01-09", "OPEN", -5),
        order(7, "2026-02-01", "PAID", 1000),
        order(70, "2026-01-05", "PAID", 30),
    ] {
        table.create(&o).await.unwrap();
    }
    // The item holds the number as a number, and no other key attribute.
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("customerId", AttributeValue::N("7".into()))
        .key("orderDate", s("2026-01-02"))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(raw.get("customerId"), Some(&AttributeValue::N("7".into())));
    assert_eq!(raw.len(), 5, "{raw:?}");

    let got = table.get(Order::key(7u64, "2026-01-09")).await.unwrap().unwrap();
    assert_eq!(got.total, -5);
    let january =
        table.query_all(Order::query_by_customer(7u64).order_date().between("2026-01-01", "2026-01-31")).await.unwrap();
    assert_eq!(january.iter().map(|o| o.order_date.as_str()).collect::<Vec<_>>(), ["2026-01-02", "2026-01-09"]);
    let newest = table.query(Order::query_by_customer(7u64).descending().limit(1)).await.unwrap();
    assert_eq!(newest.items[0].order_date, "2026-02-01");
    // The cursor holds a number key and resumes exactly.
    let next = table.query(Order::query_by_customer(7u64).descending().limit(1).after(newest.next.unwrap())).await;
    assert_eq!(next.unwrap().items[0].order_date, "2026-01-09");
    // Paid orders by total, a number compared as a number; the table key listed last.
    let paid = table.query_all(Order::query_by_status("PAID")).await.unwrap();
    assert_eq!(paid.iter().map(|o| o.total).collect::<Vec<_>>(), [30, 250, 1000]);
    let big = table.query_all(Order::query_by_status("PAID").total().eq(250i64).customer_id().gte(7u64)).await.unwrap();
    assert_eq!(big.len(), 1);

    // `#[version]`: an update from a stale read is refused.
    let v1 = table.update(Order::update_from(&got).set(Order::fields().total, 5)).await.unwrap();
    assert_eq!(v1.version, got.version + 1);
    let stale = table.update(Order::update_from(&got).set(Order::fields().total, 6)).await;
    assert!(matches!(stale, Err(Error::VersionConflict { .. })), "{stale:?}");

    // Batches and a transaction.
    table
        .transact()
        .create(&order(8, "2026-03-01", "OPEN", 1))
        .create(&order(9, "2026-03-01", "OPEN", 2))
        .send()
        .await
        .unwrap();
    let both = table.batch_get([Order::key(8u64, "2026-03-01"), Order::key(9u64, "2026-03-01")]).await.unwrap();
    assert_eq!(both.len(), 2);
    table
        .transact()
        .delete(Order::key(8u64, "2026-03-01"))
        .update(Order::update(Order::key(9u64, "2026-03-01")).set(Order::fields().status, "PAID"))
        .send()
        .await
        .unwrap();
    assert!(table.get(Order::key(8u64, "2026-03-01")).await.unwrap().is_none());
    assert_eq!(table.get(Order::key(9u64, "2026-03-01")).await.unwrap().unwrap().status, "PAID");

    // Items of other code under the same partition: a number key written raw is read.
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("customerId", AttributeValue::N("70".into()))
        .item("orderDate", s("2026-01-06"))
        .item("status", s("OPEN"))
        .item("total", AttributeValue::N("12".into()))
        .send()
        .await
        .unwrap();
    let seventy = table.query_all(Order::query_by_customer(70u64)).await.unwrap();
    assert_eq!(seventy.iter().map(|o| (o.total, o.version)).collect::<Vec<_>>(), [(30, 1), (12, 0)]);

    // An upsert creates an item whose key is the key's own attributes, never SET (DynamoDB
    // refuses an update expression naming a key attribute).
    let created = table
        .update(
            Order::update(Order::key(11u64, "2026-04-01"))
                .set(Order::fields().status, "NEW")
                .set(Order::fields().total, 3)
                .upsert(),
        )
        .await;
    let created = created.unwrap();
    assert_eq!((created.customer_id, created.order_date.as_str(), created.total), (11, "2026-04-01", 3));
    let request = Order::update(Order::key(11u64, "2026-04-01"))
        .set(Order::fields().status, "X")
        .set(Order::fields().total, 1)
        .upsert()
        .request()
        .unwrap();
    assert!(!request.update_expression.contains("customerId"), "{}", request.update_expression);
    table.delete(Order::key(11u64, "2026-04-01")).await.unwrap();

    // Scans read them all; the plan of the library's own table is empty.
    assert_eq!(table.scan::<Order>().all().await.unwrap().len(), 6);
    let plan = table.plan(&TableDefinition::from_entities(&[Order::SCHEMA]).unwrap()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
}

/// AWS's "Financial transactions" variation: a table keyed on `transactionId`, an index keyed
/// on the account then the date and the transaction itself (the table's key, last).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<transaction_id>"]
#[entity(pk_attr = "transactionId", rename_all = "camelCase", type_attr = false, owns_partition = true)]
#[gsi1(index = "AccountTimelineIndex", pk = ["account_id"], sk = ["transaction_date", "transaction_id"], query = "by_account")]
pub struct BankTransaction {
    pub transaction_id: String,
    pub account_id: String,
    pub transaction_date: String,
    pub amount: i64,
}

#[tokio::test]
async fn plan_is_empty_on_aws_bank_transactions() {
    use KeyType::{Hash, Range};
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("natural-bank-{}", std::process::id());
    client
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(ks("transactionId", Hash))
        .attribute_definitions(ad("transactionId"))
        .attribute_definitions(ad("accountId"))
        .attribute_definitions(ad("transactionDate"))
        .global_secondary_indexes(gsi(
            "AccountTimelineIndex",
            &[("accountId", Hash), ("transactionDate", Range), ("transactionId", Range)],
        ))
        .send()
        .await
        .unwrap();
    let table = Table::new(client, name);
    let plan = table.plan(&TableDefinition::from_entities(&[BankTransaction::SCHEMA]).unwrap()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    for (id, date, amount) in [("t-2", "2026-02-19T14:00:00Z", -40), ("t-1", "2026-02-19T14:00:00Z", 100)] {
        let t = BankTransaction {
            transaction_id: id.into(),
            account_id: "acc-1".into(),
            transaction_date: date.into(),
            amount,
        };
        table.create(&t).await.unwrap();
    }
    // Same date: the transaction id breaks the tie, by key condition.
    let q = BankTransaction::query_by_account("acc-1").transaction_date().eq("2026-02-19T14:00:00Z");
    let all = table.query_all(q.clone()).await.unwrap();
    assert_eq!(all.iter().map(|t| t.transaction_id.as_str()).collect::<Vec<_>>(), ["t-1", "t-2"]);
    let after = table.query_all(q.transaction_id().gt("t-1")).await.unwrap();
    assert_eq!(after.iter().map(|t| t.amount).collect::<Vec<_>>(), [-40]);
}

/// A natural key is checked before sending: an empty string is `Error::Validation`, nothing
/// is written.
#[tokio::test]
async fn an_empty_natural_key_is_refused_before_sending() {
    let table = common::table("natural-empty", &[BankTransaction::SCHEMA]).await;
    let t = BankTransaction {
        transaction_id: String::new(),
        account_id: "a".into(),
        transaction_date: "d".into(),
        amount: 1,
    };
    assert!(matches!(t.to_item(), Err(Error::Validation(_))));
    assert!(matches!(table.put(&t).await, Err(Error::Validation(_))));
    assert!(matches!(table.get(BankTransaction::key("")).await, Err(Error::Validation(_))));
    assert!(table.scan::<BankTransaction>().all().await.unwrap().is_empty());
}

/// A table keyed on a binary attribute: `serde_bytes::ByteBuf` is stored as B, and the key's
/// text (cursors, errors) is its lower-case hex.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<digest>"]
#[sk = "<part>"]
#[entity(pk_attr = "digest", sk_attr = "part", type_attr = false, owns_partition = true)]
pub struct Chunk {
    pub digest: serde_bytes::ByteBuf,
    pub part: u32,
    pub size: u64,
}

#[tokio::test]
async fn a_binary_key() {
    use serde_bytes::ByteBuf;
    assert_eq!((Chunk::SCHEMA.pk.ty, Chunk::SCHEMA.sk.unwrap().ty), (AttributeType::B, AttributeType::N));
    let table = common::table("natural-binary", &[Chunk::SCHEMA]).await;
    let digest = ByteBuf::from(vec![0u8, 0xff, 0x10]);
    assert_eq!(Chunk::key(digest.clone(), 1u32).try_pk().unwrap(), "00ff10");
    for part in [1u32, 2, 10] {
        table.create(&Chunk { digest: digest.clone(), part, size: u64::from(part) * 100 }).await.unwrap();
    }
    table.create(&Chunk { digest: ByteBuf::from(vec![1u8]), part: 1, size: 5 }).await.unwrap();
    let raw = table.client().scan().table_name(table.name()).send().await.unwrap();
    assert!(raw.items().iter().all(|i| matches!(i.get("digest"), Some(AttributeValue::B(_)))));
    let got = table.get(Chunk::key(digest.clone(), 10u32)).await.unwrap().unwrap();
    assert_eq!(got.size, 1000);
    let first = table.query(Chunk::query_by_digest(digest.clone()).limit(2)).await.unwrap();
    assert_eq!(first.items.iter().map(|c| c.part).collect::<Vec<_>>(), [1, 2]);
    let rest = table.query(Chunk::query_by_digest(digest.clone()).limit(2).after(first.next.unwrap())).await.unwrap();
    assert_eq!(rest.items.iter().map(|c| c.part).collect::<Vec<_>>(), [10]);
    let both = table.batch_get([Chunk::key(digest.clone(), 2u32), Chunk::key(ByteBuf::from(vec![1u8]), 1u32)]).await;
    assert_eq!(both.unwrap().len(), 2);
    assert_eq!(table.scan::<Chunk>().all().await.unwrap().len(), 4);
    let plan = table.plan(&TableDefinition::from_entities(&[Chunk::SCHEMA]).unwrap()).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
}
