use dynamo_entity::KeyPart;

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub enum Status {
    #[key(rename = "BATTERY#LOW")]
    BatteryLow,
    #[key(rename = "OK")]
    Ok,
    #[key(rename = "OK")]
    Fine,
}

fn main() {}
