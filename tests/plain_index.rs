//! Indexes keyed on a field's own attribute (no extra GSI attribute; S or N by the field's
//! type; sparse through `Option`) and an inverted index (keys = the table's SK and PK). Against
//! DynamoDB Local: queries with sort conditions on both sides of a boundary, another entity's
//! items in the same index stepped over, updates moving an item out of and into the index, and
//! the attribute types CreateTable declares.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{
    AttributeType, AttributeValue, Collection, Entity, Error, KeyPart, SortCondition, TableDefinition,
};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Map {
    Green,
    Juicy,
}

/// The AWS game tutorial's game: `OpenGamesIndex` on `map` (S) and `open_timestamp` (S), sparse
/// on `open_timestamp`; `ScoreIndex` on `level` (N) and `score` (N).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GAME#<game_id>"]
#[sk = "#METADATA#<game_id>"]
#[gsi1(
    index = "OpenGamesIndex",
    pk = "<map>",
    sk = "<open_timestamp>",
    pk_attr = "map",
    sk_attr = "open_timestamp",
    query = "open_games_by_map"
)]
#[gsi2(index = "ScoreIndex", pk = "<level>", sk = "<score>", pk_attr = "level", sk_attr = "score", query = "by_level")]
pub struct Game {
    pub game_id: String,
    pub map: String,
    pub open_timestamp: Option<String>,
    pub level: u32,
    pub score: Option<i64>,
    pub creator: String,
}

/// Another entity writing the same attributes: its items are in the same indexes, and a query of
/// `Game` steps over them.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TOURNAMENT#<name>"]
#[sk = "#METADATA"]
#[gsi1(
    index = "OpenGamesIndex",
    pk = "<map>",
    sk = "<open_timestamp>",
    pk_attr = "map",
    sk_attr = "open_timestamp",
    query = "open_by_map"
)]
#[gsi2(index = "ScoreIndex", pk = "<level>", sk = "<score>", pk_attr = "level", sk_attr = "score", query = "by_level")]
#[gsi3(index = "ByMapAndName", pk = "<map>", pk_attr = "map", sk = "NAME#<name>", query = "by_map_and_name")]
pub struct Tournament {
    pub name: String,
    pub map: String,
    pub open_timestamp: Option<String>,
    pub level: u32,
    pub score: Option<i64>,
}

/// Games and tournaments, read together from one partition of an index they share.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Contests {
    Game(Game),
    Tournament(Tournament),
}

/// The tutorial's mapping of a user to a game, and the inverted index that finds a user's games.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GAME#<game_id>"]
#[sk = "USER#<username>"]
#[gsi3(
    index = "InvertedIndex",
    pk = "USER#<username>",
    sk = "GAME#<game_id>",
    pk_attr = "SK",
    sk_attr = "PK",
    query = "games_of_user"
)]
pub struct UserGameMapping {
    pub game_id: String,
    pub username: String,
}

/// A `#[derive(KeyPart)]` enum keying an index as its own (S) attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ARENA#<arena_id>"]
#[sk = "#METADATA"]
#[gsi4(index = "MapIndex", pk = "<map>", pk_attr = "arena_map", query = "arenas_on")]
pub struct Arena {
    pub arena_id: String,
    #[entity(rename = "arena_map")]
    pub map: Option<Map>,
}

fn game(id: &str, map: &str, open: Option<&str>, level: u32, score: Option<i64>) -> Game {
    Game {
        game_id: id.to_owned(),
        map: map.to_owned(),
        open_timestamp: open.map(str::to_owned),
        level,
        score,
        creator: "ana".to_owned(),
    }
}

fn schemas() -> [dynamo_entity::EntitySchema; 4] {
    [Game::SCHEMA, Tournament::SCHEMA, UserGameMapping::SCHEMA, Arena::SCHEMA]
}

#[test]
fn the_index_keys_are_the_fields_own_attributes() {
    let item = game("g1", "Green Grasslands", Some("2019-04-10T23:10:35"), 3, Some(-7)).to_item().unwrap();
    assert_eq!(item.get("map"), Some(&AttributeValue::S("Green Grasslands".into())));
    assert_eq!(item.get("open_timestamp"), Some(&AttributeValue::S("2019-04-10T23:10:35".into())));
    assert_eq!(item.get("level"), Some(&AttributeValue::N("3".into())));
    assert_eq!(item.get("score"), Some(&AttributeValue::N("-7".into())));
    assert!(!item.keys().any(|k| k.starts_with("GSI")), "no extra index attribute: {item:?}");
    assert_eq!(item.len(), 9, "PK, SK, entity_type and the six fields: {item:?}");

    let item = game("g2", "Green Grasslands", None, 3, None).to_item().unwrap();
    assert!(!item.contains_key("open_timestamp") && !item.contains_key("score"), "{item:?}");

    // The inverted index writes nothing either: its keys are the table's.
    let item = UserGameMapping { game_id: "g1".into(), username: "ana".into() }.to_item().unwrap();
    assert_eq!(item.len(), 5, "{item:?}");

    let item = Arena { arena_id: "a1".into(), map: Some(Map::Juicy) }.to_item().unwrap();
    assert_eq!(item.get("arena_map"), Some(&AttributeValue::S("Juicy".into())));
}

#[test]
fn the_schema_and_definition_carry_the_attribute_types() {
    let open = Game::SCHEMA.index("OpenGamesIndex").unwrap();
    assert_eq!(open.pk.unwrap().ty, AttributeType::S);
    let score = Game::SCHEMA.index("ScoreIndex").unwrap();
    assert_eq!((score.pk.unwrap().ty, score.sk.unwrap().ty), (AttributeType::N, AttributeType::N));
    let def = TableDefinition::from_entities(&schemas()).unwrap();
    let types: Vec<(&str, &str)> = def.attribute_types.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    assert_eq!(
        types,
        [
            ("GSI3SK", "S"),
            ("PK", "S"),
            ("SK", "S"),
            ("arena_map", "S"),
            ("level", "N"),
            ("map", "S"),
            ("open_timestamp", "S"),
            ("score", "N")
        ]
    );
}

/// One attribute, two types, in two entities of one table: a typed error before any request.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "RANKED#<id>"]
#[sk = "#METADATA"]
#[gsi2(index = "ByScore", pk = "<score>", pk_attr = "score")]
pub struct Ranked {
    pub id: String,
    pub score: String,
}

#[test]
fn an_attribute_with_two_types_across_entities_is_a_typed_error() {
    let err = TableDefinition::from_entities(&[Game::SCHEMA, Ranked::SCHEMA]).unwrap_err();
    let Error::Validation(message) = &err else { panic!("{err:?}") };
    assert!(message.contains("attribute `score` is a number (N)") && message.contains("a string (S)"), "{message}");
}

#[test]
fn empty_index_keys_are_refused_before_sending() {
    let err = game("g1", "", None, 1, None).to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`map`") && m.contains("empty")), "{err:?}");
    // An empty sort value selects nothing (no key is empty), without a request.
    let q = Game::query_open_games_by_map("Green").open_timestamp().lte("");
    assert_eq!(q.sort_condition(), &SortCondition::Nothing);
    let q = Game::query_open_games_by_map("Green").open_timestamp().gt("");
    assert_eq!(q.sort_condition(), &SortCondition::Any);
}

#[test]
fn queries_compare_the_attribute_as_it_is_stored() {
    let r = Game::query_by_level(3u32).score().gt(-5i64).request().unwrap();
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #sk > :sk");
    assert_eq!(r.expression_attribute_values[":pk"], AttributeValue::N("3".into()));
    assert_eq!(r.expression_attribute_values[":sk"], AttributeValue::N("-5".into()));
    assert_eq!(r.expression_attribute_names["#sk"], "score");
    let r = Game::query_open_games_by_map("a#b").open_timestamp().between("2019", "2020").request().unwrap();
    assert_eq!(r.expression_attribute_values[":pk"], AttributeValue::S("a#b".into()), "not escaped");
    assert_eq!(r.key_condition_expression, "#pk = :pk AND #sk BETWEEN :lo AND :hi");
    // Numbers order by value: 10 > 9 (as text, "10" < "9").
    let q = Game::query_by_level(1u32).score().between(10i64, 9i64);
    assert_eq!(q.sort_condition(), &SortCondition::Nothing);
}

async fn ids(table: &dynamo_entity::Table, q: impl QueryOptions<Entity = Game>) -> Vec<String> {
    table.query_all(q).await.unwrap().into_iter().map(|g| g.game_id).collect()
}

#[tokio::test]
async fn a_sparse_index_on_plain_attributes_answers_queries_with_n_and_s_keys() {
    let table = common::table("plain-index", &schemas()).await;
    let games = [
        game("g1", "Green", Some("2019-04-10T10:00:00"), 1, Some(-10)),
        game("g2", "Green", Some("2019-04-10T11:00:00"), 1, Some(-1)),
        game("g3", "Green", Some("2019-04-10T12:00:00"), 1, Some(0)),
        game("g4", "Green", None, 1, Some(9)),
        game("g5", "Green", Some("2019-04-10T14:00:00"), 1, Some(10)),
        game("g6", "Juicy", Some("2019-04-10T11:00:00"), 2, Some(100)),
        game("g7", "Green", Some("2019-04-10T11:30:00"), 1, None),
    ];
    for g in &games {
        table.create(g).await.unwrap();
    }
    // Another entity's items in both indexes, inside the ranges queried (no ties: items with
    // equal index keys have no defined order).
    for (name, ts, score) in [("t1", "2019-04-10T11:10:00", -2), ("t2", "2019-04-10T13:00:00", 5)] {
        let t = Tournament {
            name: name.into(),
            map: "Green".into(),
            open_timestamp: Some(ts.into()),
            level: 1,
            score: Some(score),
        };
        table.put(&t).await.unwrap();
    }

    // An item of other code, without type attribute, in the same index partition: its primary
    // key is no `Game`'s, so the query steps over it.
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("PK", AttributeValue::S("LEGACY#1".into()))
        .item("SK", AttributeValue::S("X".into()))
        .item("map", AttributeValue::S("Green".into()))
        .item("open_timestamp", AttributeValue::S("2019-04-10T11:15:00".into()))
        .send()
        .await
        .unwrap();

    // S keys: the open games of a map, in time order; g4 (no open_timestamp) is not in the index.
    assert_eq!(ids(&table, Game::query_open_games_by_map("Green")).await, ["g1", "g2", "g7", "g3", "g5"]);
    let q = || Game::query_open_games_by_map("Green");
    assert_eq!(ids(&table, q().open_timestamp().lt("2019-04-10T11:00:00")).await, ["g1"]);
    assert_eq!(ids(&table, q().open_timestamp().lte("2019-04-10T11:00:00")).await, ["g1", "g2"]);
    assert_eq!(ids(&table, q().open_timestamp().gt("2019-04-10T11:30:00")).await, ["g3", "g5"]);
    assert_eq!(ids(&table, q().open_timestamp().gte("2019-04-10T11:30:00")).await, ["g7", "g3", "g5"]);
    assert_eq!(ids(&table, q().open_timestamp().eq("2019-04-10T11:00:00")).await, ["g2"]);
    assert_eq!(
        ids(&table, q().open_timestamp().between("2019-04-10T11:00:00", "2019-04-10T12:00:00")).await,
        ["g2", "g7", "g3"]
    );
    assert_eq!(ids(&table, q().open_timestamp().gt("2019-04-10T14:00:00")).await, Vec::<String>::new());
    assert_eq!(ids(&table, q().open_timestamp().begins_with("2019-04-10T11")).await, ["g2", "g7"]);
    assert_eq!(ids(&table, Game::query_open_games_by_map("Juicy")).await, ["g6"]);
    let tournaments = table.query_all(Tournament::query_open_by_map("Green")).await.unwrap();
    assert_eq!(tournaments.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
    // One query of an index partition for both entities: a collection on OpenGamesIndex (S) and
    // on ScoreIndex (N), in index order, the item of other code stepped over.
    let open = table.query_all(Contests::query(Game::partition_open_games_by_map("Green"))).await.unwrap();
    let names: Vec<&str> = open
        .iter()
        .map(|c| match c {
            Contests::Game(g) => g.game_id.as_str(),
            Contests::Tournament(t) => t.name.as_str(),
        })
        .collect();
    assert_eq!(names, ["g1", "g2", "t1", "g7", "g3", "t2", "g5"]);
    let ranked = table.query(Contests::query(Tournament::partition_by_level(1u32)).limit(3)).await.unwrap();
    let names: Vec<&str> = ranked
        .items
        .iter()
        .map(|c| match c {
            Contests::Game(g) => g.game_id.as_str(),
            Contests::Tournament(t) => t.name.as_str(),
        })
        .collect();
    assert_eq!(names, ["g1", "t1", "g2"]);
    let rest = table
        .query_all(Contests::query(Tournament::partition_by_level(1u32)).after(ranked.next.unwrap()))
        .await
        .unwrap();
    assert_eq!(rest.len(), 4, "{rest:?}");

    // A plain partition key with a key-text sort key (GSI3SK = NAME#<name>).
    let named = table.query_all(Tournament::query_by_map_and_name("Green").name().gt("t1")).await.unwrap();
    assert_eq!(named.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["t2"]);

    // N keys, compared as numbers on both sides of zero (g7 has no score: not in the index).
    let s = || Game::query_by_level(1u32);
    assert_eq!(ids(&table, s()).await, ["g1", "g2", "g3", "g4", "g5"]);
    assert_eq!(ids(&table, s().score().lt(0i64)).await, ["g1", "g2"]);
    assert_eq!(ids(&table, s().score().lte(0i64)).await, ["g1", "g2", "g3"]);
    assert_eq!(ids(&table, s().score().gt(-1i64)).await, ["g3", "g4", "g5"]);
    assert_eq!(ids(&table, s().score().gte(9i64)).await, ["g4", "g5"]);
    assert_eq!(ids(&table, s().score().between(-1i64, 9i64)).await, ["g2", "g3", "g4"]);
    assert_eq!(ids(&table, s().score().eq(10i64)).await, ["g5"]);
    assert_eq!(ids(&table, s().score().gt(-100i64).descending()).await, ["g5", "g4", "g3", "g2", "g1"]);

    // Pages of one item, through cursors holding a number key.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut q = s().score().gte(-1i64).limit(1);
        if let Some(c) = next.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        seen.extend(page.items.into_iter().map(|g| g.game_id));
        match page.next {
            Some(c) => next = Some(c.to_string().parse().unwrap()),
            None => break,
        }
    }
    assert_eq!(seen, ["g2", "g3", "g4", "g5"]);
    // A cursor outside the sort condition is refused, numbers compared as numbers.
    let page = table.query(s().score().gte(9i64).limit(1)).await.unwrap();
    let cursor = page.next.unwrap();
    let err = table.query(s().score().lt(9i64).after(cursor)).await.unwrap_err();
    assert!(matches!(err, Error::InvalidCursor), "{err:?}");

    // A `#[derive(KeyPart)]` enum as an S index key; `None` leaves the item out.
    table.put(&Arena { arena_id: "a1".into(), map: Some(Map::Juicy) }).await.unwrap();
    table.put(&Arena { arena_id: "a2".into(), map: None }).await.unwrap();
    let arenas = table.query_all(Arena::query_arenas_on(Map::Juicy)).await.unwrap();
    assert_eq!(arenas, [Arena { arena_id: "a1".into(), map: Some(Map::Juicy) }]);
}

#[tokio::test]
async fn updates_move_an_item_out_of_and_into_the_index() {
    let table = common::table("plain-index-update", &schemas()).await;
    let g = game("g1", "Green", Some("2019-04-10T10:00:00"), 1, Some(5));
    table.create(&g).await.unwrap();
    assert_eq!(ids(&table, Game::query_open_games_by_map("Green")).await, ["g1"]);

    let started = table.update(Game::update(Game::key("g1")).remove(Game::fields().open_timestamp)).await.unwrap();
    assert_eq!(started.open_timestamp, None);
    assert_eq!(ids(&table, Game::query_open_games_by_map("Green")).await, Vec::<String>::new());

    table
        .update(Game::update(Game::key("g1")).set(Game::fields().open_timestamp, "2019-04-11T00:00:00"))
        .await
        .unwrap();
    assert_eq!(ids(&table, Game::query_open_games_by_map("Green")).await, ["g1"]);
    // Changing the partition attribute moves the item to another partition of the index.
    table.update(Game::update(Game::key("g1")).set(Game::fields().map, "Juicy")).await.unwrap();
    assert_eq!(ids(&table, Game::query_open_games_by_map("Green")).await, Vec::<String>::new());
    assert_eq!(ids(&table, Game::query_open_games_by_map("Juicy")).await, ["g1"]);
    // A number key follows an atomic addition.
    table.update(Game::update(Game::key("g1")).add(Game::fields().level, 1)).await.unwrap();
    assert_eq!(ids(&table, Game::query_by_level(1u32)).await, Vec::<String>::new());
    assert_eq!(ids(&table, Game::query_by_level(2u32).score().eq(5i64)).await, ["g1"]);
}

#[tokio::test]
async fn the_inverted_index_finds_a_users_games() {
    let table = common::table("inverted-index", &schemas()).await;
    for (game_id, username) in [("g1", "ana"), ("g1", "bo"), ("g2", "ana"), ("g3", "ana"), ("g3", "cy")] {
        table.create(&UserGameMapping { game_id: game_id.into(), username: username.into() }).await.unwrap();
    }
    // A game item in one of the partitions: its SK (`#METADATA#g1`) is not `USER#..`.
    table.create(&game("g1", "Green", None, 1, None)).await.unwrap();
    let games = table.query_all(UserGameMapping::query_games_of_user("ana")).await.unwrap();
    assert_eq!(games.iter().map(|m| m.game_id.as_str()).collect::<Vec<_>>(), ["g1", "g2", "g3"]);
    let later = table.query_all(UserGameMapping::query_games_of_user("ana").game_id().gt("g1")).await.unwrap();
    assert_eq!(later.iter().map(|m| m.game_id.as_str()).collect::<Vec<_>>(), ["g2", "g3"]);
    // Page by page through cursors, on the inverted index.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut q = UserGameMapping::query_games_of_user("ana").limit(1);
        if let Some(c) = next.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        seen.extend(page.items.into_iter().map(|m| m.game_id));
        match page.next {
            Some(c) => next = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, ["g1", "g2", "g3"]);
    let r = UserGameMapping::query_games_of_user("ana").into_query().request().unwrap();
    assert_eq!(r.index_name, Some("InvertedIndex"));
    assert_eq!(r.expression_attribute_names["#pk"], "SK");
    assert_eq!(r.expression_attribute_names["#sk"], "PK");
}

#[tokio::test]
async fn create_table_declares_the_attribute_types() {
    let table = common::table("plain-index-types", &schemas()).await;
    let out = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let t = out.table.unwrap();
    let mut defs: Vec<(String, String)> = t
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name().to_owned(), d.attribute_type().as_str().to_owned()))
        .collect();
    defs.sort();
    let want = [
        ("GSI3SK", "S"),
        ("PK", "S"),
        ("SK", "S"),
        ("arena_map", "S"),
        ("level", "N"),
        ("map", "S"),
        ("open_timestamp", "S"),
        ("score", "N"),
    ];
    assert_eq!(defs, want.map(|(a, b)| (a.to_owned(), b.to_owned())));
    let inverted = t.global_secondary_indexes().iter().find(|i| i.index_name() == Some("InvertedIndex")).unwrap();
    let keys: Vec<_> = inverted.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().as_str())).collect();
    assert_eq!(keys, [("SK", "HASH"), ("PK", "RANGE")]);
    // The same entities find nothing to complain about in the table they created.
    assert!(!table.create_table_if_not_exists(&schemas()).await.unwrap());
}

#[test]
fn an_update_setting_an_empty_index_key_is_refused_before_sending() {
    let err = Game::update(Game::key("g1")).set(Game::fields().open_timestamp, "").request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`open_timestamp`") && m.contains("empty")), "{err:?}");
    let err = Game::update(Game::key("g1")).set(Game::fields().map, "").request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`map`")), "{err:?}");
    // Removing it is fine: the game leaves the index.
    assert!(Game::update(Game::key("g1")).remove(Game::fields().open_timestamp).request().is_ok());
}

/// A `#[derive(KeyPart)]` newtype is declared S (its key text), but serde writes this one as a
/// number: the write is refused before sending, never a ValidationException from DynamoDB.
#[derive(KeyPart, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
pub struct Rank(u32);

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "RANKED#<id>"]
#[sk = "#METADATA"]
#[gsi1(index = "ByRank", pk = "<rank>", pk_attr = "rank")]
pub struct RankedPlayer {
    pub id: String,
    pub rank: Rank,
}

#[test]
fn a_field_stored_as_another_type_than_declared_is_refused() {
    assert_eq!(RankedPlayer::SCHEMA.index("ByRank").unwrap().pk.unwrap().ty, AttributeType::S);
    let err = RankedPlayer { id: "p1".into(), rank: Rank(3) }.to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`rank`") && m.contains("a string (S)")), "{err:?}");
}

/// A local index on a number field's own attribute: the table's partition, sorted by `total`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[lsi1(index = "ByTotal", sk = "<total>", sk_attr = "total", query = "by_total")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub total: i64,
}

#[tokio::test]
async fn a_local_index_on_a_number_attribute() {
    let table = common::table("plain-lsi", &[Order::SCHEMA]).await;
    for (id, total) in [("o1", 250), ("o2", -5), ("o3", 1000), ("o4", 30)] {
        table.create(&Order { user_id: "u1".into(), order_id: id.into(), total }).await.unwrap();
    }
    let ids = |orders: Vec<Order>| orders.into_iter().map(|o| o.order_id).collect::<Vec<_>>();
    let all = table.query_all(Order::query_by_total("u1")).await.unwrap();
    assert_eq!(ids(all), ["o2", "o4", "o1", "o3"]);
    let big = table.query_all(Order::query_by_total("u1").total().gte(30i64).consistent_read()).await.unwrap();
    assert_eq!(ids(big), ["o4", "o1", "o3"]);
    let out = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let defs = out.table.unwrap().attribute_definitions().to_vec();
    let total = defs.iter().find(|d| d.attribute_name() == "total").unwrap();
    assert_eq!(total.attribute_type().as_str(), "N");
}

#[tokio::test]
async fn an_existing_table_with_another_attribute_type_is_a_mismatch() {
    // `score` keys ByScore as a string here; the Game's ScoreIndex needs a number.
    let table = common::table("plain-index-mismatch", &[Ranked::SCHEMA]).await;
    let err = table.create_table_if_not_exists(&[Game::SCHEMA]).await.unwrap_err();
    let Error::TableMismatch { differences, .. } = &err else { panic!("{err:?}") };
    assert!(differences.contains("key attribute `score` is of type S, not N"), "{differences}");
}

/// A scan of an index keyed on number attributes, paged one item at a time: its cursors hold the
/// N keys as numbers (a cursor that wrote them as strings could not resume: DynamoDB refuses an
/// `ExclusiveStartKey` of the wrong type).
#[tokio::test]
async fn a_scan_of_a_number_keyed_index_resumes_from_cursors() {
    let table = common::table("plain-index-scan", &schemas()).await;
    let mut expected = Vec::new();
    for i in 0..9_i64 {
        let id = format!("g{i}");
        // Every third game has no score: it is not in ScoreIndex.
        let score = (i % 3 != 0).then_some(i * 7 - 20);
        if score.is_some() {
            expected.push(id.clone());
        }
        table.create(&game(&id, "Green", None, u32::try_from(i % 2).unwrap(), score)).await.unwrap();
    }
    let t = Tournament { name: "t1".into(), map: "Green".into(), open_timestamp: None, level: 1, score: Some(3) };
    table.put(&t).await.unwrap();

    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let mut scan = table.scan::<Game>().index("ScoreIndex").segments(2).limit(1);
        if let Some(c) = cursor.take() {
            scan = scan.after(c);
        }
        let page = scan.page().await.unwrap();
        pages += 1;
        assert!(page.items.len() <= 1, "limit(1) gave {} items", page.items.len());
        seen.extend(page.items.into_iter().map(|g| g.game_id));
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(pages < 50, "the scan does not end");
    }
    seen.sort();
    expected.sort();
    assert_eq!(seen, expected, "every scored game exactly once, no tournament");
}

/// A match keyed in `ByStart` on its room and its own `started_at` time: the attribute is the ISO
/// 8601 string every time field is stored as, so the index is typed S and ordered by time.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MATCH#<match_id>"]
#[sk = "#METADATA"]
#[gsi1(
    index = "ByStart",
    pk = "<room>",
    sk = "<started_at>",
    pk_attr = "room",
    sk_attr = "started_at",
    query = "by_room"
)]
pub struct Match {
    pub match_id: String,
    pub room: String,
    pub started_at: Option<std::time::SystemTime>,
}

#[tokio::test]
async fn an_index_on_a_time_attribute_is_typed_s_and_ordered_by_time() {
    use std::time::{Duration, SystemTime};
    let index = Match::SCHEMA.index("ByStart").unwrap();
    assert_eq!(index.sk.unwrap().ty, AttributeType::S);
    let table = common::table("plain-index-time", &[Match::SCHEMA]).await;
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_000);
    let at = |ms: u64| Some(t0 + Duration::from_millis(ms));
    // 9 ms and 10 ms apart on purpose: "…00.009Z" < "…00.010Z" only if the text is zero-padded.
    let matches = [("m1", at(0)), ("m2", at(9)), ("m3", at(10)), ("m4", None), ("m5", at(86_400_000))];
    for (id, started_at) in matches {
        table.create(&Match { match_id: id.into(), room: "r1".into(), started_at }).await.unwrap();
    }
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S("MATCH#m2".into()))
        .key("SK", AttributeValue::S("#METADATA".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(
        raw.item().and_then(|i| i.get("started_at")),
        Some(&AttributeValue::S("2023-11-14T22:13:20.009Z".into()))
    );
    let ids = |ms: Vec<Match>| ms.into_iter().map(|m| m.match_id).collect::<Vec<_>>();
    let all = table.query_all(Match::query_by_room("r1")).await.unwrap();
    assert_eq!(ids(all), ["m1", "m2", "m3", "m5"], "time order; m4 has no start and is not in the index");
    let after =
        table.query_all(Match::query_by_room("r1").started_at().gt(t0 + Duration::from_millis(9))).await.unwrap();
    assert_eq!(ids(after), ["m3", "m5"]);
    let upto =
        table.query_all(Match::query_by_room("r1").started_at().lte(t0 + Duration::from_millis(10))).await.unwrap();
    assert_eq!(ids(upto), ["m1", "m2", "m3"]);
}

/// A blob keyed in `ByDigest` on its own binary attribute: `serde_bytes::ByteBuf` is stored as B,
/// and the index compares bytes (0x00 < 0x7f < 0x80 < 0xff, as unsigned bytes).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "BLOB#<blob_id>"]
#[sk = "#METADATA"]
#[gsi1(
    index = "ByDigest",
    pk = "<bucket>",
    sk = "<digest>",
    pk_attr = "bucket",
    sk_attr = "digest",
    query = "by_bucket"
)]
pub struct Blob {
    pub blob_id: String,
    pub bucket: String,
    pub digest: Option<serde_bytes::ByteBuf>,
}

#[tokio::test]
async fn an_index_on_a_binary_attribute_compares_bytes() {
    use serde_bytes::ByteBuf;
    assert_eq!(Blob::SCHEMA.index("ByDigest").unwrap().sk.unwrap().ty, AttributeType::B);
    let table = common::table("plain-index-binary", &[Blob::SCHEMA]).await;
    let blobs = [
        ("b1", Some(vec![0x80])),
        ("b2", Some(vec![0x00, 0x01])),
        ("b3", Some(vec![0xff])),
        ("b4", None),
        ("b5", Some(vec![0x7f])),
    ];
    for (id, digest) in &blobs {
        let blob = Blob { blob_id: (*id).into(), bucket: "k".into(), digest: digest.clone().map(ByteBuf::from) };
        assert_eq!(blob.to_item().unwrap().get("digest").is_some_and(AttributeValue::is_b), digest.is_some());
        table.create(&blob).await.unwrap();
    }
    let ids = |bs: Vec<Blob>| bs.into_iter().map(|b| b.blob_id).collect::<Vec<_>>();
    let all = table.query_all(Blob::query_by_bucket("k")).await.unwrap();
    assert_eq!(ids(all), ["b2", "b5", "b1", "b3"], "byte order; b4 has no digest and is not in the index");
    let above = table.query_all(Blob::query_by_bucket("k").digest().gt(ByteBuf::from(vec![0x7f]))).await.unwrap();
    assert_eq!(ids(above), ["b1", "b3"]);
    // Paged one at a time: the cursor carries the binary key.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut q = Blob::query_by_bucket("k").descending().limit(1);
        if let Some(c) = next.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        seen.extend(page.items.into_iter().map(|b| b.blob_id));
        match page.next {
            Some(c) => next = Some(c),
            None => break,
        }
        assert!(seen.len() < 10, "the query does not end");
    }
    assert_eq!(seen, ["b3", "b1", "b5", "b2"]);
}
