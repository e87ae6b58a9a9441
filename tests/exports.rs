//! The table definitions of the example designs, exported as Terraform, CloudFormation and an
//! access-pattern document, equal the files checked in beside the examples: a change of the
//! entities that is not carried to the infrastructure files fails here. Regenerate them with
//! `DYNAMO_ENTITY_BLESS=1 cargo test --test exports` and read the diff.
//! `scripts/check-exports.sh` runs `cfn-lint` and an HCL2 parser on the checked-in files.

#[allow(dead_code)]
#[path = "../examples/chat/model.rs"]
mod chat;
#[allow(dead_code)]
#[path = "../examples/ecommerce/model.rs"]
mod ecommerce;
#[allow(dead_code)]
#[path = "../examples/common/export.rs"]
mod export;
#[allow(dead_code)]
#[path = "../examples/game/model.rs"]
mod game;
#[allow(dead_code)]
#[path = "../examples/iot/model.rs"]
mod iot;

use dynamo_entity::{Billing, Entity, Projection, StreamView, TableDefinition, Throughput};

/// Every option at once (provisioned capacity, each projection, a local index), for the linters.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "ORDER#<id>", query = "orders_by_status")]
#[gsi2(pk = "USER#<user_id>", sk = "ORDER#<id>", query = "orders_of_user")]
#[gsi3(pk = "DAY#<day>", query = "orders_of_day")]
#[lsi1(sk = "TOTAL#<total>")]
#[entity(rename_all = "camelCase", type_attr = "entityType")]
pub struct Order {
    pub id: String,
    pub user_id: String,
    pub status: String,
    pub day: String,
    pub total: u64,
    #[ttl]
    pub expires_at: std::time::SystemTime,
}

fn all_options() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .stream(StreamView::NewImage)
        .point_in_time_recovery(true)
        .deletion_protection(false)
        .billing(Billing::Provisioned(Throughput { read: 5, write: 4 }))
        .projection("GSI1", Projection::KeysOnly)
        .unwrap()
        .projection("GSI2", Projection::Include(vec!["total".into(), "status".into()]))
        .unwrap()
        .index_throughput("GSI2", Throughput { read: 3, write: 2 })
        .unwrap()
}

/// Directory (under the package), definition and table name of each checked-in export.
fn designs() -> [(&'static str, TableDefinition, &'static str); 5] {
    [
        ("examples/chat", chat::definition().unwrap(), chat::TABLE_NAME),
        ("examples/ecommerce", ecommerce::definition().unwrap(), ecommerce::TABLE_NAME),
        ("examples/game", game::definition().unwrap(), game::TABLE_NAME),
        ("examples/iot", iot::definition().unwrap(), iot::TABLE_NAME),
        ("tests/exports", all_options(), "orders-all-options"),
    ]
}

#[test]
fn checked_in_exports_match_the_code() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("DYNAMO_ENTITY_BLESS").is_some_and(|v| v == "1");
    let mut drifted = Vec::new();
    for (example, definition, name) in designs() {
        for (format, file) in export::FORMATS {
            let path = dir.join(example).join(file);
            let text = export::render(&definition, name, format).unwrap();
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
            if checked_in != text {
                drifted.push(path.display().to_string());
            }
        }
    }
    assert!(
        drifted.is_empty(),
        "these files differ from what the code exports: {drifted:?}\n\
         regenerate with `DYNAMO_ENTITY_BLESS=1 cargo test --test exports` and review the diff"
    );
}

#[test]
fn cloudformation_json_holds_every_option() {
    let def = ecommerce::definition()
        .unwrap()
        .billing(Billing::Provisioned(Throughput { read: 10, write: 5 }))
        .projection("GSI2", Projection::Include(vec!["total".into()]))
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("shop-main")).unwrap();
    let t = &json["Resources"]["shopmain"];
    assert_eq!(t["Type"], "AWS::DynamoDB::Table");
    assert_eq!(t["DeletionPolicy"], "Retain");
    let p = &t["Properties"];
    assert_eq!(p["TableName"], "shop-main");
    assert_eq!(p["BillingMode"], "PROVISIONED");
    assert_eq!(p["ProvisionedThroughput"], serde_json::json!({"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}));
    assert_eq!(p["StreamSpecification"]["StreamViewType"], "NEW_AND_OLD_IMAGES");
    assert_eq!(p["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"], true);
    assert_eq!(p["DeletionProtectionEnabled"], true);
    assert_eq!(p["TimeToLiveSpecification"], serde_json::json!({"AttributeName": "expiresAt", "Enabled": true}));
    let names: Vec<&str> =
        p["AttributeDefinitions"].as_array().unwrap().iter().map(|a| a["AttributeName"].as_str().unwrap()).collect();
    assert_eq!(names, ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "PK", "SK"]);
    let gsi2 = &p["GlobalSecondaryIndexes"][1];
    assert_eq!(gsi2["IndexName"], "GSI2");
    assert_eq!(gsi2["Projection"], serde_json::json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}));
    assert_eq!(gsi2["ProvisionedThroughput"]["ReadCapacityUnits"], 10);
    assert_eq!(json["Outputs"]["StreamArn"]["Value"]["Fn::GetAtt"], serde_json::json!(["shopmain", "StreamArn"]));
}

#[test]
fn terraform_holds_every_option() {
    let def = chat::definition()
        .unwrap()
        .stream(StreamView::KeysOnly)
        .billing(Billing::Provisioned(Throughput { read: 2, write: 1 }))
        .projection("GSI1", Projection::Include(vec!["name".into(), "a\"b${x}".into()]))
        .unwrap();
    let tf = def.to_terraform("Connect40-Table");
    for line in [
        "resource \"aws_dynamodb_table\" \"Connect40-Table\" {",
        "  billing_mode                = \"PROVISIONED\"",
        "  read_capacity               = 2",
        "    projection_type    = \"INCLUDE\"",
        "    non_key_attributes = [\"name\", \"a\\\"b$${x}\"]",
        "  stream_view_type = \"KEYS_ONLY\"",
        "    attribute_name = \"ttl\"",
    ] {
        assert!(tf.lines().any(|l| l == line), "no line {line:?} in\n{tf}");
    }
}

#[test]
fn markdown_lists_every_entity_and_query() {
    let md = chat::definition().unwrap().to_markdown("Connect40-Table");
    for row in [
        "| Message | (table) | `PK` = `CHATROOM#<chat_room_id>` | `SK` = `MESSAGE#<timestamp:13>#<message_id>` | `timestamp_eq/lt/lte/gt/gte/between`; `message_id_eq/lt/lte/gt/gte/between` after `timestamp_eq` |",
        "| ChatParticipation | GSI1 | `GSI1PK` = `USERROOMS#<participant_id>` | `GSI1SK` = `<joined_at>` | `joined_at_eq/lt/lte/gt/gte/between` |",
        "| User | `email` | `PK` = `UNIQUE#User#email#<email>` | `SK` = `UNIQUE` | `Type` = `UNIQUE#User#email` |",
    ] {
        assert!(md.lines().any(|l| l == row), "no row {row:?} in\n{md}");
    }
    let section = md.split("## Access patterns").nth(1).unwrap().split("## Entities").next().unwrap();
    let rows = section.lines().filter(|l| l.starts_with("| ") && l.contains(" = `")).count();
    let expected: usize = chat::schemas().iter().map(|s| 1 + s.indexes.len()).sum();
    assert_eq!(rows, expected, "one row per entity and query");
}

/// An index keyed on a number field's own attribute: every export declares it as N, the other
/// key attributes as S; the game's inverted index reuses the table's SK and PK.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAYER#<id>"]
#[sk = "#METADATA"]
#[gsi1(index = "ByScore", pk = "<league>", sk = "<score>", pk_attr = "league", sk_attr = "score", query = "by_score")]
pub struct Player {
    pub id: String,
    pub league: String,
    pub score: Option<u64>,
}

#[test]
fn keys_on_plain_attributes_are_declared_with_their_types() {
    let def = TableDefinition::from_entities(&[Player::SCHEMA]).unwrap();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("players")).unwrap();
    let attrs = &json["Resources"]["players"]["Properties"]["AttributeDefinitions"];
    assert_eq!(
        *attrs,
        serde_json::json!([
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "league", "AttributeType": "S"},
            {"AttributeName": "score", "AttributeType": "N"}
        ])
    );
    let tf = def.to_terraform("players");
    assert!(tf.contains("attribute {\n    name = \"score\"\n    type = \"N\"\n  }"), "{tf}");
    assert!(tf.contains("attribute {\n    name = \"league\"\n    type = \"S\"\n  }"), "{tf}");
    let md = def.to_markdown("players");
    assert!(md.contains("| Player | ByScore | `league` = `<league>` | `score` = `<score>` (N) |"), "{md}");

    let game = game::definition().unwrap();
    let inverted = game.indexes.iter().find(|i| i.name == "InvertedIndex").unwrap();
    assert_eq!((inverted.pk_attr.as_str(), inverted.sk_attr.as_deref()), ("SK", Some("PK")));
    assert_eq!(game.key_attributes(), ["PK", "SK", "map", "open_timestamp"]);
}
