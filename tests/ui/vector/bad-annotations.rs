use dynamo_entity::Entity;

// `#[vector(..)]` mistakes, one error each: a vector field that is not `Vec<f32>`, too many
// dimensions, an unknown distance, a hash field the struct lacks, the vector as its own filter,
// a missing `query`.
#[derive(Entity)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "DOC#<doc_id>"]
#[vector(index = "ByText", field = "text", dimensions = 3, query = "by_text")]
#[vector(index = "Huge", field = "embedding", dimensions = 5000, query = "huge")]
#[vector(index = "Odd", field = "embedding", dimensions = 3, distance = "manhattan", query = "odd")]
#[vector(index = "NoHash", field = "embedding", dimensions = 3, hash = "owner", query = "no_hash")]
#[vector(index = "Itself", field = "embedding", dimensions = 3, filter = ["embedding"], query = "itself")]
#[vector(index = "NoQuery", field = "embedding", dimensions = 3)]
pub struct Doc {
    pub tenant_id: String,
    pub doc_id: String,
    pub text: String,
    pub embedding: Vec<f32>,
}

fn main() {}
