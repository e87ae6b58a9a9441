use dynamo_entity::Entity;

// A search schema's attribute is declared in the table's AttributeDefinitions, which take a
// string, a number or binary: a `bool` filter field cannot be one.
#[derive(Entity)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "DOC#<doc_id>"]
#[vector(index = "Similar", field = "embedding", dimensions = 3, hash = "tenant_id", filter = ["public"],
         query = "similar")]
pub struct Doc {
    pub tenant_id: String,
    pub doc_id: String,
    pub public: bool,
    pub embedding: Vec<f32>,
}

fn main() {}
