use dynamo_entity::{AttributeValue, Document, Entity};
use serde::{Deserialize, Serialize};

// Fields stored `with` a module have the module's stored shape, which a path below them cannot
// know: their paths compare the whole value and reach into nothing.

/// serde's `with`: tags stored as one comma-separated string.
mod comma_separated {
    pub fn serialize<S: serde::Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.join(","))
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        Ok(text.split(',').map(str::to_owned).collect())
    }
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Geo {
    pub lat: f64,
    pub lon: f64,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    #[serde(with = "comma_separated")]
    pub tags: Vec<String>,
}

/// The crate's `with`: the position stored as one `"lat,lon"` string.
mod lat_lon {
    use super::{AttributeValue, Geo};
    pub fn encode(g: &Geo) -> Result<AttributeValue, String> {
        Ok(AttributeValue::S(format!("{},{}", g.lat, g.lon)))
    }
    pub fn decode(v: AttributeValue) -> Result<Geo, String> {
        let text = v.as_s().map_err(|_| "not a string".to_owned())?;
        let (lat, lon) = text.split_once(',').ok_or("no comma")?;
        Ok(Geo { lat: lat.parse().map_err(|_| "lat")?, lon: lon.parse().map_err(|_| "lon")? })
    }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<id>"]
pub struct User {
    pub id: String,
    pub profile: Profile,
    #[entity(with = "lat_lon")]
    pub home: Geo,
}

fn main() {
    let f = User::fields();
    // The whole value compares, as the module stores it.
    let _ = f.profile.tags.eq(vec!["a".to_owned()]);
    let _ = f.home.eq(Geo { lat: 1.0, lon: 2.0 });
    // Nothing below it.
    let _ = f.profile.tags.at(0);
    let _ = f.home.lat;
}
