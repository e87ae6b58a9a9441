use dynamo_entity::Entity;

// A key field is read back from the key when its attribute is missing: `default` is a mistake.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<order_id>")]
pub struct Order {
    pub user_id: String,
    #[entity(default)]
    pub order_id: String,
    // Fine: a field of an index key only.
    #[entity(default)]
    pub status: String,
}

fn main() {}
