use dynamo_entity::Document;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
pub struct Meters(pub f64);

#[derive(Document, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Wrapped {
    pub inner: String,
}

#[derive(Document, Serialize, Deserialize)]
pub enum Shape {
    Circle { r: f64 },
}

fn main() {}
