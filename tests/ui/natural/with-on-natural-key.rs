use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "<day>"]
#[entity(pk_attr = "day", type_attr = false, owns_partition = true)]
struct Day {
    #[entity(with = "dynamo_entity::time::epoch_seconds")]
    day: std::time::SystemTime,
    note: String,
}

fn main() {}
