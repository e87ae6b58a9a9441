use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<created_at><order_id>"]
pub struct UserOrder {
    pub user_id: String,
    pub created_at: String,
    pub order_id: String,
}

fn main() {}
