//! AWS's published "Complaint management" design (aws-samples/aws-dynamodb-examples,
//! schema_design/SchemaExamples/ComplainManagement) read and written as entities (issue 33,
//! items 13 to 16): a communication keeps `comm_id` and `comm_date` as attributes but not its
//! complaint's id (only in `PK`), attachments are a string set (`SS`), and no item carries a
//! type attribute.

mod common;

use std::collections::{BTreeSet, HashSet};

use dynamo_entity::{AttributeValue, Collection, Entity, EntityKey, Error, Item, Table, TableDefinition};

/// A complaint's metadata: `PK = <complaint_id>`, `SK = metadata`; the complaints of a customer
/// (on the plain attributes `customer_id`, `complaint_id`), escalations to an agent.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<complaint_id>"]
#[sk = "metadata"]
#[gsi1(
    index = "Customer_Complaint_GSI",
    pk_attr = "customer_id",
    pk = "<customer_id>",
    sk_attr = "complaint_id",
    sk = "<complaint_id>",
    query = "complaints_of_customer"
)]
#[gsi2(
    index = "Escalations_GSI",
    pk_attr = "escalated_to",
    pk = "<escalated_to>",
    sk_attr = "escalation_time",
    sk = "<escalation_time>",
    query = "escalations_to"
)]
#[entity(type_attr = false, type_name = "Complaint")]
pub struct ComplaintRecord {
    pub customer_id: String,
    pub complaint_id: String,
    pub current_state: String,
    pub creation_time: String,
    pub severity: String,
    pub complaint_description: String,
    pub escalated_to: Option<String>,
    pub escalation_time: Option<String>,
}

/// A communication on a complaint: the complaint's id only in `PK`, `comm_id` and `comm_date`
/// both in `SK` and as attributes; the comments of an agent by date.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<complaint_id>"]
#[sk = "comm#<comm_date>#<comm_id>"]
#[gsi3(
    index = "Agents_Comments_GSI",
    pk_attr = "agentID",
    pk = "<agent_id>",
    sk_attr = "comm_date",
    sk = "<comm_date>",
    query = "comments_of_agent"
)]
#[entity(type_attr = false)]
pub struct Communication {
    #[entity(key_attribute = false)]
    pub complaint_id: String,
    pub comm_id: String,
    pub comm_date: String,
    pub complaint_state: String,
    pub comm_text: String,
    #[entity(with = "dynamo_entity::sets::string_set")]
    pub attachments: Option<BTreeSet<String>>,
    #[entity(rename = "agentID")]
    pub agent_id: Option<String>,
}

/// The same items read with the attachments as a `Vec` (the type that failed on `SS`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<complaint_id>"]
#[sk = "comm#<comm_date>#<comm_id>"]
#[entity(type_attr = false, key_attributes = false)]
pub struct CommAttachments {
    pub complaint_id: String,
    pub comm_date: String,
    pub comm_id: String,
    #[entity(default)]
    pub attachments: Vec<String>,
}

/// The partition of a complaint: its metadata and its communications.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum ComplaintPartition {
    Complaint(ComplaintRecord),
    Communication(Communication),
}

/// A survey answer written by other code with a number set, and a string set of labels.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SURVEY#<id>"]
#[sk = "SURVEY"]
pub struct Survey {
    pub id: String,
    /// Read from `NS` through serde.
    pub scores: Vec<u32>,
    #[entity(with = "dynamo_entity::sets::number_set")]
    pub ratings: BTreeSet<u8>,
    #[entity(with = "dynamo_entity::sets::string_set")]
    pub labels: HashSet<String>,
}

/// An agent whose struct was renamed: `type_name` keeps its guards' and capacity rows' name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "AGENT#<agent_id>"]
#[sk = "AGENT"]
#[entity(type_attr = false, type_name = "Agent")]
pub struct AgentV2 {
    pub agent_id: String,
    #[unique]
    pub email: String,
}

/// Key fields kept in the keys only, read through an index that includes the other attribute:
/// nothing is missing from the index (the keys give the key fields back).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<note_id>"]
#[sk = "AT#<at>"]
#[gsi4(index = "ByAuthor", pk = "AUTHOR#<author>", sk = "AT#<at>", include = "text", query = "notes_of")]
#[entity(key_attributes = false)]
pub struct Note {
    pub note_id: String,
    pub at: String,
    pub author: String,
    pub text: String,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn ss(v: &[&str]) -> AttributeValue {
    AttributeValue::Ss(v.iter().map(|x| (*x).to_owned()).collect())
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

/// The design's communications and two of its complaints, as published.
fn published() -> Vec<Item> {
    let comm = |pk: &str, date: &str, id: &str, state: &str, attachments: Option<&[&str]>, agent: Option<&str>| {
        let mut i = item(&[
            ("PK", s(pk)),
            ("SK", s(&format!("comm#{date}#{id}"))),
            ("comm_id", s(id)),
            ("comm_date", s(date)),
            ("complaint_state", s(state)),
            ("comm_text", s("<comm text>")),
        ]);
        if let Some(a) = attachments {
            i.insert("attachments".into(), ss(a));
        }
        if let Some(a) = agent {
            i.insert("agentID".into(), s(a));
        }
        i
    };
    vec![
        comm("Complaint123", "2023-04-30T12:00:24", "comm1", "investigating", None, Some("AgentA")),
        comm(
            "Complaint123",
            "2023-04-30T12:35:54",
            "comm2",
            "resolved",
            Some(&["s3://URL_for_attachment1", "s3://URL_for_attachment2"]),
            Some("AgentA"),
        ),
        comm("Complaint1444", "2022-12-31T19:32:00", "comm4", "waiting", None, None),
        comm(
            "Complaint1444",
            "2022-12-31T19:40:00",
            "comm5",
            "assigned",
            Some(&["s3://URL_for_attachment1"]),
            Some("AgentC"),
        ),
        item(&[
            ("PK", s("Complaint123")),
            ("SK", s("metadata")),
            ("customer_id", s("custABC")),
            ("complaint_id", s("Complaint123")),
            ("current_state", s("resolved")),
            ("creation_time", s("2023-04-30T12:00:00")),
            ("severity", s("P2")),
            ("complaint_description", s("<description text>")),
        ]),
        item(&[
            ("PK", s("Complaint1444")),
            ("SK", s("metadata")),
            ("customer_id", s("custXY32")),
            ("complaint_id", s("Complaint1444")),
            ("current_state", s("assigned")),
            ("creation_time", s("2022-12-31T19:39:57")),
            ("severity", s("P1")),
            ("complaint_description", s("<description text>")),
            ("escalated_to", s("AgentB")),
            ("escalation_time", s("2023-01-03T04:00:07")),
        ]),
    ]
}

fn comm2() -> Communication {
    Communication {
        complaint_id: "Complaint123".into(),
        comm_id: "comm2".into(),
        comm_date: "2023-04-30T12:35:54".into(),
        complaint_state: "resolved".into(),
        comm_text: "<comm text>".into(),
        attachments: Some(["s3://URL_for_attachment1".to_owned(), "s3://URL_for_attachment2".to_owned()].into()),
        agent_id: Some("AgentA".into()),
    }
}

fn comm4() -> Communication {
    Communication {
        complaint_id: "Complaint1444".into(),
        comm_id: "comm4".into(),
        comm_date: "2022-12-31T19:32:00".into(),
        complaint_state: "waiting".into(),
        comm_text: "<comm text>".into(),
        attachments: None,
        agent_id: None,
    }
}

fn escalated() -> ComplaintRecord {
    ComplaintRecord {
        customer_id: "custXY32".into(),
        complaint_id: "Complaint1444".into(),
        current_state: "assigned".into(),
        creation_time: "2022-12-31T19:39:57".into(),
        severity: "P1".into(),
        complaint_description: "<description text>".into(),
        escalated_to: Some("AgentB".into()),
        escalation_time: Some("2023-01-03T04:00:07".into()),
    }
}

async fn table(test: &str) -> Table {
    let table = common::table(
        test,
        &[ComplaintRecord::SCHEMA, Communication::SCHEMA, Survey::SCHEMA, AgentV2::SCHEMA, Note::SCHEMA],
    )
    .await;
    for i in published() {
        table.client().put_item().table_name(table.name()).set_item(Some(i)).send().await.unwrap();
    }
    table
}

/// The stored item with `key`, as it is.
async fn raw(table: &Table, key: Item) -> Option<Item> {
    table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.unwrap().item
}

/// Sets in the order written: DynamoDB keeps a set's values in an order of its own.
fn sorted(mut i: Item) -> Item {
    for v in i.values_mut() {
        if let AttributeValue::Ss(x) | AttributeValue::Ns(x) = v {
            x.sort();
        }
    }
    i
}

#[tokio::test]
async fn the_published_items_are_read_whole() {
    let table = table("complaints-read").await;
    // The complaint's id from `PK`; `comm_id` and `comm_date` from their attributes.
    assert_eq!(
        table.get(Communication::key("Complaint123", "2023-04-30T12:35:54", "comm2")).await.unwrap(),
        Some(comm2())
    );
    let of_1444 = table.query_all(Communication::query_by_complaint("Complaint1444")).await.unwrap();
    assert_eq!(of_1444.len(), 2);
    assert_eq!(of_1444[0], comm4());
    // Through the agents' index, which holds neither the complaint's id nor a type attribute.
    let of_a = table.query_all(Communication::query_comments_of_agent("AgentA")).await.unwrap();
    assert_eq!(of_a.iter().map(|c| c.comm_id.as_str()).collect::<Vec<_>>(), ["comm1", "comm2"]);
    assert_eq!(of_a[1], comm2());
    // A string set read into a `Vec<String>` (it was "expected a list (L), found a string set (SS)").
    let listed =
        table.get(CommAttachments::key("Complaint123", "2023-04-30T12:35:54", "comm2")).await.unwrap().unwrap();
    let mut urls = listed.attachments;
    urls.sort();
    assert_eq!(urls, ["s3://URL_for_attachment1", "s3://URL_for_attachment2"]);
    // The complaints: on the plain attributes of two indexes, and the partition as a collection.
    assert_eq!(table.query_all(ComplaintRecord::query_escalations_to("AgentB")).await.unwrap(), vec![escalated()]);
    let of_customer = table.query_all(ComplaintRecord::query_complaints_of_customer("custXY32")).await.unwrap();
    assert_eq!(of_customer, vec![escalated()]);
    let partition =
        table.query_all(ComplaintPartition::query(Communication::partition("Complaint1444"))).await.unwrap();
    assert_eq!(partition.len(), 3, "{partition:?}");
}

#[tokio::test]
async fn the_entities_write_the_published_items_byte_for_byte() {
    let table = table("complaints-write").await;
    let published = published();
    assert_eq!(comm2().to_item().unwrap(), published[1], "comm_id kept, complaint_id not, attachments a set");
    assert_eq!(comm4().to_item().unwrap(), published[2], "no attachments, no agent: no attribute");
    assert_eq!(escalated().to_item().unwrap(), published[5]);

    // Written through the table: stored as published, under a new key.
    let mut new = comm2();
    new.complaint_id = "Complaint9".into();
    table.put(&new).await.unwrap();
    let key = Communication::key("Complaint9", "2023-04-30T12:35:54", "comm2").to_key_item().unwrap();
    let mut expected = published[1].clone();
    expected.insert("PK".into(), s("Complaint9"));
    assert_eq!(sorted(raw(&table, key.clone()).await.unwrap()), expected);
    // An update keeps it so: `comm_id` (a key field stored as an attribute) stays, the complaint's
    // id stays out.
    let updated = table
        .update(
            Communication::update_from(&new)
                .set(Communication::fields().comm_text, "answered".to_owned())
                .remove(Communication::fields().attachments),
        )
        .await
        .unwrap();
    assert_eq!(updated.attachments, None);
    expected.insert("comm_text".into(), s("answered"));
    expected.remove("attachments");
    assert_eq!(raw(&table, key).await.unwrap(), expected);
}

#[tokio::test]
async fn sets_are_read_from_raw_items_and_written_as_sets() {
    let table = table("complaints-sets").await;
    let raw_item = item(&[
        ("PK", s("SURVEY#s1")),
        ("SK", s("SURVEY")),
        ("entity_type", s("Survey")),
        ("id", s("s1")),
        ("scores", AttributeValue::Ns(vec!["7".into(), "3".into()])),
        ("ratings", AttributeValue::Ns(vec!["5".into(), "1".into()])),
        ("labels", ss(&["b", "a"])),
    ]);
    table.client().put_item().table_name(table.name()).set_item(Some(raw_item.clone())).send().await.unwrap();
    let mut read = table.get(Survey::key("s1")).await.unwrap().unwrap();
    read.scores.sort();
    assert_eq!(read.scores, [3, 7]);
    assert_eq!(read.ratings, BTreeSet::from([1, 5]));
    assert_eq!(read.labels, HashSet::from(["a".to_owned(), "b".to_owned()]));

    // Written back: sets again (a `Vec` without a set module is a list).
    let survey = Survey { id: "s2".into(), ..read.clone() };
    table.put(&survey).await.unwrap();
    let stored = sorted(raw(&table, Survey::key("s2").to_key_item().unwrap()).await.unwrap());
    assert_eq!(stored["ratings"], AttributeValue::Ns(vec!["1".into(), "5".into()]));
    assert_eq!(stored["labels"], ss(&["a", "b"]));
    assert!(matches!(stored["scores"], AttributeValue::L(_)));
    assert_eq!(table.get(Survey::key("s2")).await.unwrap(), Some(survey));

    // An empty set is refused before anything is sent, naming the attribute.
    let empty = Survey { id: "s3".into(), labels: HashSet::new(), ..read };
    let before = table.capacity().rows().iter().map(|r| r.capacity.requests).sum::<u64>();
    match table.put(&empty).await {
        Err(Error::Validation(m)) => assert!(m.contains("`labels`") && m.contains("empty"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(table.capacity().rows().iter().map(|r| r.capacity.requests).sum::<u64>(), before, "nothing sent");
    assert_eq!(raw(&table, Survey::key("s3").to_key_item().unwrap()).await, None);
}

#[tokio::test]
async fn type_name_names_guards_and_capacity_rows_without_a_type_attribute() {
    let table = table("complaints-type-name").await;
    let agent = AgentV2 { agent_id: "a1".into(), email: "a@x.io".into() };
    assert!(!agent.to_item().unwrap().contains_key("entity_type"));
    table.reset_capacity();
    table.create(&agent).await.unwrap();
    let guard = item(&[("PK", s("UNIQUE#Agent#email#a@x.io")), ("SK", s("UNIQUE"))]);
    assert!(raw(&table, guard).await.is_some(), "the guard is named after the type name, not the struct");
    let rows = table.capacity();
    assert!(rows.rows().iter().all(|r| r.entity == "Agent"), "{:?}", rows.rows());
    let twin = AgentV2 { agent_id: "a2".into(), email: "a@x.io".into() };
    assert!(matches!(table.create(&twin).await, Err(Error::UniqueViolation { .. })));
}

#[tokio::test]
async fn key_fields_kept_in_the_keys_are_not_missing_from_an_index() {
    let table = table("complaints-projection").await;
    let note = Note { note_id: "n1".into(), at: "2024".into(), author: "ana".into(), text: "hi".into() };
    table.put(&note).await.unwrap();
    // The index holds the keys and `text`: the key fields come back from the keys.
    assert_eq!(table.query_all(Note::query_notes_of("ana")).await.unwrap(), vec![note]);
}

#[test]
fn the_documents_say_what_items_hold() {
    // A collection's members make a table definition as they are.
    let def = TableDefinition::from_entities(ComplaintPartition::MEMBERS).unwrap();
    let md = def.to_markdown("complaints");
    assert!(!md.contains("``"), "{md}");
    let row = |entity: &str| {
        md.lines().find(|l| l.starts_with(&format!("| {entity} | none"))).unwrap_or_else(|| panic!("{md}"))
    };
    let comm = row("Communication");
    assert!(comm.contains("`comm_id`") && comm.contains("`agentID`") && !comm.contains("`complaint_id`"), "{comm}");
    assert!(row("Complaint").contains("`complaint_id`"));
    let agents = TableDefinition::from_entities(&[AgentV2::SCHEMA]).unwrap().to_markdown("agents");
    assert!(
        agents.contains("| Agent | `email` | `PK` = `UNIQUE#Agent#email#<email>` | `SK` = `UNIQUE` | none |"),
        "{agents}"
    );
    let notes = TableDefinition::from_entities(&[Note::SCHEMA]).unwrap().to_markdown("notes");
    // A view-only role's attributes: the keys and the named ones, no empty type attribute.
    let policy = dynamo_entity::IamPolicy::read_only().table_name("complaints").attributes(["severity"]);
    let json: serde_json::Value = serde_json::from_str(&def.iam_policy(&policy).unwrap()).unwrap();
    assert_eq!(
        json["Statement"][0]["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"],
        serde_json::json!([
            "PK",
            "SK",
            "agentID",
            "comm_date",
            "complaint_id",
            "customer_id",
            "escalated_to",
            "escalation_time",
            "severity"
        ])
    );
    // Key fields kept in the keys only are no attributes of the items.
    assert!(notes.contains("| Note | `entity_type` = `Note` | `text` |"), "{notes}");
}
