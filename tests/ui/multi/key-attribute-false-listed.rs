use dynamo_entity::Entity;

// `key_attribute = false` on a listed field: the index is keyed on the field's own attribute,
// so the attribute is written, whether the list names the field first or later.
#[derive(Entity)]
#[pk = "COMPLAINT#<complaint_id>"]
#[sk = "COMM#<comm_id>"]
#[gsi1(index = "ByAgent", pk = ["agent", "comm_id"])]
pub struct Communication {
    pub complaint_id: String,
    #[entity(key_attribute = false)]
    pub comm_id: String,
    pub agent: String,
}

#[derive(Entity)]
#[pk = "COMPLAINT#<complaint_id>"]
#[sk = "COMM#<comm_id>"]
#[gsi1(index = "ByAgent", pk = ["agent"], sk = ["comm_date", "comm_id"])]
pub struct Dated {
    pub complaint_id: String,
    #[entity(key_attribute = false)]
    pub comm_id: String,
    pub agent: String,
    #[entity(key_attribute = false)]
    pub comm_date: String,
}

fn main() {}
