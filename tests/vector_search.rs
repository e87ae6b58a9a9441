//! Vector search (`#[vector(..)]`, `Table::search`, DynamoDB's `SearchVectors`), run for real on
//! the embedded engine: vector indexes made by CreateTable and UpdateTable, searched with
//! SearchVectors, answered by the engine. A tap ([`Tap`]) keeps the bodies of the requests the
//! crate sends, which the tests compare with the SDK's model; nothing is injected.

mod common;

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use dynamo_entity::{AttributeValue, Entity, Error, Item, Table, View};
use serde_json::{Value as Json, json};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "DOC#<doc_id>"]
#[entity(tenant = "tenant_id")]
#[vector(index = "Similar", field = "embedding", dimensions = 3, distance = "cosine", hash = "tenant_id",
         filter = ["category", "price"], query = "similar")]
pub struct Doc {
    pub tenant_id: String,
    pub doc_id: String,
    pub category: String,
    pub price: f64,
    pub title: String,
    pub embedding: Vec<f32>,
}

/// Another entity of the same tenants' partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "NOTE#<note_id>"]
#[entity(tenant = "tenant_id")]
pub struct Note {
    pub tenant_id: String,
    pub note_id: String,
    pub text: String,
}

/// A vector index that projects the title only.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CLIP#<clip_id>"]
#[vector(index = "Clips", field = "embedding", dimensions = 2, distance = "euclidean", hash = "channel",
         query = "clips", include = ["title"])]
pub struct Clip {
    pub clip_id: String,
    pub channel: String,
    pub title: String,
    pub body: String,
    pub embedding: Vec<f32>,
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Clip")]
pub struct ClipTitle {
    pub clip_id: String,
    pub title: String,
}

/// A tenant whose id is a number: its key text (what a tenant handle is made with, and what
/// the partition key and the IAM policy hold) is `0000000007` for 7, its attribute the number 7.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#<org>"]
#[sk = "MEMO#<memo_id>"]
#[entity(tenant = "org")]
#[vector(index = "OrgMemos", field = "embedding", dimensions = 2, distance = "cosine", hash = "org", query = "memos")]
pub struct Memo {
    pub org: u32,
    pub memo_id: String,
    pub embedding: Vec<f32>,
}

/// A vector the old code did not write: the current code defaults it (to `[]`, which the index
/// refuses), beside a defaulted counter.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SONG#<id>"]
#[vector(index = "Songs", field = "embedding", dimensions = 2, distance = "euclidean", hash = "genre", query = "songs")]
pub struct Song {
    pub id: String,
    pub genre: String,
    #[entity(default)]
    pub embedding: Vec<f32>,
    #[entity(default)]
    pub plays: u64,
}

/// Keeps the body of every request of the operations named (`SearchVectors`, `CreateTable`,
/// ..), which still goes to the engine.
#[derive(Debug, Clone)]
struct Tap {
    ops: &'static [&'static str],
    sent: Arc<Mutex<Vec<Json>>>,
}

impl Intercept for Tap {
    fn name(&self) -> &'static str {
        "Tap"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        if self.ops.iter().any(|op| target.strip_prefix("DynamoDB_20120810.") == Some(op)) {
            let text = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            self.sent.lock().unwrap().push(serde_json::from_str(&text)?);
        }
        Ok(())
    }
}

impl Tap {
    fn on(table: &Table, ops: &'static [&'static str]) -> (Table, Tap) {
        let tap = Tap { ops, sent: Arc::default() };
        let config = table.client().config().to_builder().interceptor(tap.clone());
        (Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name()), tap)
    }

    fn sent(&self) -> Vec<Json> {
        self.sent.lock().unwrap().clone()
    }
}

fn doc(tenant: &str, id: &str, category: &str, price: f64, embedding: Vec<f32>) -> Doc {
    Doc {
        tenant_id: tenant.into(),
        doc_id: id.into(),
        category: category.into(),
        price,
        title: format!("title of {id}"),
        embedding,
    }
}

/// The stored items of `table` with `sk` starting `prefix`, as the engine holds them.
async fn stored(table: &Table, prefix: &str) -> Vec<Item> {
    let all = common::raw_items(table).await;
    let mut some: Vec<Item> = all
        .into_iter()
        .filter(|i| matches!(i.get("SK").or(i.get("PK")), Some(dynamo_entity::AttributeValue::S(s)) if s.starts_with(prefix)))
        .collect();
    some.sort_by_key(|i| format!("{:?}", i.get("SK").or(i.get("PK"))));
    some
}

/// The `SearchVectors` body the crate sent, compared with the SDK's model: index, vector,
/// `TopK`, capacity, equality on the HASH attribute and comparisons of the INLINE_FILTER ones,
/// every name and value behind a placeholder.
fn assert_request(r: &Json, table: &str, top_k: u32, vector: Json, parts: &[(&str, &str, Json)]) {
    assert_eq!(r["TableName"], json!(table));
    assert_eq!(r["IndexName"], json!("Similar"));
    assert_eq!(r["TopK"], json!(top_k));
    assert_eq!(r["ReturnConsumedCapacity"], json!("INDEXES"));
    assert_eq!(r["SearchVector"], vector);
    let condition = r["SearchConditionExpression"].as_str().unwrap();
    let names = r["ExpressionAttributeNames"].as_object().unwrap();
    let values = r["ExpressionAttributeValues"].as_object().unwrap();
    let name_of = |attr: &str| names.iter().find(|(_, v)| *v == attr).map(|(k, _)| k.clone()).unwrap();
    let value_of = |v: &Json| values.iter().find(|(_, x)| *x == v).map(|(k, _)| k.clone()).unwrap();
    for (attr, op, value) in parts {
        let part = format!("{} {op} {}", name_of(attr), value_of(value));
        assert!(condition.contains(&part), "{part} in {condition}");
    }
    assert_eq!(names.len(), parts.len(), "{names:?}");
}

#[tokio::test]
async fn a_search_is_answered_by_the_engine_best_first_other_entities_stepped_over() {
    let table = common::table("vector-search", &[Doc::SCHEMA, Note::SCHEMA]).await;
    let docs = [
        doc("t1", "a", "manuals", 12.5, vec![1.0, 0.0, 0.0]),
        doc("t1", "b", "manuals", 9.0, vec![0.8, 0.6, 0.0]),
        doc("t1", "c", "recipes", 30.0, vec![0.0, 0.0, 1.0]),
        doc("t1", "d", "recipes", 45.0, vec![0.9, 0.4, 0.0]),
        doc("t2", "e", "manuals", 1.0, vec![0.9, 0.4, 0.0]),
    ];
    for d in &docs {
        table.put(d).await.unwrap();
    }
    // Another entity's item that the index holds too (written by other code with the search
    // schema's attributes and a vector): found by the engine, stepped over by the read.
    table.put(&Note { tenant_id: "t1".into(), note_id: "n1".into(), text: "not a doc".into() }).await.unwrap();
    let mut note = stored(&table, "NOTE#").await.remove(0);
    let n = |v: &str| AttributeValue::N(v.into());
    note.insert("tenant_id".into(), AttributeValue::S("t1".into()));
    note.insert("category".into(), AttributeValue::S("manuals".into()));
    note.insert("price".into(), n("1"));
    note.insert("embedding".into(), AttributeValue::L(vec![n("0.85"), n("0.5"), n("0")]));
    table.client().put_item().table_name(table.name()).set_item(Some(note)).send().await.unwrap();

    let (tapped, tap) = Tap::on(&table, &["SearchVectors"]);
    let search = Doc::search_similar("t1", &[0.9, 0.4, 0.0]).category().eq("manuals").top_k(3);
    let hits = tapped.search(search).await.unwrap();
    let got: Vec<&str> = hits.iter().map(|(d, _)| d.doc_id.as_str()).collect();
    // b is nearer the vector than a; c and d are recipes, e is another tenant's; the note is
    // another entity's.
    assert_eq!(got, ["b", "a"], "best first, the note stepped over: {hits:?}");
    assert!(hits.iter().all(|(_, score)| score.is_finite()));
    assert_ne!(hits[0].1, hits[1].1);
    // DynamoDB leaves the vector out of a result: the rest of each item is as written.
    for ((hit, _), want) in hits.iter().zip([&docs[1], &docs[0]]) {
        assert!(hit.embedding.is_empty(), "{hit:?}");
        assert_eq!(Doc { embedding: want.embedding.clone(), ..hit.clone() }, *want);
    }
    let sent = tap.sent();
    assert_eq!(sent.len(), 1);
    assert_request(
        &sent[0],
        table.name(),
        3,
        json!([{ "N": "0.9" }, { "N": "0.4" }, { "N": "0" }]),
        &[("tenant_id", "=", json!({ "S": "t1" })), ("category", "=", json!({ "S": "manuals" }))],
    );
    // A number filter: equality, as DynamoDB's SearchConditionExpression takes only equalities.
    let hits = tapped.search(Doc::search_similar("t1", &[0.9, 0.4, 0.0]).price().eq(12.5)).await.unwrap();
    assert_eq!(hits.iter().map(|(d, _)| d.doc_id.as_str()).collect::<Vec<_>>(), ["a"]);
    assert_request(
        &tap.sent()[1],
        table.name(),
        dynamo_entity::DEFAULT_TOP_K,
        json!([{ "N": "0.9" }, { "N": "0.4" }, { "N": "0" }]),
        &[("tenant_id", "=", json!({ "S": "t1" })), ("price", "=", json!({ "N": "12.5" }))],
    );

    // TopK is required: a search that does not say asks for the default.
    let hits = tapped.search(Doc::search_similar("t1", &[0.0, 0.0, 1.0])).await.unwrap();
    assert_eq!(hits.first().map(|(d, _)| d.doc_id.as_str()), Some("c"));
    assert_eq!(tap.sent()[2]["TopK"], json!(dynamo_entity::DEFAULT_TOP_K));

    // The capacity row of the search: requests on the vector index, the bytes the engine reports.
    let report = tapped.capacity();
    let row = report.rows().iter().find(|r| r.operation == "SearchVectors").unwrap();
    assert_eq!((row.entity.as_str(), row.index.as_deref()), ("Doc", Some("Similar")));
    assert_eq!(row.capacity.requests, 3);
    assert!(row.vector_search_bytes > 0.0, "{row:?}");
}

#[tokio::test]
async fn a_vector_of_another_length_or_holding_nan_is_refused_before_sending() {
    let table = common::table("vector-refused", &[Doc::SCHEMA]).await;
    let before = table.requests_sent();
    for vector in [vec![1.0, 0.0], vec![1.0, 0.0, 0.0, 0.0], vec![1.0, f32::NAN, 0.0], vec![f32::INFINITY, 0.0, 0.0]] {
        let r = table.search(Doc::search_similar("t1", &vector)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{vector:?}: {r:?}");
    }
    for k in [0, dynamo_entity::MAX_TOP_K + 1, u32::MAX] {
        let r = table.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0]).top_k(k)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "top_k({k}): {r:?}");
    }
    assert_eq!(table.requests_sent(), before);
    // A well-formed search is sent, and the engine answers it; the most it takes is 100.
    assert!(table.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0])).await.unwrap().is_empty());
    let most = Doc::search_similar("t1", &[1.0, 0.0, 0.0]).top_k(dynamo_entity::MAX_TOP_K);
    assert!(table.search(most).await.unwrap().is_empty());
    assert_eq!(table.requests_sent(), before + 2);

    // Writes: the vector's length is checked before the put, the batch and the update.
    let sent = table.requests_sent();
    for bad in [vec![1.0, 0.0], vec![0.0, f32::NAN, 1.0]] {
        let r = table.put(&doc("t1", "x", "manuals", 1.0, bad.clone())).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
        let r = table.update(Doc::update(Doc::key("t1", "x")).set(Doc::fields().embedding, bad)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    }
    assert_eq!(table.requests_sent(), sent, "nothing sent");
    assert!(common::raw_items(&table).await.is_empty());
    // The right length is written, read and updated as an ordinary list attribute.
    let good = doc("t1", "x", "manuals", 1.0, vec![0.25, -0.5, 1.0]);
    table.put(&good).await.unwrap();
    assert_eq!(table.get(Doc::key("t1", "x")).await.unwrap(), Some(good.clone()));
    let updated =
        table.update(Doc::update(Doc::key("t1", "x")).set(Doc::fields().embedding, vec![0.0, 0.0, 1.0])).await.unwrap();
    assert_eq!(updated.embedding, vec![0.0, 0.0, 1.0]);
    // And searched: the engine holds the updated vector.
    let hits = table.search(Doc::search_similar("t1", &[0.0, 0.0, 1.0]).top_k(1)).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0.doc_id, "x");
}

#[tokio::test]
async fn a_tenant_handle_searches_its_own_tenant_only() {
    let table = common::table("vector-tenant", &[Doc::SCHEMA]).await;
    table.put(&doc("t1", "mine", "manuals", 1.0, vec![1.0, 0.0, 0.0])).await.unwrap();
    table.put(&doc("t2", "theirs", "manuals", 1.0, vec![1.0, 0.0, 0.0])).await.unwrap();
    let t1 = table.for_tenant("t1");
    let before = t1.requests_sent();
    let r = t1.search(Doc::search_similar("t2", &[1.0, 0.0, 0.0])).await;
    assert!(matches!(&r, Err(Error::OutsideTenant { expected, found }) if expected == "t1" && found == "t2"), "{r:?}");
    assert_eq!(t1.requests_sent(), before);
    let hits = t1.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0])).await.unwrap();
    assert_eq!(hits.iter().map(|(d, _)| d.doc_id.as_str()).collect::<Vec<_>>(), ["mine"]);
    // Clip has no tenant: a tenant handle refuses it.
    let r = t1.search(Clip::search_clips("news", &[1.0, 0.0]).view::<ClipTitle>()).await;
    assert!(matches!(r, Err(Error::TenantRefused { .. })), "{r:?}");
}

#[tokio::test]
async fn an_index_that_projects_less_is_read_into_a_view() {
    let table = common::table("vector-view", &[Clip::SCHEMA]).await;
    let clip = Clip {
        clip_id: "c1".into(),
        channel: "news".into(),
        title: "Rain".into(),
        body: "a long body".into(),
        embedding: vec![3.0, 4.0],
    };
    table.put(&clip).await.unwrap();
    let (tapped, tap) = Tap::on(&table, &["SearchVectors"]);
    // The index holds the table's key, the search schema, the vector and the title: a whole
    // Clip cannot be read from it.
    let r = tapped.search(Clip::search_clips("news", &[3.0, 4.0])).await;
    assert!(matches!(&r, Err(Error::NotProjected { index: "Clips", missing, .. }) if missing == &["body"]), "{r:?}");
    assert!(tap.sent().is_empty());
    let hits = tapped.search(Clip::search_clips("news", &[3.0, 4.0]).view::<ClipTitle>()).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0, ClipTitle { clip_id: "c1".into(), title: "Rain".into() });
    let sent = tap.sent();
    let projection = sent[0]["ProjectionExpression"].as_str().unwrap();
    let names = sent[0]["ExpressionAttributeNames"].as_object().unwrap();
    let read: Vec<&str> = projection.split(", ").map(|p| names[p].as_str().unwrap()).collect();
    assert!(read.contains(&"title") && read.contains(&"PK") && !read.contains(&"body"), "{read:?}");
}

/// The search schema's attributes as CreateTable and UpdateTable declare them: every one in
/// `AttributeDefinitions`, with its type (AWS's API reference for `SearchSchemaElement`).
fn assert_declared(body: &Json, wanted: &[(&str, &str)]) {
    let defs = body["AttributeDefinitions"].as_array().unwrap();
    for (attr, ty) in wanted {
        assert!(
            defs.iter().any(|d| d["AttributeName"] == json!(attr) && d["AttributeType"] == json!(ty)),
            "{attr} ({ty}) not declared in {defs:?}"
        );
    }
}

#[tokio::test]
async fn a_vector_index_added_to_a_live_table_is_planned_applied_and_searched() {
    let table = common::table("vector-apply", &[Note::SCHEMA]).await;
    let wanted = dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA, Note::SCHEMA]).unwrap();
    let plan = table.plan(&wanted).await.unwrap();
    assert!(
        matches!(plan.changes.as_slice(), [dynamo_entity::TableChange::AddVectorIndex(v)] if v.name == "Similar"),
        "{plan}"
    );
    assert!(
        plan.to_string().lines().any(|l| l == "+ vector index Similar (embedding, 3 dimensions, COSINE)"),
        "{plan}"
    );

    let (tapped, tap) = Tap::on(&table, &["UpdateTable"]);
    let applied = tapped.apply(&wanted).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    assert_eq!(applied.changes, plan.changes);
    let sent = tap.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["TableName"], json!(table.name()));
    assert_eq!(
        sent[0]["VectorIndexUpdates"],
        json!([{ "Create": {
            "IndexName": "Similar",
            "VectorAttribute": { "AttributeName": "embedding" },
            "SearchSchema": [
                { "AttributeName": "tenant_id", "SearchSchemaElementType": "HASH" },
                { "AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER" },
                { "AttributeName": "price", "SearchSchemaElementType": "INLINE_FILTER" },
            ],
            "Projection": { "ProjectionType": "ALL" },
            "Dimensions": 3,
            "DistanceFunction": "COSINE",
        } }])
    );
    assert_declared(&sent[0], &[("tenant_id", "S"), ("category", "S"), ("price", "N")]);
    // The engine reports the index (ACTIVE once apply returned): nothing is left to plan.
    let described = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let vix = described.table().unwrap().vector_indexes();
    assert_eq!(vix.len(), 1);
    assert_eq!(vix[0].index_status(), Some(&aws_sdk_dynamodb::types::IndexStatus::Active));
    let plan = table.plan(&wanted).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
    // (DynamoDB reports a vector index added to a live table ACTIVE some minutes before it
    // answers a search, which is refused meanwhile: "Cannot search backfilling vector index".
    // The engine keeps that window; `DescribeTable` does not show its end, so apply cannot wait
    // for it. The guide says so.)
}

#[tokio::test]
async fn create_table_carries_the_vector_indexes_as_the_sdk_model_defines_them() {
    let client = dynamo_entity::local::client().await.expect("the engine");
    let name = format!("vector-create-{}", std::process::id());
    let (table, tap) = Tap::on(&Table::new(client, &name), &["CreateTable"]);
    table.create_table(&[Doc::SCHEMA, Note::SCHEMA]).await.unwrap();
    let clips = Table::new(table.client().clone(), format!("{name}-clips"));
    clips.create_table(&[Clip::SCHEMA]).await.unwrap();
    let sent = tap.sent();
    let indexes: Vec<Json> = sent.iter().flat_map(|r| r["VectorIndexes"].as_array().cloned().unwrap()).collect();
    assert_eq!(
        Json::Array(indexes),
        json!([
            {
                "IndexName": "Similar",
                "VectorAttribute": { "AttributeName": "embedding" },
                "SearchSchema": [
                    { "AttributeName": "tenant_id", "SearchSchemaElementType": "HASH" },
                    { "AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER" },
                    { "AttributeName": "price", "SearchSchemaElementType": "INLINE_FILTER" },
                ],
                "Projection": { "ProjectionType": "ALL" },
                "Dimensions": 3,
                "DistanceFunction": "COSINE",
            },
            {
                "IndexName": "Clips",
                "VectorAttribute": { "AttributeName": "embedding" },
                "SearchSchema": [{ "AttributeName": "channel", "SearchSchemaElementType": "HASH" }],
                "Projection": { "ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"] },
                "Dimensions": 2,
                "DistanceFunction": "EUCLIDEAN",
            },
        ])
    );
    assert_declared(&sent[0], &[("PK", "S"), ("SK", "S"), ("tenant_id", "S"), ("category", "S"), ("price", "N")]);
    assert_declared(&sent[1], &[("PK", "S"), ("channel", "S")]);
    // The engine keeps them, as DynamoDB does.
    let described = table.client().describe_table().table_name(&name).send().await.unwrap();
    let names: Vec<&str> = described.table().unwrap().vector_indexes().iter().filter_map(|v| v.index_name()).collect();
    assert_eq!(names, ["Similar"]);
    assert!(
        table
            .plan(&dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA, Note::SCHEMA]).unwrap())
            .await
            .unwrap()
            .is_empty()
    );
    let def = dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA]).unwrap();
    assert_eq!(def.vector_indexes.len(), 1);
    assert_eq!(def.vector_indexes[0].dimensions, 3);
}

#[test]
fn the_exports_carry_the_vector_indexes_where_a_published_property_exists() {
    let def = dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA, Note::SCHEMA]).unwrap();
    let cfn: Json = serde_json::from_str(&def.to_cloudformation_json("docs")).unwrap();
    let table = cfn["Resources"].as_object().unwrap().values().find(|r| r["Type"] == "AWS::DynamoDB::Table").unwrap();
    assert_eq!(
        table["Properties"]["VectorIndexes"],
        json!([{
            "IndexName": "Similar",
            "VectorAttribute": { "AttributeName": "embedding" },
            "Dimensions": 3,
            "DistanceFunction": "COSINE",
            "SearchSchema": [
                { "AttributeName": "tenant_id", "SearchSchemaElementType": "HASH" },
                { "AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER" },
                { "AttributeName": "price", "SearchSchemaElementType": "INLINE_FILTER" },
            ],
            "Projection": { "ProjectionType": "ALL" },
        }])
    );
    let clips: Json = serde_json::from_str(
        &dynamo_entity::TableDefinition::from_entities(&[Clip::SCHEMA]).unwrap().to_cloudformation_json("clips"),
    )
    .unwrap();
    let clips = clips["Resources"].as_object().unwrap().values().find(|r| r["Type"] == "AWS::DynamoDB::Table").unwrap();
    assert_eq!(
        clips["Properties"]["VectorIndexes"][0]["Projection"],
        json!({ "ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"] })
    );
    let yaml = def.to_cloudformation_yaml("docs");
    assert!(yaml.contains("VectorIndexes:"), "{yaml}");
    // CloudFormation declares the search schema's attributes as CreateTable does.
    let declared: Vec<(&str, &str)> = table["Properties"]["AttributeDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["AttributeName"].as_str().unwrap(), a["AttributeType"].as_str().unwrap()))
        .collect();
    assert_eq!(declared, [("PK", "S"), ("SK", "S"), ("category", "S"), ("price", "N"), ("tenant_id", "S")]);

    let tf = def.to_terraform("docs");
    assert!(
        tf.lines().any(|l| l.starts_with("# Vector indexes (the AWS provider's aws_dynamodb_table has no argument")),
        "{tf}"
    );
    assert!(
        tf.lines().any(|l| l
            == "#   Similar: embedding, 3 dimensions, COSINE, HASH tenant_id, INLINE_FILTER category, price, projection ALL"),
        "{tf}"
    );
    assert!(!tf.lines().filter(|l| !l.starts_with('#')).any(|l| l.contains("vector")), "no argument invented: {tf}");
    // Terraform's `attribute` blocks are the key attributes only: the provider refuses one that no
    // index of its own uses.
    assert!(!tf.contains("\"price\"") && !tf.contains("\"category\""), "{tf}");

    let md = def.to_markdown("docs");
    assert!(
        md.lines().any(|l| l == "| Similar | `embedding` | 3 | COSINE | `tenant_id` | `category`, `price` | ALL |"),
        "{md}"
    );
    // A table without vector index exports as before.
    let plain = dynamo_entity::TableDefinition::from_entities(&[Note::SCHEMA]).unwrap();
    assert!(!plain.to_terraform("notes").contains("Vector"));
    assert!(!plain.to_cloudformation_json("notes").contains("Vector"));
    assert!(!plain.to_markdown("notes").contains("Vector"));
}

#[test]
fn the_iam_policy_grants_search_vectors_on_the_vector_index() {
    use dynamo_entity::IamPolicy;
    let def = dynamo_entity::TableDefinition::from_entities(&[Doc::SCHEMA, Note::SCHEMA]).unwrap();
    let policy = IamPolicy::read_only().table_name("docs").region("eu-west-1").account("123456789012");
    let doc: Json = serde_json::from_str(&def.iam_policy(&policy).unwrap()).unwrap();
    let text = doc.to_string();
    assert!(text.contains("\"dynamodb:SearchVectors\""), "{text}");
    assert!(text.contains("\"arn:aws:dynamodb:eu-west-1:123456789012:table/docs/index/Similar\""), "{text}");
    // A table without vector index: no SearchVectors.
    let plain = dynamo_entity::TableDefinition::from_entities(&[Note::SCHEMA]).unwrap();
    assert!(!plain.iam_policy(&policy).unwrap().contains("SearchVectors"));
    // A tenant policy does not grant it (LeadingKeys is not known to confine a search).
    let tenant = def.iam_policy(&IamPolicy::read_only().table_name("docs").tenant_tag("TenantId")).unwrap();
    assert!(!tenant.contains("SearchVectors"), "{tenant}");
}

#[tokio::test]
async fn a_search_names_its_tenant_by_key_text_as_every_other_operation() {
    let table = common::table("vector-tenant-key", &[Memo::SCHEMA]).await;
    let memo = |org: u32, id: &str| Memo { org, memo_id: id.into(), embedding: vec![1.0, 0.0] };
    table.put(&memo(7, "mine")).await.unwrap();
    table.put(&memo(8, "theirs")).await.unwrap();

    // The tenant's handle is its key text: it reads its item and searches its memos.
    let own = table.for_tenant("0000000007");
    assert_eq!(own.get(Memo::key(7u32, "mine")).await.unwrap(), Some(memo(7, "mine")));
    let hits = own.search(Memo::search_memos(7u32, &[1.0, 0.0])).await.unwrap();
    assert_eq!(hits.iter().map(|(m, _)| m.memo_id.as_str()).collect::<Vec<_>>(), ["mine"]);

    // Another tenant's memos: refused before sending, naming their key text.
    let before = own.requests_sent();
    let r = own.search(Memo::search_memos(8u32, &[1.0, 0.0])).await;
    assert!(
        matches!(&r, Err(Error::OutsideTenant { expected, found }) if expected == "0000000007" && found == "0000000008"),
        "{r:?}"
    );
    assert_eq!(own.requests_sent(), before);

    // `7`, the attribute's own text, is no tenant's key text: `get` and `search` refuse it alike.
    let seven = table.for_tenant("7");
    let before = seven.requests_sent();
    let r = seven.get(Memo::key(7u32, "mine")).await;
    assert!(matches!(&r, Err(Error::OutsideTenant { found, .. }) if found == "0000000007"), "{r:?}");
    let r = seven.search(Memo::search_memos(7u32, &[1.0, 0.0])).await;
    assert!(
        matches!(&r, Err(Error::OutsideTenant { expected, found }) if expected == "7" && found == "0000000007"),
        "{r:?}"
    );
    assert_eq!(seven.requests_sent(), before, "nothing sent");
}

#[tokio::test]
async fn a_write_into_a_vector_that_would_change_its_length_is_refused_before_sending() {
    let table = common::table("vector-paths", &[Doc::SCHEMA]).await;
    let stored = doc("t1", "x", "manuals", 1.0, vec![0.25, -0.5, 1.0]);
    table.put(&stored).await.unwrap();
    let f = Doc::fields();
    let key = || Doc::key("t1", "x");
    let sent = table.requests_sent();
    type Made = Box<dyn Fn() -> dynamo_entity::Update<Doc>>;
    let refused: [(&str, Made); 6] = [
        ("remove an element", Box::new(move || Doc::update(key()).remove(f.embedding.at(0)))),
        ("set past the end", Box::new(move || Doc::update(key()).set(f.embedding.at(3), 0.5))),
        ("set far past the end", Box::new(move || Doc::update(key()).set(f.embedding.at(40), 0.5))),
        ("add to an element", Box::new(move || Doc::update(key()).add(f.embedding.at(0), 1.0))),
        ("set an infinity", Box::new(move || Doc::update(key()).set(f.embedding.at(1), f32::INFINITY))),
        ("set past the end if absent", Box::new(move || Doc::update(key()).set_if_not_exists(f.embedding.at(3), 0.5))),
    ];
    for (what, update) in refused {
        let r = table.update(update()).await;
        assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("embedding")), "{what}: {r:?}");
        // In a transaction too: the same request is built.
        let r = table.transact().update(update()).send().await;
        assert!(matches!(r, Err(Error::Validation(_))), "{what} in a transaction: {r:?}");
    }
    assert_eq!(table.requests_sent(), sent, "nothing sent");
    assert_eq!(table.get(key()).await.unwrap(), Some(stored));

    // Setting an element the vector holds keeps its length: sent, and the engine searches it.
    let updated = table.update(Doc::update(key()).set(f.embedding.at(1), 0.5)).await.unwrap();
    assert_eq!(updated.embedding, vec![0.25, 0.5, 1.0]);
    let updated = table.update(Doc::update(key()).set_if_not_exists(f.embedding.at(2), 9.0)).await.unwrap();
    assert_eq!(updated.embedding, vec![0.25, 0.5, 1.0], "the element is there: kept");
    let hits = table.search(Doc::search_similar("t1", &[0.25, 0.5, 1.0]).top_k(1)).await.unwrap();
    assert_eq!(hits.iter().map(|(d, _)| d.doc_id.as_str()).collect::<Vec<_>>(), ["x"]);
}

#[tokio::test]
async fn a_backfill_writes_no_vector_its_index_refuses_and_reports_the_item() {
    let table = common::table("vector-backfill", &[Song::SCHEMA]).await;
    // Written by the old code: no vector, no play count.
    let mut old = Item::new();
    old.insert("PK".into(), AttributeValue::S("SONG#s1".into()));
    old.insert("entity_type".into(), AttributeValue::S("Song".into()));
    old.insert("id".into(), AttributeValue::S("s1".into()));
    old.insert("genre".into(), AttributeValue::S("rock".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(old)).send().await.unwrap();
    // The empty vector the default gives is refused by a put.
    let song = Song { id: "s2".into(), genre: "rock".into(), embedding: Vec::new(), plays: 0 };
    assert!(matches!(table.put(&song).await, Err(Error::Validation(_))));

    let report = table.backfill::<Song>().run().await.unwrap();
    assert_eq!(report.failed.len(), 1, "{report:?}");
    assert_eq!(report.failed[0].key, ("SONG#s1".to_owned(), None));
    assert!(matches!(&report.failed[0].error, Error::Validation(m) if m.contains("embedding")), "{report:?}");
    // What does not depend on it is written: the play count, and no vector.
    assert_eq!(report.written, 1, "{report:?}");
    let items = common::raw_items(&table).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].get("plays"), Some(&AttributeValue::N("0".into())));
    assert_eq!(items[0].get("embedding"), None);
    // A second run writes nothing, and reports the vector again.
    let again = table.backfill::<Song>().run().await.unwrap();
    assert_eq!((again.written, again.failed.len()), (0, 1), "{again:?}");
}
