use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<usr_id>"]
#[sk = "ORDER#<a><b>"]
#[entity(rename_all = "camel", table = "Users")]
pub struct UserOrder {
    pub user_id: String,
    pub a: String,
    pub b: String,
}

fn main() {}
