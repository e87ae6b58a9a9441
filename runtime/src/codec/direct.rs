//! The types converted directly, without serde: strings, integers, `bool`, lists of strings, and
//! `Option`s of them, to the same `AttributeValue`s serde_dynamo would produce.

use aws_sdk_dynamodb::types::AttributeValue;

/// Types converted directly, without going through serde.
pub trait Direct: Sized {
    /// The attribute value; `None` means "omit the attribute".
    fn encode(&self) -> Option<AttributeValue>;
    /// Reads the value back; `None` input means the attribute was absent.
    fn decode(value: Option<AttributeValue>) -> Result<Self, String>;
    /// [`Direct::encode`] written under `attr` by `w`. Types whose size is known as they are
    /// encoded (strings, lists of strings, integers of at most 64 bits) give it with the value,
    /// so that a checking writer does not look at the value again (issue 51).
    #[inline(always)]
    fn write(&self, w: &mut super::Writer, attr: &'static str) {
        if let Some(v) = self.encode() {
            w.insert(attr, v);
        }
    }
}

pub(crate) fn type_error(expected: &str, found: &AttributeValue) -> String {
    let found = match found {
        AttributeValue::S(_) => "a string (S)",
        AttributeValue::N(_) => "a number (N)",
        AttributeValue::B(_) => "binary (B)",
        AttributeValue::Bool(_) => "a boolean (BOOL)",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "a list (L)",
        AttributeValue::M(_) => "a map (M)",
        AttributeValue::Ss(_) => "a string set (SS)",
        AttributeValue::Ns(_) => "a number set (NS)",
        AttributeValue::Bs(_) => "a binary set (BS)",
        _ => "an unknown type",
    };
    format!("expected {expected}, found {found}")
}

pub(crate) const MISSING: &str = "the attribute is missing";

impl Direct for String {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        // `str::to_owned` is inlined (an allocation and a copy); `String::clone` is a call into
        // std that does the same (issue 51: 16 instructions a string).
        Some(AttributeValue::S(self.as_str().to_owned()))
    }
    #[inline(always)]
    fn write(&self, w: &mut super::Writer, attr: &'static str) {
        w.insert_sized(attr, self.len(), || AttributeValue::S(self.as_str().to_owned()));
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::S(s)) => Ok(s),
            Some(other) => Err(type_error("a string (S)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

impl Direct for bool {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        Some(AttributeValue::Bool(*self))
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::Bool(b)) => Ok(b),
            Some(other) => Err(type_error("a boolean (BOOL)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

/// The size DynamoDB counts for `text`, an integer as `to_string` writes it (`-?[0-9]+`, no
/// leading zero but in `0`) of at most 20 digits, which DynamoDB always takes: a byte besides
/// half its significant digits, those up to its last non-zero digit.
#[inline(always)]
fn written_integer_size(text: &str) -> usize {
    let b = text.as_bytes();
    let start = usize::from(b.first() == Some(&b'-'));
    let end = b.iter().rposition(|&c| c != b'0').map_or(0, |last| last + 1);
    end.saturating_sub(start).div_ceil(2) + 1
}

macro_rules! direct_int {
    (@write u128) => {};
    (@write i128) => {};
    (@write $t:ty) => {
        /// Sized as it is written: at most 20 digits, a number DynamoDB always takes, so a
        /// checking writer need not read its digits again (issue 51).
        #[inline(always)]
        fn write(&self, w: &mut super::Writer, attr: &'static str) {
            let text = self.to_string();
            let size = written_integer_size(&text);
            w.insert_sized(attr, size, || AttributeValue::N(text));
        }
    };
    ($($t:tt)*) => {$(
        impl Direct for $t {
            #[inline]
            fn encode(&self) -> Option<AttributeValue> {
                Some(AttributeValue::N(self.to_string()))
            }
            // `u128` and `i128` reach 39 digits, past what DynamoDB takes: they are judged by
            // the writer as any number (`Direct::write`).
            direct_int!(@write $t);
            #[inline]
            fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
                match value {
                    Some(AttributeValue::N(n)) => n.parse::<$t>().map_err(|_| {
                        format!("the number {n} does not fit in {}", stringify!($t))
                    }),
                    Some(other) => Err(type_error("a number (N)", &other)),
                    None => Err(MISSING.to_owned()),
                }
            }
        }
    )*};
}
direct_int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

impl Direct for Vec<String> {
    fn encode(&self) -> Option<AttributeValue> {
        Some(AttributeValue::L(self.iter().map(|s| AttributeValue::S(s.as_str().to_owned())).collect()))
    }
    #[inline]
    fn write(&self, w: &mut super::Writer, attr: &'static str) {
        // DynamoDB's size of a list: 3 bytes, and 1 byte besides each element's own size.
        let size = 3 + self.iter().map(|s| 1 + s.len()).sum::<usize>();
        w.insert_sized(attr, size, || {
            AttributeValue::L(self.iter().map(|s| AttributeValue::S(s.as_str().to_owned())).collect())
        });
    }
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            Some(AttributeValue::L(list)) => list
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    AttributeValue::S(s) => Ok(s),
                    other => Err(format!("element {i}: {}", type_error("a string (S)", &other))),
                })
                .collect(),
            // A string set (written by other code, or `with = "dynamo_entity::sets::string_set"`).
            Some(AttributeValue::Ss(set)) => Ok(set),
            Some(other) => Err(type_error("a list (L) or a string set (SS)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

impl<T: Direct> Direct for Option<T> {
    #[inline]
    fn encode(&self) -> Option<AttributeValue> {
        self.as_ref().and_then(T::encode)
    }
    #[inline(always)]
    fn write(&self, w: &mut super::Writer, attr: &'static str) {
        if let Some(v) = self {
            v.write(w, attr);
        }
    }
    #[inline]
    fn decode(value: Option<AttributeValue>) -> Result<Self, String> {
        match value {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            some => T::decode(some).map(Some),
        }
    }
}
