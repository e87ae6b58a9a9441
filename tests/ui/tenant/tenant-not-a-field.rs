use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(tenant = "tenant")]
pub struct User {
    pub tenant_id: String,
    pub user_id: String,
}

fn main() {}
