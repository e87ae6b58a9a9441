// A type that is not `KeyPart`, in an index key and the table's: one error at the field, not one per use
// (the key is written, and read back from the index to restore the field).
use dynamo_entity::Entity;

#[derive(Debug, Clone, PartialEq)]
pub enum Status { Open, Closed }

#[derive(Entity)]
#[pk = "ORG#<org>"]
#[sk = "TICKET#<id>"]
#[gsi1(pk = "ORG#<org>#STATUS#<status>", sk = "TICKET#<id>", query = "by_status")]
pub struct Ticket {
    pub org: String,
    pub id: String,
    pub status: Status,
}

fn main() {}
