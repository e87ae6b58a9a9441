use dynamo_entity::Entity;

// A primary-key field is the item's identity: its path compares, but no update writes it.
#[derive(Entity)]
#[pk = "USER#<user_id>"]
pub struct User {
    pub user_id: String,
    pub name: String,
}

fn main() {
    let f = User::fields();
    let _ = User::update(User::key("u1")).set(f.name, "Ann").set(f.user_id, "u2");
    let _ = f.user_id.eq("u1");
}
