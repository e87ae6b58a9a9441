use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "<user_id>"]
#[entity(pk_attr = "userId", rename_all = "camelCase", type_attr = false, owns_partition = true)]
struct User {
    user_id: String,
    #[unique]
    email: String,
}

fn main() {}
