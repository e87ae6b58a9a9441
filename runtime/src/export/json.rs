//! DynamoDB JSON, as the lines of an export's data files hold it: one object per line,
//! attribute values as `{"S": ".."}`, `{"N": ".."}`, `{"B": "<base64>"}`, `{"BOOL": true}`,
//! `{"NULL": true}`, `{"SS": [..]}`, `{"NS": [..]}`, `{"BS": [..]}`, `{"L": [..]}`, `{"M": {..}}`.

use std::fmt;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::model::Item;

/// One line of a data file: a full export's `{"Item": ..}`, or an incremental export's
/// `{"Metadata": .., "Keys": .., "NewImage": .., "OldImage": ..}`.
#[derive(Debug, Deserialize)]
pub(crate) struct Line {
    #[serde(rename = "Item")]
    pub item: Option<DdbItem>,
    #[serde(rename = "Metadata")]
    pub metadata: Option<Metadata>,
    #[serde(rename = "Keys")]
    pub keys: Option<DdbItem>,
    #[serde(rename = "NewImage")]
    pub new_image: Option<DdbItem>,
    #[serde(rename = "OldImage")]
    pub old_image: Option<DdbItem>,
}

/// An incremental export line's `Metadata`.
#[derive(Debug, Deserialize)]
pub(crate) struct Metadata {
    #[serde(rename = "WriteTimestampMicros")]
    pub write_timestamp_micros: Option<Av>,
}

/// An item in DynamoDB JSON.
#[derive(Debug)]
pub(crate) struct DdbItem(pub Item);

/// An attribute value in DynamoDB JSON.
#[derive(Debug)]
pub(crate) struct Av(pub AttributeValue);

const TAGS: &[&str] = &["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"];

fn base64<E: de::Error>(text: &str) -> Result<Blob, E> {
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map(Blob::new)
        .map_err(|e| E::custom(format!("binary value is not base64: {e}")))
}

impl<'de> Deserialize<'de> for DdbItem {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DdbItem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an item in DynamoDB JSON (an object of attribute values)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DdbItem, A::Error> {
                let mut item = Item::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(name) = map.next_key::<String>()? {
                    let Av(value) = map.next_value()?;
                    item.insert(name, value);
                }
                Ok(DdbItem(item))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for Av {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Av;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an attribute value in DynamoDB JSON, such as {\"S\": \"text\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Av, A::Error> {
                let Some(tag) = map.next_key::<String>()? else {
                    return Err(de::Error::custom("an attribute value without type (`{}`)"));
                };
                let value = match tag.as_str() {
                    "S" => AttributeValue::S(map.next_value()?),
                    "N" => AttributeValue::N(map.next_value()?),
                    "B" => AttributeValue::B(base64(&map.next_value::<String>()?)?),
                    "BOOL" => AttributeValue::Bool(map.next_value()?),
                    "NULL" => AttributeValue::Null(map.next_value()?),
                    "SS" => AttributeValue::Ss(map.next_value()?),
                    "NS" => AttributeValue::Ns(map.next_value()?),
                    "BS" => AttributeValue::Bs(
                        map.next_value::<Vec<String>>()?.iter().map(|b| base64(b)).collect::<Result<_, _>>()?,
                    ),
                    "L" => AttributeValue::L(map.next_value::<AvList>()?.0),
                    "M" => AttributeValue::M(map.next_value::<DdbItem>()?.0),
                    other => return Err(de::Error::unknown_variant(other, TAGS)),
                };
                if map.next_key::<IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(format!(
                        "an attribute value with more than one type (`{tag}` and more)"
                    )));
                }
                Ok(Av(value))
            }
        }
        d.deserialize_map(V)
    }
}

/// The elements of an `L`.
struct AvList(Vec<AttributeValue>);

impl<'de> Deserialize<'de> for AvList {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = AvList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of attribute values")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AvList, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(4));
                while let Some(Av(v)) = seq.next_element()? {
                    out.push(v);
                }
                Ok(AvList(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// An attribute value as plain JSON text (what a Parquet column of lists, maps and documents
/// holds): strings as strings, numbers as numbers, binary as base64, sets as arrays, maps with
/// their keys in order (the same map is the same text).
pub(crate) fn plain_json(value: &AttributeValue, out: &mut String) {
    fn number(n: &str, out: &mut String) {
        if serde_json::from_str::<serde_json::Number>(n).is_ok() {
            out.push_str(n);
        } else {
            out.push_str(&crate::json::json_str(n));
        }
    }
    fn text(s: &str, out: &mut String) {
        out.push_str(&crate::json::json_str(s));
    }
    fn blob(b: &Blob, out: &mut String) {
        text(&base64::engine::general_purpose::STANDARD.encode(b.as_ref()), out);
    }
    fn list<T>(items: &[T], out: &mut String, each: impl Fn(&T, &mut String)) {
        out.push('[');
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            each(e, out);
        }
        out.push(']');
    }
    match value {
        AttributeValue::S(s) => text(s, out),
        AttributeValue::N(n) => number(n, out),
        AttributeValue::B(b) => blob(b, out),
        AttributeValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        AttributeValue::Ss(v) => list(v, out, |s, o| text(s, o)),
        AttributeValue::Ns(v) => list(v, out, |n, o| number(n, o)),
        AttributeValue::Bs(v) => list(v, out, blob),
        AttributeValue::L(v) => list(v, out, plain_json),
        AttributeValue::M(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                text(k, out);
                out.push(':');
                plain_json(&m[k], out);
            }
            out.push('}');
        }
        _ => out.push_str("null"),
    }
}
