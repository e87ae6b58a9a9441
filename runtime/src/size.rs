//! DynamoDB's item and its rules that can be checked before sending: the 400 KB item size, the
//! numbers it can store (one walk over an item does both, or the writer of the item as it writes
//! it), and the largest keys.
//!
//! The size of an item is the sum of its attribute names' and values' sizes (UTF-8 bytes for
//! names and strings; for numbers about one byte per two significant digits plus one; one byte
//! for booleans and NULL; three bytes plus one per element, plus the elements, for lists and
//! maps). See "Item sizes and formats" in the DynamoDB developer guide.
//!
//! A number (`N`, and each element of an `NS`, at any depth of lists and maps) must be decimal
//! text DynamoDB can store: finite (not `NaN`, `inf`), at most 38 significant digits (leading
//! and trailing zeros do not count: `u128::MAX` has 39, `10^40` has one), and zero or of a
//! magnitude from `1E-130` to `9.9999999999999999999999999999999999999E+125`.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;

/// A DynamoDB item: attribute names to values, as the SDK takes and returns them.
pub type Item = std::collections::HashMap<String, AttributeValue>;

/// Largest partition key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Largest sort key DynamoDB accepts, in UTF-8 bytes.
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// DynamoDB's largest item: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// Most significant digits of a number.
const MAX_DIGITS: usize = 38;
/// Largest decimal exponent of a number's leading digit (`9.99…E+125`).
const MAX_EXPONENT: i64 = 125;
/// Smallest decimal exponent of a non-zero number's leading digit (`1E-130`).
const MIN_EXPONENT: i64 = -130;

/// The digits of a number's text that matter: how many are significant, and the power of ten
/// of the first one (`None` for zero).
struct Digits {
    significant: usize,
    exponent: Option<i64>,
}

/// Parses `[+-]digits[.digits][e[+-]digits]` (digits on at least one side of the point).
fn digits(n: &str) -> Option<Digits> {
    let b = n.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let (mut count, mut point, mut first, mut last) = (0usize, None, None, 0usize);
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                if c != b'0' {
                    first.get_or_insert(count);
                    last = count;
                }
                count += 1;
            }
            b'.' if point.is_none() => point = Some(count),
            _ => break,
        }
        i += 1;
    }
    if count == 0 {
        return None;
    }
    let mut exponent: i64 = 0;
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let negative = matches!(b.get(i), Some(b'-'));
        i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
        let start = i;
        while let Some(c @ b'0'..=b'9') = b.get(i) {
            // Saturates far beyond any exponent that could be in range.
            exponent = (exponent * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        if i == start {
            return None;
        }
        if negative {
            exponent = -exponent;
        }
    }
    if i != b.len() {
        return None;
    }
    let Some(first) = first else { return Some(Digits { significant: 0, exponent: None }) };
    let before_point = i64::try_from(point.unwrap_or(count)).ok()?;
    let first_at = i64::try_from(first).ok()?;
    Some(Digits { significant: last - first + 1, exponent: Some(before_point - 1 - first_at + exponent) })
}

/// Why DynamoDB would refuse this number, if it would.
pub(crate) fn number_problem(n: &str) -> Option<String> {
    problem_of(n, digits(n).as_ref())
}

/// Whether DynamoDB would take the number parsed as `d` (`None`: not a decimal number).
fn acceptable(d: Option<&Digits>) -> bool {
    d.is_some_and(|d| {
        d.significant <= MAX_DIGITS && d.exponent.is_none_or(|e| (MIN_EXPONENT..=MAX_EXPONENT).contains(&e))
    })
}

/// [`number_problem`] of `n`, parsed as `d`.
fn problem_of(n: &str, d: Option<&Digits>) -> Option<String> {
    let Some(d) = d else {
        let finite =
            !matches!(n.trim_start_matches(['+', '-']).to_ascii_lowercase().as_str(), "nan" | "inf" | "infinity");
        return Some(if finite {
            format!("`{n}` is not a decimal number")
        } else {
            format!("{n} is not a finite number; DynamoDB stores finite decimals only")
        });
    };
    if d.significant > MAX_DIGITS {
        return Some(format!("{n} has {} significant digits; DynamoDB stores at most {MAX_DIGITS}", d.significant));
    }
    match d.exponent {
        Some(e) if e > MAX_EXPONENT => Some(format!(
            "{n} is larger in magnitude than DynamoDB's largest number, 9.9999999999999999999999999999999999999E+125"
        )),
        Some(e) if e < MIN_EXPONENT => {
            Some(format!("{n} is smaller in magnitude than DynamoDB's smallest non-zero number, 1E-130"))
        }
        _ => None,
    }
}

fn number_size(n: &str) -> usize {
    match digits(n) {
        Some(d) => d.significant.div_ceil(2) + 1,
        // Not a number DynamoDB takes (refused by `check_item`): count its digits.
        None => n.bytes().filter(u8::is_ascii_digit).count().div_ceil(2) + 1,
    }
}

/// The size of a plain integer (`-?[0-9]{1,38}`: what the codec writes for every integer type),
/// which DynamoDB always takes (at most 38 digits, so an exponent of at most 37); `None` for any
/// other text. The common case of [`digits`] in one pass without its bookkeeping.
#[inline]
fn integer_size(n: &str) -> Option<usize> {
    let b = n.strip_prefix('-').unwrap_or(n).as_bytes();
    if b.is_empty() || b.len() > MAX_DIGITS || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let significant = match (b.iter().position(|&c| c != b'0'), b.iter().rposition(|&c| c != b'0')) {
        (Some(first), Some(last)) => last - first + 1,
        _ => 0,
    };
    Some(significant.div_ceil(2) + 1)
}

/// The size of a number that is not a plain integer (see [`integer_size`]); clears `valid` if
/// DynamoDB refuses it. Parsed once, for its size and its validity.
fn decimal_size(n: &str, valid: &mut bool) -> usize {
    let d = digits(n);
    if !acceptable(d.as_ref()) {
        *valid = false;
    }
    match d {
        Some(d) => d.significant.div_ceil(2) + 1,
        None => number_size(n),
    }
}

/// The size of `v`; clears `valid` if it holds a number DynamoDB refuses.
fn measure(v: &AttributeValue, valid: &mut bool) -> usize {
    let mut number = |n: &str| integer_size(n).unwrap_or_else(|| decimal_size(n, valid));
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(l) => 3 + l.iter().map(|e| 1 + measure_inline(e, valid)).sum::<usize>(),
        AttributeValue::M(m) => 3 + m.iter().map(|(k, e)| 1 + k.len() + measure_inline(e, valid)).sum::<usize>(),
        _ => 0,
    }
}

/// [`measure`], with strings and plain integers (most values of an item: what the codec writes
/// for strings and integer types) measured where it is called rather than in a call each
/// (issue 51: a quarter of the check of a batch put's items).
#[inline(always)]
pub(crate) fn measure_inline(v: &AttributeValue, valid: &mut bool) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => integer_size(n).unwrap_or_else(|| decimal_size(n, valid)),
        _ => measure(v, valid),
    }
}

/// The first number of `v` DynamoDB refuses: where (`path` extended) and why.
fn first_bad_number(v: &AttributeValue, path: &str) -> Option<(String, String)> {
    match v {
        AttributeValue::N(n) => number_problem(n).map(|why| (path.to_owned(), why)),
        AttributeValue::Ns(ns) => ns.iter().find_map(|n| number_problem(n).map(|why| (path.to_owned(), why))),
        AttributeValue::L(l) => l.iter().enumerate().find_map(|(i, e)| first_bad_number(e, &format!("{path}[{i}]"))),
        AttributeValue::M(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_unstable();
            keys.into_iter().find_map(|k| first_bad_number(&m[k], &format!("{path}.{k}")))
        }
        _ => None,
    }
}

/// The size DynamoDB counts for one value.
pub fn value_size(v: &AttributeValue) -> usize {
    measure(v, &mut true)
}

/// The size DynamoDB counts for an item.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Refuses a value DynamoDB would refuse as a number, as [`Error::Validation`] naming
/// `attribute` (for the values of an update, which are not whole items).
pub(crate) fn check_value(entity: &str, attribute: &str, value: &AttributeValue) -> Result<(), Error> {
    let mut valid = true;
    measure(value, &mut valid);
    match first_bad_number(value, attribute).filter(|_| !valid) {
        Some((path, why)) => Err(Error::Validation(format!("{entity} attribute `{path}`: {why}"))),
        None => Ok(()),
    }
}

/// The check of [`check_item_key`] alone.
#[cfg(test)]
fn check_item(entity: &str, item: &Item) -> Result<(), Error> {
    let mut valid = true;
    let size: usize = item.iter().map(|(k, v)| k.len() + measure(v, &mut valid)).sum();
    verdict(entity, item, size, valid)
}

/// The values of an item's partition-key and sort-key attributes (`None`: absent).
pub(crate) type KeyValues<'i> = (Option<&'i AttributeValue>, Option<&'i AttributeValue>);

/// Refuses an item DynamoDB would refuse: over 400 KB (naming its largest attributes), or
/// holding a number it cannot store (naming the attribute, with its path inside lists and maps).
/// Else the values of the key attributes `pk` and `sk` (`None`: no sort key), picked up on the
/// same walk over the item: every write needs its key, and comparing names on the walk is
/// cheaper than two hashed look-ups afterwards (issue 51). A write whose item was written by a
/// checking `codec::Writer` needs neither: the writer counted and judged each value as it
/// wrote it, and copied the key texts (`model::filled::judge`); this walk is for items it did
/// not see whole, or whose table keys are fields' own attributes.
pub(crate) fn check_item_key<'i>(
    entity: &str,
    item: &'i Item,
    pk: &str,
    sk: Option<&str>,
) -> Result<KeyValues<'i>, Error> {
    let (mut valid, mut size) = (true, 0);
    let (mut pk_value, mut sk_value) = (None, None);
    for (k, v) in item {
        size += k.len() + measure_inline(v, &mut valid);
        if k == pk {
            pk_value = Some(v);
        } else if sk == Some(k.as_str()) {
            sk_value = Some(v);
        }
    }
    verdict(entity, item, size, valid)?;
    Ok((pk_value, sk_value))
}

/// The error of an item of `size` bytes (`valid`: every number is one DynamoDB takes), if any.
#[inline(always)]
pub(crate) fn verdict(entity: &str, item: &Item, size: usize, valid: bool) -> Result<(), Error> {
    if valid && size <= MAX_ITEM_BYTES { Ok(()) } else { refusal(entity, item, size, valid) }
}

/// The error [`verdict`] gives an item it refuses.
#[cold]
#[inline(never)]
fn refusal(entity: &str, item: &Item, size: usize, valid: bool) -> Result<(), Error> {
    if !valid {
        let mut names: Vec<&String> = item.keys().collect();
        names.sort_unstable();
        if let Some((path, why)) = names.into_iter().find_map(|k| first_bad_number(&item[k], k)) {
            return Err(Error::Validation(format!("{entity} attribute `{path}`: {why}")));
        }
    }
    if size <= MAX_ITEM_BYTES {
        return Ok(());
    }
    let mut largest: Vec<(&String, usize)> = item.iter().map(|(k, v)| (k, k.len() + value_size(v))).collect();
    largest.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
    let top: Vec<String> = largest.iter().take(3).map(|(k, s)| format!("`{k}` ({s} bytes)")).collect();
    Err(Error::Validation(format!(
        "{entity} item is {size} bytes; DynamoDB allows at most {MAX_ITEM_BYTES} (largest: {})",
        top.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_integers_take_the_short_path_to_the_same_answer() {
        let cases = ["0", "-0", "7", "-12345", "1709234567000", "000120", "100", &"9".repeat(38), &"1".repeat(38)];
        for n in cases {
            let d = digits(n);
            assert!(acceptable(d.as_ref()), "{n}");
            assert_eq!(integer_size(n), d.map(|d| d.significant.div_ceil(2) + 1), "{n}");
        }
        // Not plain integers: the full parse decides (39 digits, a sign, a point, an exponent).
        for n in [&"9".repeat(39) as &str, "+5", "1.5", "1e3", "", "-", "1 ", "٣"] {
            assert_eq!(integer_size(n), None, "{n}");
        }
        let mut valid = true;
        measure(&AttributeValue::N("9".repeat(39)), &mut valid);
        assert!(!valid, "39 digits are refused");
    }

    #[test]
    fn sizes_follow_the_documented_rules() {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("USER#1".into()));
        assert_eq!(item_size(&item), 2 + 6);
        assert_eq!(number_size("1709234567000"), 5 + 1);
        assert_eq!(number_size("1709234567001"), 7 + 1);
        assert_eq!(number_size("0"), 1);
        assert_eq!(number_size("0.0100"), 1 + 1);
        assert_eq!(number_size("-12345"), 3 + 1);
        assert_eq!(value_size(&AttributeValue::L(vec![AttributeValue::S("ab".into())])), 3 + 1 + 2);
        assert_eq!(value_size(&AttributeValue::Bool(true)), 1);
    }

    #[test]
    fn numbers_follow_dynamodbs_rules() {
        let ok = [
            "0",
            "-0",
            "0.000",
            "0e999999999999",
            "1",
            "-1",
            "+7",
            ".5",
            "5.",
            "1E-130",
            "-1e-130",
            "0.0001e-126",
            "9.9999999999999999999999999999999999999E+125",
            "99999999999999999999999999999999999999e88",
            "10000000000000000000000000000000000000000",
            "12345678901234567890123456789012345678",
            "1.2345678901234567890123456789012345678",
            "00000000000000000000000000000000000000000001",
        ];
        for n in ok {
            assert_eq!(number_problem(n), None, "{n}");
        }
        let bad = [
            ("NaN", "finite"),
            ("inf", "finite"),
            ("-inf", "finite"),
            ("", "decimal"),
            ("1e", "decimal"),
            ("--1", "decimal"),
            ("1.2.3", "decimal"),
            (" 1", "decimal"),
            ("0x10", "decimal"),
            (".", "decimal"),
            ("1E+126", "largest"),
            ("-1e126", "largest"),
            ("9.99999999999999999999999999999999999999E+125", "digits"),
            ("340282366920938463463374607431768211455", "39 significant digits"),
            ("1E-131", "smallest"),
            ("0.99e-130", "smallest"),
            ("1e99999999999999999999999999", "largest"),
            ("1e-99999999999999999999", "smallest"),
        ];
        for (n, why) in bad {
            let problem = number_problem(n).unwrap_or_else(|| panic!("{n} accepted"));
            assert!(problem.contains(why), "{n}: {problem}");
        }
    }

    #[test]
    fn a_bad_number_is_named_by_its_attribute_path() {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("A".into()));
        item.insert("ok".into(), AttributeValue::N("1.5".into()));
        assert!(check_item("E", &item).is_ok());
        let nested = AttributeValue::M(
            [(
                "inner".to_owned(),
                AttributeValue::L(vec![
                    AttributeValue::N("1".into()),
                    AttributeValue::Ns(vec!["2".into(), "NaN".into()]),
                ]),
            )]
            .into(),
        );
        item.insert("scores".into(), nested);
        let err = check_item("E", &item).unwrap_err().to_string();
        assert!(err.contains("E attribute `scores.inner[1]`: NaN is not a finite number"), "{err}");
        let err = check_value("E", "x", &AttributeValue::N("1e200".into())).unwrap_err().to_string();
        assert!(err.contains("`x`") && err.contains("larger in magnitude"), "{err}");
        assert!(check_value("E", "x", &AttributeValue::N("1e20".into())).is_ok());
    }

    #[test]
    fn the_checked_walk_finds_the_key_values_and_judges_as_check_item() {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("A#1".into()));
        item.insert("SK".into(), AttributeValue::N("7".into()));
        item.insert("n".into(), AttributeValue::N("1.5".into()));
        let (pk, sk) = check_item_key("E", &item, "PK", Some("SK")).unwrap();
        assert_eq!((pk, sk), (item.get("PK"), item.get("SK")));
        assert_eq!(check_item_key("E", &item, "PK", None).unwrap(), (item.get("PK"), None));
        assert_eq!(check_item_key("E", &item, "pk", Some("sk")).unwrap(), (None, None));
        item.insert("n".into(), AttributeValue::N("NaN".into()));
        let (walked, checked) = (check_item_key("E", &item, "PK", Some("SK")), check_item("E", &item));
        assert_eq!(walked.unwrap_err().to_string(), checked.unwrap_err().to_string());
        item.insert("n".into(), AttributeValue::S("x".repeat(MAX_ITEM_BYTES)));
        let (walked, checked) = (check_item_key("E", &item, "PK", Some("SK")), check_item("E", &item));
        assert_eq!(walked.unwrap_err().to_string(), checked.unwrap_err().to_string());
    }

    #[test]
    fn refuses_just_over_the_limit() {
        let mut item = Item::new();
        item.insert("d".into(), AttributeValue::S("x".repeat(MAX_ITEM_BYTES - 1)));
        assert!(check_item("E", &item).is_ok());
        item.insert("d".into(), AttributeValue::S("x".repeat(MAX_ITEM_BYTES)));
        let err = check_item("E", &item).unwrap_err();
        assert!(err.to_string().contains("409601 bytes"), "{err}");
    }
}
