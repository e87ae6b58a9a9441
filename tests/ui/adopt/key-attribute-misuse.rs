use dynamo_entity::Entity;

// `key_attribute` on a field that is in no key template, where it changes nothing, on a field
// whose own attribute keys an index, and with a value that is not a bool.
#[derive(Entity)]
#[pk = "COMPLAINT#<complaint_id>"]
#[sk = "COMM#<comm_id>"]
#[gsi1(pk_attr = "agent", pk = "<agent>", sk = "COMM#<comm_id>", query = "by_agent")]
pub struct Communication {
    pub complaint_id: String,
    #[entity(key_attribute)]
    pub comm_id: String,
    #[entity(key_attribute = false)]
    pub agent: String,
    #[entity(key_attribute = false)]
    pub text: String,
    #[entity(key_attribute = "no")]
    pub note: String,
}

#[derive(Entity)]
#[pk = "COMPLAINT#<complaint_id>"]
#[sk = "COMM#<comm_id>"]
#[entity(key_attributes = false)]
pub struct Quiet {
    #[entity(key_attribute = false)]
    pub complaint_id: String,
    pub comm_id: String,
}

fn main() {}
