//! A game leaderboard on multi-attribute index keys: `cargo run --example leaderboard`;
//! `-- --export terraform` (or `cloudformation-json`, `cloudformation-yaml`, `markdown`) prints
//! the table definition instead.
//!
//! Records match results, then answers the leaderboard's access patterns, each with the number
//! of requests it took: the top scores of a round in a tournament and region, a score range,
//! every round of a leaderboard, page by page, a player's move to another region (an update of
//! one attribute moves the result between index partitions), and the recorded replays (a sparse
//! index). No item holds a copy of a key: the index is keyed on the results' own attributes.

#[path = "../common/export.rs"]
mod export;
#[path = "../common/layout.rs"]
mod layout;
mod model;
#[path = "../common/requests.rs"]
mod requests;

use dynamo_entity::Table;
use dynamo_entity::prelude::*;
use model::*;
use requests::Requests;

fn result(player: &str, m: &str, region: &str, round: &str, score: u64, replay: Option<&str>) -> MatchResult {
    MatchResult {
        player_id: player.into(),
        match_id: m.into(),
        tournament_id: "WINTER2026".into(),
        region: region.into(),
        round: round.into(),
        score,
        replay_id: replay.map(str::to_owned),
    }
}

fn show(results: &[MatchResult]) {
    for r in results {
        println!("   -> {:<8} {:<6} {:<8} {:>4}", r.player_id, r.region, r.round, r.score);
    }
}

async fn run(table: &Table, requests: &Requests) -> Result<(), Box<dyn std::error::Error>> {
    let count = |requests: &Requests| println!("   ({} request(s))\n", requests.take());
    requests.take();

    println!("Record results (PutItem each: the item holds its own attributes, no index copies)");
    let results = [
        result("ana", "m1", "EU", "QUARTER", 40, None),
        result("bo", "m1", "EU", "QUARTER", 75, Some("rp-1")),
        result("cy", "m2", "EU", "SEMI", 9, None),
        result("dee", "m2", "EU", "SEMI", 120, Some("rp-2")),
        result("eli", "m2", "EU", "SEMI", 88, None),
        result("fay", "m3", "EU", "FINAL", 101, Some("rp-3")),
        result("gus", "m4", "US", "SEMI", 95, None),
    ];
    for r in &results {
        table.create(r).await?;
    }
    println!("   -> {} results", results.len());
    count(requests);

    println!(
        "Top 2 of the EU semi-finals (one Query: tournament_id = .. AND region = .. AND round = .., score descending)"
    );
    let top = table
        .query(MatchResult::query_leaderboard("WINTER2026", "EU").round().eq("SEMI").descending().limit(2))
        .await?;
    show(&top.items);
    count(requests);

    println!("EU semi-final scores of at least 50 (score compared as a number: 9 < 88 < 120)");
    let high = table
        .query_all(MatchResult::query_leaderboard("WINTER2026", "EU").round().eq("SEMI").score().gte(50u64))
        .await?;
    show(&high);
    count(requests);

    println!("The EU leaderboard, every round, pages of 3 (a Query per page, resumed with a cursor)");
    let mut next = None;
    loop {
        let mut q = MatchResult::query_leaderboard("WINTER2026", "EU").limit(3);
        if let Some(c) = next.take() {
            q = q.after(c);
        }
        let page = table.query(q).await?;
        show(&page.items);
        match page.next {
            Some(c) => next = Some(c),
            None => break,
        }
    }
    count(requests);

    println!("eli moves to the US: one UpdateItem of `region` moves the result to the US leaderboard");
    table.update(MatchResult::update(MatchResult::key("eli", "m2")).set(MatchResult::fields().region, "US")).await?;
    count(requests);
    let us = table.query_all(MatchResult::query_leaderboard("WINTER2026", "US").round().eq("SEMI")).await?;
    show(&us);
    count(requests);

    println!("Recorded EU replays (Query of the sparse Replays index: results without a replay are not in it)");
    let replays = table.query_all(MatchResult::query_replays("EU")).await?;
    show(&replays);
    count(requests);
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
    layout::print(&table, &definition()?, "leaderboard").await?;
    Ok(())
}
