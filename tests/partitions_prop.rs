//! Property: a partition filled with random items of three entities whose sort-key templates
//! share prefixes (some written without the type attribute, as other code would); every entity
//! query with a random condition, direction and limit, paged with cursors to the end, returns
//! exactly the items a reference filter over the written set selects, in order. Against
//! DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, Item, Query, Table};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "P#<p>"]
#[sk = "X#<a:2>"]
pub struct Head {
    pub p: String,
    pub a: u8,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "P#<p>"]
#[sk = "X#<a:2>#<b>"]
pub struct Child {
    pub p: String,
    pub a: u8,
    pub b: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "P#<p>"]
#[sk = "X#<a:2>#Y#<c>"]
pub struct Leaf {
    pub p: String,
    pub a: u8,
    pub c: u16,
}

#[derive(Debug, Clone)]
enum Written {
    Head(u8),
    Child(u8, String),
    Leaf(u8, u16),
}

/// A condition on `a`, as the reference applies it.
#[derive(Debug, Clone, Copy)]
enum Cond {
    None,
    Eq(u8),
    Lt(u8),
    Lte(u8),
    Gt(u8),
    Gte(u8),
    Between(u8, u8),
}

impl Cond {
    fn holds(self, a: u8) -> bool {
        match self {
            Cond::None => true,
            Cond::Eq(x) => a == x,
            Cond::Lt(x) => a < x,
            Cond::Lte(x) => a <= x,
            Cond::Gt(x) => a > x,
            Cond::Gte(x) => a >= x,
            Cond::Between(x, y) => x <= a && a <= y,
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    items: Vec<(Written, bool)>,
    cond: Cond,
    descending: bool,
    limit: Option<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    let a = 0u8..4;
    let written = prop_oneof![
        a.clone().prop_map(Written::Head),
        (a.clone(), prop_oneof![Just("Y".to_owned()), "[XYZ#a]{0,2}"]).prop_map(|(a, b)| Written::Child(a, b)),
        (a.clone(), 0u16..4).prop_map(|(a, c)| Written::Leaf(a, c)),
    ];
    let cond = prop_oneof![
        Just(Cond::None),
        a.clone().prop_map(Cond::Eq),
        a.clone().prop_map(Cond::Lt),
        a.clone().prop_map(Cond::Lte),
        a.clone().prop_map(Cond::Gt),
        a.clone().prop_map(Cond::Gte),
        (a.clone(), a).prop_map(|(x, y)| Cond::Between(x, y)),
    ];
    (
        proptest::collection::vec((written, any::<bool>()), 0..30),
        cond,
        any::<bool>(),
        prop_oneof![Just(None), (1u32..5).prop_map(Some)],
    )
        .prop_map(|(items, cond, descending, limit)| Case { items, cond, descending, limit })
}

fn query_of<E: Entity>(
    base: impl Fn() -> Query<E>,
    cond: Cond,
    eq: impl Fn(u8) -> Query<E>,
    cmp: impl Fn(Cond) -> Query<E>,
) -> Query<E> {
    match cond {
        Cond::None => base(),
        Cond::Eq(x) => eq(x),
        other => cmp(other),
    }
}

macro_rules! conds {
    ($ty:ident, $p:expr, $cond:expr) => {
        query_of::<$ty>(
            || $ty::query_by_p($p).into_query(),
            $cond,
            |x| $ty::query_by_p($p).a().eq(x).into_query(),
            |c| match c {
                Cond::Lt(x) => $ty::query_by_p($p).a().lt(x),
                Cond::Lte(x) => $ty::query_by_p($p).a().lte(x),
                Cond::Gt(x) => $ty::query_by_p($p).a().gt(x),
                Cond::Gte(x) => $ty::query_by_p($p).a().gte(x),
                Cond::Between(x, y) => $ty::query_by_p($p).a().between(x, y),
                Cond::None | Cond::Eq(_) => unreachable!(),
            },
        )
    };
}

/// Runs `query` page by page to the end; checks that every page with a cursor is full.
async fn paged<E: Entity + Clone>(table: &Table, query: Query<E>, limit: Option<u32>) -> Vec<E> {
    let mut out = Vec::new();
    let mut q = query.clone();
    if let Some(n) = limit {
        q = q.limit(n);
    }
    for _ in 0..100 {
        let page = table.query(q.clone()).await.unwrap();
        if let (Some(n), Some(_)) = (limit, &page.next) {
            assert_eq!(page.items.len(), n as usize, "a page with a cursor holds `limit` items");
        }
        out.extend(page.items);
        match page.next {
            Some(next) => q = q.after(next),
            None => return out,
        }
    }
    panic!("no end after 100 pages");
}

fn reference<E: Entity, K: Ord>(
    written: &[(Written, bool)],
    pick: impl Fn(&Written) -> Option<(u8, E)>,
    sk: impl Fn(&E) -> K,
    case: &Case,
) -> Vec<E> {
    let mut v: Vec<E> =
        written.iter().filter_map(|(w, _)| pick(w)).filter(|(a, _)| case.cond.holds(*a)).map(|(_, e)| e).collect();
    v.sort_by_key(|e| sk(e));
    if case.descending {
        v.reverse();
    }
    v
}

async fn run(table: &Table, n: usize, case: &Case) {
    let p = format!("p{n}");
    // The last write of a key wins, as in the table.
    let mut written: Vec<(Written, bool)> = Vec::new();
    for (w, typed) in &case.items {
        let sk = sk_of(&p, w);
        written.retain(|(x, _)| sk_of(&p, x) != sk);
        written.push((w.clone(), *typed));
    }
    for (w, typed) in &written {
        let mut item: Item = match w {
            Written::Head(a) => Head { p: p.clone(), a: *a }.to_item(),
            Written::Child(a, b) => Child { p: p.clone(), a: *a, b: b.clone() }.to_item(),
            Written::Leaf(a, c) => Leaf { p: p.clone(), a: *a, c: *c }.to_item(),
        }
        .unwrap();
        if !typed {
            item.remove("entity_type");
        }
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    let sk_bytes = |s: String| s.into_bytes();

    let heads = paged(table, dir(conds!(Head, p.clone(), case.cond), case.descending), case.limit).await;
    let want = reference(
        &written,
        |w| match w {
            Written::Head(a) => Some((*a, Head { p: p.clone(), a: *a })),
            _ => None,
        },
        |e: &Head| sk_bytes(e.primary_key().sk()),
        case,
    );
    assert_eq!(heads, want, "Head");

    let children = paged(table, dir(conds!(Child, p.clone(), case.cond), case.descending), case.limit).await;
    let want = reference(
        &written,
        |w| match w {
            Written::Child(a, b) => Some((*a, Child { p: p.clone(), a: *a, b: b.clone() })),
            _ => None,
        },
        |e: &Child| sk_bytes(e.primary_key().sk()),
        case,
    );
    assert_eq!(children, want, "Child");

    let leaves = paged(table, dir(conds!(Leaf, p.clone(), case.cond), case.descending), case.limit).await;
    let want = reference(
        &written,
        |w| match w {
            Written::Leaf(a, c) => Some((*a, Leaf { p: p.clone(), a: *a, c: *c })),
            _ => None,
        },
        |e: &Leaf| sk_bytes(e.primary_key().sk()),
        case,
    );
    assert_eq!(leaves, want, "Leaf");
}

fn dir<E>(q: Query<E>, descending: bool) -> Query<E> {
    if descending { q.descending() } else { q }
}

fn sk_of(p: &str, w: &Written) -> String {
    match w {
        Written::Head(a) => Head::key(p, *a).sk(),
        Written::Child(a, b) => Child::key(p, *a, b.clone()).sk(),
        Written::Leaf(a, c) => Leaf::key(p, *a, *c).sk(),
    }
}

#[test]
fn entity_queries_over_a_shared_partition_match_a_reference_filter() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let table = rt.block_on(common::table("partition-prop", &[Head::SCHEMA, Child::SCHEMA, Leaf::SCHEMA]));
    let mut runner = TestRunner::new(Config { cases: 48, failure_persistence: None, ..Config::default() });
    let counter = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&case(), |case| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            rt.block_on(run(&table, n, &case));
            Ok(())
        })
        .unwrap();
}
