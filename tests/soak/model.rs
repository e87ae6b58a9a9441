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
    &[("Account", "email"), ("Member", "handle"), ("TicketV1", "code"), ("Ticket", "code")];
