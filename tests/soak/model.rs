//! The soak's entities: together they use every feature with an invariant.

use dynamo_entity::{Collection, Entity};

/// Versioned, with a `#[unique]` email, a sparse index (`nick`) and an index sharded by `id`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ACCT#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "NICK#<nick>", sk = "ACCT#<id>", query = "by_nick")]
#[gsi2(pk = "ORG#<org>#<shard>", sk = "ACCT#<id>", query = "by_org", shards = 4, shard_by = "id")]
pub struct Account {
    pub id: String,
    pub org: String,
    #[unique]
    pub email: String,
    pub nick: Option<String>,
    pub balance: i64,
    #[version]
    pub version: u64,
}

/// Append-only events in a table partition sharded by `id`: queried page by page.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "FEED#<feed>#<shard>"]
#[sk = "EV#<seq:10>#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct Event {
    pub feed: String,
    pub seq: u64,
    pub id: String,
    pub by: u32,
}

/// Append-only notes in an unsharded partition, beside their feed's head: a collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LOG#<feed>"]
#[sk = "N#<seq:10>#<id>"]
pub struct Note {
    pub feed: String,
    pub seq: u64,
    pub id: String,
    pub by: u32,
}

/// A feed's counter of notes, kept with `ADD` by upserts.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "LOG#<feed>"]
#[sk = "HEAD"]
pub struct Head {
    pub feed: String,
    #[entity(default)]
    pub notes: i64,
}

/// A feed's head and notes, read together.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum Log {
    Head(Head),
    Note(Note),
}

/// A tenant's member: the handle is unique within the tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant>#M#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "TENANT#<tenant>#ROLE#<role>", sk = "M#<id>", query = "by_role")]
#[entity(tenant = "tenant")]
pub struct Member {
    pub tenant: String,
    pub id: String,
    #[unique]
    pub handle: String,
    pub role: String,
}

/// Tickets as first written: `migrate` turns them into [`Ticket`] in place.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TICKET#<id>"]
#[sk = "T"]
#[entity(type_name = "TicketV1")]
pub struct TicketV1 {
    pub id: String,
    #[unique]
    pub code: String,
}

/// Tickets today: the same key, a new type name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TICKET#<id>"]
#[sk = "T"]
pub struct Ticket {
    pub id: String,
    #[unique]
    pub code: String,
    #[entity(default)]
    pub state: String,
}

/// Every entity of the soak's table.
pub fn schemas() -> Vec<dynamo_entity::EntitySchema> {
    vec![Account::SCHEMA, Event::SCHEMA, Note::SCHEMA, Head::SCHEMA, Member::SCHEMA, TicketV1::SCHEMA, Ticket::SCHEMA]
}

/// The unique fields: (type name, attribute) of each.
pub const UNIQUE: &[(&str, &str)] =
    &[("Account", "email"), ("Member", "handle"), ("TicketV1", "code"), ("Ticket", "code"), ("Profile", "handle")];

// ---------------------------------------------------------------------------------------------
// The fourth stage's features (issue 45 item 20).

/// A profile's document: one slot per client (a map key each), written by nested updates.
#[derive(dynamo_entity::Document, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Prefs {
    pub theme: String,
    pub slots: std::collections::BTreeMap<String, u64>,
}

/// A parent that is sometimes absent: a nested update under it is `Error::MissingParent`.
#[derive(dynamo_entity::Document, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Extra {
    pub note: String,
    pub hits: u64,
}

/// Nested documents on a versioned entity with a unique field: concurrent nested updates of one
/// document, version conflicts, missing parents.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PROFILE#<id>"]
#[sk = "P"]
pub struct Profile {
    pub id: String,
    #[unique]
    pub handle: String,
    pub prefs: Prefs,
    pub extra: Option<Extra>,
    #[version]
    pub version: u64,
}

/// Keyed on its creation time, in the table's sort key and in an index's (`GSI3`, which the
/// soak's table starts without when `apply` adds it in the middle).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "BUYER#<user_id>"]
#[sk = "ORDER#<created>#<id>"]
#[gsi3(pk = "FEED#<user_id>", sk = "<created>#<id>", query = "feed")]
pub struct Order {
    pub user_id: String,
    pub id: String,
    #[created_at]
    pub created: std::time::SystemTime,
    #[updated_at]
    pub updated: Option<std::time::SystemTime>,
    pub total: u32,
}

/// Keyed on its creation time in an index only (`GSI3`, beside the orders of its user).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "BUYER#<user_id>"]
#[sk = "POST#<id>"]
#[gsi3(pk = "FEED#<user_id>", sk = "<created>#<id>", query = "feed")]
pub struct Post {
    pub user_id: String,
    pub id: String,
    #[created_at]
    pub created: std::time::SystemTime,
    pub text: String,
}

/// An integer tenant leading a multi-attribute index: the tenant's key text is the padded
/// number (`TENANT#0000000007#DOC#..`), the index holds the number itself.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<org_no>#DOC#<id>"]
#[sk = "DOC"]
#[gsi4(index = "ByOrg", pk = ["org_no", "kind"], sk = ["rank"], query = "by_org")]
#[entity(tenant = "org_no")]
pub struct Doc {
    pub org_no: u32,
    pub id: String,
    pub kind: String,
    pub rank: u32,
}

/// Marks put and deleted by `write_batch` beside events and notes (only their client writes
/// them).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MARK#<owner>"]
#[sk = "M#<n:10>"]
pub struct Mark {
    pub owner: u32,
    pub n: u64,
}

/// Every entity of the soak's table, the fourth stage's included.
pub fn all_schemas() -> Vec<dynamo_entity::EntitySchema> {
    let mut all = schemas();
    all.extend([Profile::SCHEMA, Order::SCHEMA, Post::SCHEMA, Doc::SCHEMA, Mark::SCHEMA]);
    all
}
