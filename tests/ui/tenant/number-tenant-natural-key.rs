use dynamo_entity::Entity;

// A number tenant keying the table on its own attribute: its text in a request is not the
// tenant's key text, so neither a tenant handle nor `dynamodb:LeadingKeys` could confine it.
#[derive(Entity)]
#[pk = "<tenant_id>"]
#[sk = "<doc_id>"]
#[entity(pk_attr = "tenant_id", sk_attr = "doc_id", tenant = "tenant_id")]
pub struct Doc {
    pub tenant_id: u64,
    pub doc_id: String,
}

fn main() {}
