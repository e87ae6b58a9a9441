//! Write sharding end to end: `cargo run --example iot`; `-- --export markdown` (or `terraform`,
//! `cloudformation-json`, `cloudformation-yaml`) prints the table definition instead.
//!
//! A fleet of 40 sensors reports every 30 seconds for two hours of one day: 9,600 readings, all
//! in one logical partition, the day, spread over 8 shards by sensor. Then the reads: one
//! sensor's readings (one shard: one request), the whole day's first readings (every shard,
//! merged), the day's alerts newest first, 25 per page with a cursor, over the alert index's 4
//! random shards, each with the requests it took.

#[path = "../common/export.rs"]
mod export;
mod model;
#[path = "../common/requests.rs"]
mod requests;

use dynamo_entity::prelude::*;
use dynamo_entity::{Query, Table};
use model::*;
use requests::Requests;

const DAY: &str = "2026-11-25";
/// 2026-11-25T08:00:00.000Z, in epoch milliseconds.
const START_MS: u64 = 1_764_057_600_000;
const SENSORS: u64 = 40;
const READINGS_PER_SENSOR: u64 = 240;

fn reading(sensor: u64, n: u64) -> Reading {
    // A slow wave per sensor, and an alert when it runs hot.
    let value = 200 + i32::try_from((sensor * 7 + n * 13) % 160).unwrap_or(0);
    Reading {
        day: DAY.into(),
        sensor_id: format!("sensor-{sensor:02}"),
        at: START_MS + n * 30_000 + sensor * 10,
        value,
        alert: (value >= 355).then(|| "HIGH".to_owned()),
    }
}

async fn run(table: &Table, requests: &Requests) -> Result<(), Box<dyn std::error::Error>> {
    let count = |requests: &Requests| println!("   ({} request(s))\n", requests.take());
    requests.take();

    println!("Write {} readings of {SENSORS} sensors (BatchWriteItem, 25 per request)", SENSORS * READINGS_PER_SENSOR);
    let readings: Vec<Reading> =
        (0..READINGS_PER_SENSOR).flat_map(|n| (0..SENSORS).map(move |s| reading(s, n))).collect();
    table.batch_put(&readings).await?;
    let alerts = readings.iter().filter(|r| r.alert.is_some()).count();
    println!("   -> {} readings, {alerts} of them alerts", readings.len());
    count(requests);

    println!("How the day is spread: the partition of each sensor's readings (shard = FNV-1a(sensor) mod 8)");
    let mut per_shard = [0u32; 8];
    for s in 0..SENSORS {
        let shard = dynamo_entity::shard_of(&[&format!("sensor-{s:02}")], 8);
        per_shard[usize::from(shard)] += 1;
    }
    println!("   -> sensors per shard: {per_shard:?}");
    println!();

    println!("sensor-07's readings from 09:00 (the query fixes the shard: one Query of one partition)");
    let q: Query<Reading> =
        Reading::query_by_day(DAY).sensor_id().eq("sensor-07").at().gte(START_MS + 3_600_000).limit(5);
    println!("   partitions read: {:?}", q.partition_keys());
    let page = table.query(q).await?;
    for r in &page.items {
        println!("   -> {} {} {:.1} °C", r.sensor_id, r.at, f64::from(r.value) / 10.0);
    }
    count(requests);

    println!("The day's first 5 readings in key order (every shard, merged: 8 Queries)");
    let page = table.query(Reading::query_by_day(DAY).limit(5)).await?;
    for r in &page.items {
        println!("   -> {} {}", r.sensor_id, r.at);
    }
    println!("   consumed: {:.1} RCU in {} requests", page.consumed.read_units, page.consumed.requests);
    count(requests);

    println!("The day's alerts, newest first, 25 per page (AlertsByDay: 4 random shards, merged, one cursor)");
    let mut expected: Vec<&Reading> = readings.iter().filter(|r| r.alert.is_some()).collect();
    expected.sort_by(|a, b| (b.at, &b.sensor_id).cmp(&(a.at, &a.sensor_id)));
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let mut q = Reading::query_alerts_by_day(DAY).descending().limit(25);
        if let Some(c) = cursor.take() {
            q = q.after(c);
        }
        let page = table.query(q).await?;
        pages += 1;
        if pages == 1 {
            for r in page.items.iter().take(3) {
                println!("   -> {} {} {:.1} °C {:?}", r.at, r.sensor_id, f64::from(r.value) / 10.0, r.alert);
            }
        }
        seen.extend(page.items);
        match page.next {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    println!("   -> {} alerts in {pages} page(s), in time order across the shards", seen.len());
    let same = seen.len() == expected.len() && seen.iter().zip(&expected).all(|(a, b)| a == *b);
    if !same {
        return Err("the merged alerts differ from the alerts written, newest first".into());
    }
    count(requests);

    let report = table.capacity();
    println!("Read capacity per partition: the alert reads are shared by the index's shards");
    for (pk, capacity) in report.hot_partitions(4) {
        println!("   -> {pk}: {:.1} WCU, {:.1} RCU", capacity.write_units, capacity.read_units);
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(text) = export::requested(&definition()?, TABLE_NAME) {
        print!("{}", text?);
        return Ok(());
    }
    let client = dynamo_entity::local::client().await?;
    let (client, requests) = requests::counted(&client);
    let table = Table::new(client, format!("{TABLE_NAME}-{}", std::process::id()));
    table.create_table_from(&definition()?).await?;
    run(&table, &requests).await?;
    Ok(())
}
