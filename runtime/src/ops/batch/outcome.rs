//! What a batch call did, entry by entry: positions, key texts, the outcome of each chunk and
//! of the whole call, and the errors built from them.

use std::cell::Cell;

use aws_sdk_dynamodb::types::WriteRequest;

use crate::error::Error;
pub use crate::error::batch::{BatchKey, BatchWriteOutcome};
use crate::model::Item;
use crate::model::entity::EntitySchema;
use crate::model::filled::Judged;

/// Partition-key and sort-key text: the identity of an item, owned (for errors).
pub(super) type KeyText = (String, Option<String>);

/// Where a key's partition key ends and where it ends in [`Keys`]' buffer (it starts where the
/// previous key ends), and whether it has a sort key.
type End = (usize, usize, bool);

/// Partition-key and sort-key text, borrowed.
pub(super) type KeyRef<'a> = (&'a str, Option<&'a str>);

/// The key texts of a call's items or keys, by slot, in one buffer: one allocation per call
/// rather than two per entry (copying each entry's texts into strings of its own was the
/// largest share of a batch put's client cost over a raw call's). Owned copies are made only
/// for the lists of an error.
#[derive(Debug)]
pub(super) struct Keys {
    text: String,
    /// Per slot: where its partition key ends and where its sort key ends (it starts where the
    /// previous slot ends), and whether it has a sort key.
    ends: Vec<End>,
    /// How many keys the call will add, if known ([`Keys::with_capacity`]; 0: unknown).
    expected: usize,
    /// Whether every key so far came after the one pushed before it (its texts side by side,
    /// then the length of its partition key's: two keys of a table are the same exactly when
    /// both are): then no two are the same, which a batch's usual input (keys in order) shows
    /// with one comparison as each key is added (issue 51).
    rising: bool,
    /// Where the last key's texts start, where its partition key's end, where it ends.
    last: (usize, usize, usize),
}

/// The most a call's key buffers may hold (bytes) to be kept for the thread's next call.
const SPARE_MAX: usize = 16 * 1024;

thread_local! {
    /// The key buffers of the last call that ended on this thread, emptied, for the next one:
    /// a call of 25 items keeps about 1.2 KB of texts, past the allocator's per-thread cache, so
    /// each call's buffer was a trip into glibc's bins (and their consolidation) that a raw
    /// call does not make (issue 51). Buffers above [`SPARE_MAX`] are freed, not kept.
    static SPARE: Cell<(String, Vec<End>)> = const { Cell::new((String::new(), Vec::new())) };
}

impl Drop for Keys {
    /// Hands the emptied buffers to the thread's next call, if they are small enough to keep.
    fn drop(&mut self) {
        let ends_bytes = self.ends.capacity().saturating_mul(std::mem::size_of::<End>());
        if self.text.capacity() <= SPARE_MAX && ends_bytes <= SPARE_MAX {
            self.text.clear();
            self.ends.clear();
            let spare = (std::mem::take(&mut self.text), std::mem::take(&mut self.ends));
            // (During the thread's teardown there is no next call: the buffers are freed.)
            let _ = SPARE.try_with(|s| s.set(spare));
        }
    }
}

impl Default for Keys {
    /// No key yet, the buffers grown as they need.
    fn default() -> Self {
        Keys::with_capacity(0)
    }
}

impl Keys {
    /// Room for `n` keys; the texts' buffer is sized by the first key (see [`Keys::sized`]).
    /// The buffers are the thread's spare ones if an earlier call left them ([`SPARE`]).
    pub(super) fn with_capacity(n: usize) -> Self {
        let (text, mut ends) = SPARE.try_with(Cell::take).unwrap_or_default();
        ends.reserve(n);
        Keys { text, ends, expected: n, rising: true, last: (0, 0, 0) }
    }

    /// After the first key of a call whose keys are counted ([`Keys::with_capacity`]): room for
    /// the others at its length (and a quarter more), in one allocation rather than a guess and
    /// its growth, each copying the texts. Without a count, the buffer grows as it needs.
    fn sized(&mut self) {
        if self.ends.len() == 1 && self.expected > 1 {
            let more = (self.expected - 1).saturating_mul(self.text.len());
            self.text.reserve(more.saturating_add(more / 4));
        }
    }

    /// Adds the key whose texts were just appended: its partition key's ends at `pk_end`, the
    /// whole at `end`; its slot. Whether the keys still rise (compared with the last key, whose
    /// span the buffer keeps), and room for the others after the first ([`Keys::sized`]).
    #[inline]
    fn pushed(&mut self, pk_end: usize, end: usize, has_sk: bool) -> usize {
        let start = self.last.2;
        self.ends.push((pk_end, end, has_sk));
        let slot = self.ends.len() - 1;
        if slot == 0 {
            self.sized();
        } else if self.rising {
            let (before, pk_before, _) = self.last;
            let text = self.text.as_bytes();
            let previous = (text.get(before..start).unwrap_or_default(), pk_before.wrapping_sub(before));
            self.rising = previous < (text.get(start..end).unwrap_or_default(), pk_end.wrapping_sub(start));
        }
        self.last = (start, pk_end, end);
        slot
    }

    /// Adds the key whose texts are `pk` and `sk`; its slot.
    fn push_texts(&mut self, pk: &str, sk: Option<&str>) -> usize {
        self.text.push_str(pk);
        let pk_end = self.text.len();
        self.text.push_str(sk.unwrap_or_default());
        self.pushed(pk_end, self.text.len(), sk.is_some())
    }

    /// Adds the key of `item` (an item or a key item of `schema`); its slot.
    pub(super) fn push_item(&mut self, schema: &EntitySchema, item: &Item) -> Result<usize, Error> {
        let (pk, sk) = crate::model::entity::item_key_ref(schema, item).ok_or_else(|| {
            Error::Validation(format!("{} item or key lacks its key attributes as strings", schema.entity_type))
        })?;
        Ok(self.push_texts(&pk, sk.as_deref()))
    }

    /// Adds the key whose attribute values are `pk` and `sk` (found on the walk that checked an
    /// item of `schema`); its slot. The same texts and errors as [`Keys::push_item`].
    pub(super) fn push_values(
        &mut self,
        schema: &EntitySchema,
        (pk, sk): crate::size::KeyValues<'_>,
    ) -> Result<usize, Error> {
        let pk = pk.and_then(|v| schema.pk.text_of(v));
        let sk = match schema.sk {
            Some(k) => sk.and_then(|v| k.text_of(v)).map(Some),
            None => Some(None),
        };
        let (Some(pk), Some(sk)) = (pk, sk) else {
            return Err(Error::Validation(format!(
                "{} item or key lacks its key attributes as strings",
                schema.entity_type
            )));
        };
        Ok(self.push_texts(&pk, sk.as_deref()))
    }

    /// The item a batch writes for `entity`, written by a checking writer that appends its key
    /// texts to this buffer ([`crate::codec::Checked`]), and the slot of its key
    /// ([`Keys::push_checked`]).
    pub(super) fn put_item<E: crate::model::entity::Entity>(
        &mut self,
        entity: &E,
        reading: &mut crate::model::filled::Reading,
        clock: &crate::model::filled::Clock,
    ) -> Result<(Item, usize), Error> {
        let schema = &E::SCHEMA;
        let texts = std::mem::take(&mut self.text);
        let start = texts.len();
        let mut w = crate::codec::Writer::checking(schema.entity_type, schema.item_capacity(), texts);
        crate::model::filled::write_item(entity, false, reading, clock, &mut w)?;
        let slot = self.push_checked(schema, &mut w, start)?;
        Ok((w.take_item(), slot))
    }

    /// Judges the item of `schema` in `w` ([`crate::model::filled::judge`]: by what the writer
    /// saw as it wrote it, holding the lent buffer; `start`: its length when lent), takes the
    /// buffer back and adds the item's key; its slot. An item that was walked gives its key
    /// from its attribute values: the same texts.
    fn push_checked(
        &mut self,
        schema: &EntitySchema,
        w: &mut crate::codec::Writer,
        start: usize,
    ) -> Result<usize, Error> {
        let (item, checked) = w.parts_mut();
        self.text = std::mem::take(&mut checked.texts);
        // (On an error the call ends: nothing reads the buffer's texts after it.)
        match crate::model::filled::judge(schema, item, checked, start)? {
            Judged::Texts(pk_end, end, has_sk) => Ok(self.pushed(pk_end, end, has_sk)),
            Judged::Walked(values) => {
                self.text.truncate(start);
                self.push_values(schema, values)
            }
        }
    }

    /// The first key that is in `slots` (distinct slots) twice: the earlier and the later
    /// position (and the slot) of the pair whose later position comes first, as a walk in order
    /// meets it. Keys that rose as they were added (a batch's usual input, keys in order) are
    /// distinct: none, with no walk. Else the keys are sorted, O(n log n) whatever they are
    /// (hashing them cost a SipHash per key, the largest part of the check).
    pub(super) fn first_repeat(&self, slots: impl Iterator<Item = (usize, usize)>) -> Option<(usize, usize, usize)> {
        // (`slots` are distinct: keys that rose as they were added are all different.)
        if self.rising {
            return None;
        }
        let mut order: Vec<(KeyRef<'_>, usize, usize)> =
            slots.map(|(index, slot)| (self.get(slot), index, slot)).collect();
        order.sort_unstable();
        order.windows(2).filter(|w| w[0].0 == w[1].0).map(|w| (w[0].1, w[1].1, w[1].2)).min_by_key(|r| r.1)
    }

    /// Where the texts of the key of `slot` start, where its partition key's ends, where the
    /// key ends, and whether it has a sort key.
    #[inline]
    fn span(&self, slot: usize) -> (usize, usize, usize, bool) {
        let start = slot.checked_sub(1).and_then(|s| self.ends.get(s)).map_or(0, |e| e.1);
        let (pk_end, end, has_sk) = self.ends.get(slot).copied().unwrap_or((start, start, false));
        (start, pk_end, end, has_sk)
    }

    /// The key of `slot`.
    #[inline]
    pub(super) fn get(&self, slot: usize) -> KeyRef<'_> {
        let (start, pk_end, end, has_sk) = self.span(slot);
        let text = |from: usize, to: usize| self.text.get(from..to).unwrap_or_default();
        (text(start, pk_end), has_sk.then(|| text(pk_end, end)))
    }

    /// The key of `slot`, owned.
    pub(super) fn owned(&self, slot: usize) -> KeyText {
        let (pk, sk) = self.get(slot);
        (pk.to_owned(), sk.map(str::to_owned))
    }
}

/// One item or key of a call: its position and the slot of its key in the call's [`Keys`].
/// What is sent for it is built apart (a write's requests are moved whole into the first
/// request of its chunk; issue 51).
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) index: usize,
    pub(super) key: usize,
}

/// Positions of a call's entries, each with the slot of its key.
pub(super) type Keyed = Vec<(usize, usize)>;

/// What one chunk (or, summed, a whole call) did, by position of the entries.
#[derive(Default)]
pub(super) struct Outcome {
    /// Entries DynamoDB processed (written, or read).
    pub(super) done: Keyed,
    /// Entries never processed: not sent, refused, or still unprocessed when the budget was spent.
    pub(super) unprocessed: Keyed,
    /// Entries of a request whose outcome is unknown (a timeout, a broken connection, a 5xx).
    pub(super) unknown: Keyed,
    /// Items read, with the position of their key.
    pub(super) found: Vec<(usize, Item)>,
    /// The error that stopped the chunk.
    pub(super) error: Option<Error>,
    pub(super) retries: u32,
    pub(super) capacity: f64,
}

impl Outcome {
    pub(super) fn merge(&mut self, mut other: Outcome) {
        self.done.append(&mut other.done);
        self.unprocessed.append(&mut other.unprocessed);
        self.unknown.append(&mut other.unknown);
        self.found.append(&mut other.found);
        if self.error.is_none() {
            self.error = other.error;
        }
        self.retries += other.retries;
        self.capacity += other.capacity;
    }
}

pub(super) fn describe_key(schema: &EntitySchema, (pk, sk): KeyRef<'_>) -> String {
    match (schema.sk, sk) {
        (Some(sk_schema), Some(sk)) => format!("{} `{pk}`, {} `{sk}`", schema.pk.attr, sk_schema.attr),
        _ => format!("{} `{pk}`", schema.pk.attr),
    }
}

pub(super) fn write_request_key(schema: &EntitySchema, request: &WriteRequest) -> Option<KeyText> {
    match (request.put_request(), request.delete_request()) {
        (Some(put), _) => crate::model::entity::item_key(schema, &put.item),
        (None, Some(delete)) => crate::model::entity::item_key(schema, &delete.key),
        (None, None) => None,
    }
}

/// Records the call's totals.
pub(super) fn record_totals(span: &tracing::Span, outcome: &Outcome) {
    span.record("retries", outcome.retries);
    span.record("unprocessed", outcome.unprocessed.len() + outcome.unknown.len());
    span.record("consumed_capacity", outcome.capacity);
}

/// The key texts, in the order given.
pub(super) fn key_texts(mut keyed: Keyed, keys: &Keys) -> Vec<KeyText> {
    keyed.sort_unstable_by_key(|(index, _)| *index);
    keyed.into_iter().map(|(_, slot)| keys.owned(slot)).collect()
}

/// The call's result: `Ok` if every entry was processed; [`Error::Unprocessed`] if the only
/// trouble is entries still unprocessed after the retries (exactly those were not written);
/// else [`Error::BatchWrite`] with every key's fate and the error.
pub(super) fn write_result(operation: &'static str, outcome: Outcome, keys: &Keys) -> Result<(), Error> {
    if outcome.error.is_none() && outcome.unknown.is_empty() {
        if outcome.unprocessed.is_empty() {
            return Ok(());
        }
        return Err(Error::Unprocessed { operation, keys: key_texts(outcome.unprocessed, keys) });
    }
    let listed = |mut keyed: Keyed| -> Vec<BatchKey> {
        keyed.sort_unstable_by_key(|(index, _)| *index);
        keyed
            .into_iter()
            .map(|(index, slot)| {
                let (pk, sk) = keys.owned(slot);
                BatchKey { index, pk, sk }
            })
            .collect()
    };
    let source = match outcome.error {
        Some(e) => e,
        // Only retries spent, but some of what is left may have been written by an attempt
        // whose outcome is unknown.
        None => {
            let left = outcome.unprocessed.iter().chain(&outcome.unknown).copied().collect();
            Error::Unprocessed { operation, keys: key_texts(left, keys) }
        }
    };
    Err(Error::BatchWrite {
        operation,
        outcome: Box::new(BatchWriteOutcome {
            written: listed(outcome.done),
            not_written: listed(outcome.unprocessed),
            unknown: listed(outcome.unknown),
        }),
        source: Box::new(source),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    /// A call's buffers go to the thread's next call emptied: its keys are its own; buffers
    /// above the bound are freed, not kept.
    #[test]
    fn a_calls_buffers_are_handed_on_empty_and_only_when_small() {
        let schema = schema_with(Some("SK"));
        let mut first = Keys::with_capacity(2);
        for (pk, sk) in [("b", "2"), ("a", "1")] {
            first.push_item(&schema, &item(pk, Some(sk))).unwrap();
        }
        drop(first);
        let mut next = Keys::with_capacity(2);
        assert!(next.text.is_empty() && next.ends.is_empty(), "handed on empty");
        assert!(next.text.capacity() > 0 && next.ends.capacity() >= 2, "the spare buffers were taken");
        let slots = [("a", "1"), ("b", "2")].map(|(pk, sk)| next.push_item(&schema, &item(pk, Some(sk))).unwrap());
        assert_eq!((next.get(slots[0]), next.get(slots[1])), (("a", Some("1")), ("b", Some("2"))));
        assert_eq!(slots, [0, 1]);
        assert!(next.rising, "only this call's keys are compared");
        assert_eq!(next.first_repeat(slots.into_iter().enumerate()), None);
        next.text.reserve(SPARE_MAX + 1);
        drop(next);
        assert_eq!(Keys::with_capacity(0).text.capacity(), 0, "a large buffer is not kept");
    }

    #[test]
    fn the_first_repeat_is_the_one_a_walk_in_order_meets() {
        let schema = schema_with(Some("SK"));
        let mut keys = Keys::default();
        // The last two are distinct keys whose texts side by side are the same.
        let given = [
            ("a", "1"),
            ("b", "2"),
            ("a", "3"),
            ("c", "4"),
            ("b", "2"),
            ("a", "3"),
            ("b", "2"),
            ("ab", "c"),
            ("a", "bc"),
        ];
        let slots: Vec<usize> =
            given.iter().map(|(pk, sk)| keys.push_item(&schema, &item(pk, Some(sk))).unwrap()).collect();
        let all = || slots.iter().copied().enumerate();
        // Items 1 and 4 repeat first (2 and 5 repeat later; 6 repeats 1 again).
        assert_eq!(keys.first_repeat(all()), Some((1, 4, slots[4])));
        assert_eq!(keys.first_repeat(all().take(4)), None, "distinct, out of order");
        assert_eq!(keys.first_repeat(all().skip(2).take(4)), Some((2, 5, slots[5])));
        assert_eq!(keys.first_repeat(all().filter(|(i, _)| [0, 1, 3].contains(i))), None, "distinct, in order");
        assert_eq!(keys.first_repeat(std::iter::empty()), None);
        for pair in [[slots[7], slots[8]], [slots[8], slots[7]]] {
            assert_eq!(keys.first_repeat(pair.into_iter().enumerate()), None, "`ab`+`c` is not `a`+`bc`");
        }
        // The same answer as remembering every key seen on a walk in order, for every subset.
        for subset in 0u32..1 << given.len() {
            let chosen = || all().filter(|(i, _)| subset & (1 << i) != 0);
            let mut seen = std::collections::HashMap::new();
            let expected = chosen().find_map(|(i, s)| seen.insert(keys.get(s), i).map(|first| (first, i, s)));
            assert_eq!(keys.first_repeat(chosen()), expected, "subset {subset:b}");
        }
    }

    #[test]
    fn keys_that_rise_as_they_are_added_are_distinct() {
        let schema = schema_with(Some("SK"));
        let pushed = |given: &[(&str, &str)]| {
            let mut keys = Keys::with_capacity(given.len());
            for (pk, sk) in given {
                keys.push_item(&schema, &item(pk, Some(sk))).unwrap();
            }
            let repeat = keys.first_repeat((0..given.len()).map(|i| (i, i)));
            (keys.rising, repeat)
        };
        assert!(!pushed(&[("a", "1"), ("a", "2"), ("b", "1"), ("a", "bc"), ("ab", "c")]).0);
        assert_eq!(pushed(&[("a", "1"), ("a", "2"), ("b", "1")]), (true, None));
        // The same texts side by side, the partition key shorter first: distinct, and rising.
        assert_eq!(pushed(&[("a", "bc"), ("ab", "c")]), (true, None));
        assert_eq!(pushed(&[("ab", "c"), ("a", "bc")]), (false, None));
        // A key again after keys that rose: found by the full check.
        assert_eq!(pushed(&[("a", "1"), ("b", "1"), ("b", "1")]), (false, Some((1, 2, 2))));
        assert_eq!(pushed(&[("b", "1"), ("a", "1"), ("b", "1")]), (false, Some((0, 2, 2))));
    }

    fn item(pk: &str, sk: Option<&str>) -> Item {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S(pk.into()));
        if let Some(sk) = sk {
            item.insert("SK".into(), AttributeValue::S(sk.into()));
        }
        item
    }

    fn schema_with(sk: Option<&'static str>) -> EntitySchema {
        use crate::model::entity::KeySchema;
        let key = |attr| KeySchema::of(attr, "<id>", crate::key::attr::AttributeType::S);
        EntitySchema::new("T", "T", key("PK"), sk.map(key), &[])
    }

    #[test]
    fn keys_give_back_each_slot_as_pushed() {
        let schema = schema_with(Some("SK"));
        let mut keys = Keys::with_capacity(1);
        let cases = [("A#1", Some("B#1")), ("", Some("")), ("ü#€", Some("x")), ("A#1", Some("B#1"))];
        for (n, (pk, sk)) in cases.iter().enumerate() {
            assert_eq!(keys.push_item(&schema, &item(pk, *sk)).unwrap(), n);
        }
        for (n, key) in cases.iter().enumerate() {
            assert_eq!(keys.get(n), *key);
        }
        assert_eq!(keys.owned(2), ("ü#€".to_owned(), Some("x".to_owned())));
        let e = keys.push_item(&schema, &item("A#2", None)).unwrap_err();
        assert!(matches!(e, Error::Validation(_)), "{e:?}");
        let mut walked = Keys::default();
        for (pk, sk) in &cases {
            let item = item(pk, *sk);
            walked.push_values(&schema, (item.get("PK"), item.get("SK"))).unwrap();
        }
        assert_eq!((walked.text.as_str(), &walked.ends), (keys.text.as_str(), &keys.ends), "the same as push_item");
        let e = walked.push_values(&schema, (item("A", None).get("PK"), None)).unwrap_err();
        assert!(matches!(e, Error::Validation(_)), "{e:?}");
        let table_only = schema_with(None);
        let slot = keys.push_item(&table_only, &item("C", Some("ignored"))).unwrap();
        assert_eq!(keys.get(slot), ("C", None));
        assert_eq!(keys.get(slot + 1), ("", None), "no slot: empty, not a panic");
    }
}
