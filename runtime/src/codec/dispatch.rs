//! The levels generated code dispatches through (autoref specialization): encoding and decoding
//! a field directly, through serde, or as its key text, and the one check per field type.

use super::{Direct, MISSING, type_error};

use std::marker::PhantomData;

use crate::key::KeyPart;
use aws_sdk_dynamodb::types::AttributeValue;

/// Wraps a field for encoding (see the module docs).
#[derive(Debug)]
pub struct Encode<'a, T>(pub &'a T);

/// The provided methods of the encoding traits: a field's encoding written into the item being
/// built, one call per field in generated code (`Writer::put` of `__encode`).
macro_rules! write_method {
    () => {
        /// [`__encode`](Self::__encode) written under `attr` ([`super::Writer::put`]).
        #[inline(always)]
        fn __write(&self, w: &mut super::Writer, attr: &'static str) {
            w.put(attr, self.__encode())
        }
    };
}

/// The provided methods of the decoding traits: a field read from its attribute's value (taken
/// from the item by [`super::take_fields`]), one call per field in generated code (`Reader::ok`
/// of `__decode`).
macro_rules! read_methods {
    () => {
        /// The attribute `attr`'s value (`None`: absent) decoded: `None` with the error kept by `r`.
        #[inline(always)]
        fn __read(&self, r: &mut super::Reader, value: Option<AttributeValue>, attr: &'static str) -> Option<T> {
            r.ok(attr, self.__decode(value))
        }

        /// [`__read`](Self::__read) of a key field, which may be absent (`Some(None)`: read it from
        /// the keys).
        #[inline(always)]
        fn __read_present(
            &self,
            r: &mut super::Reader,
            value: Option<AttributeValue>,
            attr: &'static str,
        ) -> Option<Option<T>> {
            r.ok(attr, self.__decode_present(value))
        }
    };
}

/// Direct encoding, chosen when `T: Direct`.
pub trait EncodeDirect {
    /// The attribute value; `Ok(None)` means "omit the attribute".
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;

    write_method!();
}

impl<T: Direct> EncodeDirect for &&Encode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Ok(self.0.encode())
    }

    #[inline(always)]
    fn __write(&self, w: &mut super::Writer, attr: &'static str) {
        self.0.write(w, attr)
    }
}

/// serde_dynamo encoding, for every other `Serialize` type.
pub trait EncodeSerde {
    /// The attribute value; `Ok(None)` means "omit the attribute" (a NULL, from `None`).
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;

    write_method!();
}

impl<T: serde::Serialize> EncodeSerde for &Encode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        match serde_dynamo::to_attribute_value::<_, AttributeValue>(self.0) {
            Ok(AttributeValue::Null(_)) => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Key-text encoding, for types that are only [`KeyPart`].
pub trait EncodeKey {
    /// The attribute value: the key text as a string.
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;

    write_method!();
}

impl<T: KeyPart> EncodeKey for Encode<'_, T> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        crate::key::to_key_text(self.0).map(|t| Some(AttributeValue::S(t))).map_err(|e| e.to_string())
    }
}

/// `Option` of a type that is only [`KeyPart`]: `None` omits the attribute (a sparse index).
impl<T: KeyPart> EncodeKey for Encode<'_, Option<T>> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        match self.0 {
            Some(v) => Encode(v).__encode(),
            None => Ok(None),
        }
    }
}

/// Selects the decoder for `T` (see the module docs).
#[derive(Debug)]
pub struct Decode<T>(pub PhantomData<T>);

impl<T> Decode<T> {
    /// The selector for `T`.
    #[inline]
    pub fn new() -> Self {
        Decode(PhantomData)
    }
}

impl<T> Default for Decode<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Direct decoding, chosen when `T: Direct`.
pub trait DecodeDirect<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }

    read_methods!();
}

impl<T: Direct> DecodeDirect<T> for &&Decode<T> {
    #[inline]
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        T::decode(value)
    }
}

/// serde_dynamo decoding, for every other `Deserialize` type.
pub trait DecodeSerde<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }

    read_methods!();
}

/// Whether `value` holds, at any depth, a value the SDK read as `AttributeValue::Unknown` (a
/// type newer than this SDK, or a DynamoDB-compatible endpoint's own): serde_dynamo would panic
/// on it, so it is refused as a decoding error first.
pub(crate) fn holds_unknown(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::S(_)
        | AttributeValue::N(_)
        | AttributeValue::B(_)
        | AttributeValue::Bool(_)
        | AttributeValue::Null(_)
        | AttributeValue::Ss(_)
        | AttributeValue::Ns(_)
        | AttributeValue::Bs(_) => false,
        AttributeValue::L(l) => l.iter().any(holds_unknown),
        AttributeValue::M(m) => m.values().any(holds_unknown),
        _ => true,
    }
}

/// The error of a value [`holds_unknown`].
#[cold]
pub(crate) fn unknown_value() -> String {
    "the attribute holds a value of a type this version does not know (the SDK's `AttributeValue::Unknown`)".to_owned()
}

impl<T: serde::de::DeserializeOwned> DecodeSerde<T> for &Decode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        match value {
            Some(v) if holds_unknown(&v) => Err(unknown_value()),
            Some(v) => serde_dynamo::from_attribute_value(v).map_err(|e| e.to_string()),
            // An absent attribute reads as NULL: fine for `Option`, an error otherwise.
            None => serde_dynamo::from_attribute_value(AttributeValue::Null(true)).map_err(|_| MISSING.to_owned()),
        }
    }
}

/// Key-text decoding, for types that are only [`KeyPart`].
pub trait DecodeKey<T> {
    /// Reads the value; `None` means the attribute was absent.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }

    read_methods!();
}

impl<T: KeyPart> DecodeKey<T> for Decode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        match value {
            Some(AttributeValue::S(s)) => T::parse_key(&s).map_err(|e| e.to_string()),
            Some(other) => Err(type_error("a string (S)", &other)),
            None => Err(MISSING.to_owned()),
        }
    }
}

/// `Option` of a type that is only [`KeyPart`]: an absent (or NULL) attribute is `None`.
impl<T: KeyPart> DecodeKey<Option<T>> for Decode<Option<T>> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            some => Decode::<T>::new().__decode(some).map(Some),
        }
    }
}

/// A type a field can have: what [`Check`] asks of a field that is not stored otherwise
/// (`with`, `#[ttl]`, a key component). Nothing implements it: a type reaches it only when it is
/// neither [`Direct`], nor `Serialize + Deserialize`, nor [`KeyPart`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as an attribute of an item",
    label = "neither serde's `Serialize` + `Deserialize` nor `KeyPart`",
    note = "derive `serde::Serialize` and `serde::Deserialize` for it, `#[derive(KeyPart)]` for a unit-only enum or a one-field tuple struct, or store it with `#[entity(with = \"module\")]`"
)]
pub trait Storable {}

/// Checks once that a field's type can be stored (see [`Storable`]); generated per field.
#[derive(Debug)]
pub struct Check<T>(pub PhantomData<T>);

impl<T> Check<T> {
    /// The check of `T`.
    #[inline]
    pub fn new() -> Self {
        Check(PhantomData)
    }
}

impl<T> Default for Check<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T: Direct`: storable.
pub trait CheckDirect {
    /// Passes.
    fn __check(&self) {}
}
impl<T: Direct> CheckDirect for &&&Check<T> {}

/// `T: Serialize + Deserialize`: storable through serde_dynamo.
pub trait CheckSerde {
    /// Passes.
    fn __check(&self) {}
}
impl<T: serde::Serialize + serde::de::DeserializeOwned> CheckSerde for &&Check<T> {}

/// `T: KeyPart` (or an `Option` of one): storable as its key text.
pub trait CheckKey {
    /// Passes.
    fn __check(&self) {}
}
impl<T: KeyPart> CheckKey for &Check<T> {}
impl<T: KeyPart> CheckKey for &Check<Option<T>> {}

/// None of the above: the one error, in words ([`Storable`]).
pub trait CheckNone<T> {
    /// Fails to compile: `T` is not [`Storable`].
    fn __check(&self)
    where
        T: Storable,
    {
    }
}
impl<T> CheckNone<T> for Check<T> {}

/// Wraps a key field for encoding its own attribute.
#[derive(Debug)]
pub struct KeyEncode<'a, T>(pub &'a T);

impl<T: Direct> EncodeDirect for &&&KeyEncode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Ok(self.0.encode())
    }

    #[inline(always)]
    fn __write(&self, w: &mut super::Writer, attr: &'static str) {
        self.0.write(w, attr)
    }
}

impl<T: serde::Serialize> EncodeSerde for &&KeyEncode<'_, T> {
    #[inline]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        (&Encode(self.0)).__encode()
    }
}

impl<T: KeyPart> EncodeKey for &KeyEncode<'_, T> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Encode(self.0).__encode()
    }
}

impl<T: KeyPart> EncodeKey for &KeyEncode<'_, Option<T>> {
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Encode(self.0).__encode()
    }
}

/// The level no `KeyPart` type reaches (see above).
pub trait EncodeNotKey {
    /// An error: the type is not a key component.
    fn __encode(&self) -> Result<Option<AttributeValue>, String>;

    write_method!();
}

impl<T> EncodeNotKey for KeyEncode<'_, T> {
    #[cold]
    fn __encode(&self) -> Result<Option<AttributeValue>, String> {
        Err(format!("`{}` is not a key component", core::any::type_name::<T>()))
    }
}

/// Selects the decoder of a key field's own attribute.
#[derive(Debug)]
pub struct KeyDecode<T>(pub PhantomData<T>);

impl<T> KeyDecode<T> {
    /// The selector for `T`, as generated code names it (`__KD::<T>::NEW`: one short line).
    pub const NEW: Self = KeyDecode(PhantomData);

    /// The selector for `T`.
    #[inline]
    pub fn new() -> Self {
        KeyDecode(PhantomData)
    }
}

impl<T> Default for KeyDecode<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Direct> DecodeDirect<T> for &&&KeyDecode<T> {
    #[inline]
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        T::decode(value)
    }
}

impl<T: serde::de::DeserializeOwned> DecodeSerde<T> for &&KeyDecode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        (&Decode::<T>::new()).__decode(value)
    }
}

impl<T: KeyPart> DecodeKey<T> for &KeyDecode<T> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String> {
        Decode::<T>::new().__decode(value)
    }
}

impl<T: KeyPart> DecodeKey<Option<T>> for &KeyDecode<Option<T>> {
    fn __decode(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        Decode::<Option<T>>::new().__decode(value)
    }
}

/// A field's encoding as a function, chosen by the levels that choose `KeyEncode`'s (the same
/// bounds at the same depth): `(&&&&__KD::<T>::NEW).__encoder()` calls the `__encode` that
/// `(&&&&__KE(v)).__encode()` calls for a value `v: &T` (each level's encoder is that level's
/// `KeyEncode` impl, not a second writing of it). Generated code gives it to a field's `Path`
/// without a closure of its own.
pub type FieldEncoder<T> = fn(&T) -> Result<Option<AttributeValue>, String>;

/// [`FieldEncoder`] of a `Direct` type (see [`EncodeDirect`]).
pub trait EncoderDirect<T> {
    /// The encoder.
    fn __encoder(&self) -> FieldEncoder<T>;
}

impl<T: Direct> EncoderDirect<T> for &&&KeyDecode<T> {
    #[inline]
    fn __encoder(&self) -> FieldEncoder<T> {
        |v| <&&&KeyEncode<'_, T> as EncodeDirect>::__encode(&&&&KeyEncode(v))
    }
}

/// [`FieldEncoder`] of a `Serialize` type (see [`EncodeSerde`]).
pub trait EncoderSerde<T> {
    /// The encoder.
    fn __encoder(&self) -> FieldEncoder<T>;
}

impl<T: serde::Serialize> EncoderSerde<T> for &&KeyDecode<T> {
    #[inline]
    fn __encoder(&self) -> FieldEncoder<T> {
        |v| <&&KeyEncode<'_, T> as EncodeSerde>::__encode(&&&KeyEncode(v))
    }
}

/// [`FieldEncoder`] of a type that is only [`KeyPart`] (see [`EncodeKey`]).
pub trait EncoderKey<T> {
    /// The encoder.
    fn __encoder(&self) -> FieldEncoder<T>;
}

impl<T: KeyPart> EncoderKey<T> for &KeyDecode<T> {
    #[inline]
    fn __encoder(&self) -> FieldEncoder<T> {
        |v| <&KeyEncode<'_, T> as EncodeKey>::__encode(&&KeyEncode(v))
    }
}

impl<T: KeyPart> EncoderKey<Option<T>> for &KeyDecode<Option<T>> {
    #[inline]
    fn __encoder(&self) -> FieldEncoder<Option<T>> {
        |v| <&KeyEncode<'_, Option<T>> as EncodeKey>::__encode(&&KeyEncode(v))
    }
}

/// [`FieldEncoder`] of any other type: an error (see [`EncodeNotKey`]).
pub trait EncoderNotKey<T> {
    /// The encoder.
    fn __encoder(&self) -> FieldEncoder<T>;
}

impl<T> EncoderNotKey<T> for KeyDecode<T> {
    #[inline]
    fn __encoder(&self) -> FieldEncoder<T> {
        |v| <KeyEncode<'_, T> as EncodeNotKey>::__encode(&KeyEncode(v))
    }
}

/// The level no `KeyPart` type reaches (see above).
pub trait DecodeNotKey<T> {
    /// An error: the type is not a key component.
    fn __decode(&self, value: Option<AttributeValue>) -> Result<T, String>;

    /// Reads the value of an attribute that may be absent (a key field's, read from the keys
    /// then): `None` if it is.
    #[inline(always)]
    fn __decode_present(&self, value: Option<AttributeValue>) -> Result<Option<T>, String> {
        match value {
            None => Ok(None),
            value => self.__decode(value).map(Some),
        }
    }

    read_methods!();
}

impl<T> DecodeNotKey<T> for KeyDecode<T> {
    #[cold]
    fn __decode(&self, _: Option<AttributeValue>) -> Result<T, String> {
        Err(format!("`{}` is not a key component", core::any::type_name::<T>()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::KeyPartError;

    /// A type that is only `KeyPart` (no serde, not `Direct`).
    #[derive(Debug, Clone, PartialEq)]
    struct OnlyKey(u8);

    impl KeyPart for OnlyKey {
        fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
            out.push_str(&format!("K{}", self.0));
            Ok(())
        }
        fn parse_key(text: &str) -> Result<Self, KeyPartError> {
            text.strip_prefix('K')
                .and_then(|n| n.parse().ok())
                .map(OnlyKey)
                .ok_or_else(|| KeyPartError::Invalid { expected: "K<n>", text: text.to_owned() })
        }
    }

    /// A serde type (not `Direct`).
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct Doc {
        a: u32,
        b: Option<String>,
    }

    /// Neither: the codec's last level.
    struct Neither;

    // The function `__encoder` gives encodes as `(&&&&KeyEncode(v)).__encode()` does, at
    // every level of the dispatch (written out as generated code writes them).
    macro_rules! same {
        ($t:ty, $v:expr) => {{
            let v: $t = $v;
            let by_value = (&&&&KeyEncode(&v)).__encode();
            let by_function = ((&&&&KeyDecode::<$t>::NEW).__encoder())(&v);
            assert_eq!(by_function, by_value, "{}", core::any::type_name::<$t>());
            by_value
        }};
    }

    #[test]
    fn a_fields_encoder_is_the_item_codecs_choice() {
        assert_eq!(same!(String, "x".to_owned()), Ok(Some(AttributeValue::S("x".to_owned()))));
        assert_eq!(same!(u64, 42), Ok(Some(AttributeValue::N("42".to_owned()))));
        assert_eq!(same!(Option<String>, None), Ok(None));
        assert!(matches!(same!(Vec<String>, vec!["a".to_owned()]), Ok(Some(AttributeValue::L(_)))));
        assert_eq!(same!(bool, true), Ok(Some(AttributeValue::Bool(true))));
        // Serde, not direct: a map.
        assert!(matches!(same!(Doc, Doc { a: 1, b: None }), Ok(Some(AttributeValue::M(_)))));
        // Only a key part: its key text, as a string; `None` omitted.
        assert_eq!(same!(OnlyKey, OnlyKey(7)), Ok(Some(AttributeValue::S("K7".to_owned()))));
        assert_eq!(same!(Option<OnlyKey>, Some(OnlyKey(8))), Ok(Some(AttributeValue::S("K8".to_owned()))));
        assert_eq!(same!(Option<OnlyKey>, None), Ok(None));
        // A time: ISO 8601, not serde's map.
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400);
        assert_eq!(same!(std::time::SystemTime, t), Ok(Some(AttributeValue::S("1970-01-02T00:00:00.000Z".to_owned()))));
        assert!(matches!(same!(Option<std::time::SystemTime>, Some(t)), Ok(Some(AttributeValue::S(_)))));
        assert_eq!(same!(Option<std::time::SystemTime>, None), Ok(None));
        // Neither: the error, from both.
        let e = same!(Neither, Neither).unwrap_err();
        assert!(e.contains("is not a key component"), "{e}");
    }
}
