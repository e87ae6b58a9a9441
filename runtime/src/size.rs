//! DynamoDB's item size rules, to refuse an oversized item before sending it.
//!
//! The size of an item is the sum of its attribute names' and values' sizes (UTF-8 bytes for
//! names and strings; for numbers about one byte per two significant digits plus one; one byte
//! for booleans and NULL; three bytes plus one per element, plus the elements, for lists and
//! maps). See "Item sizes and formats" in the DynamoDB developer guide.

use crate::{AttributeValue, Error, Item};

/// DynamoDB's largest item: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

fn number_size(n: &str) -> usize {
    let digits: &str = n.trim_start_matches(['-', '+']);
    let mantissa = digits.split(['e', 'E']).next().unwrap_or("");
    let significant: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // "Leading and trailing zeroes are trimmed": 1709234567000 has 10 significant digits.
    let significant = significant.trim_start_matches('0').trim_end_matches('0');
    significant.len().div_ceil(2) + 1
}

/// The size DynamoDB counts for one value.
pub fn value_size(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(l) => 3 + l.iter().map(|e| 1 + value_size(e)).sum::<usize>(),
        AttributeValue::M(m) => 3 + m.iter().map(|(k, e)| 1 + k.len() + value_size(e)).sum::<usize>(),
        _ => 0,
    }
}

/// The size DynamoDB counts for an item.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Refuses an item over 400 KB, naming its largest attributes.
pub fn check_item_size(entity: &str, item: &Item) -> Result<(), Error> {
    let size = item_size(item);
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
    fn refuses_just_over_the_limit() {
        let mut item = Item::new();
        item.insert("d".into(), AttributeValue::S("x".repeat(MAX_ITEM_BYTES - 1)));
        assert!(check_item_size("E", &item).is_ok());
        item.insert("d".into(), AttributeValue::S("x".repeat(MAX_ITEM_BYTES)));
        let err = check_item_size("E", &item).unwrap_err();
        assert!(err.to_string().contains("409601 bytes"), "{err}");
    }
}
