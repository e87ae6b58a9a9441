//! AWS's own multi-attribute design, declared as AWS publishes it: `cargo run --example tournament`.
//!
//! The DynamoDB Developer Guide's "Multi-attribute keys pattern" keys its TournamentMatches table
//! on a plain attribute, `matchId`, and its global indexes on several plain attributes at once
//! (`tournamentId` + `region`, then `round` + `bracket` + `matchId`). This example creates that
//! table with a raw `CreateTable` (as AWS's page does), writes matches raw in the shape AWS's page
//! writes them, then declares the entity over the table and:
//! - answers every access pattern of the page with one request each (the table's key `matchId`
//!   compared after `round` and `bracket`, by key condition, never a filter);
//! - checks that the entity writes, byte for byte, the items raw calls wrote (no copy of a key,
//!   no type attribute: nothing AWS's items lack);
//! - prints `plan` of the entity's definition against AWS's table: empty.

mod model;
#[path = "../common/requests.rs"]
mod requests;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Table, TableDefinition};
use model::*;
use requests::Requests;

fn show(matches: &[TournamentMatch]) {
    for m in matches {
        println!(
            "   -> {:<10} {:<10} {:<8} {:<13} {:<12} {} vs {} on {}",
            m.match_id, m.tournament_id, m.region, m.round, m.bracket, m.player1_id, m.player2_id, m.match_date
        );
    }
}

async fn run(table: &Table, requests: &Requests) -> Result<(), Box<dyn std::error::Error>> {
    let count = |requests: &Requests| println!("   ({} request(s))\n", requests.take());
    requests.take();

    println!("Look up a match by its id (GetItem: matchId = \"match-001\")");
    let m = table.get(TournamentMatch::key("match-001")).await?.ok_or("match-001 is missing")?;
    show(std::slice::from_ref(&m));
    count(requests);

    println!("Every WINTER2024 match in NA-EAST (Query TournamentRegionIndex: tournamentId = .. AND region = ..)");
    show(&table.query_all(TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST")).await?);
    count(requests);

    println!("Its semi-finals (.. AND round = \"SEMIFINALS\")");
    let semis = TournamentMatch::query_by_tournament("WINTER2024", "NA-EAST").round().eq("SEMIFINALS");
    show(&table.query_all(semis.clone()).await?);
    count(requests);

    println!("Its upper-bracket semi-finals (.. AND bracket = \"UPPER\")");
    let upper = semis.bracket().eq("UPPER");
    show(&table.query_all(upper.clone()).await?);
    count(requests);

    println!("One of them by the table's key, last in the index (.. AND matchId = \"match-002\")");
    show(&table.query_all(upper.clone().match_id().eq("match-002")).await?);
    count(requests);

    println!("Those after match-001 (.. AND matchId > \"match-001\": a key condition, not a filter)");
    let after = upper.match_id().gt("match-001");
    let request = after.request()?;
    println!("   KeyConditionExpression: {}", request.key_condition_expression);
    if request.filter_expression.is_some() {
        return Err("`matchId >` was sent as a filter".into());
    }
    show(&table.query_all(after).await?);
    count(requests);

    println!("Player 101's match history (Query PlayerMatchHistoryIndex: player1Id = \"101\")");
    show(&table.query_all(TournamentMatch::query_by_player("101")).await?);
    count(requests);

    println!("Player 101 in January 2024 (.. AND matchDate BETWEEN \"2024-01-01\" AND \"2024-01-31\")");
    let january = TournamentMatch::query_by_player("101").match_date().between("2024-01-01", "2024-01-31");
    show(&table.query_all(january).await?);
    count(requests);

    println!("Player 101's finals on 2024-01-20 (.. AND matchDate = .. AND round = \"FINALS\")");
    let finals = TournamentMatch::query_by_player("101").match_date().eq("2024-01-20").round().eq("FINALS");
    show(&table.query_all(finals).await?);
    count(requests);

    println!("The entity writes AWS's items byte for byte");
    for m in &MATCHES {
        let item = raw(m);
        if TournamentMatch::from_item(item.clone())?.to_item()? != item {
            return Err(format!("{} is not written back as it was read", m[0]).into());
        }
    }
    let new = TournamentMatch {
        match_id: "match-007".into(),
        tournament_id: "WINTER2024".into(),
        region: "NA-WEST".into(),
        round: "FINALS".into(),
        bracket: "CHAMPIONSHIP".into(),
        player1_id: "201".into(),
        player2_id: "205".into(),
        match_date: "2024-01-21".into(),
        winner: Some("205".into()),
    };
    table.create(&new).await?;
    let stored = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("matchId", AttributeValue::S("match-007".into()))
        .send()
        .await?;
    let expected =
        raw(&["match-007", "WINTER2024", "NA-WEST", "FINALS", "CHAMPIONSHIP", "201", "205", "2024-01-21", "205"]);
    if stored.item.as_ref() != Some(&expected) {
        return Err(format!("match-007 is stored as {:?}", stored.item).into());
    }
    println!(
        "   -> {} items read and written back unchanged; match-007 stored with exactly AWS's attributes",
        MATCHES.len()
    );
    requests.take();
    println!();
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let client = dynamo_entity::local::client().await?;
    let (client, requests) = requests::counted(&client);
    let name = format!("TournamentMatches-{}", std::process::id());
    create_as_aws_does(&client, &name).await?;
    let table = Table::new(client, name);
    run(&table, &requests).await?;

    println!("plan: the entity's definition against AWS's table");
    let plan = table.plan(&TableDefinition::from_entities(&[TournamentMatch::SCHEMA])?).await?;
    print!("{plan}");
    if !plan.is_empty() {
        return Err("the plan against AWS's own table is not empty".into());
    }
    println!("   (empty: nothing to create, rebuild or drop)");
    Ok(())
}
