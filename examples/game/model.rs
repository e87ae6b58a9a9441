//! The entities of the AWS tutorial "Modeling game player data with Amazon DynamoDB" (a battle
//! royale game): users, games and the mapping of users to games in one table, `PK`/`SK`, with
//! two indexes keyed on attributes the items hold anyway, so that no item carries an extra copy
//! of a key:
//! - `OpenGamesIndex` (HASH `map`, RANGE `open_timestamp`): a game's own attributes; a game
//!   that has started has no `open_timestamp`, so the index holds the open games only (sparse);
//! - `InvertedIndex` (HASH `SK`, RANGE `PK`): the table's keys swapped, so that the mappings
//!   `GAME#<id>` / `USER#<name>` are found from the user's side.
//!
//! Timestamps are strings as the tutorial writes them (`2019-04-10T23:10:35`, no fraction, no
//! zone): `open_timestamp` is stored and indexed byte for byte like the tutorial's items, and
//! that format sorts in time order as text.

use dynamo_entity::{Collection, Entity};

/// A player: `USER#<username>` / `#METADATA#<username>`. Usernames are written raw (`<username:raw>`),
/// as the tutorial's items hold them: `USER#ana maria`, not `USER#ana%20maria`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<username:raw>"]
#[sk = "#METADATA#<username:raw>"]
pub struct User {
    pub username: String,
    pub name: String,
    pub email: String,
    pub birthdate: String,
    pub address: String,
}

/// A game: `GAME#<game_id>` / `#METADATA#<game_id>`. It is open (in `OpenGamesIndex`) while
/// `open_timestamp` is set; starting it removes that attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GAME#<game_id>"]
#[sk = "#METADATA#<game_id>"]
#[gsi1(
    index = "OpenGamesIndex",
    pk = "<map>",
    sk = "<open_timestamp>",
    pk_attr = "map",
    sk_attr = "open_timestamp",
    query = "open_games_by_map"
)]
pub struct Game {
    pub game_id: String,
    pub map: String,
    pub creator: String,
    pub create_time: String,
    pub people: u32,
    pub open_timestamp: Option<String>,
    pub start_time: Option<String>,
}

/// A user in a game: `GAME#<game_id>` / `USER#<username>` (raw), in the game's partition (so one
/// Query reads a game and its players); `InvertedIndex` reads it from the user's side.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "GAME#<game_id>"]
#[sk = "USER#<username:raw>"]
#[gsi2(
    index = "InvertedIndex",
    pk = "USER#<username:raw>",
    sk = "GAME#<game_id>",
    pk_attr = "SK",
    sk_attr = "PK",
    query = "games_of_user"
)]
pub struct UserGameMapping {
    pub game_id: String,
    pub username: String,
}

/// A game's partition: the game (`#METADATA#..` sorts before `USER#..`), then its players.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum GameItems {
    Game(Game),
    Player(UserGameMapping),
}

/// The most players a game takes.
pub const MAX_PLAYERS: u32 = 50;

/// Every entity of the table, to create it.
pub fn schemas() -> [dynamo_entity::EntitySchema; 3] {
    [User::SCHEMA, Game::SCHEMA, UserGameMapping::SCHEMA]
}

/// The tutorial's table name.
pub const TABLE_NAME: &str = "battle-royale";

/// The table as the tutorial creates it: on demand, both indexes projecting all attributes.
#[allow(dead_code)]
pub fn definition() -> Result<dynamo_entity::TableDefinition, dynamo_entity::Error> {
    dynamo_entity::TableDefinition::from_entities(&schemas())
}
