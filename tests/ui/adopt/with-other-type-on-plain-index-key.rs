use dynamo_entity::Entity;

// `score` keys ByScore on its own attribute, which the index declares a number (N, from `u64`):
// a `with` module storing a string (S) would make DynamoDB refuse every write, so it is refused.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(index = "ByScore", pk = "<score>", pk_attr = "score")]
pub struct User {
    pub user_id: String,
    #[entity(with = "as_text")]
    pub score: u64,
}

mod as_text {
    use dynamo_entity::{AttributeType, AttributeValue};
    pub const ATTRIBUTE_TYPE: AttributeType = AttributeType::S;
    pub fn encode(v: &u64) -> Result<AttributeValue, String> {
        Ok(AttributeValue::S(v.to_string()))
    }
    pub fn decode(v: AttributeValue) -> Result<u64, String> {
        match v {
            AttributeValue::S(s) => s.parse().map_err(|_| s),
            _ => Err("not S".into()),
        }
    }
}

fn main() {}
