use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<order_id>", include = "cache, total, total")]
#[gsi2(pk = "DAY#<status>", include = "total,, ")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: String,
    pub total: u64,
    #[entity(skip)]
    pub cache: u64,
}

fn main() {}
