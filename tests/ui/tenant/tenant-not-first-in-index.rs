use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "EMAIL#<email>", sk = "USER", query = "by_email")]
#[gsi2(pk = "TENANT#<tenant_id>#TEAM#<team>", sk = "<user_id>", query = "by_team")]
#[gsi3(pk = "TEAM#<team>#TENANT#<tenant_id>", sk = "<user_id>", query = "by_team_again")]
#[entity(tenant = "tenant_id")]
pub struct User {
    pub tenant_id: String,
    pub user_id: String,
    pub email: String,
    pub team: String,
}

fn main() {}
