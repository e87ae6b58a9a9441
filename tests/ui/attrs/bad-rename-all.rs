use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "USER#<user_id>"]
#[entity(rename_all = "camel_case")]
pub struct User {
    pub user_id: String,
}

fn main() {}
