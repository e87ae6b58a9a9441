use dynamo_entity::{Document, Entity};
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Address {
    pub city: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "CITY#<address.city>", sk = "<id>")]
pub struct Customer {
    pub id: String,
    pub address: Address,
}

fn main() {}
