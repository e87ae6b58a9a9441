use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<id>"]
pub struct User {
    pub id: String,
    #[unique]
    pub emails: Vec<String>,
    #[unique]
    pub score: Option<f64>,
}

fn main() {}
