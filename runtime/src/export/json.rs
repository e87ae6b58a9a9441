//! DynamoDB JSON, as the lines of an export's data files hold it: one object per line,
//! attribute values as `{"S": ".."}`, `{"N": ".."}`, `{"B": "<base64>"}`, `{"BOOL": true}`,
//! `{"NULL": true}`, `{"SS": [..]}`, `{"NS": [..]}`, `{"BS": [..]}`, `{"L": [..]}`, `{"M": {..}}`.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde::Deserialize;

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

/// An item in DynamoDB JSON, read by serde_dynamo (the reader of Lambda stream events too).
#[derive(Debug)]
pub(crate) struct DdbItem(pub Item);

/// An attribute value in DynamoDB JSON.
#[derive(Debug)]
pub(crate) struct Av(pub AttributeValue);

impl<'de> Deserialize<'de> for DdbItem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_dynamo::Item::deserialize(d).map(|item| DdbItem(item.into()))
    }
}

impl<'de> Deserialize<'de> for Av {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_dynamo::AttributeValue::deserialize(d).map(|value| Av(value.into()))
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
