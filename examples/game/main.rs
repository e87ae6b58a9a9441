//! The AWS game tutorial's design end to end: `cargo run --example game`; `-- --export terraform`
//! (or `cloudformation-json`, `cloudformation-yaml`, `markdown`) prints the table definition instead.
//!
//! "Modeling game player data with Amazon DynamoDB" (a battle royale game): creates users and
//! games (never overwriting), joins players to games in one transaction each (at most 50),
//! starts a game (its creator only, while it is open: it leaves the sparse `OpenGamesIndex`),
//! and answers the reads: open games by map, all open games, the players of a game, the games of
//! a player; each with the number of requests it took.

#[path = "../common/export.rs"]
mod export;
#[path = "../common/layout.rs"]
mod layout;
mod model;
#[path = "../common/requests.rs"]
mod requests;

use dynamo_entity::{Error, Table};
use model::*;
use requests::Requests;

fn user(username: &str, name: &str) -> User {
    User {
        username: username.into(),
        name: name.into(),
        email: format!("{}@example.com", username.replace(' ', ".")),
        birthdate: "1990-04-12".into(),
        address: "1 Main Street".into(),
    }
}

fn game(id: &str, map: &str, creator: &str, create_time: &str) -> Game {
    Game {
        game_id: id.into(),
        map: map.into(),
        creator: creator.into(),
        create_time: create_time.into(),
        people: 0,
        open_timestamp: Some(create_time.into()),
        start_time: None,
    }
}

/// Joins `username` to a game: the mapping (which must not exist: no one joins twice) and one
/// more player on the game, only while it has fewer than [`MAX_PLAYERS`]; both or neither.
async fn join(table: &Table, game_id: &str, username: &str) -> Result<(), Error> {
    let mapping = UserGameMapping { game_id: game_id.into(), username: username.into() };
    let people = Game::fields().people;
    table
        .transact()
        .create(&mapping)
        .update(Game::update(Game::key(game_id)).add(Game::fields().people, 1).condition(people.lt(MAX_PLAYERS)))
        .send()
        .await
}

/// Starts a game: only its creator, only while it is open. Removing `open_timestamp` takes the
/// game out of `OpenGamesIndex`.
async fn start(table: &Table, game_id: &str, requested_by: &str, at: &str) -> Result<Game, Error> {
    let f = Game::fields();
    table
        .update(
            Game::update(Game::key(game_id))
                .remove(Game::fields().open_timestamp)
                .set(Game::fields().start_time, at)
                .condition(f.creator.eq(requested_by).and(f.open_timestamp.exists())),
        )
        .await
}

async fn run(table: &Table, requests: &Requests) -> Result<(), Box<dyn std::error::Error>> {
    let count = |requests: &Requests| println!("   ({} request(s))\n", requests.take());
    requests.take();

    println!("Create users and games (PutItem with attribute_not_exists: never an overwrite)");
    let users = [
        user("johnsonscott", "Scott Johnson"),
        user("vlopez", "Valerie Lopez"),
        user("ana maria", "Ana Maria"),
        user("hgonzalez", "Hector Gonzalez"),
    ];
    for u in &users {
        table.create(u).await?;
    }
    let games = [
        game("c6f38a6a-d1c5-4bdf-8468-24692ccc4646", "Green Grasslands", "johnsonscott", "2019-04-10T23:10:35"),
        game("d06af94a-2363-441d-a69b-49e3f85e748a", "Green Grasslands", "vlopez", "2019-04-11T05:40:11"),
        game("3d4285f0-e52b-401a-a59b-112b38c4a26b", "Juicy Jungle", "ana maria", "2019-04-10T09:01:00"),
        game("248dd9ef-6b17-42f0-9567-2cbd3dd63174", "Dirty Desert", "hgonzalez", "2019-04-12T18:30:22"),
    ];
    for g in &games {
        table.create(g).await?;
    }
    println!("   -> {} users, {} games", users.len(), games.len());
    count(requests);

    println!("Creating johnsonscott again is refused");
    match table.create(&users[0]).await {
        Err(e @ Error::AlreadyExists { .. }) => println!("   -> {e}"),
        other => return Err(format!("expected AlreadyExists, got {other:?}").into()),
    }
    count(requests);

    println!("Join games: one transaction each (the mapping, and people + 1 while people < {MAX_PLAYERS})");
    let joins = [
        (&games[0], "johnsonscott"),
        (&games[0], "vlopez"),
        (&games[0], "ana maria"),
        (&games[1], "ana maria"),
        (&games[2], "ana maria"),
        (&games[2], "hgonzalez"),
    ];
    for (g, username) in joins {
        join(table, &g.game_id, username).await?;
    }
    println!("   -> {} players joined", joins.len());
    count(requests);

    println!("vlopez joins the first game again: the transaction is cancelled, people is unchanged");
    match join(table, &games[0].game_id, "vlopez").await {
        Err(Error::TransactionCanceled { reasons }) => {
            let codes: Vec<_> = reasons.iter().map(|r| format!("{:?}", r.code)).collect();
            println!("   -> cancelled: {}", codes.join(", "));
        }
        other => return Err(format!("expected a cancelled transaction, got {other:?}").into()),
    }
    let first = table.get(Game::key(games[0].game_id.as_str())).await?.ok_or("the first game is missing")?;
    println!("   -> people = {}", first.people);
    count(requests);

    println!("A full game takes no one: people = {MAX_PLAYERS} fails the condition");
    let full = Game {
        people: MAX_PLAYERS,
        ..game("f00dface-0000-4000-8000-000000000050", "Dirty Desert", "vlopez", "2019-04-12T07:00:00")
    };
    table.create(&full).await?;
    requests.take();
    match join(table, &full.game_id, "johnsonscott").await {
        Err(Error::TransactionCanceled { reasons }) => println!("   -> cancelled: {:?}", reasons[1].code),
        other => return Err(format!("expected a cancelled transaction, got {other:?}").into()),
    }
    count(requests);

    println!("Open games on Green Grasslands, oldest first (Query OpenGamesIndex: map = .., by open_timestamp)");
    let open = table.query_all(Game::query_open_games_by_map("Green Grasslands")).await?;
    for g in &open {
        println!(
            "   -> {} opened {} by {}, {} player(s)",
            g.game_id,
            g.open_timestamp.as_deref().unwrap_or("?"),
            g.creator,
            g.people
        );
    }
    count(requests);

    println!("vlopez may not start johnsonscott's game (ConditionFailed: only the creator)");
    match start(table, &games[0].game_id, "vlopez", "2019-04-11T06:00:00").await {
        Err(Error::ConditionFailed { .. }) => println!("   -> ConditionFailed"),
        other => return Err(format!("expected ConditionFailed, got {other:?}").into()),
    }
    count(requests);

    println!("johnsonscott starts the game: open_timestamp is removed, the game leaves OpenGamesIndex");
    let started = start(table, &games[0].game_id, "johnsonscott", "2019-04-11T06:00:00").await?;
    println!(
        "   -> started at {}, open_timestamp = {:?}",
        started.start_time.as_deref().unwrap_or("?"),
        started.open_timestamp
    );
    count(requests);

    println!("Starting it again is refused (it is no longer open)");
    match start(table, &games[0].game_id, "johnsonscott", "2019-04-11T06:05:00").await {
        Err(Error::ConditionFailed { .. }) => println!("   -> ConditionFailed"),
        other => return Err(format!("expected ConditionFailed, got {other:?}").into()),
    }
    count(requests);

    println!("Open games on Green Grasslands now: the started game is no longer in the index");
    let open = table.query_all(Game::query_open_games_by_map("Green Grasslands")).await?;
    println!("   -> {:?}", open.iter().map(|g| &g.game_id).collect::<Vec<_>>());
    if open.iter().any(|g| g.game_id == games[0].game_id) {
        return Err("the started game is still in OpenGamesIndex".into());
    }
    count(requests);

    println!("Open games on Green Grasslands since 2019-04-11 (a key condition on open_timestamp)");
    let open = table
        .query_all(Game::query_open_games_by_map("Green Grasslands").open_timestamp().gte("2019-04-11T00:00:00"))
        .await?;
    println!("   -> {:?}", open.iter().map(|g| &g.game_id).collect::<Vec<_>>());
    count(requests);

    println!("All open games (Scan of the sparse OpenGamesIndex: it holds the open games only)");
    let mut open = table.scan::<Game>().index("OpenGamesIndex").all().await?;
    open.sort_by(|a, b| a.open_timestamp.cmp(&b.open_timestamp));
    for g in &open {
        println!("   -> {:<16} {} {}", g.map, g.open_timestamp.as_deref().unwrap_or("?"), g.game_id);
    }
    count(requests);

    println!("The players of the first game (one Query of its partition: the game, then its players)");
    let items = table.query_all(GameItems::query(Game::partition(games[0].game_id.as_str()))).await?;
    for item in &items {
        match item {
            GameItems::Game(g) => println!("   -> game on {}, {} player(s)", g.map, g.people),
            GameItems::Player(p) => println!("   -> player {}", p.username),
        }
    }
    count(requests);

    println!("The games of ana maria (Query InvertedIndex: SK = USER#ana maria, PK = GAME#..)");
    let mine = table.query_all(UserGameMapping::query_games_of_user("ana maria")).await?;
    println!("   -> {:?}", mine.iter().map(|m| &m.game_id).collect::<Vec<_>>());
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
    layout::print(&table, &definition()?, "game").await?;
    Ok(())
}
