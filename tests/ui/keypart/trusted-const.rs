// A hand-written impl cannot declare itself trusted: there is no such switch on `KeyPart`.
use dynamo_entity::{KeyPart, KeyPartError};

#[derive(Debug, Clone, PartialEq)]
pub struct Raw(String);

impl KeyPart for Raw {
    const __TRUSTED: bool = true;

    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(&self.0);
        Ok(())
    }

    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        Ok(Raw(text.to_owned()))
    }
}

fn main() {}
