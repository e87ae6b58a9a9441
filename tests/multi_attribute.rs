//! Multi-attribute index keys (issue 34): a global index keyed on up to four fields' own
//! attributes per side, each with its native type. Against DynamoDB Local: create, queries at
//! each depth of the sort key, limit and cursors, sparse items, updates moving an item between
//! index partitions, and a table created by raw SDK calls read by an entity declared over it.

mod common;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType,
};
use dynamo_entity::prelude::*;
use dynamo_entity::{
    AttributeType, AttributeValue, Collection, Entity, Error, SortCondition, Table, TableDefinition, View,
};

/// A game leaderboard: a player's result in one match, ranked by tournament and region, then
/// round and score. `Replays` is sparse: only results with a replay are in it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"], query = "leaderboard")]
#[gsi2(index = "Replays", pk = ["region"], sk = ["replay", "score"], query = "replays")]
pub struct MatchResult {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
    pub replay: Option<String>,
}

/// Another entity in the same index partitions: read together with `MatchResult` by a collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TEAM#<team>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "score"], query = "team_board")]
pub struct TeamResult {
    pub team: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
}

/// A view read through the index: the player and the score only.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "MatchResult")]
pub struct Score {
    pub player_id: String,
    pub score: u64,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Board {
    Player(MatchResult),
    Team(TeamResult),
}

/// Renamed fields key the index by their stored attributes.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "R#<id>"]
#[entity(rename_all = "camelCase")]
#[gsi1(index = "ByOwner", pk = ["owner_id", "kind"], sk = ["created_day"])]
pub struct Renamed {
    pub id: String,
    pub owner_id: String,
    #[entity(rename = "k")]
    pub kind: u32,
    pub created_day: serde_bytes::ByteBuf,
}

fn result(player: &str, m: &str, region: &str, round: &str, score: u64, replay: Option<&str>) -> MatchResult {
    MatchResult {
        player_id: player.into(),
        match_id: m.into(),
        tournament_id: "W26".into(),
        region: region.into(),
        round: round.into(),
        score,
        replay: replay.map(str::to_owned),
    }
}

fn schemas() -> [dynamo_entity::EntitySchema; 2] {
    [MatchResult::SCHEMA, TeamResult::SCHEMA]
}

async fn players(table: &Table, q: impl QueryOptions<Entity = MatchResult>) -> Vec<String> {
    table.query_all(q).await.unwrap().into_iter().map(|r| r.player_id).collect()
}

#[test]
fn the_index_is_described_with_every_attribute_and_writes_no_copy() {
    let gsi = MatchResult::SCHEMA.index("Leaderboard").unwrap();
    let multi = gsi.multi.unwrap();
    let attrs = |keys: &[dynamo_entity::KeySchema]| keys.iter().map(|k| (k.attr, k.ty)).collect::<Vec<_>>();
    assert_eq!(attrs(multi.pk), [("tournament_id", AttributeType::S), ("region", AttributeType::S)]);
    assert_eq!(attrs(multi.sk), [("round", AttributeType::S), ("score", AttributeType::N)]);
    let item = result("a", "m1", "EU", "SEMI", 7, None).to_item().unwrap();
    assert_eq!(item.get("score"), Some(&AttributeValue::N("7".into())));
    assert!(!item.contains_key("replay") && !item.keys().any(|k| k.starts_with("GSI")), "{item:?}");
    assert_eq!(item.len(), 9, "PK, SK, entity_type and six fields: {item:?}");

    let r = Renamed::SCHEMA.index("ByOwner").unwrap().multi.unwrap();
    assert_eq!(attrs(r.pk), [("ownerId", AttributeType::S), ("k", AttributeType::N)]);
    assert_eq!(attrs(r.sk), [("createdDay", AttributeType::B)]);

    let def = TableDefinition::from_entities(&schemas()).unwrap();
    let board = def.indexes.iter().find(|i| i.name == "Leaderboard").unwrap();
    assert_eq!(board.pk_attrs, ["tournament_id", "region"]);
    assert_eq!(board.sk_attrs, ["round", "score"]);
    assert_eq!((board.pk_attr.as_str(), board.sk_attr.as_deref()), ("tournament_id", Some("round")));
    let types: Vec<(&str, &str)> = def.attribute_types.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    assert_eq!(
        types,
        [
            ("PK", "S"),
            ("SK", "S"),
            ("region", "S"),
            ("replay", "S"),
            ("round", "S"),
            ("score", "N"),
            ("tournament_id", "S")
        ]
    );
}

#[test]
fn empty_strings_in_listed_fields_are_refused_before_sending() {
    let err = result("a", "m1", "", "SEMI", 7, None).to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`region`") && m.contains("empty")), "{err:?}");
    let err = result("a", "m1", "EU", "SEMI", 7, Some("")).to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`replay`") && m.contains("empty")), "{err:?}");
    // An update setting one to "" fails the same way, before sending.
    let u = MatchResult::update(MatchResult::key("a", "m1")).set(MatchResult::fields().round, "");
    let err = u.request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`round`")), "{err:?}");
}

#[test]
fn the_key_condition_names_every_attribute_in_order() {
    let r = MatchResult::query_leaderboard("W26", "EU").round().eq("SEMI").score().gte(100u64).request().unwrap();
    assert_eq!(r.index_name, Some("Leaderboard"));
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #k0 = :k0 AND #k1 = :k1 AND #sk >= :lo");
    let names = |k: &str| r.expression_attribute_names[k].as_str();
    assert_eq!([names("#pk"), names("#k0"), names("#k1"), names("#sk")], ["tournament_id", "region", "round", "score"]);
    assert_eq!(r.expression_attribute_values[":lo"], AttributeValue::N("100".into()));
    assert_eq!(r.expression_attribute_values[":k1"], AttributeValue::S("SEMI".into()));
    let r = MatchResult::query_leaderboard("W26", "EU").request().unwrap();
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #k0 = :k0");
    let r = MatchResult::query_leaderboard("W26", "EU").round().begins_with("QUAR").request().unwrap();
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #k0 = :k0 AND begins_with(#sk, :sk)");
    let r = MatchResult::query_leaderboard("W26", "EU").round().eq("F").score().eq(3u64).request().unwrap();
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #k0 = :k0 AND #k1 = :k1 AND #sk = :sk");
    // Numbers order by value: 10 > 9 (as text, "10" < "9").
    let q = MatchResult::query_leaderboard("W26", "EU").round().eq("F").score().between(10u64, 9u64);
    assert_eq!(q.sort_condition(), &SortCondition::Nothing);
}

fn ks(name: &str, t: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(t).build().unwrap()
}
fn ad(name: &str, t: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(t).build().unwrap()
}

/// DynamoDB Local accepts a GSI keyed on two HASH and two RANGE attributes and answers a
/// query on all four.
#[tokio::test]
async fn local_accepts_two_hash_two_range() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let name = format!("raw-ma-{}", std::process::id());
    let gsi = GlobalSecondaryIndex::builder()
        .index_name("Leaderboard")
        .key_schema(ks("tournament_id", KeyType::Hash))
        .key_schema(ks("region", KeyType::Hash))
        .key_schema(ks("round", KeyType::Range))
        .key_schema(ks("score", KeyType::Range))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .unwrap();
    let r = client
        .create_table()
        .table_name(&name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(ks("PK", KeyType::Hash))
        .key_schema(ks("SK", KeyType::Range))
        .attribute_definitions(ad("PK", ScalarAttributeType::S))
        .attribute_definitions(ad("SK", ScalarAttributeType::S))
        .attribute_definitions(ad("tournament_id", ScalarAttributeType::S))
        .attribute_definitions(ad("region", ScalarAttributeType::S))
        .attribute_definitions(ad("round", ScalarAttributeType::S))
        .attribute_definitions(ad("score", ScalarAttributeType::N))
        .global_secondary_indexes(gsi)
        .send()
        .await;
    if let Err(e) = &r {
        panic!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(e));
    }
    for (p, s) in [("a", "5"), ("b", "50"), ("c", "150")] {
        client
            .put_item()
            .table_name(&name)
            .item("PK", AttributeValue::S(format!("PLAYER#{p}")))
            .item("SK", AttributeValue::S("MATCH#1".into()))
            .item("tournament_id", AttributeValue::S("W".into()))
            .item("region", AttributeValue::S("EU".into()))
            .item("round", AttributeValue::S("SEMI".into()))
            .item("score", AttributeValue::N(s.into()))
            .send()
            .await
            .unwrap();
    }
    let q = client
        .query()
        .table_name(&name)
        .index_name("Leaderboard")
        .key_condition_expression("#t = :t AND #r = :r AND #rd = :rd AND #s > :s")
        .expression_attribute_names("#t", "tournament_id")
        .expression_attribute_names("#r", "region")
        .expression_attribute_names("#rd", "round")
        .expression_attribute_names("#s", "score")
        .expression_attribute_values(":t", AttributeValue::S("W".into()))
        .expression_attribute_values(":r", AttributeValue::S("EU".into()))
        .expression_attribute_values(":rd", AttributeValue::S("SEMI".into()))
        .expression_attribute_values(":s", AttributeValue::N("10".into()))
        .send()
        .await;
    let q = match q {
        Ok(q) => q,
        Err(e) => panic!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(e)),
    };
    assert_eq!(q.count, 2);
    let d = client.describe_table().table_name(&name).send().await.unwrap();
    let t = d.table.unwrap();
    let g = &t.global_secondary_indexes.as_ref().unwrap()[0];
    assert_eq!(g.key_schema.as_ref().unwrap().len(), 4);

    // Adoption: the entity declared over this table finds nothing to complain about, reads the
    // items written raw (numbers as N, no type attribute) and queries the index.
    let def = TableDefinition::from_entities(&[MatchResult::SCHEMA]).unwrap();
    let gsi_only = |d: Vec<String>| d.into_iter().filter(|m| m.contains("Leaderboard")).collect::<Vec<_>>();
    assert_eq!(gsi_only(def.differences(&t)), Vec::<String>::new());
    let table = Table::new(client.clone(), name.clone());
    let ranked =
        table.query_all(MatchResult::query_leaderboard("W", "EU").round().eq("SEMI").score().gt(10u64)).await.unwrap();
    assert_eq!(ranked.iter().map(|r| (r.player_id.as_str(), r.score)).collect::<Vec<_>>(), [("b", 50), ("c", 150)]);
    let got = table.get(MatchResult::key("c", "1")).await.unwrap().unwrap();
    assert_eq!((got.region.as_str(), got.score, got.replay), ("EU", 150, None));
    // A live table keyed otherwise is a difference: sort fields in another order.
    let other = TableDefinition::from_entities(&[Swapped::SCHEMA]).unwrap();
    let diffs = gsi_only(other.differences(&t));
    assert_eq!(
        diffs,
        [
            "index Leaderboard has keys (tournament_id + region, round + score), the entities need (tournament_id + region, score + round)"
        ]
    );
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["score", "round"])]
pub struct Swapped {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
}

#[tokio::test]
async fn create_declares_the_keys_and_queries_answer_at_each_depth() {
    let table = common::table("multi-attr", &schemas()).await;
    let out = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let t = out.table.unwrap();
    let gsi = t.global_secondary_indexes().iter().find(|i| i.index_name() == Some("Leaderboard")).unwrap();
    let keys: Vec<_> = gsi.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(keys, [("tournament_id", "HASH"), ("region", "HASH"), ("round", "RANGE"), ("score", "RANGE")]);
    let score = t.attribute_definitions().iter().find(|d| d.attribute_name() == "score").unwrap();
    assert_eq!(score.attribute_type().as_str(), "N");
    assert!(!table.create_table_if_not_exists(&schemas()).await.unwrap(), "no difference with itself");

    let results = [
        result("a", "m1", "EU", "FINAL", 90, None),
        result("b", "m1", "EU", "SEMI", 9, Some("r1")),
        result("c", "m1", "EU", "SEMI", 100, None),
        result("d", "m1", "EU", "SEMI", 55, Some("r2")),
        result("e", "m1", "US", "SEMI", 70, None),
        result("f", "m2", "EU", "QUARTER", 10, None),
    ];
    for r in &results {
        table.create(r).await.unwrap();
    }
    let mut other = result("g", "m1", "EU", "SEMI", 7, None);
    other.tournament_id = "S26".into();
    table.create(&other).await.unwrap();
    let q = || MatchResult::query_leaderboard("W26", "EU");
    // Depth 0: the partition, by round then score (as numbers: 9 < 55 < 100).
    assert_eq!(players(&table, q()).await, ["a", "f", "b", "d", "c"]);
    assert_eq!(players(&table, q().descending()).await, ["c", "d", "b", "f", "a"]);
    assert_eq!(players(&table, q().round().gt("QUARTER")).await, ["b", "d", "c"]);
    assert_eq!(players(&table, q().round().begins_with("S")).await, ["b", "d", "c"]);
    assert_eq!(players(&table, q().round().between("FINAL", "QUARTER")).await, ["a", "f"]);
    // Depth 1: round fixed; one range on score.
    assert_eq!(players(&table, q().round().eq("SEMI")).await, ["b", "d", "c"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().gte(55u64)).await, ["d", "c"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().lt(55u64)).await, ["b"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().lte(55u64)).await, ["b", "d"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().gt(9u64)).await, ["d", "c"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().between(9u64, 55u64)).await, ["b", "d"]);
    assert_eq!(players(&table, q().round().eq("SEMI").score().gte(10u64).descending().limit(1)).await, ["c"]);
    // Depth 2: every sort field fixed.
    assert_eq!(players(&table, q().round().eq("SEMI").score().eq(100u64)).await, ["c"]);
    assert_eq!(players(&table, MatchResult::query_leaderboard("W26", "US")).await, ["e"]);
    // Pages of one item, through cursors, at depth 1.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut query = q().round().eq("SEMI").score().gte(0u64).limit(1);
        if let Some(c) = next.take() {
            query = query.after(c);
        }
        let page = table.query(query).await.unwrap();
        seen.extend(page.items.into_iter().map(|r| r.player_id));
        match page.next {
            Some(c) => next = Some(c.to_string().parse().unwrap()),
            None => break,
        }
    }
    assert_eq!(seen, ["b", "d", "c"]);
    // A cursor of another region's partition or another round is refused.
    let page = table.query(q().round().eq("SEMI").limit(1)).await.unwrap();
    let cursor = page.next.unwrap();
    let err = table
        .query(MatchResult::query_leaderboard("W26", "US").round().eq("SEMI").after(cursor.clone()))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor), "{err:?}");
    let err = table.query(q().round().eq("FINAL").after(cursor)).await.unwrap_err();
    assert!(matches!(err, Error::InvalidCursor), "{err:?}");
    // A stream reads the same items.
    use futures_util::StreamExt;
    let streamed: Vec<String> =
        table.query_stream(q().round().eq("SEMI").limit(2)).map(|r| r.unwrap().player_id).collect().await;
    assert_eq!(streamed, ["b", "d"], "at most the limit");
    // A view reads the attributes it needs through the index.
    let scores = table.query_all(q().round().eq("SEMI").score().gte(55u64).view::<Score>()).await.unwrap();
    let scores: Vec<(&str, u64)> = scores.iter().map(|s| (s.player_id.as_str(), s.score)).collect();
    assert_eq!(scores, [("d", 55), ("c", 100)]);
    // A filter, and a collection reading both members of a partition in index order.
    let f = MatchResult::fields();
    let filtered = players(&table, q().round().eq("SEMI").filter(f.replay.exists())).await;
    assert_eq!(filtered, ["b", "d"]);
    table
        .create(&TeamResult {
            team: "t1".into(),
            match_id: "m1".into(),
            tournament_id: "W26".into(),
            region: "EU".into(),
            round: "SEMI".into(),
            score: 60,
        })
        .await
        .unwrap();
    let board = table.query_all(Board::query(MatchResult::partition_leaderboard("W26", "EU"))).await.unwrap();
    let names: Vec<&str> = board
        .iter()
        .map(|b| match b {
            Board::Player(p) => p.player_id.as_str(),
            Board::Team(t) => t.team.as_str(),
        })
        .collect();
    assert_eq!(names, ["a", "f", "b", "d", "t1", "c"]);
    // The team query on the same index steps over the players.
    let teams = table.query_all(TeamResult::query_team_board("W26", "EU").round().eq("SEMI")).await.unwrap();
    assert_eq!(teams.len(), 1);
}

#[tokio::test]
async fn sparse_items_and_updates_move_between_index_partitions() {
    let table = common::table("multi-attr-upd", &schemas()).await;
    table.create(&result("a", "m1", "EU", "SEMI", 10, None)).await.unwrap();
    table.create(&result("b", "m1", "EU", "SEMI", 20, Some("r-b"))).await.unwrap();
    // Sparse: only b has a replay.
    assert_eq!(players(&table, MatchResult::query_replays("EU")).await, ["b"]);
    assert_eq!(players(&table, MatchResult::query_replays("EU").replay().eq("r-b").score().gte(20u64)).await, ["b"]);

    // Setting the replay puts a in; removing it takes b out.
    table
        .update(MatchResult::update(MatchResult::key("a", "m1")).set(MatchResult::fields().replay, "r-a"))
        .await
        .unwrap();
    assert_eq!(players(&table, MatchResult::query_replays("EU")).await, ["a", "b"]);
    table.update(MatchResult::update(MatchResult::key("b", "m1")).remove(MatchResult::fields().replay)).await.unwrap();
    assert_eq!(players(&table, MatchResult::query_replays("EU")).await, ["a"]);

    // Setting a partition field moves the item to another partition; a sort field, within it.
    table
        .update(MatchResult::update(MatchResult::key("a", "m1")).set(MatchResult::fields().region, "US"))
        .await
        .unwrap();
    assert_eq!(players(&table, MatchResult::query_leaderboard("W26", "EU")).await, ["b"]);
    assert_eq!(players(&table, MatchResult::query_leaderboard("W26", "US")).await, ["a"]);
    assert_eq!(players(&table, MatchResult::query_replays("US")).await, ["a"]);
    table
        .update(
            MatchResult::update(MatchResult::key("a", "m1"))
                .set(MatchResult::fields().round, "FINAL")
                .add(MatchResult::fields().score, 5),
        )
        .await
        .unwrap();
    let q = MatchResult::query_leaderboard("W26", "US").round().eq("FINAL").score().eq(15u64);
    assert_eq!(players(&table, q).await, ["a"]);
    // update_from: the unchanged values are the item's.
    let b = table.get(MatchResult::key("b", "m1")).await.unwrap().unwrap();
    table.update(MatchResult::update_from(&b).set(MatchResult::fields().region, "ASIA")).await.unwrap();
    assert_eq!(players(&table, MatchResult::query_leaderboard("W26", "ASIA").round().eq("SEMI")).await, ["b"]);
}

#[test]
fn the_exports_write_every_key_attribute() {
    let def = TableDefinition::from_entities(&schemas()).unwrap();
    let json = def.to_cloudformation_json("leaderboard");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let table = &doc["Resources"].as_object().unwrap().values().find(|r| r["Type"] == "AWS::DynamoDB::Table").unwrap();
    let gsis = table["Properties"]["GlobalSecondaryIndexes"].as_array().unwrap();
    let board = gsis.iter().find(|g| g["IndexName"] == "Leaderboard").unwrap();
    let keys: Vec<(&str, &str)> = board["KeySchema"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["AttributeName"].as_str().unwrap(), k["KeyType"].as_str().unwrap()))
        .collect();
    assert_eq!(keys, [("tournament_id", "HASH"), ("region", "HASH"), ("round", "RANGE"), ("score", "RANGE")]);
    let tf = def.to_terraform("leaderboard");
    let block = &tf[tf.find("\"Leaderboard\"").unwrap()..];
    let block = &block[..block.find("\n  }\n").unwrap()];
    assert!(!block.contains("hash_key") && !block.contains("range_key"), "{block}");
    assert_eq!(block.matches("key_schema {").count(), 4, "{block}");
    assert!(block.contains("attribute_name = \"score\"") && block.contains("key_type       = \"RANGE\""), "{block}");
    assert!(tf.contains("# Leaderboard: a multi-attribute key (2 HASH, 2 RANGE)"), "{tf}");
    let md = def.to_markdown("leaderboard");
    assert!(md.contains("| Leaderboard | global | `tournament_id` + `region` | `round` + `score` | ALL |"), "{md}");
    assert!(
        md.contains(
            "`.round().eq/lt/lte/gt/gte/between(..)`; `.score().eq/lt/lte/gt/gte/between(..)` after \
             `.round().eq(..)` (equalities from the left, then at most one range, `.begins_with(..)` too on a \
             `String`; nothing after a range)"
        ),
        "{md}"
    );
}

/// The same items without any index: `MatchResult` before `Leaderboard` is added.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[entity(type_name = "MatchResult")]
pub struct Unindexed {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub score: u64,
}

#[tokio::test]
async fn apply_adds_a_multi_attribute_index_that_holds_the_items_already_written() {
    let table = common::table("multi-attr-apply", &[Unindexed::SCHEMA]).await;
    for (p, score) in [("a", 5u64), ("b", 50)] {
        let u = Unindexed {
            player_id: p.into(),
            match_id: "m1".into(),
            tournament_id: "W26".into(),
            region: "EU".into(),
            round: "SEMI".into(),
            score,
        };
        table.create(&u).await.unwrap();
    }
    let wanted = TableDefinition::from_entities(&[MatchResult::SCHEMA]).unwrap();
    let plan = table.plan(&wanted).await.unwrap();
    assert!(plan.to_string().contains("(tournament_id + region, round + score)"), "{plan}");
    table.apply(&wanted).await.unwrap();
    let d = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let gsi = d.global_secondary_indexes().iter().find(|i| i.index_name() == Some("Leaderboard")).unwrap();
    let keys: Vec<_> = gsi.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(keys, [("tournament_id", "HASH"), ("region", "HASH"), ("round", "RANGE"), ("score", "RANGE")]);
    let plan = table.plan(&wanted).await.unwrap();
    assert!(plan.changes.iter().all(|c| !c.to_string().contains("Leaderboard")), "{plan}");
    // No copy to backfill: the items written before the index are in it.
    let q = MatchResult::query_leaderboard("W26", "EU").round().eq("SEMI").score().gte(10u64);
    assert_eq!(table.query_all(q.view::<Score>()).await.unwrap(), [Score { player_id: "b".into(), score: 50 }]);
    // Another order of the sort attributes is a replacement, named with every attribute.
    let other = TableDefinition::from_entities(&[Swapped::SCHEMA]).unwrap();
    let plan = table.plan(&other).await.unwrap();
    assert!(
        plan.to_string()
            .contains("keys (tournament_id + region, round + score) -> (tournament_id + region, score + round)"),
        "{plan}"
    );
}
