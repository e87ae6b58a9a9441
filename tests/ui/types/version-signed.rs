use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "STOCK#<sku>"]
pub struct Stock {
    pub sku: String,
    #[version]
    pub version: i64,
}

fn main() {}
