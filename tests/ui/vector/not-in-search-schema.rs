use dynamo_entity::Entity;

// Only the search schema's INLINE_FILTER fields have comparisons: `title` is not one of them.
#[derive(Entity)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "DOC#<doc_id>"]
#[vector(index = "Similar", field = "embedding", dimensions = 3, hash = "tenant_id", filter = ["category"],
         query = "similar")]
pub struct Doc {
    pub tenant_id: String,
    pub doc_id: String,
    pub category: String,
    pub title: String,
    pub embedding: Vec<f32>,
}

fn main() {
    let _ = Doc::search_similar("t1", &[1.0, 0.0, 0.0]).category().eq("manuals").title().eq("x");
}
