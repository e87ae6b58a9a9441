use dynamo_entity::Entity;

pub struct Email(String);

// Macro errors (an unknown field, an `Option` in the primary key) and trait-bound errors (a
// width on a `String`, a key component that is not `KeyPart`, a `#[ttl]` that is not a time),
// all in one build.
#[derive(Entity)]
#[pk = "USER#<usr_id>"]
#[sk = "ORDER#<order_id>#<code:4>"]
#[gsi1(pk = "EMAIL#<email>")]
pub struct UserOrder {
    pub user_id: String,
    pub order_id: Option<String>,
    pub code: String,
    pub email: Email,
    #[ttl]
    pub expires_ms: u64,
}

fn main() {}
