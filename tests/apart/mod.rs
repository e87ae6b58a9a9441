//! Two tenant entities whose partition keys name the tenant at different places, which
//! `iam_policy` (`tests/tenants.rs`) and per-tenant branch keys (`tests/encryption_kms.rs`)
//! refuse: tenant `AUDIT`'s projects (`ORG#AUDIT#PROJECTS`) start as the audit trail of a tenant
//! named `PROJECTS`.

use dynamo_entity::Entity;

/// A tenant's projects, under its tenant's partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#<org>#PROJECTS"]
#[sk = "PROJECT#<id>"]
#[entity(tenant = "org")]
pub struct Project {
    pub org: String,
    pub id: String,
    pub name: String,
}

/// Every tenant's audit trail under one literal prefix.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#AUDIT#<org>"]
#[sk = "EVENT#<id>"]
#[entity(tenant = "org")]
pub struct Audit {
    pub org: String,
    pub id: String,
    pub what: String,
}
