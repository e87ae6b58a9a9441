//! The cursor of a scan ([`crate::Scan::page`]): every segment's position (not started, after a
//! key, or finished), bound to the scan it came from (entity, index, filter, segment count).
//! Sealed as query cursors are: plain with a checksum, signed, or encrypted by the table's
//! [`crate::CursorSecret`].

use crate::cursor::Cursor;
use crate::cursor::CursorSecret;
use crate::cursor::bind::attr_type;
use crate::cursor::bind::cursor_attrs;
use crate::cursor::bind::start_value;
use crate::cursor::encode::Reader;
use crate::cursor::encode::put_str;
use crate::cursor::seal::checksum;
use crate::cursor::seal::invalid;
use crate::cursor::seal_body;
use crate::error::Error;
use crate::model::Item;
use crate::model::entity::EntitySchema;

/// First byte of a scan cursor's body. A query cursor's body starts with the length of its
/// entity name (a zero byte), so neither is ever read as the other.
pub(crate) const SCAN: u8 = b'S';
/// First byte of a merged query's cursor (every shard's position, in the same form).
pub(crate) const MERGE: u8 = b'M';
/// First byte of a backfill's or migration's cursor (every segment's position).
pub(crate) const EVOLVE: u8 = b'E';

/// The key attributes of an item (strings, sorted by name).
pub(crate) type KeyText = Vec<(String, String)>;

/// Where one segment of a scan stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SegmentPosition {
    /// No request made yet.
    Start,
    /// Resumes after the item with these key attributes (strings, sorted by name).
    After(KeyText),
    /// Read to the end.
    Done,
}

/// The read a scan or merged cursor must belong to.
pub(crate) struct Binding<'a> {
    /// [`SCAN`] or [`MERGE`].
    pub(crate) kind: u8,
    pub(crate) entity: &'a str,
    pub(crate) index: Option<&'a str>,
    /// The filter hash of a scan; the partitions and direction hash of a merged query.
    pub(crate) filter: u64,
    /// Segments of a scan, shards of a merged query.
    pub(crate) segments: usize,
}

/// What a scan cursor says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScanPosition {
    /// [`SCAN`], or [`MERGE`] for the shards of a merged query.
    pub(crate) kind: u8,
    pub(crate) entity: String,
    pub(crate) index: String,
    /// A hash of the scan's filter (0 without one).
    pub(crate) filter: u64,
    pub(crate) segments: Vec<SegmentPosition>,
    /// A merged query's last item handed out: its shard and key attributes. Later pages return
    /// only items after it in merged order, as one partition's cursor does (`None` for scans).
    pub(crate) floor: Option<(u32, KeyText)>,
}

/// A hash of a rendered filter: its expression, names and values.
pub(crate) fn filter_hash(filter: Option<&(String, std::collections::HashMap<String, String>, Item)>) -> u64 {
    let Some((text, names, values)) = filter else { return 0 };
    let mut names: Vec<_> = names.iter().collect();
    names.sort();
    let mut values: Vec<_> = values.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    values.sort();
    checksum(format!("{text}\u{0}{names:?}\u{0}{values:?}").as_bytes())
}

/// Marks a merged cursor's last item handed out, after its shards' positions.
const FLOOR: u8 = b'F';

fn put_key(out: &mut Vec<u8>, key: &KeyText) {
    out.push(u8::try_from(key.len()).unwrap_or(u8::MAX));
    for (k, v) in key {
        put_str(out, k);
        put_str(out, v);
    }
}

fn read_key(r: &mut Reader<'_>) -> Result<KeyText, Error> {
    let k = r.take(1)?[0];
    let mut key = Vec::with_capacity(usize::from(k).min(8));
    for _ in 0..k {
        key.push((r.str()?, r.str()?));
    }
    Ok(key)
}

impl ScanPosition {
    fn encode(&self) -> Vec<u8> {
        let mut out = vec![self.kind];
        put_str(&mut out, &self.entity);
        put_str(&mut out, &self.index);
        out.extend_from_slice(&self.filter.to_be_bytes());
        out.extend_from_slice(&u32::try_from(self.segments.len()).unwrap_or(u32::MAX).to_be_bytes());
        for s in &self.segments {
            match s {
                SegmentPosition::Start => out.push(0),
                SegmentPosition::Done => out.push(1),
                SegmentPosition::After(key) => {
                    out.push(2);
                    put_key(&mut out, key);
                }
            }
        }
        if let Some((shard, key)) = &self.floor {
            out.push(FLOOR);
            out.extend_from_slice(&shard.to_be_bytes());
            put_key(&mut out, key);
        }
        out
    }

    fn decode(body: &[u8]) -> Result<ScanPosition, Error> {
        let mut r = Reader(body);
        let kind = r.take(1)?[0];
        if ![SCAN, MERGE, EVOLVE].contains(&kind) {
            return Err(invalid("not a scan cursor (a query's?)"));
        }
        let entity = r.str()?;
        let index = r.str()?;
        let filter = u64::from_be_bytes(r.take(8)?.try_into().map_err(|_| invalid("truncated"))?);
        let n = u32::from_be_bytes(r.take(4)?.try_into().map_err(|_| invalid("truncated"))?);
        // Each segment takes at least one byte: a count beyond the bytes left is a forgery.
        if n as usize > r.0.len() {
            return Err(invalid("more segments than bytes"));
        }
        let mut segments = Vec::with_capacity(n as usize);
        for _ in 0..n {
            segments.push(match r.take(1)? {
                [0] => SegmentPosition::Start,
                [1] => SegmentPosition::Done,
                [2] => SegmentPosition::After(read_key(&mut r)?),
                _ => return Err(invalid("bad segment state")),
            });
        }
        let floor = match r.0.first() {
            Some(&FLOOR) if kind == MERGE => {
                r.take(1)?;
                let shard = u32::from_be_bytes(r.take(4)?.try_into().map_err(|_| invalid("truncated"))?);
                if shard >= n {
                    return Err(invalid("a last item in a shard the query does not have"));
                }
                Some((shard, read_key(&mut r)?))
            }
            _ => None,
        };
        if !r.0.is_empty() {
            return Err(invalid("trailing bytes"));
        }
        Ok(ScanPosition { kind, entity, index, filter, segments, floor })
    }

    /// The cursor, sealed as `secret` says; one longer than [`crate::MAX_CURSOR_LEN`] (too many
    /// segments to carry) is [`Error::Validation`], never a cursor that could not be read back.
    pub(crate) fn seal(&self, secret: Option<&CursorSecret>) -> Result<Cursor, Error> {
        let cursor = seal_body(self.encode(), secret)?;
        let len = cursor.to_string().len();
        if len > crate::cursor::MAX_CURSOR_LEN {
            return Err(Error::Validation(format!(
                "the cursor of this {}-{} would be {len} bytes, more than {}: {}",
                self.segments.len(),
                if self.kind == MERGE { "shard query" } else { "segment scan" },
                crate::cursor::MAX_CURSOR_LEN,
                if self.kind == MERGE { "give the key fewer shards" } else { "page a scan with fewer segments" }
            )));
        }
        Ok(cursor)
    }

    /// Reads `cursor` with `secret` and checks that it belongs to the read `bound` describes,
    /// and that each position holds exactly the key attributes of the table and the index.
    pub(crate) fn open(
        cursor: &Cursor,
        secret: Option<&CursorSecret>,
        schema: &EntitySchema,
        bound: Binding<'_>,
    ) -> Result<ScanPosition, Error> {
        let Binding { kind, entity, index, filter, segments } = bound;
        let p = ScanPosition::decode(&cursor.open_body(secret)?)?;
        let wrong = |what: &str| Err(invalid(&format!("this cursor belongs to another {what}")));
        if p.kind != kind {
            return wrong("kind of read (a scan, a sharded query, a backfill or migration)");
        }
        if p.entity != entity {
            return wrong("entity");
        }
        if p.index != index.unwrap_or("") {
            return wrong("index");
        }
        if p.filter != filter {
            return wrong("filter");
        }
        if p.segments.len() != segments {
            return wrong("segment count");
        }
        let attrs = cursor_attrs(schema, index);
        for s in &p.segments {
            if let SegmentPosition::After(key) = s
                && !key.iter().map(|(k, _)| k.as_str()).eq(attrs.iter().copied())
            {
                return wrong("table or index (its key attributes differ)");
            }
        }
        Ok(p)
    }
}

/// The key attributes of `item` a scan resumes after, as texts of their types (see
/// [`AttributeType::text_of`](crate::AttributeType)); `None` if one is missing or of another type.
pub(crate) fn key_of(schema: &EntitySchema, index: Option<&str>, item: &Item) -> Option<KeyText> {
    cursor_attrs(schema, index)
        .into_iter()
        .map(|a| item.get(a).and_then(|v| attr_type(schema, a).text_of(v)).map(|text| (a.to_owned(), text)))
        .collect()
}

/// The `ExclusiveStartKey` of a position of a read of the table or of `index`: each text as a
/// value of its attribute's type, one DynamoDB takes ([`start_value`]).
pub(crate) fn start_key(schema: &EntitySchema, index: Option<&str>, key: &[(String, String)]) -> Result<Item, Error> {
    key.iter().map(|(k, v)| Ok((k.clone(), start_value(schema, index, k, v)?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cursor::encode::Position;

    fn sample() -> ScanPosition {
        ScanPosition {
            kind: SCAN,
            entity: "Order".into(),
            index: "GSI1".into(),
            filter: 42,
            segments: vec![
                SegmentPosition::Done,
                SegmentPosition::Start,
                SegmentPosition::After(vec![("PK".into(), "ORDER#1".into()), ("SK".into(), "METADATA".into())]),
            ],
            floor: None,
        }
    }

    #[test]
    fn a_merged_cursor_carries_its_last_item() {
        let key = vec![("PK".to_owned(), "EV#2".to_owned()), ("SK".to_owned(), "0007".to_owned())];
        let merged = ScanPosition { kind: MERGE, floor: Some((2, key)), ..sample() };
        assert_eq!(ScanPosition::decode(&merged.encode()).unwrap(), merged);
        // A last item in a shard the cursor does not have is refused; a scan carries none.
        let beyond = ScanPosition { floor: Some((3, vec![])), ..merged.clone() };
        assert!(ScanPosition::decode(&beyond.encode()).is_err());
        let scan = ScanPosition { kind: SCAN, ..merged };
        assert!(ScanPosition::decode(&scan.encode()).is_err());
    }

    #[test]
    fn round_trips_and_refuses_query_positions() {
        let body = sample().encode();
        assert_eq!(ScanPosition::decode(&body).unwrap(), sample());
        // Truncated, extended or with a bad state byte: refused.
        assert!(ScanPosition::decode(&body[..body.len() - 1]).is_err());
        let mut longer = body.clone();
        longer.push(0);
        assert!(ScanPosition::decode(&longer).is_err());
        // A query's position is not a scan's, and the other way round.
        let query = Position {
            entity: "Order".into(),
            index: String::new(),
            partition: "ORDER#1".into(),
            descending: false,
            query: 0,
            key: vec![("PK".into(), "ORDER#1".into())],
        };
        let cursor = query.seal(None).unwrap();
        assert!(ScanPosition::decode(&cursor.open_body(None).unwrap()).is_err());
        let scan = sample().seal(None).unwrap();
        assert!(scan.open(None).is_err());
        // A count of segments beyond the bytes is refused before allocating for it.
        let mut forged = vec![SCAN];
        put_str(&mut forged, "Order");
        put_str(&mut forged, "");
        forged.extend_from_slice(&0u64.to_be_bytes());
        forged.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(ScanPosition::decode(&forged).is_err());
    }

    #[test]
    fn too_many_segments_for_a_cursor_is_a_validation_error() {
        let key = vec![("PK".to_owned(), "p".repeat(200)), ("SK".to_owned(), "s".repeat(200))];
        let many = ScanPosition {
            kind: SCAN,
            entity: "Order".into(),
            index: String::new(),
            filter: 0,
            segments: vec![SegmentPosition::After(key); 700],
            floor: None,
        };
        assert!(matches!(many.seal(None), Err(Error::Validation(_))));
        let few = ScanPosition { segments: vec![SegmentPosition::Start; 1000], ..many };
        let text = few.seal(None).unwrap().to_string();
        assert!(text.len() <= crate::cursor::MAX_CURSOR_LEN);
        assert!(text.parse::<Cursor>().is_ok());
    }
}
