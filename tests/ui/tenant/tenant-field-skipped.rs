use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[entity(tenant = "tenant_id")]
pub struct User {
    #[entity(skip)]
    pub tenant_id: String,
    pub user_id: String,
}

fn main() {}
