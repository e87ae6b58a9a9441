use dynamo_entity::prelude::*;

// A misspelt placeholder in an entity that the rest of the file uses: one error, at the
// template; the query named after the field it meant (`query_by_user`) is still declared.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<usr_id>"]
#[sk = "PROFILE"]
pub struct User {
    pub user_id: String,
    pub name: String,
}

pub async fn uses(table: &Table) -> Result<(), dynamo_entity::Error> {
    let _: Option<User> = table.get(User::key("u1")).await?;
    let _: Vec<User> = table.query_all(User::query_by_user("u1")).await?;
    let _: User = table.update(User::update(User::key("u1")).set(User::fields().name, "Ann")).await?;
    Ok(())
}

fn main() {}
