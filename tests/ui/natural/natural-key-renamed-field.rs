use dynamo_entity::Entity;

// Meant as the table keyed on `match_id`'s own attribute, which is stored as `matchId`.
#[derive(Entity)]
#[pk = "<match_id>"]
#[entity(pk_attr = "match_id", rename_all = "camelCase", type_attr = false, owns_partition = true)]
struct Match {
    match_id: String,
    round: String,
}

fn main() {}
