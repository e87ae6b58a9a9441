use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "ORG#<org>", sk = "USER#<user_id>", query = "by_user_1")]
#[gsi2(pk = "TEAM#<team>", sk = "USER#<user_id>", query = "by_user1")]
pub struct User {
    pub user_id: String,
    pub org: String,
    pub team: String,
}

fn main() {}
