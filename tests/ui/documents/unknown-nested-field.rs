use dynamo_entity::{Document, Entity};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
    #[serde(skip)]
    pub cache: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<id>"]
#[sk = "PROFILE"]
pub struct Customer {
    pub id: String,
    pub address: Address,
    pub tags: Vec<String>,
}

fn main() {
    let f = Customer::fields();
    // Not stored: no path.
    let _ = f.address.cache;
    // Not a list, not a map.
    let _ = f.address.city.at(0);
    let _ = f.tags.key("a");
}
