use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<order_id>", include = "total, notes")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: String,
    pub total_amount: u64,
    pub notes: String,
}

fn main() {}
