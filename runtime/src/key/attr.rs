//! Index keys on a field's own attribute: the attribute's DynamoDB type ([`AttributeType`]),
//! the field types that can key an index that way ([`KeyAttribute`]), and how their values
//! travel through queries and cursors (as text tagged with the type).
//!
//! An index whose key template is exactly one placeholder, `<map>`, with `pk_attr`/`sk_attr`
//! naming that field's attribute (`pk_attr = "map"`), writes no attribute of its own: DynamoDB
//! indexes the field's attribute as it is stored (a `String` as S, an integer as N), and an item
//! whose field is `None` is not in the index.

use std::cmp::Ordering;

use crate::error::{Error, KeyError};
use crate::key::KeyPartError;
use crate::key::misc::{hex, unhex};
use aws_sdk_dynamodb::types::AttributeValue;

/// The DynamoDB type of a key attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum AttributeType {
    /// A string: every composite key, and `String` fields.
    #[default]
    S,
    /// A number: integer and floating-point fields.
    N,
    /// Binary.
    B,
}

impl AttributeType {
    /// `"S"`, `"N"` or `"B"`, as DynamoDB writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            AttributeType::S => "S",
            AttributeType::N => "N",
            AttributeType::B => "B",
        }
    }

    /// Whether `self` and `other` are the same type, in a constant (the assertion that a field's
    /// `with` module stores the type its index declares). Called by generated code.
    #[doc(hidden)]
    pub const fn __same(self, other: AttributeType) -> bool {
        self as u8 == other as u8
    }

    /// In words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            AttributeType::S => "a string (S)",
            AttributeType::N => "a number (N)",
            AttributeType::B => "binary (B)",
        }
    }

    /// The text of a key value of this type (binary as lower-case hex, which keeps byte order),
    /// `None` if `value` is of another type.
    pub(crate) fn text_of(self, value: &AttributeValue) -> Option<String> {
        match (self, value) {
            (AttributeType::S, AttributeValue::S(s)) | (AttributeType::N, AttributeValue::N(s)) => Some(s.clone()),
            (AttributeType::B, AttributeValue::B(b)) => Some(hex(b.as_ref())),
            _ => None,
        }
    }

    /// The type of a key value and its text (see [`AttributeType::text_of`]).
    #[cfg(test)]
    fn of(value: &AttributeValue) -> Option<(AttributeType, String)> {
        [AttributeType::S, AttributeType::N, AttributeType::B]
            .into_iter()
            .find_map(|t| t.text_of(value).map(|text| (t, text)))
    }

    /// The attribute value of a key text of this type; `None` for binary text that is not hex.
    pub(crate) fn value(self, text: &str) -> Option<AttributeValue> {
        match self {
            AttributeType::S => Some(AttributeValue::S(text.to_owned())),
            AttributeType::N => Some(AttributeValue::N(text.to_owned())),
            AttributeType::B => unhex(text).map(|b| AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(b))),
        }
    }

    /// Compares two key texts of this type as DynamoDB compares the values: strings and binary
    /// by bytes, numbers by value. `None` if a number does not parse.
    pub(crate) fn compare(self, a: &str, b: &str) -> Option<Ordering> {
        match self {
            AttributeType::S | AttributeType::B => Some(a.as_bytes().cmp(b.as_bytes())),
            AttributeType::N => Some(Decimal::parse(a)?.cmp(&Decimal::parse(b)?)),
        }
    }
}

/// A decimal number as DynamoDB writes it (`-12.50`, `7`, `1E+3`), for comparing by value.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    /// Significant digits without leading or trailing zeros (empty for zero).
    digits: Vec<u8>,
    /// The power of ten of the first digit.
    exponent: i64,
}

impl Decimal {
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let all: Vec<u8> =
            int.bytes().chain(frac.bytes()).map(|b| b.is_ascii_digit().then(|| b - b'0')).collect::<Option<_>>()?;
        let leading = all.iter().take_while(|d| **d == 0).count();
        let mut digits = all[leading..].to_vec();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        let int_len = i64::try_from(int.len()).ok()?;
        let exponent = exp.checked_add(int_len)?.checked_sub(i64::try_from(leading).ok()?)?.checked_sub(1)?;
        let negative = negative && !digits.is_empty();
        Some(Decimal { negative, digits, exponent })
    }

    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self.exponent.cmp(&other.exponent).then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

/// A field type that can key an index on its own attribute (`#[gsi1(pk = "<map>", pk_attr =
/// "map")]`): the attribute is stored as [`KeyAttribute::TYPE`], and DynamoDB indexes it as it
/// is. Strings and `#[derive(KeyPart)]` types are S, integers and floats N; `Option<T>` is `T`
/// (a `None` leaves the item out of the index).
///
/// An `f64` or `f32` is stored in its plain number form, as its `Display` writes it (`4.5`,
/// `-2`, `1000`), and DynamoDB compares it as a number. NaN, the infinities and values outside
/// DynamoDB's range (magnitudes from `1E-130` to below `1E+126`) are refused with
/// [`Error::Validation`](crate::error::Error::Validation) before sending: by `to_item` (and so
/// every write), by an update's `set`, and as the values of a query's key conditions.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot key an index on its own attribute",
    label = "an index key uses this field's attribute as it is stored",
    note = "an index key attribute must be a String, a number or binary: use `String`, an integer, `f64`/`f32`, a time value (stored as its ISO 8601 string), `serde_bytes::ByteBuf` (binary) or a `#[derive(KeyPart)]` type (stored as a string), or give the index its own attribute (a template such as `MAP#<field>` with another `pk_attr`/`sk_attr`)"
)]
pub trait KeyAttribute {
    /// The DynamoDB type of the field's attribute.
    const TYPE: AttributeType;
}

impl KeyAttribute for String {
    const TYPE: AttributeType = AttributeType::S;
}

macro_rules! number_key_attribute {
    ($($t:ty)*) => {$(
        impl KeyAttribute for $t {
            const TYPE: AttributeType = AttributeType::N;
        }
    )*};
}
number_key_attribute!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64);

impl<T: KeyAttribute> KeyAttribute for Option<T> {
    const TYPE: AttributeType = T::TYPE;
}

/// Time values are stored as ISO 8601 UTC strings with milliseconds (see [`crate::codec::time`]), whose
/// string order is time order: an index keyed on one is typed S. (`with = ..` is refused on such
/// a field, so the attribute always holds that string.)
macro_rules! time_key_attribute {
    ($($(#[$cfg:meta])* $t:ty;)*) => {$(
        $(#[$cfg])*
        impl KeyAttribute for $t {
            const TYPE: AttributeType = AttributeType::S;
        }
    )*};
}
/// Bytes as serde stores them (`serialize_bytes`): binary (B), compared byte by byte. (A plain
/// `Vec<u8>` is a list of numbers to serde, so it cannot key an index.)
impl KeyAttribute for serde_bytes::ByteBuf {
    const TYPE: AttributeType = AttributeType::B;
}

time_key_attribute! {
    std::time::SystemTime;
    #[cfg(feature = "chrono")] chrono::DateTime<chrono::Utc>;
    #[cfg(feature = "time")] ::time::OffsetDateTime;
    #[cfg(feature = "jiff")] jiff::Timestamp;
}

/// The key text of a value encoded as a field's attribute, checked to be of type `ty`. Called
/// by generated code: queries on an index keyed on a field's own attribute.
#[doc(hidden)]
pub fn attr_key_text(
    encoded: Result<Option<AttributeValue>, String>,
    ty: AttributeType,
    key: &'static str,
    field: &'static str,
) -> Result<String, KeyError> {
    let fail = |value: String| KeyError::Format {
        key,
        field,
        source: KeyPartError::OutOfRange { expected: ty.describe(), value },
    };
    match encoded {
        Ok(Some(v)) => {
            let text = ty.text_of(&v).ok_or_else(|| fail(format!("{v:?}")))?;
            match number_problem(ty, &text) {
                Some(_) => Err(KeyError::Format {
                    key,
                    field,
                    source: KeyPartError::OutOfRange { expected: NOT_STORABLE, value: text },
                }),
                // `-0.0` is written `-0`; DynamoDB holds the value, zero, as `0`: the text that
                // items read back hold, and that cursors and partitions are compared with.
                None if ty == AttributeType::N && text.starts_with('-') && is_zero(&text) => Ok("0".to_owned()),
                None => Ok(text),
            }
        }
        Ok(None) => Err(fail("no value".to_owned())),
        Err(m) => Err(fail(m)),
    }
}

/// Whether a number's text is zero (`0`, `-0`, `-0.00`, `0E+5`).
fn is_zero(text: &str) -> bool {
    Decimal::parse(text).is_some_and(|d| d.digits.is_empty())
}

/// Reads a field from the key text of a key on the field's own attribute (a table keyed on a
/// plain attribute): the text as a value of type `ty`, decoded by the field's codec. Called by
/// generated code (`<Name>Key::parse`).
#[doc(hidden)]
pub fn attr_key_parse<T>(
    text: &str,
    ty: AttributeType,
    key: &'static str,
    template: &'static str,
    decode: impl FnOnce(Option<AttributeValue>) -> Result<T, String>,
) -> Result<T, KeyError> {
    let mismatch = |reason: String| KeyError::Mismatch { key, template, text: text.to_owned(), reason };
    let value = ty.value(text).ok_or_else(|| mismatch(format!("not the text of {}", ty.describe())))?;
    if ty == AttributeType::N && Decimal::parse(text).is_none() {
        return Err(mismatch("not a number".to_owned()));
    }
    decode(Some(value)).map_err(mismatch)
}

/// What [`attr_key_text`] names when DynamoDB would refuse a query's number (NaN, an infinity,
/// out of range): a value no item can hold, refused as [`Error::Validation`] like the same value
/// in a write (see [`query_error`]).
///
/// [`Error::Validation`]: crate::error::Error::Validation
const NOT_STORABLE: &str =
    "a number DynamoDB can store (N): finite, at most 38 significant digits, magnitude 1E-130 to 9.99E+125";

/// The error of a query that could not be built: [`Error::Key`], but
/// [`Error::Validation`] for a number DynamoDB cannot store (as writes refuse it).
///
/// [`Error::Key`]: crate::error::Error::Key
/// [`Error::Validation`]: crate::error::Error::Validation
pub(crate) fn query_error(e: &KeyError) -> crate::error::Error {
    match e {
        KeyError::Format { source: KeyPartError::OutOfRange { expected, .. }, .. } if *expected == NOT_STORABLE => {
            crate::error::Error::Validation(e.to_string())
        }
        _ => crate::error::Error::Key(e.clone()),
    }
}

/// Why DynamoDB would refuse `text` as a number key (NaN, an infinity, out of range, over 38
/// digits); `None` for a number it takes, and for keys of other types.
fn number_problem(ty: AttributeType, text: &str) -> Option<String> {
    if ty != AttributeType::N {
        return None;
    }
    crate::size::number_problem(text)
}

/// Checks the attribute of a field that keys an index as it is (`attr` in `item`, when present):
/// of type `ty`, not empty, within the key size limit. Called by generated code in `to_item`.
#[doc(hidden)]
pub fn check_attr_key(
    item: &crate::size::Item,
    entity: &'static str,
    index: &'static str,
    attr: &'static str,
    ty: AttributeType,
    max: usize,
) -> Result<(), crate::error::Error> {
    match item.get(attr) {
        Some(value) => check_attr_value(value, entity, index, attr, ty, max),
        None => Ok(()),
    }
}

/// Checks the attribute of a field that keys the table as it is (`attr` in `item`): present, of
/// type `ty`, not empty, within the key size limit. Called by generated code in `to_item`.
#[doc(hidden)]
pub fn check_table_attr_key(
    item: &crate::size::Item,
    entity: &'static str,
    attr: &'static str,
    ty: AttributeType,
    max: usize,
) -> Result<(), crate::error::Error> {
    match item.get(attr) {
        Some(value) => check_attr_value(value, entity, "the table", attr, ty, max),
        None => Err(crate::error::Error::Validation(format!(
            "attribute `{attr}` of {entity} is the table's key, but the field wrote no value"
        ))),
    }
}

/// [`check_attr_key`] of one value (an update setting the field). Called by generated code.
#[doc(hidden)]
pub fn check_attr_value(
    value: &AttributeValue,
    entity: &'static str,
    index: &'static str,
    attr: &'static str,
    ty: AttributeType,
    max: usize,
) -> Result<(), crate::error::Error> {
    let index = if index == "the table" { index.to_owned() } else { format!("index {index}") };
    let Some(text) = ty.text_of(value) else {
        return Err(crate::error::Error::Validation(format!(
            "attribute `{attr}` of {entity} keys {index} as {}, but the field is stored as {value:?}",
            ty.describe()
        )));
    };
    if let Some(why) = number_problem(ty, &text) {
        return Err(crate::error::Error::Validation(format!(
            "attribute `{attr}` of {entity} keys index {index}: {why}"
        )));
    }
    if text.is_empty() {
        return Err(crate::error::Error::Validation(format!(
            "attribute `{attr}` of {entity} keys {index}: DynamoDB rejects an empty key; for an index, use an \
             `Option` field and `None` to leave the item out of the index"
        )));
    }
    let bytes = if ty == AttributeType::B { text.len() / 2 } else { text.len() };
    if ty != AttributeType::N && bytes > max {
        return Err(crate::error::Error::Validation(format!(
            "attribute `{attr}` of {entity} keys {index} and is {bytes} bytes; DynamoDB allows at most {max}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_by_value() {
        let t = AttributeType::N;
        let sorted = ["-1E+3", "-100", "-2.5", "-2", "-0.5", "0", "0.25", "1", "1.5", "9", "10", "1.1E+1", "100"];
        for (i, a) in sorted.iter().enumerate() {
            for (j, b) in sorted.iter().enumerate() {
                assert_eq!(t.compare(a, b), Some(i.cmp(&j)), "{a} vs {b}");
            }
        }
        assert_eq!(t.compare("-0", "0"), Some(Ordering::Equal));
        assert_eq!(t.compare("007", "7.000"), Some(Ordering::Equal));
        assert_eq!(t.compare("x", "1"), None);
        assert_eq!(t.compare("", "1"), None);
        assert_eq!(AttributeType::S.compare("10", "9"), Some(Ordering::Less));
    }

    #[test]
    fn integer_texts_compare_as_the_integers() {
        let mut values: Vec<i128> = vec![i128::MIN, i128::MAX, i64::MIN.into(), i64::MAX.into(), u64::MAX.into()];
        values.extend((-300..300).map(|n: i128| n * n * n * 7919));
        for a in &values {
            for b in &values {
                let got = AttributeType::N.compare(&a.to_string(), &b.to_string());
                assert_eq!(got, Some(a.cmp(b)), "{a} vs {b}");
            }
        }
    }

    /// Floats are written as their `Display` (positional, shortest round trip): compared as the
    /// numbers they are, and the ones DynamoDB cannot store are refused.
    #[test]
    fn float_texts_compare_as_the_floats() {
        let mut values: Vec<f64> = vec![0.0, -0.0, 1e125, -1e125, 1e-130, 0.1 + 0.2, 4.5, 10.0, -2.0, 1e3, 9.75];
        values.extend((-200..200).map(|n: i32| f64::from(n).powi(3) / 7.0 + f64::from(n) * 1e-9));
        values.extend((-20..20).map(|n: i32| 1.5f64.powi(n * 9)));
        for a in &values {
            assert_eq!(number_problem(AttributeType::N, &a.to_string()), None, "{a}");
            for b in &values {
                let got = AttributeType::N.compare(&a.to_string(), &b.to_string());
                assert_eq!(got, a.partial_cmp(b), "{a} vs {b}");
            }
        }
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e126, -1e200, 1e-131, f64::MIN_POSITIVE] {
            assert!(number_problem(AttributeType::N, &bad.to_string()).is_some(), "{bad}");
        }
        let err = attr_key_text(Ok(Some(AttributeValue::N(f64::NAN.to_string()))), AttributeType::N, "r", "rating");
        assert!(matches!(query_error(&err.unwrap_err()), crate::error::Error::Validation(_)));
    }

    #[test]
    fn binary_text_round_trips_and_keeps_byte_order() {
        let a = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![0, 15, 255]));
        let (ty, text) = AttributeType::of(&a).unwrap();
        assert_eq!((ty, text.as_str()), (AttributeType::B, "000fff"));
        assert_eq!(ty.value(&text), Some(a));
        assert_eq!(AttributeType::B.value("0g"), None);
        assert_eq!(AttributeType::B.compare("00ff", "0100"), Some(Ordering::Less));
    }
}

/// A key attribute and the template its text is written from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySchema {
    /// The attribute name, such as `PK` or `GSI1SK`.
    pub attr: &'static str,
    /// The template, such as `MESSAGE#<ts:13>#<id>`.
    pub template: &'static str,
    /// The attribute's type: S for key text; for an index key on a field's own attribute
    /// (`pk_attr = "map"` with `pk = "<map>"`), the field's type.
    pub ty: AttributeType,
    /// The shards of a partition key with `<shard>` (`shards = N`); 0 for every other key.
    pub shards: u16,
    /// The shard is picked at random per write (a sharded index without `shard_by`).
    pub random_shard: bool,
}

impl KeySchema {
    /// A key attribute written from `template`: key text, of type S. Called by generated code.
    #[doc(hidden)]
    pub const fn __text(attr: &'static str, template: &'static str) -> Self {
        KeySchema::of(attr, template, AttributeType::S)
    }

    /// [`KeySchema::__text`], of a sort key. Called by generated code.
    #[doc(hidden)]
    pub const fn __some_text(attr: &'static str, template: &'static str) -> Option<Self> {
        Some(KeySchema::of(attr, template, AttributeType::S))
    }

    /// A key attribute written from `template`, of type `ty`. Called by generated code.
    #[doc(hidden)]
    pub const fn of(attr: &'static str, template: &'static str, ty: AttributeType) -> Self {
        KeySchema { attr, template, ty, shards: 0, random_shard: false }
    }

    /// The key with `shards` shards (`<shard>` in its template), computed from `shard_by`
    /// fields or (`random`) picked per write. Called by generated code.
    #[doc(hidden)]
    pub const fn sharded(self, shards: u16, random: bool) -> Self {
        KeySchema { shards, random_shard: random, ..self }
    }

    /// The attribute value of a key text of this key: a string, or for a key on a number
    /// attribute (a table keyed on a plain attribute) the number; [`Error::Validation`] for text
    /// that is not a value of the key's type.
    pub fn value_of(&self, text: String) -> Result<aws_sdk_dynamodb::types::AttributeValue, Error> {
        use AttributeType;
        match self.ty {
            AttributeType::S => Ok(aws_sdk_dynamodb::types::AttributeValue::S(text)),
            ty => ty
                .value(&text)
                .ok_or_else(|| Error::Validation(format!("{} `{text}` is not {}", self.attr, ty.describe()))),
        }
    }

    /// The key text of an attribute value of this key (see [`KeySchema::value_of`]); `None` for a
    /// value of another type.
    pub fn text_of<'v>(&self, value: &'v aws_sdk_dynamodb::types::AttributeValue) -> Option<std::borrow::Cow<'v, str>> {
        use AttributeType;
        use aws_sdk_dynamodb::types::AttributeValue;
        match (self.ty, value) {
            (AttributeType::S, AttributeValue::S(s)) | (AttributeType::N, AttributeValue::N(s)) => {
                Some(std::borrow::Cow::Borrowed(s))
            }
            (AttributeType::B, AttributeValue::B(_)) => self.ty.text_of(value).map(std::borrow::Cow::Owned),
            _ => None,
        }
    }

    /// Whether `a` and `b`, texts of this key, differ at most in their shard number.
    pub(crate) fn same_but_shard(&self, a: &str, b: &str) -> bool {
        let strip = |text: &str| -> Option<String> {
            let (range, _) = self.shard_at(text)?;
            Some(format!("{}{}", &text[..range.start], &text[range.end..]))
        };
        a == b || matches!((strip(a), strip(b)), (Some(x), Some(y)) if x == y)
    }

    /// The shard number in `text`, a key written from this (sharded) template: `None` for a
    /// key without `<shard>`, or a text that does not follow the template.
    pub fn shard_in(&self, text: &str) -> Option<u16> {
        self.shard_at(text).map(|(_, n)| n)
    }

    /// Where the shard number is in `text` (its bytes), and its value.
    fn shard_at(&self, text: &str) -> Option<(std::ops::Range<usize>, u16)> {
        if self.shards == 0 {
            return None;
        }
        // Every placeholder is followed by `#` or the end (or, joined to `<shard>`, by `.`, `_`
        // or `-` and the shard), and component texts never hold `#`: the `#`-separated pieces
        // of the template and of the text line up up to `<shard>`, which ends its piece.
        let (at, piece) = self.template.split('#').enumerate().find(|(_, p)| p.contains("<shard"))?;
        let before = &piece[..piece.find("<shard")?];
        let unpadded = piece.contains("<shard:unpadded>");
        let mut offset = 0;
        let mut pieces = text.split('#');
        for _ in 0..at {
            offset += pieces.next()?.len() + 1;
        }
        let found = pieces.next()?;
        let start = if before.contains('>') {
            // `<field>.<shard>`: the shard follows the last separator of the piece.
            let sep = *before.as_bytes().last()?;
            found.bytes().rposition(|b| b == sep)? + 1
        } else {
            found.starts_with(before).then_some(before.len())?
        };
        let n = crate::key::shard::shard_text(found.get(start..)?, self.shards, unpadded)?;
        Some((offset + start..offset + found.len(), n))
    }
}
