//! Property: a sharded partition filled with random items (repeated sort-key components, other
//! entities' items in the same shards); every query with a random sort-key condition, direction
//! and limit, paged with cursors to the end, returns exactly the items a reference filter and
//! sort of the written set selects, each page full but the last. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, Query, Table};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "T#<p>#<shard>"]
#[sk = "TICK#<seq:2>#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct Tick {
    pub p: String,
    pub seq: u8,
    pub id: String,
}

/// Another entity whose keys fall inside the ticks' shards and key range.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "T#<p>#<n>"]
#[sk = "TICK#<seq:2>#<id>"]
pub struct Noise {
    pub p: String,
    pub n: u8,
    pub seq: u8,
    pub id: String,
}

#[derive(Debug, Clone, Copy)]
enum Cond {
    None,
    Eq(u8),
    Lt(u8),
    Gte(u8),
    Between(u8, u8),
}

impl Cond {
    fn holds(self, a: u8) -> bool {
        match self {
            Cond::None => true,
            Cond::Eq(x) => a == x,
            Cond::Lt(x) => a < x,
            Cond::Gte(x) => a >= x,
            Cond::Between(x, y) => x <= a && a <= y,
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    ticks: Vec<(u8, String)>,
    noise: Vec<(u8, u8)>,
    cond: Cond,
    descending: bool,
    limit: Option<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    let seq = 0u8..6;
    let cond = prop_oneof![
        Just(Cond::None),
        seq.clone().prop_map(Cond::Eq),
        seq.clone().prop_map(Cond::Lt),
        seq.clone().prop_map(Cond::Gte),
        (seq.clone(), seq.clone()).prop_map(|(x, y)| Cond::Between(x, y)),
    ];
    (
        proptest::collection::vec((seq.clone(), "[a-d%#]{1,2}"), 0..40),
        proptest::collection::vec((0u8..4, seq), 0..6),
        cond,
        any::<bool>(),
        prop_oneof![Just(None), (1u32..7).prop_map(Some)],
    )
        .prop_map(|(ticks, noise, cond, descending, limit)| Case { ticks, noise, cond, descending, limit })
}

fn query(p: &str, cond: Cond) -> Query<Tick> {
    match cond {
        Cond::None => Tick::query_by_p(p).into_query(),
        Cond::Eq(x) => Tick::query_by_p(p).seq().eq(x).into_query(),
        Cond::Lt(x) => Tick::query_by_p(p).seq().lt(x),
        Cond::Gte(x) => Tick::query_by_p(p).seq().gte(x),
        Cond::Between(x, y) => Tick::query_by_p(p).seq().between(x, y),
    }
}

async fn run(table: &Table, n: usize, case: &Case) {
    let p = format!("p{n}");
    let mut written: Vec<Tick> = Vec::new();
    for (seq, id) in &case.ticks {
        let t = Tick { p: p.clone(), seq: *seq, id: id.clone() };
        table.put(&t).await.unwrap();
        written.retain(|w| (w.seq, &w.id) != (t.seq, &t.id));
        written.push(t);
    }
    for (shard, seq) in &case.noise {
        table.put(&Noise { p: p.clone(), n: *shard, seq: *seq, id: "a".into() }).await.unwrap();
    }
    let mut want: Vec<Tick> = written.into_iter().filter(|t| case.cond.holds(t.seq)).collect();
    want.sort_by_key(|t| t.primary_key().sk());
    if case.descending {
        want.reverse();
    }
    let mut q = query(&p, case.cond);
    if case.descending {
        q = q.descending();
    }
    if let Some(n) = case.limit {
        q = q.limit(n);
    }
    let mut got = Vec::new();
    for _ in 0..100 {
        let page = table.query(q.clone()).await.unwrap();
        if let (Some(n), Some(_)) = (case.limit, &page.next) {
            assert_eq!(page.items.len(), n as usize, "a page with a cursor holds `limit` items");
        }
        got.extend(page.items);
        match page.next {
            Some(next) => q = q.after(next),
            None => break,
        }
    }
    assert_eq!(got, want);
}

#[test]
fn merged_queries_of_a_sharded_partition_match_a_reference_sort() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let table = rt.block_on(common::table("shards-prop", &[Tick::SCHEMA, Noise::SCHEMA]));
    let mut runner = TestRunner::new(Config { cases: 40, failure_persistence: None, ..Config::default() });
    let counter = std::sync::atomic::AtomicUsize::new(0);
    runner
        .run(&case(), |case| {
            let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            rt.block_on(run(&table, n, &case));
            Ok(())
        })
        .unwrap();
}
