use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
pub struct UserOrder {
    pub user_id: String,
    pub order_id: Option<String>,
}

fn main() {}
