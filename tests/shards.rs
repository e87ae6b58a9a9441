//! Write sharding against DynamoDB Local: items spread over the shards as the documented hash
//! says (a raw scan), merged pages equal a reference sort for every limit and both directions,
//! cursors resume every shard exactly, `query_all` and `query_stream` merge the same items, a
//! query that fixes every `shard_by` field reads one shard, index keys follow a changed
//! `shard_by` field, and other entities' items in the shards are stepped over.

mod common;

use dynamo_entity::prelude::*;
use std::collections::BTreeSet;

use dynamo_entity::{AttributeValue, Entity, Error, Query, Table, shard_of};
use futures_util::StreamExt;

/// The API's example: alerts by day, on an index sharded at random.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SENSOR#<sensor_id>"]
#[sk = "READING#<at:13>"]
#[gsi1(pk = "ALERTS#<day>#<shard>", sk = "<at:13>#<sensor_id>", query = "alerts_by_day", shards = 8)]
#[gsi2(pk = "ZONE#<day>#<shard>", sk = "<zone>#<at:13>", query = "by_zone", shards = 4, shard_by = "zone")]
pub struct Reading {
    pub sensor_id: String,
    pub at: u64,
    pub day: String,
    pub zone: String,
    pub level: u8,
}

/// A table partition sharded by a sort-key field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "EVENTS#<stream>#<shard>"]
#[sk = "EVENT#<seq:10>#<id>"]
#[entity(shards = 8, shard_by = "id")]
pub struct Event {
    pub stream: String,
    pub seq: u64,
    pub id: String,
    pub body: String,
}

/// Another entity whose items share the events' partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "EVENTS#<stream>#<shard_no>"]
#[sk = "EVENT#<seq:10>#<id>"]
#[entity(key_attributes = false)]
pub struct Marker {
    pub stream: String,
    pub shard_no: String,
    pub seq: u64,
    pub id: String,
}

/// The events' sequence numbers and ids only (a ProjectionExpression).
#[derive(dynamo_entity::View, Debug, Clone, PartialEq)]
#[view(entity = "Event")]
pub struct EventId {
    pub seq: u64,
    pub id: String,
}

fn event(stream: &str, seq: u64, id: &str) -> Event {
    Event { stream: stream.into(), seq, id: id.into(), body: format!("body {seq}") }
}

/// A small deterministic generator (xorshift), so that a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn s(item: &dynamo_entity::Item, attr: &str) -> String {
    match item.get(attr) {
        Some(AttributeValue::S(v)) => v.clone(),
        other => panic!("{attr}: {other:?}"),
    }
}

#[tokio::test]
async fn items_spread_over_the_shards_the_documented_hash_names() {
    let table = common::table("shards-spread", &[Event::SCHEMA, Reading::SCHEMA]).await;
    for i in 0..200u64 {
        table.put(&event("s1", i / 3, &format!("e{i}"))).await.unwrap();
    }
    let items = common::raw_items(&table).await;
    let mut partitions = BTreeSet::new();
    for item in &items {
        let pk = s(item, "PK");
        let id = s(item, "id");
        // The contract: FNV-1a 64 of the `shard_by` fields' key texts, modulo N, one digit.
        assert_eq!(pk, format!("EVENTS#s1#{}", shard_of(&[&id], 8)), "{id}");
        partitions.insert(pk);
    }
    assert_eq!(partitions.len(), 8, "{partitions:?}");
    // `get` and `key()` find the shard from the key fields alone.
    let e = table.get(Event::key("s1", 7u64, "e21")).await.unwrap().unwrap();
    assert_eq!(e, event("s1", 7, "e21"));
    assert!(Event::key("s1", 7u64, "e21").pk().starts_with("EVENTS#s1#"));

    // Random shards on an index: every shard gets some of 400 readings.
    for i in 0..400u64 {
        let r =
            Reading { sensor_id: format!("s{}", i % 7), at: 1_000 + i, day: "d1".into(), zone: "z".into(), level: 1 };
        table.put(&r).await.unwrap();
    }
    let alerts: BTreeSet<String> =
        common::raw_items(&table).await.iter().filter_map(|i| i.get("GSI1PK").map(|_| s(i, "GSI1PK"))).collect();
    assert_eq!(alerts, (0..8).map(|n| format!("ALERTS#d1#{n}")).collect::<BTreeSet<_>>());
}

/// The reference: every event of the stream, in sort-key order.
fn reference(events: &[Event], descending: bool) -> Vec<Event> {
    let mut sorted = events.to_vec();
    sorted.sort_by(|a, b| (a.seq, a.id.as_bytes()).cmp(&(b.seq, b.id.as_bytes())));
    if descending {
        sorted.reverse();
    }
    sorted
}

#[tokio::test]
async fn merged_pages_equal_a_reference_sort_for_every_limit_and_direction() {
    let table = common::table("shards-merge", &[Event::SCHEMA, Marker::SCHEMA]).await;
    let mut rng = Rng(0x5eed);
    let mut events = Vec::new();
    for i in 0..120 {
        // Repeated sequence numbers: ties across shards are ordered by the rest of the key.
        let e = event("s1", rng.next() % 40, &format!("x{}", rng.next() % 100_000 + i));
        table.put(&e).await.unwrap();
        events.push(e);
    }
    // Another stream, and another entity's items inside this stream's shards.
    table.put(&event("s2", 1, "other")).await.unwrap();
    for n in 0..8 {
        let m = Marker { stream: "s1".into(), shard_no: n.to_string(), seq: 5, id: format!("m{n}") };
        table.put(&m).await.unwrap();
    }
    for descending in [false, true] {
        let expected = reference(&events, descending);
        for limit in [1u32, 2, 3, 7, 8, 9, 25, 119, 120, 121, 500] {
            let mut got = Vec::new();
            let mut cursor = None;
            let mut skipped = 0;
            loop {
                let mut q = Event::query_by_stream("s1").limit(limit);
                if descending {
                    q = q.descending();
                }
                if let Some(c) = cursor.take() {
                    q = q.after(c);
                }
                let page = table.query(q).await.unwrap();
                assert!(page.items.len() <= limit as usize);
                skipped += page.skipped;
                got.extend(page.items.iter().cloned());
                match page.next {
                    Some(next) => {
                        // Every page but the last is full.
                        assert_eq!(page.items.len(), limit as usize, "limit {limit}");
                        // The cursor survives its text form.
                        cursor = Some(next.to_string().parse().unwrap());
                    }
                    None => break,
                }
            }
            assert_eq!(got, expected, "limit {limit}, descending {descending}");
            assert!(skipped >= 8, "the markers are stepped over: {skipped}");
        }
        let mut q = Event::query_by_stream("s1");
        if descending {
            q = q.descending();
        }
        assert_eq!(table.query_all(q.clone()).await.unwrap(), expected);
        let streamed: Vec<Event> = table.query_stream(q).map(Result::unwrap).collect().await;
        assert_eq!(streamed, expected);
    }
    // A sort-key range is applied on every shard.
    let page = table.query(Event::query_by_stream("s1").seq().between(10u64, 19u64)).await.unwrap();
    let expected: Vec<Event> = reference(&events, false).into_iter().filter(|e| (10..=19).contains(&e.seq)).collect();
    let mut all = page.items;
    let mut next = page.next;
    while let Some(c) = next {
        let p = table.query(Event::query_by_stream("s1").seq().between(10u64, 19u64).after(c)).await.unwrap();
        all.extend(p.items);
        next = p.next;
    }
    assert_eq!(all, expected);
    // A view reads the same items, merged, with less.
    let ids = table.query_all(Event::query_by_stream("s1").view::<EventId>()).await.unwrap();
    let want: Vec<EventId> = reference(&events, false).into_iter().map(|e| EventId { seq: e.seq, id: e.id }).collect();
    assert_eq!(ids, want);
    // A filter too.
    let filtered = table.query_all(Event::query_by_stream("s1").filter(Event::fields().seq.lt(5u64))).await.unwrap();
    assert_eq!(filtered, reference(&events, false).into_iter().filter(|e| e.seq < 5).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_query_that_fixes_every_shard_by_field_reads_one_shard() {
    let table = common::table("shards-one", &[Event::SCHEMA, Reading::SCHEMA]).await;
    for i in 0..30u64 {
        table.put(&event("s1", i, &format!("e{i}"))).await.unwrap();
    }
    let all: Query<Event> = Event::query_by_stream("s1").into_query();
    assert_eq!(all.partition_keys().len(), 8);
    let one = Event::query_by_stream("s1").seq().eq(4u64).id().eq("e4");
    assert_eq!(one.partition_keys(), vec![format!("EVENTS#s1#{}", shard_of(&["e4"], 8)).as_str()]);
    let before = table.requests_sent();
    let page = table.query(one).await.unwrap();
    assert_eq!(page.items, vec![event("s1", 4, "e4")]);
    assert_eq!(table.requests_sent() - before, 1);

    // The whole stream: one request per shard for a page of 30.
    let before = table.requests_sent();
    let page = table.query(Event::query_by_stream("s1").limit(30)).await.unwrap();
    assert_eq!(page.items.len(), 30);
    assert_eq!(table.requests_sent() - before, 8);
    assert_eq!(page.consumed.requests, 8);

    // An index sharded by a sort-key field: fixing it reads one shard.
    let r = Reading { sensor_id: "a".into(), at: 5, day: "d".into(), zone: "north".into(), level: 3 };
    table.put(&r).await.unwrap();
    assert_eq!(Reading::query_by_zone("d").into_query().partition_keys().len(), 4);
    let q: Query<Reading> = Reading::query_by_zone("d").zone().eq("north").into_query();
    assert_eq!(q.partition_keys().len(), 1);
    assert_eq!(table.query(q).await.unwrap().items, vec![r.clone()]);
}

#[tokio::test]
async fn index_keys_follow_a_changed_shard_by_field_and_random_shards_merge() {
    let table = common::table("shards-update", &[Reading::SCHEMA]).await;
    let mut expected = Vec::new();
    for i in 0..60u64 {
        let r = Reading {
            sensor_id: format!("s{}", i % 5),
            at: 10_000 - i * 7,
            day: "2026-11-25".into(),
            zone: ["north", "south", "east"][(i % 3) as usize].into(),
            level: (i % 4) as u8,
        };
        table.put(&r).await.unwrap();
        expected.push(r);
    }
    // Alerts by day, newest first, 25 at a time, over 8 random shards.
    expected.sort_by(|a, b| (b.at, b.sensor_id.as_bytes()).cmp(&(a.at, a.sensor_id.as_bytes())));
    let mut got = Vec::new();
    let mut cursor = None;
    loop {
        let mut q = Reading::query_alerts_by_day("2026-11-25").descending().limit(25);
        if let Some(c) = cursor.take() {
            q = q.after(c);
        }
        let page = table.query(q).await.unwrap();
        got.extend(page.items);
        match page.next {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(got, expected);

    // Moving a reading to another zone moves its index key to that zone's shard.
    let moved = expected[0].clone();
    table.update(Reading::update_from(&moved).set(Reading::fields().zone, "west".to_owned())).await.unwrap();
    let west = table.query(Reading::query_by_zone("2026-11-25").zone().eq("west")).await.unwrap().items;
    assert_eq!(west, vec![Reading { zone: "west".into(), ..moved.clone() }]);
    let old = table.query_all(Reading::query_by_zone("2026-11-25").zone().eq(moved.zone.clone())).await.unwrap();
    assert!(!old.iter().any(|r| r.at == moved.at && r.sensor_id == moved.sensor_id));
}

#[tokio::test]
async fn a_merged_cursor_is_bound_to_its_query() {
    let table = common::table("shards-cursor", &[Event::SCHEMA]).await;
    for i in 0..20u64 {
        table.put(&event("s1", i, &format!("e{i}"))).await.unwrap();
        table.put(&event("s2", i, &format!("e{i}"))).await.unwrap();
    }
    let page = table.query(Event::query_by_stream("s1").limit(5)).await.unwrap();
    let cursor = page.next.unwrap();
    for wrong in [
        Event::query_by_stream("s2").limit(5).after(cursor.clone()),
        Event::query_by_stream("s1").descending().limit(5).after(cursor.clone()),
    ] {
        assert!(matches!(table.query(wrong).await, Err(Error::InvalidCursor)));
    }
    // A one-shard query does not take a merged cursor.
    let one = Event::query_by_stream("s1").seq().eq(1u64).id().eq("e1").after(cursor.clone());
    assert!(matches!(table.query(one).await, Err(Error::InvalidCursor)));
    // An altered cursor is refused.
    let text = cursor.to_string();
    let altered = format!("{}{}", &text[..text.len() - 2], if text.ends_with("AA") { "BA" } else { "AA" });
    assert!(altered.parse::<dynamo_entity::Cursor>().is_err());
    // The right query resumes.
    let rest = table.query(Event::query_by_stream("s1").after(cursor)).await.unwrap();
    assert_eq!(rest.items.first().map(|e| e.seq), Some(5));
}

#[tokio::test]
async fn batches_transactions_deletes_and_stream_changes_know_the_shard() {
    use dynamo_entity::stream::{ChangeKind, StreamReader};
    use dynamo_entity::{StreamView, TableDefinition};
    use std::time::Duration;

    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let table = Table::new(client, format!("shards-writes-{}", std::process::id()));
    let def = TableDefinition::from_entities(&[Event::SCHEMA]).unwrap().stream(StreamView::NewAndOldImages);
    table.create_table_from(&def).await.unwrap();

    let batch: Vec<Event> = (0..40u64).map(|i| event("b", i, &format!("b{i}"))).collect();
    table.batch_put(&batch).await.unwrap();
    let keys: Vec<_> = batch.iter().map(|e| Event::key(e.stream.clone(), e.seq, e.id.clone())).collect();
    let mut got = table.batch_get(keys.clone()).await.unwrap();
    got.sort_by_key(|e| e.seq);
    assert_eq!(got, batch);
    assert_eq!(table.query_all(Event::query_by_stream("b")).await.unwrap(), batch);

    // A transaction creates in the right shard, and `create` refuses an item already there.
    table.transact().create(&event("t", 1, "t1")).create(&event("t", 2, "t2")).send().await.unwrap();
    assert!(table.transact().create(&event("t", 1, "t1")).send().await.is_err());
    assert_eq!(
        table.query_all(Event::query_by_stream("t")).await.unwrap(),
        vec![event("t", 1, "t1"), event("t", 2, "t2")]
    );

    // Deletes by key reach the shard.
    table.delete(Event::key("t", 1u64, "t1")).await.unwrap();
    table.batch(dynamo_entity::BatchOptions::default()).delete(keys[..10].to_vec()).await.unwrap();
    assert_eq!(table.query_all(Event::query_by_stream("t")).await.unwrap(), vec![event("t", 2, "t2")]);
    assert_eq!(table.query_all(Event::query_by_stream("b")).await.unwrap(), batch[10..].to_vec());

    // Every change names the shard its key is in.
    let streams = dynamo_entity::local::streams_client().await.unwrap();
    let reader = StreamReader::for_table(&table, streams)
        .await
        .unwrap()
        .poll_interval(Duration::from_millis(50))
        .until_caught_up();
    let changes: Vec<_> = reader.changes::<Event>().collect::<Vec<_>>().await;
    assert_eq!(changes.len(), 40 + 2 + 1 + 10);
    for c in changes {
        let c = c.unwrap();
        let e = match &c.kind {
            ChangeKind::Inserted(e) | ChangeKind::Removed(e) => e.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(c.key_shard(), Some(shard_of(&[&e.id], 8)), "{}", c.pk);
    }
}

/// The events and the markers in their shards, read together.
#[derive(dynamo_entity::Collection, Debug, Clone, PartialEq)]
pub enum Feed {
    Event(Event),
    Marker(Marker),
}

#[tokio::test]
async fn a_collection_reads_every_shard_of_a_sharded_partition_merged() {
    let table = common::table("shards-collection", &[Event::SCHEMA, Marker::SCHEMA]).await;
    let mut expected = Vec::new();
    for i in 0..30u64 {
        let e = event("s1", i % 7, &format!("e{i}"));
        table.put(&e).await.unwrap();
        expected.push((e.primary_key().sk(), format!("{e:?}")));
    }
    for n in 0..8u64 {
        let m = Marker { stream: "s1".into(), shard_no: n.to_string(), seq: n, id: format!("m{n}") };
        table.put(&m).await.unwrap();
        expected.push((m.primary_key().sk(), format!("{m:?}")));
    }
    expected.sort();
    for limit in [3u32, 10, 100] {
        let mut got = Vec::new();
        let mut q = Feed::query(Event::partition("s1")).limit(limit);
        loop {
            let page = table.query(q.clone()).await.unwrap();
            for item in page.items {
                got.push(match item {
                    Feed::Event(e) => (e.primary_key().sk(), format!("{e:?}")),
                    Feed::Marker(m) => (m.primary_key().sk(), format!("{m:?}")),
                });
            }
            match page.next {
                Some(c) => q = q.after(c),
                None => break,
            }
        }
        // In sort-key order across the shards (no two items here share a sort key).
        assert_eq!(got, expected, "limit {limit}");
    }
    // `under` an event narrows to that event's shard.
    let under = Feed::query(Event::partition("s1")).under(&Event::key("s1", 3u64, "e3"));
    assert_eq!(under.partition_keys().len(), 1);
    assert!(table.query_all(under).await.unwrap().is_empty());
}

/// A partition of four shards, for placing items in chosen shards.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TICKS#<stream>#<shard>"]
#[sk = "TICK#<seq:10>#<id>"]
#[entity(shards = 4, shard_by = "id")]
pub struct Tick {
    pub stream: String,
    pub seq: u64,
    pub id: String,
}

/// The tick `seq` of stream `s`, with an id that the documented hash puts in `shard`.
fn tick_in(shard: u16, seq: u64) -> Tick {
    tick_of("s", shard, seq)
}

fn tick_of(stream: &str, shard: u16, seq: u64) -> Tick {
    let id = (0..).map(|k| format!("t{seq}-{k}")).find(|id| shard_of(&[id], 4) == shard).unwrap();
    Tick { stream: stream.into(), seq, id }
}

fn seqs(ticks: &[Tick]) -> Vec<u64> {
    ticks.iter().map(|t| t.seq).collect()
}

#[tokio::test]
async fn a_merged_cursor_finds_items_written_between_pages_in_exhausted_and_empty_shards() {
    let table = common::table("shards-between", &[Tick::SCHEMA]).await;
    for (stream, descending) in [("up", false), ("down", true)] {
        // Shard 0 holds 1, 2, 3; shard 1 10, 11; shard 2 20, 21; shard 3 nothing.
        for (shard, seq) in [(0, 1), (0, 2), (0, 3), (1, 10), (1, 11), (2, 20), (2, 21)] {
            table.put(&tick_of(stream, shard, seq)).await.unwrap();
        }
        let query = || {
            let q = Tick::query_by_stream(stream);
            if descending { q.descending() } else { q }
        };
        let first = table.query(query().limit(if descending { 4 } else { 5 })).await.unwrap();
        let expected: &[u64] = if descending { &[21, 20, 11, 10] } else { &[1, 2, 3, 10, 11] };
        assert_eq!(seqs(&first.items), expected);
        // Written after the first page, past its last item: into shards it read to their end
        // (0 and 1 ascending, 1 and 2 descending), and into the shard that was empty.
        let late = if descending {
            [tick_of(stream, 1, 5), tick_of(stream, 2, 4), tick_of(stream, 3, 0)]
        } else {
            [tick_of(stream, 0, 15), tick_of(stream, 1, 12), tick_of(stream, 3, 30)]
        };
        for t in &late {
            table.put(t).await.unwrap();
        }
        let mut rest = Vec::new();
        let mut next = first.next;
        while let Some(c) = next {
            let page = table.query(query().limit(2).after(c)).await.unwrap();
            rest.extend(seqs(&page.items));
            next = page.next;
        }
        // As one partition would: every item after the cursor's position, those written late included.
        let expected: Vec<u64> = if descending { vec![5, 4, 3, 2, 1, 0] } else { vec![12, 15, 20, 21, 30] };
        assert_eq!(rest, expected, "descending {descending}");
    }
}

#[tokio::test]
async fn a_merged_cursor_never_returns_items_written_behind_it() {
    let table = common::table("shards-behind", &[Tick::SCHEMA]).await;
    for (stream, descending) in [("up", false), ("down", true)] {
        for (shard, seq) in [(0, 1), (0, 2), (0, 3), (1, 10), (1, 11), (2, 20), (2, 21)] {
            table.put(&tick_of(stream, shard, seq)).await.unwrap();
        }
        let query = || {
            let q = Tick::query_by_stream(stream);
            if descending { q.descending() } else { q }
        };
        let first = table.query(query().limit(5)).await.unwrap();
        let expected: &[u64] = if descending { &[21, 20, 11, 10, 3] } else { &[1, 2, 3, 10, 11] };
        assert_eq!(seqs(&first.items), expected);
        // Written after the first page, behind its last item, into shards whose own position is
        // further back (not started, or an item read earlier): one partition's cursor would
        // never return them, so the merged one does not either (they would come out of order).
        let behind = if descending {
            [tick_of(stream, 1, 12), tick_of(stream, 2, 15), tick_of(stream, 3, 8)]
        } else {
            [tick_of(stream, 0, 4), tick_of(stream, 2, 5), tick_of(stream, 3, 7)]
        };
        for t in &behind {
            table.put(t).await.unwrap();
        }
        let mut rest = Vec::new();
        let mut next = first.next;
        while let Some(c) = next {
            let page = table.query(query().limit(2).after(c)).await.unwrap();
            rest.extend(seqs(&page.items));
            next = page.next;
        }
        let expected: Vec<u64> = if descending { vec![2, 1] } else { vec![20, 21] };
        assert_eq!(rest, expected, "descending {descending}");
        // Read whole, they are there.
        assert_eq!(table.query_all(query()).await.unwrap().len(), 10);
    }
}

#[tokio::test]
async fn a_merged_cursor_is_valid_only_for_the_query_that_made_it() {
    let table = common::table("shards-bound", &[Tick::SCHEMA]).await;
    for (shard, seq) in [(0, 1), (0, 2), (0, 3), (1, 10), (1, 11), (2, 20), (2, 21)] {
        table.put(&tick_in(shard, seq)).await.unwrap();
    }
    let narrow = table.query(Tick::query_by_stream("s").seq().lte(12u64).limit(4)).await.unwrap();
    assert_eq!(seqs(&narrow.items), [1, 2, 3, 10]);
    let cursor = narrow.next.unwrap();
    // Without the condition, with another, or with a filter: refused, never a page that skips shards.
    for wrong in [
        Tick::query_by_stream("s").limit(4).after(cursor.clone()).into_query(),
        Tick::query_by_stream("s").seq().lte(30u64).limit(4).after(cursor.clone()),
        Tick::query_by_stream("s").seq().lte(12u64).filter(Tick::fields().seq.gt(0u64)).limit(4).after(cursor.clone()),
    ] {
        let r = table.query(wrong).await;
        assert!(matches!(r, Err(Error::InvalidCursor)), "{r:?}");
    }
    // The same query, another limit: resumes.
    let rest = table.query(Tick::query_by_stream("s").seq().lte(12u64).limit(10).after(cursor)).await.unwrap();
    assert_eq!(seqs(&rest.items), [11]);
}

#[tokio::test]
async fn a_sharded_query_keeps_to_max_empty_pages_in_every_shard() {
    use common::Executed;
    common::spans::install();
    let executed = Executed::default();
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let client =
        aws_sdk_dynamodb::Client::from_conf(client.config().to_builder().interceptor(executed.clone()).build());
    let table = Table::new(client, format!("shards-flood-{}", std::process::id()));
    table.create_table(&[Event::SCHEMA]).await.unwrap();
    let events: Vec<Event> = (0..400u64).map(|i| event("s", i, &format!("e{i}"))).collect();
    table.batch_put(&events).await.unwrap();
    let f = Event::fields();

    // A filter that matches nothing: each shard reads 2 pages without an item of Event, then
    // the page stops, as a query of one partition does (8 shards: at most 16 requests).
    let before = executed.count();
    let r = table.query(Event::query_by_stream("s").filter(f.seq.gt(10_000u64)).limit(1).max_empty_pages(2)).await;
    let sent = executed.count() - before;
    let Err(Error::TooManySkipped { pages, partial, .. }) = r else { panic!("{r:?}") };
    assert_eq!(pages, 2);
    assert!(partial.is_empty());
    assert!((9..=16).contains(&sent), "{sent} requests");

    // Resuming from each stop's cursor finds every match, each once.
    let mut got = Vec::new();
    let mut cursor = None;
    let mut stops = 0;
    loop {
        let mut q = Event::query_by_stream("s").filter(f.seq.gte(390u64)).limit(4).max_empty_pages(2);
        if let Some(c) = cursor.take() {
            q = q.after(c);
        }
        match table.query(q).await {
            Ok(page) => {
                got.extend(page.items.iter().map(|e| e.seq));
                match page.next {
                    Some(c) => cursor = Some(c),
                    None => break,
                }
            }
            Err(Error::TooManySkipped { partial, .. }) => {
                stops += 1;
                let page = partial.into_page::<Event>().unwrap();
                got.extend(page.items.iter().map(|e| e.seq));
                cursor = Some(page.next.expect("a stop resumes"));
            }
            Err(e) => panic!("{e}"),
        }
        assert!(stops < 100, "no progress");
    }
    assert!(stops >= 1);
    assert_eq!(got, (390..400).collect::<Vec<_>>());
    // query_all reads on.
    assert!(table.query_all(Event::query_by_stream("s").filter(f.seq.gt(10_000u64))).await.unwrap().is_empty());
}

/// AWS's write-sharding building block (aws-dynamodb-examples,
/// schema_design/BuildingBlocks/WriteSharding): `pk = f"{date}.{shard_id}"` with the shard
/// unpadded and `shard_id = int(id) % N`, `sk = id`, and a `value`. Declared as it is: a table
/// of this one entity, whose items hold no type attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<date>.<shard:unpadded>"]
#[sk = "<id>"]
#[entity(pk_attr = "pk", sk_attr = "sk", key_attributes = false, type_attr = false, owns_partition = true)]
#[entity(shards = 12, shard_by = "id", shard_fn = "int_mod")]
pub struct AwsOrder {
    pub date: String,
    pub id: String,
    pub value: String,
}

/// The Python's `int(x["id"]) % write_shard_count`.
fn int_mod(texts: &[&str], shards: u32) -> u32 {
    (texts[0].parse::<u64>().unwrap_or(0) % u64::from(shards)) as u32
}

/// A `shard_fn` that names a shard that does not exist.
fn out_of_range(_: &[&str], shards: u32) -> u32 {
    shards
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "BROKEN#<day>_<shard>"]
#[sk = "ITEM#<id>"]
#[entity(shards = 4, shard_by = "id", shard_fn = "out_of_range")]
pub struct Broken {
    pub day: String,
    pub id: String,
}

/// The item the Python writes: `{'pk': f'{date}.{int(id) % 12}', 'sk': id, 'value': value}`.
fn python_item(date: &str, id: &str, value: &str) -> dynamo_entity::Item {
    let shard = id.parse::<u64>().unwrap() % 12;
    [
        ("pk".to_owned(), AttributeValue::S(format!("{date}.{shard}"))),
        ("sk".to_owned(), AttributeValue::S(id.to_owned())),
        ("value".to_owned(), AttributeValue::S(value.to_owned())),
    ]
    .into()
}

#[tokio::test]
async fn aws_s_write_sharding_layout_reads_and_writes_as_the_python_does() {
    let table = common::table("shards-aws", &[AwsOrder::SCHEMA]).await;
    // The Python's orders (and a few more, so that shards 0, 3 and 11 have items too).
    let orders = [
        ("123535", "1"),
        ("345345", "1"),
        ("123114", "1"),
        ("234562", "3"),
        ("346541", "3"),
        ("3", "2"),
        ("11", "2"),
        ("24", "4"),
    ];
    for (id, value) in orders {
        let item = python_item("2026-11-26", id, value);
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    let raw_pks: BTreeSet<String> = common::raw_items(&table).await.iter().map(|i| s(i, "pk")).collect();
    assert!(raw_pks.contains("2026-11-26.3") && raw_pks.contains("2026-11-26.10"), "{raw_pks:?}");
    let order = |id: &str, value: &str| AwsOrder { date: "2026-11-26".into(), id: id.into(), value: value.into() };

    // Merged over the 12 shards, in sort-key order (the ids' bytes).
    let mut expected: Vec<AwsOrder> = orders.iter().map(|(id, v)| order(id, v)).collect();
    expected.sort_by(|a, b| a.id.cmp(&b.id));
    let q: Query<AwsOrder> = AwsOrder::query_by_date("2026-11-26").into_query();
    assert_eq!(q.partition_keys().len(), 12);
    assert_eq!(q.partition_keys()[3], "2026-11-26.3");
    assert_eq!(table.query_all(AwsOrder::query_by_date("2026-11-26")).await.unwrap(), expected);
    let page = table.query(AwsOrder::query_by_date("2026-11-26").limit(3)).await.unwrap();
    assert_eq!(page.items, expected[..3]);
    // By id: the shard function finds the shard.
    for (id, value) in orders {
        assert_eq!(table.get(AwsOrder::key("2026-11-26", id)).await.unwrap(), Some(order(id, value)), "{id}");
        let one = AwsOrder::query_by_date("2026-11-26").id().eq(id);
        assert_eq!(one.partition_keys(), vec![format!("2026-11-26.{}", id.parse::<u64>().unwrap() % 12).as_str()]);
        assert_eq!(table.query(one).await.unwrap().items, vec![order(id, value)]);
    }

    // Written by the entity: the Python's item, byte for byte.
    for (id, value) in orders {
        table.put(&AwsOrder { date: "2026-11-27".into(), id: id.into(), value: value.into() }).await.unwrap();
        let want = python_item("2026-11-27", id, value);
        let key = [("pk".to_owned(), want["pk"].clone()), ("sk".to_owned(), want["sk"].clone())];
        let got = table.client().get_item().table_name(table.name()).set_key(Some(key.into())).send().await.unwrap();
        let got = got.item.expect("written where the Python writes it");
        assert_eq!(got, want, "{id}");
    }

    // A shard function that names no shard: a key error, nothing sent.
    let broken = Broken { day: "d".into(), id: "1".into() };
    let r = table.put(&broken).await;
    assert!(matches!(r, Err(Error::Key(dynamo_entity::KeyError::Format { .. }))), "{r:?}");
    let r = table.query(Broken::query_by_day("d").id().eq("1")).await;
    assert!(matches!(r, Err(Error::Key(_))), "{r:?}");
}
