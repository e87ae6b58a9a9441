use dynamo_entity::{Collection, Entity};

// A shared organisation record in the partition of its users: `ORG#*` would match every
// tenant's keys.
#[derive(Entity)]
#[pk = "ORG#<org_id>"]
#[sk = "ORG"]
#[entity(tenant_shared)]
pub struct Org {
    pub org_id: String,
}

#[derive(Entity)]
#[pk = "ORG#<tenant_id>"]
#[sk = "USER#<user_id>"]
#[entity(tenant = "tenant_id")]
pub struct OrgUser {
    pub tenant_id: String,
    pub user_id: String,
}

#[derive(Collection)]
pub enum OrgItems {
    Org(Org),
    User(OrgUser),
}

fn main() {}
