//! AWS's TournamentMatches ("Multi-attribute keys pattern", DynamoDB Developer Guide): the
//! entity declared over it, the table created as AWS's page creates it (raw SDK calls), and the
//! matches AWS's page writes, in its shape. Shared by `examples/tournament` and
//! `tests/natural_keys.rs`.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType,
};
use dynamo_entity::{Entity, Item};

/// A match of TournamentMatches: the table is keyed on `matchId`, the field's own attribute.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<match_id>"]
#[entity(pk_attr = "matchId", rename_all = "camelCase", type_attr = false, owns_partition = true)]
#[gsi1(index = "TournamentRegionIndex", pk = ["tournament_id", "region"],
       sk = ["round", "bracket", "match_id"], query = "by_tournament")]
#[gsi2(index = "PlayerMatchHistoryIndex", pk = ["player1_id"], sk = ["match_date", "round"], query = "by_player")]
pub struct TournamentMatch {
    pub match_id: String,
    pub tournament_id: String,
    pub region: String,
    pub round: String,
    pub bracket: String,
    pub player1_id: String,
    pub player2_id: String,
    pub match_date: String,
    pub winner: Option<String>,
}

/// (matchId, tournamentId, region, round, bracket, player1Id, player2Id, matchDate, winner)
pub const MATCHES: [[&str; 9]; 6] = [
    ["match-001", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER", "101", "103", "2024-01-18", "101"],
    ["match-002", "WINTER2024", "NA-EAST", "SEMIFINALS", "UPPER", "105", "107", "2024-01-18", "107"],
    ["match-003", "WINTER2024", "NA-EAST", "SEMIFINALS", "LOWER", "102", "104", "2024-01-19", "104"],
    ["match-004", "WINTER2024", "NA-EAST", "FINALS", "CHAMPIONSHIP", "101", "107", "2024-01-20", "101"],
    ["match-005", "WINTER2024", "NA-WEST", "SEMIFINALS", "UPPER", "201", "203", "2024-01-18", "201"],
    ["match-006", "SPRING2024", "NA-EAST", "QUARTERFINALS", "UPPER", "101", "109", "2024-03-02", "109"],
];
pub const NAMES: [&str; 9] =
    ["matchId", "tournamentId", "region", "round", "bracket", "player1Id", "player2Id", "matchDate", "winner"];

pub fn raw(m: &[&str; 9]) -> Item {
    NAMES.iter().zip(m).map(|(n, v)| ((*n).to_owned(), AttributeValue::S((*v).to_owned()))).collect()
}

pub fn ks(name: &str, t: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(t).build().expect("key schema")
}

pub fn ad(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .expect("attribute")
}

pub fn gsi(name: &str, keys: &[(&str, KeyType)]) -> GlobalSecondaryIndex {
    let mut b = GlobalSecondaryIndex::builder()
        .index_name(name)
        .projection(Projection::builder().projection_type(ProjectionType::All).build());
    for (attr, t) in keys {
        b = b.key_schema(ks(attr, t.clone()));
    }
    b.build().expect("index")
}

/// TournamentMatches, created as AWS's page creates it: raw SDK calls, no library involved.
pub async fn create_as_aws_does(
    client: &aws_sdk_dynamodb::Client,
    name: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    use KeyType::{Hash, Range};
    let mut create = client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(ks("matchId", Hash))
        .global_secondary_indexes(gsi(
            "TournamentRegionIndex",
            &[("tournamentId", Hash), ("region", Hash), ("round", Range), ("bracket", Range), ("matchId", Range)],
        ))
        .global_secondary_indexes(gsi(
            "PlayerMatchHistoryIndex",
            &[("player1Id", Hash), ("matchDate", Range), ("round", Range)],
        ));
    for attr in ["matchId", "tournamentId", "region", "round", "bracket", "player1Id", "matchDate"] {
        create = create.attribute_definitions(ad(attr));
    }
    create.send().await?;
    for m in &MATCHES {
        client.put_item().table_name(name).set_item(Some(raw(m))).send().await?;
    }
    Ok(())
}
