use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(tenant = "tenant_id")]
pub struct User {
    pub tenant_id: Option<String>,
    pub user_id: String,
}

fn main() {}
