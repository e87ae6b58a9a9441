//! Property tests of the `KeyPart` and `PaddedKeyPart` implementations: exact round trips,
//! order preservation, the key-text byte contract and canonical-only parsing.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynamo_entity_runtime::key::{MIN_KEY_TEXT_BYTE, to_key_text};
use dynamo_entity_runtime::{KeyPart, KeyPartError, PaddedKeyPart};
use proptest::prelude::*;

/// The key text of `value`, which must have one.
fn text<T: KeyPart>(value: &T) -> String {
    match to_key_text(value) {
        Ok(t) => t,
        Err(e) => panic!("{value:?} has no key text: {e}"),
    }
}

/// Whether `text` keeps the key-text contract.
fn keeps_contract(text: &str) -> bool {
    text.bytes().all(|b| b >= MIN_KEY_TEXT_BYTE)
}

/// The key text of `value` keeps the contract and parses back to `value`.
fn round_trip<T: KeyPart>(value: &T) -> Result<String, TestCaseError> {
    let t = text(value);
    prop_assert!(keeps_contract(&t), "{:?} written as {:?}", value, t);
    let parsed = T::parse_key(&t);
    prop_assert_eq!(parsed.as_ref(), Ok(value), "text {:?}", t);
    Ok(t)
}

/// Text order is value order.
fn same_order<T: KeyPart + Ord>(a: &T, b: &T) -> Result<(), TestCaseError> {
    let (ta, tb) = (text(a), text(b));
    prop_assert_eq!(ta.cmp(&tb), a.cmp(b), "{:?} -> {:?}, {:?} -> {:?}", a, ta, b, tb);
    Ok(())
}

/// Whatever parses is the canonical text of what it parses to.
fn canonical_only<T: KeyPart>(t: &str) -> Result<(), TestCaseError> {
    if let Ok(v) = T::parse_key(t) {
        prop_assert_eq!(text(&v), t, "{:?} parsed as {:?}", t, v);
    }
    Ok(())
}

fn is_invalid<T: KeyPart>(t: &str) -> bool {
    matches!(T::parse_key(t), Err(KeyPartError::Invalid { .. }))
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

/// Strings mixing the escaped characters with plain, boundary and non-ASCII ones.
fn tricky_string() -> impl Strategy<Value = String> {
    let chars: Vec<char> = "#%$ !\"\0\u{1}\n\u{1f}&'aZ025F~\u{7f}é€\u{10ffff}😀".chars().collect();
    let chars = prop::sample::select(chars);
    prop::collection::vec(chars, 0..24).prop_map(String::from_iter)
}

/// Any string, from several strategies.
fn any_string() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "\\PC*", tricky_string(), "[ -~]{0,16}"]
}

/// Text made of escapes, hex digits and forbidden bytes, so that some of it parses.
fn string_key_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "(%[0-9A-Fa-f]{0,2}|[0-9A-Fa-f&a#$ ]){0,8}",
        "(%[012][0-9A-F]|[a&~é]){0,8}",
        "(%2[0-5]|%[01][0-9A-F]|x){0,6}",
        any::<String>(),
    ]
}

/// The escaping, written the simple way.
fn escape_oracle(s: &str) -> String {
    let mut bytes = Vec::new();
    for b in s.bytes() {
        if b <= b'%' {
            bytes.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8(bytes).expect("escaping keeps UTF-8 valid")
}

/// A regex strategy.
fn regex(re: &str) -> impl Strategy<Value = String> + use<> {
    proptest::string::string_regex(re).expect("a valid regex")
}

proptest! {
    #[test]
    fn string_round_trip(s in any_string()) {
        let t = round_trip(&s)?;
        prop_assert!(!t.contains('#'));
        prop_assert_eq!(&t, &escape_oracle(&s));
    }

    #[test]
    fn string_order(a in any_string(), b in any_string()) {
        same_order(&a, &b)?;
    }

    #[test]
    fn string_order_close(a in tricky_string(), b in tricky_string(), prefix in any_string()) {
        // Strings that share a prefix and differ in escaped or nearby characters.
        same_order(&format!("{prefix}{a}"), &format!("{prefix}{b}"))?;
        same_order(&a, &format!("{a}{b}"))?;
    }

    #[test]
    fn string_canonical_only(t in string_key_text()) {
        canonical_only::<String>(&t)?;
    }
}

#[test]
fn string_vectors() {
    assert_eq!(text(&"a#b%c d".to_owned()), "a%23b%25c%20d");
    assert_eq!(text(&String::new()), "");
    assert_eq!(String::parse_key(""), Ok(String::new()));
    assert_eq!(text(&"\0\u{1}\n!\"$&".to_owned()), "%00%01%0A%21%22%24&");
    assert_eq!(text(&"é😀".to_owned()), "é😀");
    assert_eq!(String::parse_key("%25%23"), Ok("%#".to_owned()));
    assert_eq!(String::parse_key("%00"), Ok("\0".to_owned()));
    assert_eq!(String::parse_key("é%20€"), Ok("é €".to_owned()));
    // Long strings go through the word-at-a-time scan; put the escape at every position.
    for i in 0..40 {
        let s: String = (0..40).map(|j| if j == i { '#' } else { 'x' }).collect();
        let t = text(&s);
        assert_eq!(t, s.replace('#', "%23"));
        assert_eq!(String::parse_key(&t), Ok(s));
    }
}

#[test]
fn string_rejects_non_canonical() {
    for t in ["%2a", "%41", "%26", "%FF", "a#b", "a b", "%2", "%", "a%", "%%25", "$", "!", "\0", "\n", "%g0", "%+5"] {
        assert!(is_invalid::<String>(t), "{t:?} was accepted");
    }
}

// ---------------------------------------------------------------------------------------------
// Integers
// ---------------------------------------------------------------------------------------------

macro_rules! int_tests {
    ($($name:ident: $t:ty => $u:ty, $width:literal);* $(;)?) => {$(
        mod $name {
            use super::*;

            /// What the key text must be, from std formatting.
            fn expected(x: $t) -> String {
                #[allow(clippy::unnecessary_cast)]
                let u = if <$t>::MIN == 0 { x as $u } else { (x as $u) ^ (1 << (<$u>::BITS - 1)) };
                format!("{:0w$}", u, w = $width)
            }

            proptest! {
                #[test]
                fn round_trip_and_format(x in any::<$t>()) {
                    let t = round_trip(&x)?;
                    prop_assert_eq!(t.len(), $width);
                    prop_assert_eq!(t, expected(x));
                }

                #[test]
                fn order(a in any::<$t>(), b in any::<$t>()) {
                    same_order(&a, &b)?;
                    same_order(&a, &a)?;
                    if let Some(c) = a.checked_add(1) {
                        same_order(&a, &c)?;
                    }
                }

                #[test]
                fn canonical_only_digits(t in regex(&format!("[0-9]{{{}}}", $width))) {
                    canonical_only::<$t>(&t)?;
                }

                #[test]
                fn canonical_only_near(t in regex(&format!("[-+ 0-9a]{{{},{}}}", $width - 1, $width + 1))) {
                    canonical_only::<$t>(&t)?;
                }

                #[test]
                fn canonical_only_any(t in any::<String>()) {
                    canonical_only::<$t>(&t)?;
                }

                #[test]
                fn padded(x in any::<$t>(), width in 0usize..45) {
                    let mut out = String::from("prefix#");
                    let result = x.write_key_padded(width, &mut out);
                    let plain = x.to_string();
                    if plain.starts_with('-') {
                        let is_out_of_range = matches!(result, Err(KeyPartError::OutOfRange { .. }));
                        prop_assert!(is_out_of_range, "{:?}", result);
                    } else if width == 0 {
                        // Width 0 is `<field:unpadded>`: the shortest decimal form.
                        prop_assert_eq!(result, Ok(()));
                        let t = out.strip_prefix("prefix#").unwrap_or_default();
                        prop_assert_eq!(t, plain.as_str());
                        prop_assert_eq!(<$t>::parse_key_padded(t, 0), Ok(x));
                    } else if plain.len() > width {
                        prop_assert_eq!(result, Err(KeyPartError::TooWide { width, value: plain }));
                    } else {
                        prop_assert_eq!(result, Ok(()));
                        let t = out.strip_prefix("prefix#").unwrap_or_default();
                        prop_assert_eq!(t, format!("{:0w$}", x, w = width));
                        prop_assert_eq!(<$t>::parse_key_padded(t, width), Ok(x));
                    }
                }

                #[test]
                fn padded_canonical_only(t in "[-+ 0-9]{0,8}", width in 0usize..9) {
                    if let Ok(v) = <$t>::parse_key_padded(&t, width) {
                        let mut out = String::new();
                        prop_assert_eq!(v.write_key_padded(width, &mut out), Ok(()));
                        prop_assert_eq!(out, t);
                    }
                }
            }

            #[test]
            fn extremes() {
                for x in [<$t>::MIN, <$t>::MAX, 0 as $t, 1 as $t] {
                    assert_eq!(text(&x), expected(x));
                    assert_eq!(<$t>::parse_key(&text(&x)), Ok(x));
                }
                assert!(text(&<$t>::MIN).bytes().all(|b| b == b'0'));
                assert!(is_invalid::<$t>(""));
                assert!(is_invalid::<$t>(&"0".repeat($width - 1)));
                assert!(is_invalid::<$t>(&"0".repeat($width + 1)));
                assert!(is_invalid::<$t>(&"9".repeat($width + 1)));
                assert!(is_invalid::<$t>(&format!("+{}", "0".repeat($width - 1))));
                assert!(is_invalid::<$t>(&format!("{} ", text(&<$t>::MAX))));
                // The width of the type is that of its maximum, so all nines overflow.
                let nines = "9".repeat($width);
                assert!(is_invalid::<$t>(&nines));
            }
        }
    )*};
}

int_tests! {
    u8_key: u8 => u8, 3;
    u16_key: u16 => u16, 5;
    u32_key: u32 => u32, 10;
    u64_key: u64 => u64, 20;
    u128_key: u128 => u128, 39;
    usize_key: usize => u64, 20;
    i8_key: i8 => u8, 3;
    i16_key: i16 => u16, 5;
    i32_key: i32 => u32, 10;
    i64_key: i64 => u64, 20;
    i128_key: i128 => u128, 39;
    isize_key: isize => u64, 20;
}

#[test]
fn int_vectors() {
    assert_eq!(text(&42u64), "00000000000000000042");
    assert_eq!(text(&u64::MAX), "18446744073709551615");
    assert_eq!(text(&u128::MAX), "340282366920938463463374607431768211455");
    assert_eq!(text(&-128i8), "000");
    assert_eq!(text(&0i8), "128");
    assert_eq!(text(&127i8), "255");
    assert_eq!(text(&-1i8), "127");
    assert_eq!(text(&0i64), "09223372036854775808");
    assert_eq!(text(&i64::MIN), "00000000000000000000");
    assert_eq!(text(&-1isize), text(&-1i64));
    assert_eq!(u64::parse_key("00000000000000000042"), Ok(42));
    assert_eq!(i8::parse_key("000"), Ok(-128));
    for t in ["1", "+0000000000000000001", "00000000000000000001 ", " 0000000000000000001", "-0000000000000000001"] {
        assert!(is_invalid::<u64>(t), "{t:?} was accepted");
    }
    assert!(is_invalid::<u64>("18446744073709551616"));
    assert!(is_invalid::<u8>("256"));
    assert!(is_invalid::<i8>("256"));
    assert!(is_invalid::<i8>("-01"));
}

proptest! {
    #[test]
    fn padded_u64_width_13(x in 0u64..10_000_000_000_000) {
        let mut out = String::new();
        prop_assert_eq!(x.write_key_padded(13, &mut out), Ok(()));
        prop_assert_eq!(out.len(), 13);
        prop_assert!(keeps_contract(&out));
        prop_assert_eq!(u64::parse_key_padded(&out, 13), Ok(x));
    }

    #[test]
    fn padded_u64_width_13_too_wide(x in 10_000_000_000_000u64..) {
        let mut out = String::new();
        prop_assert_eq!(
            x.write_key_padded(13, &mut out),
            Err(KeyPartError::TooWide { width: 13, value: x.to_string() })
        );
    }

    #[test]
    fn padded_u64_width_13_order(a in 0u64..10_000_000_000_000, b in 0u64..10_000_000_000_000) {
        let (mut ta, mut tb) = (String::new(), String::new());
        prop_assert_eq!(a.write_key_padded(13, &mut ta), Ok(()));
        prop_assert_eq!(b.write_key_padded(13, &mut tb), Ok(()));
        prop_assert_eq!(ta.cmp(&tb), a.cmp(&b));
    }

    /// Every width a `u64` can take, against `format!`: the text, or `TooWide` with nothing written.
    #[test]
    fn padded_u64_every_width_matches_format(x in any::<u64>(), digits in 0u32..20, width in 0usize..26) {
        let x = x % 10u64.saturating_pow(digits).max(1);
        let mut out = String::from("KEEP#");
        let result = x.write_key_padded(width, &mut out);
        let expected = format!("{x:0width$}");
        if width == 0 {
            prop_assert_eq!(result, Ok(()));
            prop_assert_eq!(&out[5..], x.to_string());
            prop_assert_eq!(u64::parse_key_padded(&out[5..], 0), Ok(x));
        } else if expected.len() == width {
            prop_assert_eq!(result, Ok(()));
            prop_assert_eq!(&out[5..], expected.as_str());
            prop_assert_eq!(u64::parse_key_padded(&out[5..], width), Ok(x));
        } else {
            prop_assert_eq!(result, Err(KeyPartError::TooWide { width, value: x.to_string() }));
            prop_assert_eq!(out, "KEEP#");
        }
        let mut plain = String::new();
        prop_assert_eq!(x.write_key(&mut plain), Ok(()));
        prop_assert_eq!(plain, format!("{x:020}"));
    }

    /// Reading padded digits accepts exactly `width` ASCII digits whose value fits, as
    /// `str::parse` does after checking them.
    #[test]
    fn padded_u64_parse_matches_reference(text in "[0-9]{0,22}|[0-9/:a+ -]{0,22}|[0-9]{0,10}[^0-9][0-9]{0,10}", off in -1isize..=1) {
        // Mostly the text's own length, which is when the digits are read at all.
        let width = text.len().saturating_add_signed(off);
        let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        // Width 0 (`<field:unpadded>`): any length, but the shortest form only (no leading zero).
        let canonical = width == 0 && digits && (text == "0" || !text.starts_with('0'));
        let expected = ((width > 0 && text.len() == width && digits) || canonical)
            .then(|| text.parse::<u64>().ok())
            .flatten();
        prop_assert_eq!(u64::parse_key_padded(&text, width).ok(), expected);
        prop_assert_eq!(
            u32::parse_key_padded(&text, width).ok(),
            expected.and_then(|v| u32::try_from(v).ok())
        );
    }

    #[test]
    fn padded_negative_is_out_of_range(x in i64::MIN..0, width in 0usize..30) {
        let mut out = String::new();
        let result = x.write_key_padded(width, &mut out);
        let is_out_of_range = matches!(&result, Err(KeyPartError::OutOfRange { value, .. }) if *value == x.to_string());
        prop_assert!(is_out_of_range, "{:?}", result);
        prop_assert_eq!(out, "");
    }
}

#[test]
fn padded_vectors() {
    let mut out = String::new();
    assert_eq!(7u8.write_key_padded(4, &mut out), Ok(()));
    assert_eq!(out, "0007");
    assert_eq!(u8::parse_key_padded("0255", 4), Ok(255));
    assert!(matches!(u8::parse_key_padded("0256", 4), Err(KeyPartError::Invalid { .. })));
    assert!(matches!(u64::parse_key_padded("007", 4), Err(KeyPartError::Invalid { .. })));
    assert!(matches!(u64::parse_key_padded("+007", 4), Err(KeyPartError::Invalid { .. })));
    assert!(matches!(i32::parse_key_padded("-007", 4), Err(KeyPartError::Invalid { .. })));
    assert!(matches!(u64::parse_key_padded("", 0), Err(KeyPartError::Invalid { .. })));
    // Width 0 is `<field:unpadded>`.
    let mut out = String::new();
    assert_eq!(0u64.write_key_padded(0, &mut out), Ok(()));
    assert_eq!(out, "0");
    assert_eq!(u128::parse_key_padded("340282366920938463463374607431768211455", 0), Ok(u128::MAX));
    assert!(matches!(u64::parse_key_padded("01", 0), Err(KeyPartError::Invalid { .. })));
    assert_eq!(
        (-1i128).write_key_padded(5, &mut String::new()).map_err(|e| matches!(e, KeyPartError::OutOfRange { .. })),
        Err(true)
    );
    let mut out = String::new();
    assert_eq!(u128::MAX.write_key_padded(41, &mut out), Ok(()));
    assert_eq!(out, format!("00{}", u128::MAX));
    assert_eq!(u128::parse_key_padded(&out, 41), Ok(u128::MAX));
    assert_eq!(i128::parse_key_padded(&out, 41).map_err(|_| ()), Err(()));
}

// ---------------------------------------------------------------------------------------------
// SystemTime
// ---------------------------------------------------------------------------------------------

/// 0000-01-01T00:00:00.000Z in milliseconds after the epoch.
const MIN_MS: i64 = -62_167_219_200_000;
/// 9999-12-31T23:59:59.999Z in milliseconds after the epoch.
const MAX_MS: i64 = 253_402_300_799_999;

fn time_from_ms(ms: i64) -> SystemTime {
    if ms >= 0 {
        UNIX_EPOCH + Duration::from_millis(ms.unsigned_abs())
    } else {
        UNIX_EPOCH - Duration::from_millis(ms.unsigned_abs())
    }
}

fn time_from_nanos(nanos: i128) -> SystemTime {
    let abs = nanos.unsigned_abs();
    let secs = u64::try_from(abs / 1_000_000_000).expect("seconds fit a u64");
    let d = Duration::new(secs, (abs % 1_000_000_000) as u32);
    if nanos >= 0 { UNIX_EPOCH + d } else { UNIX_EPOCH - d }
}

/// Milliseconds across the whole range, around the epoch, and at the ends.
fn ms_strategy() -> impl Strategy<Value = i64> {
    prop_oneof![
        MIN_MS..=MAX_MS,
        -5_000_000_000_000i64..5_000_000_000_000,
        -100_000i64..100_000,
        MIN_MS..MIN_MS + 100_000,
        MAX_MS - 100_000..=MAX_MS,
    ]
}

/// Texts shaped like times, some valid and some not.
fn time_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9]\\.[0-9]{3}Z",
        "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z",
        "[0-9]{4}-0[1-3]-(2[89]|3[01])T00:00:00\\.000[Zz]",
        "[0-9 +-]{4,6}-[0-9]{1,2}-[0-9]{1,2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,4})?[Zz]?",
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn time_round_trip(ms in ms_strategy()) {
        let t = round_trip(&time_from_ms(ms))?;
        prop_assert_eq!(t.len(), 24);
    }

    #[test]
    fn time_order(a in ms_strategy(), b in ms_strategy()) {
        same_order(&time_from_ms(a), &time_from_ms(b))?;
        same_order(&time_from_ms(a), &time_from_ms(a))?;
        if a < MAX_MS {
            same_order(&time_from_ms(a), &time_from_ms(a + 1))?;
        }
    }

    #[test]
    fn time_drops_sub_millisecond_towards_the_past(ms in ms_strategy(), sub in 0i128..1_000_000) {
        let t = time_from_nanos(i128::from(ms) * 1_000_000 + sub);
        prop_assert_eq!(text(&t), text(&time_from_ms(ms)));
    }

    #[test]
    fn time_canonical_only(t in time_text()) {
        canonical_only::<SystemTime>(&t)?;
    }

    #[test]
    fn time_valid_dates_parse(
        year in 0i64..=9999, month in 1i64..=12, day in 1i64..=28,
        hour in 0i64..24, minute in 0i64..60, second in 0i64..60, milli in 0i64..1000,
    ) {
        let t = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z");
        let parsed = SystemTime::parse_key(&t);
        prop_assert!(parsed.is_ok(), "{:?}: {:?}", t, parsed);
        canonical_only::<SystemTime>(&t)?;
    }
}

#[cfg(feature = "chrono")]
proptest! {
    /// The civil-date arithmetic agrees with chrono's RFC 3339 output.
    #[test]
    fn time_matches_chrono(ms in ms_strategy()) {
        let Some(dt) = chrono::DateTime::from_timestamp_millis(ms) else {
            return Err(TestCaseError::fail(format!("chrono cannot represent {ms}")));
        };
        prop_assert_eq!(text(&time_from_ms(ms)), dt.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    }
}

#[test]
fn time_vectors() {
    assert_eq!(text(&time_from_ms(1_709_234_567_000)), "2024-02-29T19:22:47.000Z");
    assert_eq!(text(&UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    assert_eq!(text(&time_from_ms(-1)), "1969-12-31T23:59:59.999Z");
    assert_eq!(text(&time_from_nanos(-1)), "1969-12-31T23:59:59.999Z");
    assert_eq!(text(&time_from_nanos(-1_000_001)), "1969-12-31T23:59:59.998Z");
    assert_eq!(text(&time_from_nanos(999_999)), "1970-01-01T00:00:00.000Z");
    assert_eq!(text(&time_from_ms(MIN_MS)), "0000-01-01T00:00:00.000Z");
    assert_eq!(text(&time_from_ms(MAX_MS)), "9999-12-31T23:59:59.999Z");
    assert_eq!(SystemTime::parse_key("2024-02-29T19:22:47.000Z"), Ok(time_from_ms(1_709_234_567_000)));
    assert_eq!(SystemTime::parse_key("1969-12-31T23:59:59.999Z"), Ok(time_from_ms(-1)));
    for t in ["0000-02-29T00:00:00.000Z", "2000-02-29T00:00:00.000Z", "1600-02-29T12:00:00.000Z"] {
        assert!(SystemTime::parse_key(t).is_ok(), "{t:?} was rejected");
    }
}

#[test]
fn time_out_of_range() {
    for t in [time_from_ms(MIN_MS - 1), time_from_ms(MAX_MS + 1), time_from_nanos(i128::from(MIN_MS) * 1_000_000 - 1)] {
        let result = to_key_text(&t);
        assert_eq!(
            result,
            Err(KeyPartError::OutOfRange { expected: "a time between years 0000 and 9999", value: format!("{t:?}") })
        );
    }
    // Just before the upper end is still fine.
    assert_eq!(text(&time_from_nanos(i128::from(MAX_MS) * 1_000_000 + 999_999)), "9999-12-31T23:59:59.999Z");
}

#[test]
fn time_rejects_non_canonical() {
    for t in [
        "2024-02-30T00:00:00.000Z",
        "2023-02-29T00:00:00.000Z",
        "1900-02-29T00:00:00.000Z",
        "2024-04-31T00:00:00.000Z",
        "2024-13-01T00:00:00.000Z",
        "2024-00-01T00:00:00.000Z",
        "2024-01-00T00:00:00.000Z",
        "2024-02-29T24:00:00.000Z",
        "2024-02-29T23:60:00.000Z",
        "2024-02-29T23:59:60.000Z",
        "2024-02-29T19:22:47Z",
        "2024-02-29T19:22:47.000z",
        "2024-02-29t19:22:47.000Z",
        "2024-02-29 19:22:47.000Z",
        "2024-02-29T19:22:47.0000Z",
        "2024-02-29T19:22:47.00Z",
        "2024-02-29T19:22:47.000+00:00",
        "+2024-02-29T19:22:47.000Z",
        "-001-02-28T19:22:47.000Z",
        "2024-2-29T19:22:47.000Z ",
        "",
        "2024-02-29T19:22:47.000Zé",
    ] {
        assert!(is_invalid::<SystemTime>(t), "{t:?} was accepted");
    }
}

// ---------------------------------------------------------------------------------------------
// bool
// ---------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn bool_round_trip_and_order(a in any::<bool>(), b in any::<bool>()) {
        round_trip(&a)?;
        same_order(&a, &b)?;
    }

    #[test]
    fn bool_canonical_only(t in prop_oneof!["(true|false|True|FALSE|1|0| )*", any::<String>()]) {
        canonical_only::<bool>(&t)?;
    }
}

#[test]
fn bool_vectors() {
    assert_eq!(text(&false), "false");
    assert_eq!(text(&true), "true");
    for t in ["", "True", "TRUE", "1", "0", "true ", "yes", "f"] {
        assert!(is_invalid::<bool>(t), "{t:?} was accepted");
    }
}

// ---------------------------------------------------------------------------------------------
// Bytes (serde_bytes::ByteBuf)
// ---------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn bytes_round_trip_and_order(a in any::<Vec<u8>>(), b in any::<Vec<u8>>(), prefix in any::<Vec<u8>>()) {
        let (a, b) = (serde_bytes::ByteBuf::from(a), serde_bytes::ByteBuf::from(b));
        round_trip(&a)?;
        same_order(&a, &b)?;
        // Close values: a common prefix, and one a prefix of the other.
        let (pa, pb) = ([&prefix[..], &a[..]].concat(), [&prefix[..], &b[..]].concat());
        same_order(&serde_bytes::ByteBuf::from(pa), &serde_bytes::ByteBuf::from(pb))?;
        same_order(&serde_bytes::ByteBuf::from(prefix.clone()), &serde_bytes::ByteBuf::from([&prefix[..], &a[..]].concat()))?;
    }

    #[test]
    fn bytes_canonical_only(t in prop_oneof!["[0-9a-fA-F]{0,9}", any::<String>()]) {
        canonical_only::<serde_bytes::ByteBuf>(&t)?;
    }
}

#[test]
fn bytes_vectors() {
    assert_eq!(text(&serde_bytes::ByteBuf::from(vec![0x00, 0x7f, 0x80, 0xff])), "007f80ff");
    assert_eq!(text(&serde_bytes::ByteBuf::new()), "");
    for t in ["0", "ABCD", "0g", "00 ", "+0"] {
        assert!(is_invalid::<serde_bytes::ByteBuf>(t), "{t:?} was accepted");
    }
}

// ---------------------------------------------------------------------------------------------
// Feature-gated types
// ---------------------------------------------------------------------------------------------

#[cfg(feature = "uuid")]
mod uuid_key {
    use super::*;
    use uuid::Uuid;

    proptest! {
        #[test]
        fn round_trip_and_order(a in any::<u128>(), b in any::<u128>()) {
            let (a, b) = (Uuid::from_u128(a), Uuid::from_u128(b));
            let t = round_trip(&a)?;
            prop_assert_eq!(t.len(), 36);
            prop_assert_eq!(&t, &a.hyphenated().to_string());
            prop_assert!(Uuid::parse_key(&t.to_uppercase()).is_err() || t == t.to_uppercase());
            same_order(&a, &b)?;
        }

        #[test]
        fn canonical_only_uuid(t in "[0-9a-fA-F]{8}-?[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-fA-F]{4}-[0-9a-f]{12}") {
            canonical_only::<Uuid>(&t)?;
        }
    }

    #[test]
    fn vectors() {
        let id = Uuid::from_u128(0x67e5_5044_10b1_426f_9247_bb68_0e5f_e0c8);
        assert_eq!(text(&id), "67e55044-10b1-426f-9247-bb680e5fe0c8");
        for t in [
            "67E55044-10B1-426F-9247-BB680E5FE0C8",
            "67e55044-10b1-426f-9247-bb680e5fe0C8",
            "67e5504410b1426f9247bb680e5fe0c8",
            "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
            "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67e55044-10b1-426f-9247-bb680e5fe0c",
            "",
        ] {
            assert!(is_invalid::<Uuid>(t), "{t:?} was accepted");
        }
    }
}

#[cfg(feature = "ulid")]
mod ulid_key {
    use super::*;
    use ulid::Ulid;

    proptest! {
        #[test]
        fn round_trip_and_order(a in any::<u128>(), b in any::<u128>()) {
            let (a, b) = (Ulid(a), Ulid(b));
            let t = round_trip(&a)?;
            prop_assert_eq!(&t, &a.to_string());
            same_order(&a, &b)?;
        }

        #[test]
        fn canonical_only_ulid(t in prop_oneof!["[0-9A-Z][0-9A-HJKMNP-TV-Z]{25}", "[0-9A-Za-z]{26}", "[0-7][0-9a-hjkmnp-tv-z]{25}"]) {
            canonical_only::<Ulid>(&t)?;
        }
    }

    #[test]
    fn vectors() {
        let id = Ulid(0x0188_9e63_bb4f_7e3c_a3bd_8d6d_1b6f_c2aa);
        let t = text(&id);
        assert_eq!(t, id.to_string());
        assert!(is_invalid::<Ulid>(&t.to_lowercase()));
        assert_eq!(text(&Ulid(u128::MAX)), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        for t in ["8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FA", ""] {
            assert!(is_invalid::<Ulid>(t), "{t:?} was accepted");
        }
    }
}

#[cfg(feature = "chrono")]
mod chrono_key {
    use super::*;
    use chrono::{DateTime, Utc};
    use dynamo_entity_runtime::TtlValue;

    fn dt(ms: i64) -> DateTime<Utc> {
        match DateTime::from_timestamp_millis(ms) {
            Some(dt) => dt,
            None => panic!("chrono cannot represent {ms}"),
        }
    }

    proptest! {
        #[test]
        fn same_text_as_system_time(ms in ms_strategy(), sub in 0u32..1_000_000) {
            let t = round_trip(&dt(ms))?;
            prop_assert_eq!(&t, &text(&time_from_ms(ms)));
            let finer = dt(ms).timestamp_subsec_nanos() + sub;
            let Some(finer) = DateTime::from_timestamp(dt(ms).timestamp(), finer) else {
                return Err(TestCaseError::fail("no sub-millisecond time"));
            };
            prop_assert_eq!(text(&finer), t);
        }

        #[test]
        fn order(a in ms_strategy(), b in ms_strategy()) {
            same_order(&dt(a), &dt(b))?;
        }

        #[test]
        fn canonical_only_chrono(t in time_text()) {
            canonical_only::<DateTime<Utc>>(&t)?;
        }

        #[test]
        fn ttl(secs in -100_000_000_000i64..100_000_000_000, nanos in 0u32..1_000_000_000) {
            let Some(t) = DateTime::from_timestamp(secs, nanos) else {
                return Err(TestCaseError::fail("no time"));
            };
            prop_assert_eq!(t.to_epoch_seconds(), secs);
            prop_assert_eq!(DateTime::<Utc>::from_epoch_seconds(secs), DateTime::from_timestamp(secs, 0));
        }
    }

    #[test]
    fn vectors() {
        assert_eq!(text(&dt(-1)), "1969-12-31T23:59:59.999Z");
        assert!(matches!(to_key_text(&dt(MAX_MS + 1)), Err(KeyPartError::OutOfRange { .. })));
        assert!(matches!(to_key_text(&dt(MIN_MS - 1)), Err(KeyPartError::OutOfRange { .. })));
        assert_eq!(DateTime::<Utc>::from_epoch_seconds(i64::MAX), None);
        assert_eq!(dt(-500).to_epoch_seconds(), -1);
        // A leap second stays within its second.
        let leap = DateTime::from_timestamp(1_483_228_799, 1_500_000_000);
        assert_eq!(leap.map(|t| text(&t)).as_deref(), Some("2016-12-31T23:59:59.999Z"));
    }
}

#[cfg(feature = "time")]
mod time_key {
    use super::*;
    use dynamo_entity_runtime::TtlValue;
    use time::{OffsetDateTime, UtcOffset};

    fn odt(ms: i64) -> OffsetDateTime {
        match OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000) {
            Ok(t) => t,
            Err(e) => panic!("time cannot represent {ms}: {e}"),
        }
    }

    proptest! {
        #[test]
        fn same_text_as_system_time(ms in ms_strategy(), sub in 0i64..1_000_000, offset in -86_399i32..86_400) {
            let t = round_trip(&odt(ms))?;
            prop_assert_eq!(&t, &text(&time_from_ms(ms)));
            let Ok(offset) = UtcOffset::from_whole_seconds(offset) else {
                return Err(TestCaseError::fail("no offset"));
            };
            let shifted = (odt(ms) + time::Duration::nanoseconds(sub)).checked_to_offset(offset);
            if let Some(shifted) = shifted {
                prop_assert_eq!(text(&shifted), t.clone());
                let parsed = OffsetDateTime::parse_key(&t);
                prop_assert_eq!(parsed.map(|p| p.offset()), Ok(UtcOffset::UTC));
            }
        }

        #[test]
        fn order(a in ms_strategy(), b in ms_strategy()) {
            same_order(&odt(a), &odt(b))?;
        }

        #[test]
        fn canonical_only_time(t in time_text()) {
            canonical_only::<OffsetDateTime>(&t)?;
        }

        #[test]
        fn ttl(ms in ms_strategy()) {
            prop_assert_eq!(odt(ms).to_epoch_seconds(), ms.div_euclid(1000));
            let secs = ms.div_euclid(1000);
            prop_assert_eq!(OffsetDateTime::from_epoch_seconds(secs), Some(odt(secs * 1000)));
        }
    }

    #[test]
    fn vectors() {
        assert_eq!(text(&odt(1_709_234_567_000)), "2024-02-29T19:22:47.000Z");
        assert_eq!(OffsetDateTime::from_epoch_seconds(i64::MAX), None);
        assert_eq!(odt(-1).to_epoch_seconds(), -1);
    }
}

#[cfg(feature = "jiff")]
mod jiff_key {
    use super::*;
    use dynamo_entity_runtime::TtlValue;
    use jiff::Timestamp;

    /// The last millisecond `jiff::Timestamp` can hold.
    fn jiff_max_ms() -> i64 {
        Timestamp::MAX.as_millisecond()
    }

    fn ts(ms: i64) -> Timestamp {
        match Timestamp::from_nanosecond(i128::from(ms) * 1_000_000) {
            Ok(t) => t,
            Err(e) => panic!("jiff cannot represent {ms}: {e}"),
        }
    }

    proptest! {
        #[test]
        fn same_text_as_system_time(ms in ms_strategy(), sub in 0i128..1_000_000) {
            let ms = ms.min(jiff_max_ms());
            let t = round_trip(&ts(ms))?;
            prop_assert_eq!(&t, &text(&time_from_ms(ms)));
            if let Ok(finer) = Timestamp::from_nanosecond(i128::from(ms) * 1_000_000 + sub) {
                prop_assert_eq!(text(&finer), t);
            }
        }

        #[test]
        fn order(a in ms_strategy(), b in ms_strategy()) {
            same_order(&ts(a.min(jiff_max_ms())), &ts(b.min(jiff_max_ms())))?;
        }

        #[test]
        fn canonical_only_jiff(t in time_text()) {
            canonical_only::<Timestamp>(&t)?;
        }

        #[test]
        fn ttl(ms in ms_strategy()) {
            let ms = ms.min(jiff_max_ms());
            prop_assert_eq!(ts(ms).to_epoch_seconds(), ms.div_euclid(1000));
            let secs = ms.div_euclid(1000);
            prop_assert_eq!(Timestamp::from_epoch_seconds(secs), Some(ts(secs * 1000)));
        }
    }

    #[test]
    fn vectors() {
        assert_eq!(text(&ts(-1)), "1969-12-31T23:59:59.999Z");
        assert_eq!(Timestamp::from_nanosecond(-1).map(|t| text(&t)).ok().as_deref(), Some("1969-12-31T23:59:59.999Z"));
        assert_eq!(Timestamp::from_nanosecond(-1).map(|t| t.to_epoch_seconds()).ok(), Some(-1));
        assert!(is_invalid::<Timestamp>("9999-12-31T23:59:59.999Z"));
        assert!(is_invalid::<Timestamp>("9999-12-30T22:00:01.000Z"));
        assert_eq!(text(&Timestamp::MAX), "9999-12-30T22:00:00.999Z");
        assert_eq!(Timestamp::parse_key("9999-12-30T22:00:00.999Z").map(|t| t.as_millisecond()), Ok(jiff_max_ms()));
        assert_eq!(Timestamp::from_epoch_seconds(i64::MAX), None);
    }
}
