use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<order_id>", projection = "include")]
#[lsi1(sk = "TOTAL#<total_amount>", projection = "KEYS_ONLY")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: String,
    pub total_amount: u64,
}

fn main() {}
