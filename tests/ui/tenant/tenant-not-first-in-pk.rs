use dynamo_entity::Entity;

// The tenant comes second.
#[derive(Entity)]
#[pk = "USER#<user_id>#TENANT#<tenant_id>"]
#[sk = "PROFILE"]
#[entity(tenant = "tenant_id")]
pub struct User {
    pub tenant_id: String,
    pub user_id: String,
}

// The tenant is not in the partition key at all.
#[derive(Entity)]
#[pk = "ORDER#<order_id>"]
#[sk = "TENANT#<tenant_id>"]
#[entity(tenant = "tenant_id")]
pub struct Order {
    pub tenant_id: String,
    pub order_id: String,
}

// `<shard>` comes first.
#[derive(Entity)]
#[pk = "<shard>#TENANT#<tenant_id>"]
#[sk = "EVENT#<seq:10>"]
#[entity(tenant = "tenant_id", shards = 4, shard_by = "tenant_id")]
pub struct Event {
    pub tenant_id: String,
    pub seq: u64,
}

// A raw tenant may hold `#`.
#[derive(Entity)]
#[pk = "TENANT#<tenant_id:raw>"]
#[sk = "SETTINGS"]
#[entity(tenant = "tenant_id")]
pub struct Settings {
    pub tenant_id: String,
}

fn main() {}
