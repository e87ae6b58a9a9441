use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "TENANT#<tenant_id>#USER#<id>"]
pub struct User {
    pub tenant_id: String,
    pub id: String,
    #[unique(scope = "tenant_id")]
    pub email: String,
}

fn main() {}
