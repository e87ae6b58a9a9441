//! Cursors against DynamoDB Local: they record the direction and the index and are checked for
//! them; a table with a secret signs (and optionally encrypts) them; and no mutation of a
//! cursor's text makes a query resume outside its results or in the other direction.

mod common;

use dynamo_entity::prelude::*;
use std::collections::HashMap;

use dynamo_entity::{Cursor, CursorSecret, Entity, Error, Query, Table};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MSG#<ts:6>"]
#[gsi1(pk = "TIMELINE#<room>", sk = "AT#<ts:6>", query = "timeline")]
pub struct Msg {
    pub room: String,
    pub ts: u64,
}

async fn filled(name: &str) -> Table {
    let table = common::table(name, &[Msg::SCHEMA]).await;
    let mut items: Vec<Msg> = (0..40).map(|ts| Msg { room: "p".into(), ts }).collect();
    items.extend((0..10).map(|ts| Msg { room: "q".into(), ts }));
    table.batch_put(&items).await.unwrap();
    table
}

/// One query of the family the property runs over: room, direction, condition, index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spec {
    room: &'static str,
    descending: bool,
    condition: u8,
    index: bool,
}

impl Spec {
    fn all() -> Vec<Spec> {
        let mut v = Vec::new();
        for room in ["p", "q"] {
            for descending in [false, true] {
                for condition in 0..4 {
                    for index in [false, true] {
                        v.push(Spec { room, descending, condition, index });
                    }
                }
            }
        }
        v
    }

    fn holds(&self, ts: u64) -> bool {
        match self.condition {
            0 => true,
            1 => ts > 5,
            2 => ts < 30,
            _ => (10..=20).contains(&ts),
        }
    }

    fn query(&self) -> Query<Msg> {
        macro_rules! conditioned {
            ($q:expr) => {{
                let q = $q;
                let q: Query<Msg> = match self.condition {
                    0 => q.into_query(),
                    1 => q.ts().gt(5u64),
                    2 => q.ts().lt(30u64),
                    _ => q.ts().between(10u64, 20u64),
                };
                if self.descending { q.descending() } else { q }
            }};
        }
        if self.index {
            conditioned!(Msg::query_timeline(self.room))
        } else {
            conditioned!(Msg::query_by_room(self.room))
        }
    }

    /// What the query returns, in its order.
    fn expected(&self) -> Vec<u64> {
        let n = if self.room == "p" { 40 } else { 10 };
        let mut v: Vec<u64> = (0..n).filter(|ts| self.holds(*ts)).collect();
        if self.descending {
            v.reverse();
        }
        v
    }
}

/// Every cursor of every query of the family (pages of 3): its text, the query, and the
/// timestamp of the item it resumes after.
async fn cursors(table: &Table) -> Vec<(String, Spec, u64)> {
    let mut out = Vec::new();
    for spec in Spec::all() {
        let mut page = table.query(spec.query().limit(3)).await.unwrap();
        while let Some(next) = page.next.take() {
            let last = page.items.last().unwrap().ts;
            out.push((next.to_string(), spec, last));
            page = table.query(spec.query().limit(3).after(next)).await.unwrap();
        }
    }
    out
}

#[derive(Debug, Clone)]
enum Mutation {
    None,
    Replace(usize, u8),
    Delete(usize),
    Insert(usize, u8),
    Truncate(usize),
    Swap(usize, usize),
    /// This cursor's prefix, another cursor's suffix.
    Splice(usize, usize),
    Append(u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let alphabet =
        prop::sample::select(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ ".to_vec());
    prop_oneof![
        3 => Just(Mutation::None),
        2 => (any::<usize>(), alphabet.clone()).prop_map(|(i, c)| Mutation::Replace(i, c)),
        1 => any::<usize>().prop_map(Mutation::Delete),
        1 => (any::<usize>(), alphabet.clone()).prop_map(|(i, c)| Mutation::Insert(i, c)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::Swap(i, j)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(other, at)| Mutation::Splice(other, at)),
        1 => alphabet.prop_map(Mutation::Append),
    ]
}

fn mutate(text: &str, m: &Mutation, all: &[(String, Spec, u64)]) -> String {
    let mut b = text.as_bytes().to_vec();
    let at = |i: usize, len: usize| if len == 0 { 0 } else { i % len };
    match *m {
        Mutation::None => {}
        Mutation::Replace(i, c) => {
            let i = at(i, b.len());
            b[i] = c;
        }
        Mutation::Delete(i) => {
            b.remove(at(i, b.len()));
        }
        Mutation::Insert(i, c) => b.insert(at(i, b.len() + 1), c),
        Mutation::Truncate(i) => b.truncate(at(i, b.len())),
        Mutation::Swap(i, j) => {
            let (i, j) = (at(i, b.len()), at(j, b.len()));
            b.swap(i, j);
        }
        Mutation::Splice(other, i) => {
            let other = all[other % all.len()].0.as_bytes();
            let i = at(i, b.len().min(other.len()));
            b.truncate(i);
            b.extend_from_slice(&other[i..]);
        }
        Mutation::Append(c) => b.push(c),
    }
    String::from_utf8(b).unwrap()
}

/// For `cases` random (cursor, mutation, target query) triples: a text that is a real cursor is
/// accepted exactly when it belongs to the target query (same room, index, direction and
/// sort-key condition, its item inside the condition), and then the page is exactly the target's next items after that
/// item; any other text is `InvalidCursor`.
async fn mutations_never_resume_outside_the_query(table: &Table, cases: usize) -> (usize, usize) {
    let all = cursors(table).await;
    assert!(all.len() > 100, "{} cursors", all.len());
    let known: HashMap<&str, (Spec, u64)> = all.iter().map(|(t, s, ts)| (t.as_str(), (*s, *ts))).collect();
    let specs = Spec::all();
    let mut runner = TestRunner::deterministic();
    // Half the time the cursor's own query, else any query of the family.
    let strategy = (any::<usize>(), any::<usize>(), any::<bool>(), mutation());
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..cases {
        let (src, dst, own, m) = strategy.new_tree(&mut runner).unwrap().current();
        let (source, spec, _) = &all[src % all.len()];
        let text = mutate(source, &m, &all);
        let target = if own { *spec } else { specs[dst % specs.len()] };
        let result = match text.parse::<Cursor>() {
            Ok(cursor) => table.query(target.query().limit(5).after(cursor)).await.map(|p| p.items),
            Err(e) => Err(e),
        };
        let belongs = known.get(text.as_str()).copied().filter(|(spec, ts)| {
            spec.room == target.room
                && spec.index == target.index
                && spec.descending == target.descending
                && spec.condition == target.condition
                && target.holds(*ts)
        });
        match (belongs, result) {
            (Some((_, after)), Ok(items)) => {
                let expected = target.expected();
                let from = expected.iter().position(|ts| *ts == after).unwrap() + 1;
                let want: Vec<u64> = expected[from..].iter().take(5).copied().collect();
                let got: Vec<u64> = items.iter().map(|m| m.ts).collect();
                assert_eq!(got, want, "{m:?} of a cursor after {after}, on {target:?}");
                assert!(items.iter().all(|m| m.room == target.room));
                accepted += 1;
            }
            (None, Err(Error::InvalidCursor)) => refused += 1,
            (belongs, result) => {
                panic!("{m:?} -> {text:?} on {target:?}: belongs {belongs:?}, but got {:?}", result.map(|i| i.len()))
            }
        }
    }
    (accepted, refused)
}

fn secret() -> CursorSecret {
    CursorSecret::new(b"0123456789abcdef0123456789abcdef-test").unwrap()
}

#[tokio::test]
async fn cursor_mutations_never_resume_outside_the_query_or_in_the_wrong_direction() {
    let table = filled("cursor-props").await;
    for (mode, table) in [
        ("plain", table.clone()),
        ("signed", table.clone().with_cursor_secret(secret())),
        ("encrypted", table.clone().with_cursor_secret(secret().encrypted())),
    ] {
        let (accepted, refused) = mutations_never_resume_outside_the_query(&table, 600).await;
        eprintln!("{mode}: {accepted} cursors accepted and resumed exactly, {refused} refused");
        assert!(accepted > 50 && refused > 200, "{mode}: {accepted} accepted, {refused} refused");
    }
}

#[tokio::test]
async fn a_descending_cursor_is_refused_by_the_ascending_query_and_the_other_index() {
    let table = filled("cursor-direction").await;
    let desc = table.query(Msg::query_by_room("p").descending().limit(5)).await.unwrap();
    assert_eq!(desc.items.iter().map(|m| m.ts).collect::<Vec<_>>(), vec![39, 38, 37, 36, 35]);
    let cursor = desc.next.unwrap();
    let asc = table.query(Msg::query_by_room("p").limit(5).after(cursor.clone())).await;
    assert!(matches!(asc, Err(Error::InvalidCursor)), "{asc:?}");
    let other_index = table.query(Msg::query_timeline("p").descending().after(cursor.clone())).await;
    assert!(matches!(other_index, Err(Error::InvalidCursor)), "{other_index:?}");
    let resumed = table.query(Msg::query_by_room("p").descending().limit(2).after(cursor)).await.unwrap();
    assert_eq!(resumed.items.iter().map(|m| m.ts).collect::<Vec<_>>(), vec![34, 33]);
}

#[tokio::test]
async fn secrets_sign_and_hide_cursors() {
    let plain = filled("cursor-secrets").await;
    let signed = plain.clone().with_cursor_secret(secret());
    let sealed = plain.clone().with_cursor_secret(secret().encrypted());
    let stranger = plain.clone().with_cursor_secret(CursorSecret::new([9u8; 32]).unwrap());
    let query = || Msg::query_by_room("p").limit(4);
    let page = |t: &Table| {
        let t = t.clone();
        async move { t.query(query()).await.unwrap().next.unwrap() }
    };
    let (c_plain, c_signed, c_sealed) = (page(&plain).await, page(&signed).await, page(&sealed).await);
    let decoded = |c: &Cursor| {
        // Base64url, decoded by hand: what anyone holding the cursor can read.
        let mut bits = 0u32;
        let mut n = 0;
        let mut out = Vec::new();
        for ch in c.to_string().bytes() {
            let v = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".iter().position(|a| *a == ch);
            bits = (bits << 6) | v.unwrap() as u32;
            n += 6;
            if n >= 8 {
                n -= 8;
                out.push((bits >> n) as u8);
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    assert!(decoded(&c_plain).contains("MSG#000003"), "{}", decoded(&c_plain));
    assert!(decoded(&c_signed).contains("MSG#000003"));
    assert!(!decoded(&c_sealed).contains("MSG#") && !decoded(&c_sealed).contains("ROOM#"));
    let use_on = |t: &Table, c: &Cursor| {
        let (t, c) = (t.clone(), c.clone());
        async move { t.query(query().after(c)).await.map(|p| p.items.iter().map(|m| m.ts).collect::<Vec<_>>()) }
    };
    let next = vec![4, 5, 6, 7];
    assert_eq!(use_on(&plain, &c_plain).await.unwrap(), next);
    assert_eq!(use_on(&signed, &c_signed).await.unwrap(), next);
    assert_eq!(use_on(&sealed, &c_sealed).await.unwrap(), next);
    // The same secret reads both of its forms.
    assert_eq!(use_on(&signed, &c_sealed).await.unwrap(), next);
    assert_eq!(use_on(&sealed, &c_signed).await.unwrap(), next);
    for (t, c) in [(&signed, &c_plain), (&sealed, &c_plain), (&plain, &c_signed), (&plain, &c_sealed)] {
        assert!(matches!(use_on(t, c).await, Err(Error::InvalidCursor)));
    }
    for c in [&c_signed, &c_sealed] {
        assert!(matches!(use_on(&stranger, c).await, Err(Error::InvalidCursor)));
    }
    // Text longer than any cursor is refused before it is decoded.
    assert!(matches!("A".repeat(dynamo_entity::MAX_CURSOR_LEN + 4).parse::<Cursor>(), Err(Error::InvalidCursor)));
}
