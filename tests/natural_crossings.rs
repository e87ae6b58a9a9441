//! Where natural keys (tables keyed on plain attributes) cross the other features (issue 69):
//! Lambda filter patterns of entities without a type attribute, cursors checked against every
//! attribute of their key, decode errors that name the item's key, number keys equal as values
//! (`0` and `-0`), and `under` on a sort key that holds values as they are. Against the embedded
//! engine; what it cannot say (which records Lambda delivers) is evaluated here on the patterns'
//! JSON, as Lambda's filter rules read it.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::stream::{EventName, filter_patterns};
use dynamo_entity::{AttributeValue, Collection, Cursor, Entity, Error, Item, KeyPart, Table, View};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// 1. Lambda filter patterns.

/// An entity with a type attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[entity(type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub total: u64,
}

/// Another typed entity of the same table, not asked for.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<order_id>"]
#[sk = "ITEM#<sku>"]
#[entity(type_attr = "entityType")]
pub struct OrderLine {
    pub order_id: String,
    pub sku: String,
}

/// An entity without a type attribute whose keys start with literal text.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LEGACY#<id>"]
#[sk = "V1"]
#[entity(type_attr = false)]
pub struct Legacy {
    pub id: String,
    pub note: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Asked {
    Order(Order),
    Legacy(Legacy),
}

/// An entity of a table keyed on a plain attribute, without a type attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<match_id>"]
#[entity(pk_attr = "matchId", rename_all = "camelCase", type_attr = false, owns_partition = true)]
pub struct Match {
    pub match_id: String,
    pub round: String,
}

/// An attribute value as DynamoDB JSON (the stream record's form).
fn ddb_json(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(ddb_json).collect::<Vec<_>>() }),
        AttributeValue::M(m) => {
            json!({ "M": m.iter().map(|(k, v)| (k.clone(), ddb_json(v))).collect::<serde_json::Map<_, _>>() })
        }
        AttributeValue::Ss(s) => json!({ "SS": s }),
        other => panic!("not in these tests: {other:?}"),
    }
}

fn image(item: &Item) -> Value {
    Value::Object(item.iter().map(|(k, v)| (k.clone(), ddb_json(v))).collect())
}

/// A Lambda stream record of `event` on `item`, whose table keys are `keys`.
fn record(event: &str, item: &Item, keys: &[&str]) -> Value {
    let key_item: Item = keys.iter().map(|k| ((*k).to_owned(), item[*k].clone())).collect();
    let mut dynamodb = json!({
        "ApproximateCreationDateTime": 1_709_234_567.0,
        "Keys": image(&key_item),
        "SequenceNumber": "100",
        "SizeBytes": 59,
        "StreamViewType": "NEW_AND_OLD_IMAGES"
    });
    if event != "INSERT" {
        dynamodb["OldImage"] = image(item);
    }
    if event != "REMOVE" {
        dynamodb["NewImage"] = image(item);
    }
    json!({
        "eventID": "1", "eventName": event, "eventVersion": "1.1", "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1", "dynamodb": dynamodb,
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2026-03-01T00:00:00.000"
    })
}

/// Whether `record` satisfies `pattern`, by Lambda's filter rules: every field of the pattern
/// is in the record; an array lists the values allowed (a string as it is, `{"prefix": p}`);
/// an object goes one level down. Any other rule is not one these patterns may use.
fn satisfies(pattern: &Value, record: &Value) -> bool {
    pattern.as_object().expect("a pattern is an object").iter().all(|(field, rule)| {
        let Some(got) = record.get(field) else { return false };
        match rule {
            Value::Array(allowed) => allowed.iter().any(|a| match a {
                Value::String(_) => got == a,
                Value::Object(op) if op.len() == 1 && op.contains_key("prefix") => {
                    got.as_str().is_some_and(|s| s.starts_with(op["prefix"].as_str().unwrap()))
                }
                other => panic!("a rule these patterns do not use: {other}"),
            }),
            Value::Object(_) => satisfies(rule, got),
            other => panic!("not a pattern: {other}"),
        }
    })
}

/// Whether Lambda delivers `record` through a mapping with `patterns` (ORed).
fn delivered(patterns: &[String], record: &Value) -> bool {
    patterns.iter().any(|p| satisfies(&serde_json::from_str(p).expect("pattern JSON"), record))
}

/// What a function decoding `T` gets of `record`: whether it is one of `T`'s.
fn decoded<T: dynamo_entity::Readable + std::fmt::Debug>(record: &Value) -> bool {
    let event = serde_json::from_value(json!({ "Records": [record] })).unwrap();
    let changes: Vec<_> = dynamo_entity::stream::lambda::changes::<T>(event).collect();
    changes.iter().for_each(|c| assert!(c.is_ok(), "{c:?}"));
    !changes.is_empty()
}

const EVENTS: [&str; 3] = ["INSERT", "MODIFY", "REMOVE"];

/// Issue 69, item 6: the patterns of a typed entity and an entity without a type attribute let
/// through every record of both; the typed entity's pattern alone would drop the other's.
#[test]
fn filter_patterns_deliver_every_record_of_every_entity_asked_for() {
    let order = Order { id: "o1".into(), total: 5 }.to_item().unwrap();
    let line = OrderLine { order_id: "o1".into(), sku: "s".into() }.to_item().unwrap();
    let legacy = Legacy { id: "l1".into(), note: "old".into() }.to_item().unwrap();
    assert!(!legacy.contains_key("entityType") && !legacy.contains_key("entity_type"), "{legacy:?}");
    let mut foreign = Item::new();
    foreign.insert("PK".into(), AttributeValue::S("OTHER#1".into()));
    foreign.insert("SK".into(), AttributeValue::S("V1".into()));
    let table_keys = ["PK", "SK"];

    // Typed and untyped with literal keys: exactly the records a function of both decodes.
    let patterns = filter_patterns(&[&Order::SCHEMA, &Legacy::SCHEMA], &[]);
    for event in EVENTS {
        for (what, item) in [("order", &order), ("legacy", &legacy), ("line", &line), ("foreign", &foreign)] {
            let r = record(event, item, &table_keys);
            assert_eq!(delivered(&patterns, &r), decoded::<Asked>(&r), "{what} {event}: {patterns:?}");
        }
        assert!(delivered(&patterns, &record(event, &legacy, &table_keys)), "{patterns:?}");
    }
    // The events asked for only.
    let inserts = filter_patterns(&[&Legacy::SCHEMA], &[EventName::Insert]);
    assert!(delivered(&inserts, &record("INSERT", &legacy, &table_keys)), "{inserts:?}");
    assert!(!delivered(&inserts, &record("REMOVE", &legacy, &table_keys)), "{inserts:?}");
    // The typed pattern is as the e-commerce seed writes it, the untyped one on the keys.
    assert_eq!(
        serde_json::from_str::<Value>(&inserts[0]).unwrap(),
        json!({"eventName": ["INSERT"], "dynamodb": {"Keys": {"PK": {"S": [{"prefix": "LEGACY#"}]}, "SK": {"S": ["V1"]}}}})
    );

    // A natural key offers nothing to match on: every record goes through, the entity's too.
    let m = Match { match_id: "match-001".into(), round: "FINAL".into() }.to_item().unwrap();
    let patterns = filter_patterns(&[&Order::SCHEMA, &Match::SCHEMA], &[]);
    for event in EVENTS {
        assert!(delivered(&patterns, &record(event, &m, &["matchId"])), "{event}: {patterns:?}");
        assert!(decoded::<Match>(&record(event, &m, &["matchId"])));
        assert!(delivered(&patterns, &record(event, &order, &table_keys)), "{event}: {patterns:?}");
    }
    assert_eq!(patterns, [r#"{"eventName":["INSERT","MODIFY","REMOVE"]}"#]);
    let modify = filter_patterns(&[&Match::SCHEMA], &[EventName::Modify]);
    assert!(!delivered(&modify, &record("INSERT", &m, &["matchId"])), "{modify:?}");
}

// ---------------------------------------------------------------------------------------------
// 2. Cursors: every attribute of the key checked before anything is sent.

/// A leaderboard on a multi-attribute index: two partition attributes, three sort attributes
/// (the last a number).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<player_id>"]
#[sk = "MATCH#<match_id>"]
#[gsi1(index = "Leaderboard", pk = ["tournament_id", "region"], sk = ["round", "bracket", "score"], query = "leaderboard")]
pub struct Score {
    pub player_id: String,
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub bracket: String,
    pub score: u64,
}

fn score(player: &str, region: &str, round: &str, bracket: &str, score: u64) -> Score {
    Score {
        player_id: player.into(),
        match_id: "m1".into(),
        tournament_id: "W26".into(),
        region: region.into(),
        round: round.into(),
        bracket: bracket.into(),
        score,
    }
}

/// A table keyed on a number (`customerId`, N) and a string (`orderDate`), with an index whose
/// sort key ends with the table's number key.
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
pub struct Purchase {
    pub customer_id: u64,
    pub order_date: String,
    pub status: String,
    pub total: i64,
    pub items: u32,
}

fn purchase(customer: u64, date: &str, status: &str, total: i64) -> Purchase {
    Purchase { customer_id: customer, order_date: date.into(), status: status.into(), total, items: 1 }
}

fn unbase64url(text: &str) -> Vec<u8> {
    let digit = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => panic!("not base64url"),
    };
    let mut out = Vec::new();
    for chunk in text.as_bytes().chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, c)| n | u32::from(digit(*c)) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// `cursor` (a plain one: no secret) with key attribute `attr` holding `value`, its checksum
/// written again: what anyone holding a cursor can make (see `Cursor`'s documentation).
fn forge(cursor: &Cursor, attr: &str, value: &str) -> Cursor {
    let bytes = unbase64url(&cursor.to_string());
    assert_eq!(bytes[0], 2, "a plain cursor");
    let body = &bytes[..bytes.len() - 8];
    let mut name = u32::try_from(attr.len()).unwrap().to_be_bytes().to_vec();
    name.extend_from_slice(attr.as_bytes());
    // The key attributes come last: the last place the name is.
    let at = body.windows(name.len()).rposition(|w| w == name).expect("the attribute in the cursor") + name.len();
    let old = u32::from_be_bytes(body[at..at + 4].try_into().unwrap()) as usize;
    let mut out = body[..at].to_vec();
    out.extend_from_slice(&u32::try_from(value.len()).unwrap().to_be_bytes());
    out.extend_from_slice(value.as_bytes());
    out.extend_from_slice(&body[at + 4 + old..]);
    let sum = dynamo_entity::fnv1a64(&out);
    out.extend_from_slice(&sum.to_be_bytes());
    base64url(&out).parse().expect("a well-formed cursor")
}

/// Issue 69, item 7: a cursor whose key names another value of a partition attribute, of a sort
/// attribute fixed by `eq`, or a value DynamoDB would refuse for the attribute (a number that is
/// not one, an empty key, a key over its size limit), is `InvalidCursor`, and nothing is sent.
#[tokio::test]
async fn a_forged_cursor_is_refused_whatever_attribute_of_its_key_it_changes() {
    let table = common::table("crossings-cursor-multi", &[Score::SCHEMA]).await;
    for s in [
        score("a", "EU", "SEMI", "UPPER", 10),
        score("b", "EU", "SEMI", "UPPER", 20),
        score("c", "EU", "SEMI", "UPPER", 30),
        score("d", "US", "SEMI", "UPPER", 15),
        score("e", "EU", "FINAL", "UPPER", 15),
        score("f", "EU", "SEMI", "LOWER", 15),
    ] {
        table.put(&s).await.unwrap();
    }
    let q = || Score::query_leaderboard("W26", "EU").round().eq("SEMI").bracket().eq("UPPER").limit(1);
    let cursor = table.query(q()).await.unwrap().next.expect("a cursor");
    // The forging is faithful: the same value again is the same cursor, and resumes.
    assert_eq!(forge(&cursor, "region", "EU"), cursor);
    let next = table.query(q().after(forge(&cursor, "score", "10"))).await.unwrap();
    assert_eq!(next.items[0].player_id, "b");
    let long = "s".repeat(1025);
    let cases = [
        ("region", "US"),         // the second partition attribute
        ("tournament_id", "S26"), // the first
        ("round", "FINAL"),       // a sort attribute fixed by `eq`
        ("bracket", "LOWER"),     // the one the condition is on
        ("score", "soon"),        // a number attribute holding no number
        ("score", "1e400"),       // a number DynamoDB cannot store
        ("score", ""),
        ("PK", ""), // the table's keys, which a query of the index does not fix
        ("SK", long.as_str()),
    ];
    for (attr, value) in cases {
        let sent = table.requests_sent();
        let got = table.query(q().after(forge(&cursor, attr, value))).await;
        assert!(matches!(got, Err(Error::InvalidCursor)), "{attr} = {value:?}: {:?}", got.map(|p| p.items));
        assert_eq!(table.requests_sent(), sent, "{attr} = {value:?}: sent");
    }
}

/// Issue 69, item 7, on a table keyed on a number: the cursors of a query of its index, of its
/// own partition and of a scan refuse a number key that holds no number, before sending.
#[tokio::test]
async fn a_forged_number_key_in_a_cursor_is_refused_before_sending() {
    let table = common::table("crossings-cursor-natural", &[Purchase::SCHEMA]).await;
    for p in [
        purchase(7, "2026-01-02", "PAID", 250),
        purchase(7, "2026-01-09", "PAID", 300),
        purchase(8, "2026-01-05", "PAID", 30),
    ] {
        table.put(&p).await.unwrap();
    }
    let by_status = || Purchase::query_by_status("PAID").limit(1);
    let cursor = table.query(by_status()).await.unwrap().next.expect("a cursor");
    assert_eq!(forge(&cursor, "customerId", "8"), cursor);
    let by_customer = || Purchase::query_by_customer(7u64).limit(1);
    let own = table.query(by_customer()).await.unwrap().next.expect("a cursor");
    let scanned = table.scan::<Purchase>().limit(1).page().await.unwrap().next.expect("a cursor");
    let sent = table.requests_sent();
    let bad = [
        ("index, table key", table.query(by_status().after(forge(&cursor, "customerId", "soon"))).await.map(|_| ())),
        ("index, sort key", table.query(by_status().after(forge(&cursor, "total", "soon"))).await.map(|_| ())),
        ("index, date", table.query(by_status().after(forge(&cursor, "orderDate", ""))).await.map(|_| ())),
        ("table", table.query(by_customer().after(forge(&own, "customerId", "soon"))).await.map(|_| ())),
        ("table, sort key", table.query(by_customer().after(forge(&own, "orderDate", ""))).await.map(|_| ())),
    ];
    for (what, got) in bad {
        assert!(matches!(got, Err(Error::InvalidCursor)), "{what}: {got:?}");
    }
    let got = table.scan::<Purchase>().limit(1).after(forge(&scanned, "customerId", "soon")).page().await;
    assert!(matches!(got, Err(Error::InvalidCursor)), "scan: {:?}", got.map(|p| p.items));
    let got = table.scan::<Purchase>().limit(1).after(forge(&scanned, "customerId", "-0")).page().await;
    assert!(got.is_ok(), "a number as DynamoDB takes it: {got:?}");
    assert_eq!(table.requests_sent(), sent + 1, "only the last scan was sent");
}

// ---------------------------------------------------------------------------------------------
// 3. Decode errors name the item's key.

/// A tier, stored as its name.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Tier {
    Gold,
    Silver,
}

/// Keyed on a small number and an enum, each the field's own attribute: reading either can fail
/// (an item with the type attribute is the entity's whatever its key holds).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<account>"]
#[sk = "<tier>"]
#[entity(pk_attr = "account", sk_attr = "tier")]
pub struct Membership {
    pub account: u8,
    pub tier: Tier,
    pub points: u32,
}

/// Keyed on a plain attribute and a template.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<customer_id>"]
#[sk = "NOTE#<day>"]
#[entity(pk_attr = "customerId", sk_attr = "SK", rename_all = "camelCase", type_attr = false, owns_partition = true)]
pub struct Note {
    pub customer_id: u64,
    pub day: String,
    pub text: String,
}

/// A view of a purchase.
#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Purchase")]
pub struct PurchaseTotal {
    pub customer_id: u64,
    pub order_date: String,
    pub items: u32,
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn put_raw(table: &Table, item: &[(&str, AttributeValue)]) {
    let item: Item = item.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// The item's key as an error names it.
type Key = Option<(String, Option<String>)>;

/// The key an `Error::Decode` names, and its attribute.
#[track_caller]
fn decode_key(e: &Error) -> (String, Key) {
    match e {
        Error::Decode { attribute, key, .. } => (attribute.clone(), key.clone()),
        other => panic!("not a decode error: {other:?}"),
    }
}

fn key(pk: &str, sk: &str) -> Key {
    Some((pk.to_owned(), Some(sk.to_owned())))
}

/// The errors of a query's bad items.
#[track_caller]
fn bad_items<T>(got: Result<T, Error>) -> Vec<(String, Key)> {
    match got {
        Err(Error::BadItems { errors, .. }) => errors.iter().map(decode_key).collect(),
        Err(other) => panic!("not BadItems: {other:?}"),
        Ok(_) => panic!("no error"),
    }
}

/// Issue 69, item 8: on tables keyed on plain attributes, `Error::Decode` names the item's key
/// (`get`, queries of the table and of an index, scans, views), whether the attribute that
/// fails is another field, a key field itself, or the key that a template writes.
#[tokio::test]
async fn decode_errors_of_natural_key_tables_name_the_item_s_key() {
    // Another field fails: the key fields read well are named.
    let table = common::table("crossings-decode", &[Purchase::SCHEMA]).await;
    table.put(&purchase(7, "2026-01-02", "PAID", 250)).await.unwrap();
    put_raw(
        &table,
        &[
            ("customerId", n("7")),
            ("orderDate", s("2026-01-09")),
            ("status", s("PAID")),
            ("total", n("9")),
            ("items", s("lots")),
        ],
    )
    .await;
    let expected = ("items".to_owned(), key("7", "2026-01-09"));
    let got = table.get(Purchase::key(7u64, "2026-01-09")).await.unwrap_err();
    assert_eq!(decode_key(&got), expected, "{got}");
    assert!(got.to_string().contains("`7` / `2026-01-09`"), "{got}");
    let one = || vec![expected.clone()];
    assert_eq!(bad_items(table.query(Purchase::query_by_customer(7u64)).await), one());
    assert_eq!(bad_items(table.query_all(Purchase::query_by_status("PAID")).await), one());
    assert_eq!(bad_items(table.scan::<Purchase>().all().await), one());
    let got = table.get_view::<PurchaseTotal>(Purchase::key(7u64, "2026-01-09")).await.unwrap_err();
    assert_eq!(decode_key(&got), expected, "{got}");
    let q = Purchase::query_by_customer(7u64).view::<PurchaseTotal>();
    assert_eq!(bad_items(table.query_all(q).await), [expected]);

    // A key field itself fails (a number too large for the field, a name of no variant): the
    // item is named by its key as stored.
    let table = common::table("crossings-decode-keys", &[Membership::SCHEMA]).await;
    table.put(&Membership { account: 5, tier: Tier::Gold, points: 1 }).await.unwrap();
    let typed = ("entity_type", s("Membership"));
    put_raw(&table, &[("account", n("5")), ("tier", s("Bronze")), ("points", n("2")), typed.clone()]).await;
    put_raw(&table, &[("account", n("300")), ("tier", s("Gold")), ("points", n("3")), typed]).await;
    assert_eq!(
        bad_items(table.query(Membership::query_by_account(5u8)).await),
        [("tier".to_owned(), key("5", "Bronze"))]
    );
    let mut scanned = bad_items(table.scan::<Membership>().all().await);
    scanned.sort();
    assert_eq!(scanned, [("account".to_owned(), key("300", "Gold")), ("tier".to_owned(), key("5", "Bronze"))]);

    // One key on a plain attribute, the other a template whose text contradicts the fields.
    let table = common::table("crossings-decode-mixed", &[Note::SCHEMA]).await;
    put_raw(
        &table,
        &[("customerId", n("7")), ("SK", s("NOTE#2026-01-02")), ("day", s("2026-01-03")), ("text", s("x"))],
    )
    .await;
    let got = table.get(Note::key(7u64, "2026-01-02")).await.unwrap_err();
    assert_eq!(decode_key(&got), ("SK".to_owned(), key("7", "NOTE#2026-01-02")), "{got}");
}

// ---------------------------------------------------------------------------------------------
// 4. Number keys are values: `0` and `-0` are one key.

/// Marks on a scale, by level: an index keyed on a float, the field's own attribute (N).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MARK#<id>"]
#[gsi1(index = "ByLevel", pk = ["level"], sk = ["id"], query = "by_level")]
pub struct Mark {
    pub id: String,
    pub level: f64,
}

/// Suspected in issue 69: `0.0` and `-0.0` as keys in one batch. Settled: a float cannot key the
/// table (it is not `KeyPart`: a compile error, `tests/ui/natural/float-table-key.rs`), and a
/// batch checks only the table's keys, so no batch names one key twice through them. As an index
/// key they are one value: `-0.0`'s partition is `0`'s, and its cursors resume it (they were
/// refused: the query wrote `-0`, the items read back hold `0`).
#[tokio::test]
async fn zero_and_negative_zero_are_one_number_key() {
    // A table key needs `KeyPart` (the compile error says so); a float is not one.
    struct Probe<T>(std::marker::PhantomData<T>);
    trait NotKeyPart {
        const KEY_PART: bool = false;
    }
    impl<T> NotKeyPart for Probe<T> {}
    #[allow(dead_code)]
    impl<T: KeyPart> Probe<T> {
        const KEY_PART: bool = true;
    }
    const { assert!(Probe::<u64>::KEY_PART && Probe::<i8>::KEY_PART) };
    const { assert!(!Probe::<f64>::KEY_PART && !Probe::<f32>::KEY_PART) };

    let table = common::table("crossings-zero", &[Mark::SCHEMA]).await;
    let mark = |id: &str, level: f64| Mark { id: id.into(), level };
    table.batch_put(&[mark("a", 0.0), mark("b", -0.0), mark("c", 0.0)]).await.unwrap();
    // DynamoDB holds zero as `0`, whatever sign the float had.
    let raw = common::raw_items(&table).await;
    assert!(raw.iter().all(|i| i["level"] == AttributeValue::N("0".into())), "{raw:?}");
    for zero in [0.0, -0.0] {
        let all = table.query_all(Mark::query_by_level(zero)).await.unwrap();
        assert_eq!(all.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["a", "b", "c"], "{zero}");
        let mut q = Mark::query_by_level(zero).limit(1);
        let mut paged = Vec::new();
        loop {
            let page = table.query(q.clone()).await.unwrap();
            paged.extend(page.items.into_iter().map(|m| m.id));
            match page.next {
                Some(c) => q = q.after(c),
                None => break,
            }
        }
        assert_eq!(paged, ["a", "b", "c"], "{zero}");
    }
}

// ---------------------------------------------------------------------------------------------
// 5. `under` on a sort key that holds its values as they are.

/// A tree of named nodes keyed on plain attributes: a name may hold `#` (it is a value, not key
/// text).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<tree>"]
#[sk = "<path>"]
#[entity(pk_attr = "tree", sk_attr = "path", type_attr = false, owns_partition = true, query = "nodes")]
pub struct Node {
    pub tree: String,
    pub path: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum TreeItems {
    Node(Node),
}

/// Suspected in issue 69: `under(key)` is `begins_with(sort key, key + "#")`, exact only where
/// `#` ends every component (escaped key text). A sort key on a field's own string attribute
/// holds its value as it is, `#` included, so `under` would read nodes that are not under the
/// key (`a#1`, a name, under `a`): refused before sending, as for a number sort key, naming the
/// member's own `begins_with`.
#[tokio::test]
async fn under_is_refused_on_a_sort_key_that_holds_values_as_they_are() {
    let table = common::table("crossings-under", &[Node::SCHEMA]).await;
    for path in ["a", "a#1", "b"] {
        table.put(&Node { tree: "t".into(), path: path.into() }).await.unwrap();
    }
    let sent = table.requests_sent();
    let q = TreeItems::query(Node::partition("t")).under(&Node::key("t", "a"));
    let got = table.query_all(q).await;
    assert!(
        matches!(&got, Err(e) if e.to_string().contains("`under`") && e.to_string().contains("begins_with")),
        "{got:?}"
    );
    assert_eq!(table.requests_sent(), sent, "nothing sent");
    // What the caller means, said with the member's own condition.
    let q = Node::query_nodes("t").path().begins_with("a#");
    let paths: Vec<String> = table.query_all(q).await.unwrap().into_iter().map(|n| n.path).collect();
    assert_eq!(paths, ["a#1"]);
}
