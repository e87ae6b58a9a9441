//! Vector search (`#[vector(..)]`, `Table::search`, DynamoDB's `SearchVectors`).
//!
//! What DynamoDB Local answers (11.1.0, the version the crate fetches): CreateTable with
//! `VectorIndexes` succeeds and keeps none (DescribeTable lists no vector index); an UpdateTable
//! of `VectorIndexUpdates` alone is "Nothing to update"; `SearchVectors` is
//! UnknownOperationException. So the items are written to and read from Local (the vector is an
//! ordinary list attribute there), and every SearchVectors answer is injected by an SDK
//! interceptor ([`Aws`]) that records the request the crate sends and answers as the SDK's
//! model defines the operation (`SearchResults` of `Item` and `Score`, best first;
//! `ConsumedCapacity` of `VectorSearchRequestBytes`).

mod common;

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{AppName, ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use dynamo_entity::{Entity, Error, Item, Table, View};
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

/// Answers every SearchVectors with `answer(request)` (the request never reaches Local, which
/// does not know the operation) and keeps the requests' bodies.
#[derive(Clone)]
struct Aws {
    sent: Arc<Mutex<Vec<Json>>>,
    answer: Arc<dyn Fn(&Json) -> Json + Send + Sync>,
}

const ANSWER: &str = "aws-search-vectors";

impl std::fmt::Debug for Aws {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Aws")
    }
}

impl Intercept for Aws {
    fn name(&self) -> &'static str {
        "Aws"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        if request.headers().get("x-amz-target") != Some("DynamoDB_20120810.SearchVectors") {
            return Ok(());
        }
        let text = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
        self.sent.lock().unwrap().push(serde_json::from_str(&text)?);
        common::divert(request);
        cfg.interceptor_state().store_put(AppName::new(ANSWER)?);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        ctx: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<AppName>().is_none_or(|n| n.as_ref() != ANSWER) {
            return Ok(());
        }
        let request = self.sent.lock().unwrap().last().cloned().unwrap_or_default();
        common::answer(ctx, 200, (self.answer)(&request).to_string())
    }
}

impl Aws {
    fn on(table: &Table, answer: impl Fn(&Json) -> Json + Send + Sync + 'static) -> (Table, Aws) {
        let aws = Aws { sent: Arc::default(), answer: Arc::new(answer) };
        let config = table.client().config().to_builder().interceptor(aws.clone());
        (Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name()), aws)
    }

    fn sent(&self) -> Vec<Json> {
        self.sent.lock().unwrap().clone()
    }
}

/// An item as DynamoDB's JSON protocol writes it (`{"S": ..}`, `{"N": ..}`, `{"L": [..]}`).
fn wire(item: &Item) -> Json {
    use dynamo_entity::AttributeValue as A;
    fn value(v: &A) -> Json {
        match v {
            A::S(s) => json!({ "S": s }),
            A::N(n) => json!({ "N": n }),
            A::L(l) => json!({ "L": l.iter().map(value).collect::<Vec<_>>() }),
            A::Bool(b) => json!({ "BOOL": b }),
            other => panic!("not in these items: {other:?}"),
        }
    }
    Json::Object(item.iter().map(|(k, v)| (k.clone(), value(v))).collect())
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

/// The stored items of `table` with `sk` starting `prefix`, as DynamoDB Local holds them.
async fn stored(table: &Table, prefix: &str) -> Vec<Item> {
    let all = common::raw_items(table).await;
    let mut some: Vec<Item> = all
        .into_iter()
        .filter(|i| matches!(i.get("SK").or(i.get("PK")), Some(dynamo_entity::AttributeValue::S(s)) if s.starts_with(prefix)))
        .collect();
    some.sort_by_key(|i| format!("{:?}", i.get("SK").or(i.get("PK"))));
    some
}

#[tokio::test]
async fn dynamodb_local_knows_no_search_vectors() {
    let table = common::table("vector-local", &[Doc::SCHEMA]).await;
    let vector = [0.0f32, 1.0, 0.0].map(|v| dynamo_entity::AttributeValue::N(v.to_string()));
    let answer = table
        .client()
        .search_vectors()
        .table_name(table.name())
        .index_name("Similar")
        .set_search_vector(Some(vector.to_vec()))
        .send()
        .await;
    let e = answer.expect_err("DynamoDB Local answered SearchVectors: update the README and these tests");
    assert_eq!(aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&e), Some("UnknownOperationException"), "{e:?}");
    // Through the crate: the SDK's error, as any other DynamoDB refusal.
    let e = table.search(Doc::search_similar("t1", &[0.0, 1.0, 0.0])).await.unwrap_err();
    assert!(format!("{e:?}").contains("UnknownOperationException"), "{e:?}");
}

#[tokio::test]
async fn a_search_sends_the_sdk_models_request_and_reads_the_scores_best_first() {
    let table = common::table("vector-search", &[Doc::SCHEMA, Note::SCHEMA]).await;
    let docs = [
        doc("t1", "a", "manuals", 12.5, vec![1.0, 0.0, 0.0]),
        doc("t1", "b", "manuals", 9.0, vec![0.8, 0.6, 0.0]),
        doc("t1", "c", "recipes", 30.0, vec![0.0, 0.0, 1.0]),
    ];
    for d in &docs {
        table.put(d).await.unwrap();
    }
    table.put(&Note { tenant_id: "t1".into(), note_id: "n1".into(), text: "not a doc".into() }).await.unwrap();
    let items = stored(&table, "DOC#").await;
    assert_eq!(items.len(), 3);
    let mut note = stored(&table, "NOTE#").await.remove(0);
    // Another entity's item in the answer (a note that holds a vector under the same attribute).
    note.insert("embedding".into(), items[1]["embedding"].clone());
    let (b, a, n) = (wire(&items[1]), wire(&items[0]), wire(&note));
    let (aws_table, aws) = Aws::on(&table, move |_| {
        json!({
            "SearchResults": [
                { "Item": b, "Score": 0.98 },
                { "Item": n, "Score": 0.97 },
                { "Item": a, "Score": 0.8 },
            ],
            "ConsumedCapacity": { "VectorSearchRequestBytes": 2048.0 },
        })
    });
    let search = Doc::search_similar("t1", &[0.9, 0.4, 0.0]).category_eq("manuals").price_lt(20.0).top_k(3);
    let hits = aws_table.search(search).await.unwrap();
    let got: Vec<(&str, f64)> = hits.iter().map(|(d, s)| (d.doc_id.as_str(), *s)).collect();
    assert_eq!(got, [("b", 0.98), ("a", 0.8)], "best first, the note stepped over");
    assert_eq!(hits[0].0, docs[1]);
    assert_eq!(hits[1].0, docs[0]);

    let sent = aws.sent();
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!(r["TableName"], json!(table.name()));
    assert_eq!(r["IndexName"], json!("Similar"));
    assert_eq!(r["TopK"], json!(3));
    assert_eq!(r["ReturnConsumedCapacity"], json!("INDEXES"));
    assert_eq!(r["SearchVector"], json!([{ "N": "0.9" }, { "N": "0.4" }, { "N": "0" }]));
    // Equality on the HASH attribute, comparisons of the INLINE_FILTER ones, all behind
    // placeholders.
    let condition = r["SearchConditionExpression"].as_str().unwrap();
    let names = r["ExpressionAttributeNames"].as_object().unwrap();
    let values = r["ExpressionAttributeValues"].as_object().unwrap();
    let name_of = |attr: &str| names.iter().find(|(_, v)| *v == attr).map(|(k, _)| k.clone()).unwrap();
    let value_of = |v: Json| values.iter().find(|(_, x)| **x == v).map(|(k, _)| k.clone()).unwrap();
    for part in [
        format!("{} = {}", name_of("tenant_id"), value_of(json!({ "S": "t1" }))),
        format!("{} = {}", name_of("category"), value_of(json!({ "S": "manuals" }))),
        format!("{} < {}", name_of("price"), value_of(json!({ "N": "20" }))),
    ] {
        assert!(condition.contains(&part), "{part} in {condition}");
    }
    assert_eq!(names.len(), 3, "{names:?}");

    // The capacity row of the search: one request on the vector index, its vector bytes.
    let report = aws_table.capacity();
    let row = report.rows().iter().find(|r| r.operation == "SearchVectors").unwrap();
    assert_eq!((row.entity.as_str(), row.index.as_deref()), ("Doc", Some("Similar")));
    assert_eq!(row.capacity.requests, 1);
    assert_eq!(row.vector_search_bytes, 2048.0);
}

#[tokio::test]
async fn a_vector_of_another_length_or_holding_nan_is_refused_before_sending() {
    let table = common::table("vector-refused", &[Doc::SCHEMA]).await;
    let (aws_table, aws) = Aws::on(&table, |_| json!({ "SearchResults": [] }));
    for vector in [vec![1.0, 0.0], vec![1.0, 0.0, 0.0, 0.0], vec![1.0, f32::NAN, 0.0], vec![f32::INFINITY, 0.0, 0.0]] {
        let r = aws_table.search(Doc::search_similar("t1", &vector)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{vector:?}: {r:?}");
    }
    for k in [0, u32::MAX] {
        let r = aws_table.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0]).top_k(k)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "top_k({k}): {r:?}");
    }
    assert_eq!(aws_table.requests_sent(), 0);
    assert!(aws.sent().is_empty());
    // A well-formed search is sent.
    assert!(aws_table.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0])).await.unwrap().is_empty());
    assert_eq!(aws.sent().len(), 1);

    // Writes: the vector's length is checked before the put, the batch and the update.
    let sent = table.requests_sent();
    for bad in [vec![1.0, 0.0], vec![0.0, f32::NAN, 1.0]] {
        let r = table.put(&doc("t1", "x", "manuals", 1.0, bad.clone())).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
        let r = table.update(Doc::update(Doc::key("t1", "x")).set_embedding(bad)).await;
        assert!(matches!(r, Err(Error::Validation(_))), "{r:?}");
    }
    assert_eq!(table.requests_sent(), sent, "nothing sent");
    assert!(common::raw_items(&table).await.is_empty());
    // The right length is written, read and updated as an ordinary list attribute.
    let good = doc("t1", "x", "manuals", 1.0, vec![0.25, -0.5, 1.0]);
    table.put(&good).await.unwrap();
    assert_eq!(table.get(Doc::key("t1", "x")).await.unwrap(), Some(good.clone()));
    let updated = table.update(Doc::update(Doc::key("t1", "x")).set_embedding(vec![0.0, 0.0, 1.0])).await.unwrap();
    assert_eq!(updated.embedding, vec![0.0, 0.0, 1.0]);
}

#[tokio::test]
async fn a_tenant_handle_searches_its_own_tenant_only() {
    let table = common::table("vector-tenant", &[Doc::SCHEMA]).await;
    let (aws_table, aws) = Aws::on(&table, |_| json!({ "SearchResults": [] }));
    let t1 = aws_table.for_tenant("t1");
    let r = t1.search(Doc::search_similar("t2", &[1.0, 0.0, 0.0])).await;
    assert!(matches!(&r, Err(Error::OutsideTenant { expected, found }) if expected == "t1" && found == "t2"), "{r:?}");
    assert!(aws.sent().is_empty());
    t1.search(Doc::search_similar("t1", &[1.0, 0.0, 0.0])).await.unwrap();
    assert_eq!(aws.sent().len(), 1);
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
    // What the index holds: the table's key, the search schema, the vector and the title.
    let mut item = common::raw_items(&table).await.remove(0);
    item.remove("body");
    let projected = wire(&item);
    let (aws_table, aws) = Aws::on(&table, move |_| json!({ "SearchResults": [{ "Item": projected, "Score": 1.5 }] }));
    let r = aws_table.search(Clip::search_clips("news", &[3.0, 4.0])).await;
    assert!(matches!(&r, Err(Error::NotProjected { index: "Clips", missing, .. }) if missing == &["body"]), "{r:?}");
    assert!(aws.sent().is_empty());
    let hits = aws_table.search(Clip::search_clips("news", &[3.0, 4.0]).view::<ClipTitle>()).await.unwrap();
    assert_eq!(hits, [(ClipTitle { clip_id: "c1".into(), title: "Rain".into() }, 1.5)]);
    let sent = aws.sent();
    let projection = sent[0]["ProjectionExpression"].as_str().unwrap();
    let names = sent[0]["ExpressionAttributeNames"].as_object().unwrap();
    let read: Vec<&str> = projection.split(", ").map(|p| names[p].as_str().unwrap()).collect();
    assert!(read.contains(&"title") && read.contains(&"PK") && !read.contains(&"body"), "{read:?}");
}

/// Keeps the body of every CreateTable and UpdateTable (which DynamoDB Local then answers: it
/// accepts `VectorIndexes` and keeps none, and answers `VectorIndexUpdates` "Nothing to
/// update"); with `described`, adds the vector indexes AWS would report to DescribeTable's
/// answers (`VectorIndexDescription`, as the SDK's model defines it).
#[derive(Debug, Clone, Default)]
struct CreateTables(Arc<Mutex<Vec<Json>>>, Arc<Mutex<Vec<aws_sdk_dynamodb::types::VectorIndexDescription>>>);

impl Intercept for CreateTables {
    fn name(&self) -> &'static str {
        "CreateTables"
    }

    fn modify_before_signing(
        &self,
        ctx: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request_mut();
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        if target == "DynamoDB_20120810.CreateTable" || target == "DynamoDB_20120810.UpdateTable" {
            let text = request.body().bytes().map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            self.0.lock().unwrap().push(serde_json::from_str(&text)?);
        }
        Ok(())
    }

    fn modify_before_attempt_completion(
        &self,
        ctx: &mut aws_sdk_dynamodb::config::interceptors::FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let described = self.1.lock().unwrap().clone();
        if described.is_empty() {
            return Ok(());
        }
        let Some(Ok(output)) = ctx.output_or_error_mut() else { return Ok(()) };
        if let Some(out) = output.downcast_mut::<aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput>()
            && let Some(t) = out.table.as_mut()
        {
            t.vector_indexes = Some(described);
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_vector_index_added_to_a_live_table_is_planned_and_applied() {
    use aws_sdk_dynamodb::types::{IndexStatus, VectorIndexDescription};
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

    let seen = CreateTables::default();
    let config = table.client().config().to_builder().interceptor(seen.clone());
    let tapped = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name());
    // DynamoDB Local answers the UpdateTable "Nothing to update": apply says so and goes on.
    let applied = tapped.apply(&wanted).await.unwrap();
    assert_eq!(applied.changes, plan.changes);
    let sent = seen.0.lock().unwrap().clone();
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
    // Once DynamoDB reports the index (injected: Local does not), nothing is left to plan.
    seen.1.lock().unwrap().push(
        VectorIndexDescription::builder().index_name("Similar").index_status(IndexStatus::Active).dimensions(3).build(),
    );
    let plan = tapped.plan(&wanted).await.unwrap();
    assert!(plan.is_empty(), "{plan}");
}

#[tokio::test]
async fn create_table_carries_the_vector_indexes_as_the_sdk_model_defines_them() {
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let seen = CreateTables::default();
    let config = client.config().to_builder().interceptor(seen.clone());
    let name = format!("vector-create-{}", std::process::id());
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), &name);
    table.create_table(&[Doc::SCHEMA, Note::SCHEMA]).await.unwrap();
    let clips = Table::new(table.client().clone(), format!("{name}-clips"));
    clips.create_table(&[Clip::SCHEMA]).await.unwrap();
    let sent = seen.0.lock().unwrap().clone();
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
    // Local keeps none of them.
    let described = table.client().describe_table().table_name(&name).send().await.unwrap();
    assert!(described.table().unwrap().vector_indexes().is_empty());
    // The definition refuses one index declared twice differently.
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
