use dynamo_entity::Entity;

// A field that keys an index on its own attribute may be stored `with` a module only when the
// module states the attribute's type (`pub const ATTRIBUTE_TYPE: AttributeType`), checked to be
// the index key's: this module states none, so its type is unknown and the field is refused.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[gsi1(pk = "<score>", pk_attr = "score")]
pub struct User {
    pub user_id: String,
    #[entity(with = "my_format")]
    pub score: u64,
}

mod my_format {
    use dynamo_entity::AttributeValue;
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
