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
#[allow(dead_code)]
#[path = "../examples/leaderboard/model.rs"]
mod leaderboard;

use dynamo_entity::{
    Billing, Entity, GlobalTable, IamPolicy, InsightsMode, Projection, Replica, Sse, StreamView, TableClass,
    TableDefinition, Throughput,
};

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
        .sse(Sse::CustomerManaged(KMS_KEY.into()))
}

/// The customer managed key of [`all_options`].
const KMS_KEY: &str = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

/// A multi-tenant table: tenant entities (one whose partition key is the tenant alone), a
/// shared one, and an index keyed by tenant.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>#USER#<user_id>"]
#[sk = "PROFILE"]
#[gsi1(pk = "TENANT#<tenant_id>#EMAIL#<email>", sk = "USER", query = "by_email")]
#[entity(tenant = "tenant_id")]
pub struct Member {
    pub tenant_id: String,
    pub user_id: String,
    pub email: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<tenant_id>"]
#[sk = "SETTINGS"]
#[entity(tenant = "tenant_id")]
pub struct TenantSettings {
    pub tenant_id: String,
    pub theme: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PLAN#<plan_id>"]
#[sk = "PLAN"]
#[entity(tenant_shared)]
pub struct Plan {
    pub plan_id: String,
    pub price: u32,
}

/// The policies of the multi-tenant table: the application's (its tenant's items), a view-only
/// role of a tenant, and an unrestricted reporting role (which may scan).
fn tenant_policies() -> [(&'static str, IamPolicy); 3] {
    [
        ("policy-tenant-read-write.json", IamPolicy::read_write().tenant_tag("TenantId")),
        ("policy-tenant-names.json", IamPolicy::read_only().tenant_tag("TenantId").attributes(["name"])),
        ("policy-reporting.json", IamPolicy::read_only().region("eu-west-1").account("123456789012")),
    ]
}

fn tenants() -> TableDefinition {
    let mut def = TableDefinition::from_entities(&[Member::SCHEMA, TenantSettings::SCHEMA, Plan::SCHEMA]).unwrap();
    for (_, policy) in tenant_policies() {
        def = def.with_iam_policy(policy).unwrap();
    }
    def
}

/// The resource-based policy of [`settings`]: who may not delete the table.
const RESOURCE_POLICY: &str = r#"{"Version":"2012-10-17","Statement":[{"Sid":"NoDelete","Effect":"Deny","Principal":{"AWS":"arn:aws:iam::123456789012:root"},"Action":"dynamodb:DeleteTable","Resource":"arn:aws:dynamodb:eu-west-1:123456789012:table/orders-settings"}]}"#;

/// The settings of 2024-2026 on an on-demand table: warm throughput, maximum on-demand
/// throughput (table and an index), a recovery period, Contributor Insights, a resource policy.
fn settings() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .billing(Billing::OnDemand)
        .warm_throughput(15_000, 6_000)
        .unwrap()
        .max_on_demand(200, 100)
        .unwrap()
        .index_max_on_demand("GSI2", 50, 25)
        .unwrap()
        .recovery_period_days(7)
        .unwrap()
        .contributor_insights(InsightsMode::ThrottledKeys)
        .resource_policy(RESOURCE_POLICY)
        .unwrap()
}

/// The key of [`regions`] in eu-west-1, and its replica's in us-east-1 (a KMS key serves one Region).
const KMS_EU: &str = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
const KMS_US: &str = "arn:aws:kms:us-east-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab";

/// A global table with multi-Region eventual consistency: three replicas, one with a storage class,
/// read maximum, deletion protection and Contributor Insights of its own; every Region's settings
/// (encryption with a key per Region, tags, a resource policy, point-in-time recovery).
fn regions() -> TableDefinition {
    let global = GlobalTable::eventual([
        Replica::new("eu-west-1"),
        Replica::new("us-east-1")
            .kms_key(KMS_US)
            .table_class(TableClass::StandardInfrequentAccess)
            .max_reads(500)
            .deletion_protection(false)
            .contributor_insights(InsightsMode::AccessedAndThrottledKeys),
        Replica::new("ap-northeast-1")
            .kms_key("arn:aws:kms:ap-northeast-1:123456789012:key/9abcabcd-12ab-34cd-56ef-1234567890ab"),
    ]);
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .billing(Billing::OnDemand)
        .point_in_time_recovery(true)
        .deletion_protection(true)
        .sse(Sse::CustomerManaged(KMS_EU.into()))
        .max_on_demand(400, 200)
        .unwrap()
        .index_max_on_demand("GSI2", 50, 25)
        .unwrap()
        .contributor_insights(InsightsMode::ThrottledKeys)
        .tag("Env", "prod")
        .unwrap()
        .tag("Team", "orders")
        .unwrap()
        .global_table(global)
        .unwrap()
}

/// A global table with multi-Region strong consistency: two replicas and a witness.
fn strong() -> TableDefinition {
    TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .table_class(TableClass::StandardInfrequentAccess)
        .global_table(GlobalTable::strong(["us-east-1", "us-east-2"]).witness("us-west-2"))
        .unwrap()
}

/// Directory (under the package), definition and table name of each checked-in export.
fn designs() -> [(&'static str, TableDefinition, &'static str); 10] {
    [
        ("examples/chat", chat::definition().unwrap(), chat::TABLE_NAME),
        ("examples/ecommerce", ecommerce::definition().unwrap(), ecommerce::TABLE_NAME),
        ("examples/game", game::definition().unwrap(), game::TABLE_NAME),
        ("examples/iot", iot::definition().unwrap(), iot::TABLE_NAME),
        ("examples/leaderboard", leaderboard::definition().unwrap(), leaderboard::TABLE_NAME),
        ("tests/exports", all_options(), "orders-all-options"),
        ("tests/exports/tenants", tenants(), "members"),
        ("tests/exports/settings", settings(), "orders-settings"),
        ("tests/exports/regions", regions(), "orders-global"),
        ("tests/exports/strong", strong(), "orders-strong"),
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
    // The standalone policy documents of the multi-tenant table, for the IAM linter.
    let def = tenants();
    for (file, policy) in tenant_policies() {
        let path = dir.join("tests/exports/tenants").join(file);
        let text = def.iam_policy(&policy.table_name_prefix("prod_").table_name("members")).unwrap();
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).unwrap_or_default() != text {
            drifted.push(path.display().to_string());
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
fn the_settings_of_2024_2026_are_exported() {
    let def = settings();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("orders-settings")).unwrap();
    let p = &json["Resources"]["orderssettings"]["Properties"];
    assert_eq!(p["WarmThroughput"], serde_json::json!({"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 6000}));
    assert_eq!(p["OnDemandThroughput"], serde_json::json!({"MaxReadRequestUnits": 200, "MaxWriteRequestUnits": 100}));
    let gsi2 = p["GlobalSecondaryIndexes"].as_array().unwrap().iter().find(|i| i["IndexName"] == "GSI2").unwrap();
    assert_eq!(gsi2["OnDemandThroughput"], serde_json::json!({"MaxReadRequestUnits": 50, "MaxWriteRequestUnits": 25}));
    let gsi1 = p["GlobalSecondaryIndexes"].as_array().unwrap().iter().find(|i| i["IndexName"] == "GSI1").unwrap();
    assert!(gsi1.get("OnDemandThroughput").is_none(), "{gsi1}");
    assert_eq!(
        p["PointInTimeRecoverySpecification"],
        serde_json::json!({"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7})
    );
    assert_eq!(p["ContributorInsightsSpecification"], serde_json::json!({"Enabled": true, "Mode": "THROTTLED_KEYS"}));
    let policy: serde_json::Value = serde_json::from_str(RESOURCE_POLICY).unwrap();
    assert_eq!(p["ResourcePolicy"]["PolicyDocument"], policy);
    // The YAML form holds the same document.
    let yaml = def.to_cloudformation_yaml("orders-settings");
    assert!(yaml.contains("RecoveryPeriodInDays: 7") && yaml.contains("Mode: \"THROTTLED_KEYS\""), "{yaml}");

    let tf = def.to_terraform("orders-settings");
    for line in [
        "    recovery_period_in_days = 7",
        "  warm_throughput {",
        "    read_units_per_second  = 15000",
        "    write_units_per_second = 6000",
        "  on_demand_throughput {",
        "    max_read_request_units  = 200",
        "      max_read_request_units  = 50",
        "resource \"aws_dynamodb_contributor_insights\" \"orders-settings\" {",
        "  table_name = aws_dynamodb_table.orders-settings.name",
        "resource \"aws_dynamodb_resource_policy\" \"orders-settings\" {",
        "  resource_arn = aws_dynamodb_table.orders-settings.arn",
    ] {
        assert!(tf.lines().any(|l| l == line), "no line {line:?} in\n{tf}");
    }
    let start = tf.find("<<-EOT").unwrap() + "<<-EOT".len();
    let end = tf[start..].find("EOT").unwrap() + start;
    let in_tf: serde_json::Value = serde_json::from_str(&tf[start..end]).unwrap();
    assert_eq!(in_tf, policy);

    let md = def.to_markdown("orders-settings");
    for line in [
        "- Point-in-time recovery: on (7 days)",
        "- Warm throughput: 15000 reads/s, 6000 writes/s",
        "- Maximum on-demand throughput: 200 reads/s, 100 writes/s",
        "- Maximum on-demand throughput of GSI2: 50 reads/s, 25 writes/s",
        "- Contributor Insights: on, THROTTLED_KEYS",
        "- Resource-based policy: attached (see the CloudFormation or Terraform export)",
    ] {
        assert!(md.lines().any(|l| l == line), "no line {line:?} in\n{md}");
    }
    // Not stated: nothing of them in the exports.
    let plain = TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    let cfn = plain.to_cloudformation_json("orders");
    for absent in
        ["WarmThroughput", "OnDemandThroughput", "RecoveryPeriodInDays", "ContributorInsights", "ResourcePolicy"]
    {
        assert!(!cfn.contains(absent), "{absent} in\n{cfn}");
    }
}

#[test]
fn settings_dynamodb_refuses_are_refused_by_the_builder() {
    let def = || TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    let message = |r: Result<TableDefinition, dynamo_entity::Error>| match r {
        Err(dynamo_entity::Error::Validation(m)) => m,
        other => panic!("not a validation error: {other:?}"),
    };
    for days in [0, 36] {
        let m = message(def().recovery_period_days(days));
        assert!(m.starts_with("recovery_period_days:") && m.contains("1 to 35"), "{m}");
    }
    assert!(def().recovery_period_days(1).is_ok() && def().recovery_period_days(35).is_ok());
    assert!(message(def().resource_policy("{\"Version\": ")).starts_with("resource_policy: not JSON"));
    assert!(message(def().resource_policy("[1, 2]")).starts_with("resource_policy: not a policy document"));
    let big = format!(r#"{{"Version":"2012-10-17","Sid":"{}"}}"#, "x".repeat(20 * 1024));
    assert!(message(def().resource_policy(big)).contains("at most 20 KB"));
    assert!(message(def().warm_throughput(0, 4000)).starts_with("warm_throughput:"));
    assert!(message(def().max_on_demand(10, 0)).starts_with("max_on_demand:"));
    assert!(message(def().index_max_on_demand("LSI1", 10, 10)).contains("index LSI1 is local"));
    assert!(message(def().index_max_on_demand("GSI9", 10, 10)).contains("GSI9"));
    // Off forgets the period; a period turns recovery on.
    let on = def().recovery_period_days(7).unwrap();
    assert_eq!((on.options.point_in_time_recovery, on.options.recovery_period_days), (Some(true), Some(7)));
    let off = on.point_in_time_recovery(false);
    assert_eq!((off.options.point_in_time_recovery, off.options.recovery_period_days), (Some(false), None));
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
fn both_exports_carry_the_encryption_key() {
    let cfn = |def: &TableDefinition| -> serde_json::Value {
        let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("orders")).unwrap();
        json["Resources"]["orders"]["Properties"]["SSESpecification"].clone()
    };
    let customer = all_options();
    assert_eq!(cfn(&customer), serde_json::json!({"SSEEnabled": true, "SSEType": "KMS", "KMSMasterKeyId": KMS_KEY}));
    let tf = customer.to_terraform("orders");
    assert!(
        tf.contains(&format!(
            "  server_side_encryption {{\n    enabled     = true\n    kms_key_arn = \"{KMS_KEY}\"\n  }}"
        )),
        "{tf}"
    );
    let managed = all_options().sse(Sse::AwsManaged);
    assert_eq!(cfn(&managed), serde_json::json!({"SSEEnabled": true, "SSEType": "KMS"}));
    assert!(managed.to_terraform("orders").contains("  server_side_encryption {\n    enabled = true\n  }"));
    // The AWS owned key is DynamoDB's default: nothing is written for it.
    let owned = all_options().sse(Sse::AwsOwned);
    assert_eq!(cfn(&owned), serde_json::Value::Null);
    assert!(!owned.to_terraform("orders").contains("server_side_encryption"));
}

#[test]
fn markdown_lists_every_entity_and_query() {
    let md = chat::definition().unwrap().to_markdown("Connect40-Table");
    for row in [
        "| Message | (table) | `PK` = `CHATROOM#<chat_room_id>` | `SK` = `MESSAGE#<timestamp:13>#<message_id>` | `.timestamp().eq/lt/lte/gt/gte/between(..)`; `.message_id().eq/lt/lte/gt/gte/between(..)` after `.timestamp().eq(..)` |",
        "| ChatParticipation | GSI1 | `GSI1PK` = `USERROOMS#<participant_id>` | `GSI1SK` = `<joined_at>` | `.joined_at().eq/lt/lte/gt/gte/between(..)` |",
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

#[test]
fn the_tenant_policy_field_by_field() {
    let def = tenants();
    let policy = IamPolicy::read_write().tenant_tag("TenantId").table_name_prefix("${ENV}_").table_name("Members");
    let json: serde_json::Value = serde_json::from_str(&def.iam_policy(&policy).unwrap()).unwrap();
    assert_eq!(json["Version"], "2012-10-17");
    let statements = json["Statement"].as_array().unwrap();
    assert_eq!(statements.len(), 1);
    let st = &statements[0];
    assert_eq!(st["Effect"], "Allow");
    assert_eq!(
        st["Action"],
        serde_json::json!([
            "dynamodb:BatchGetItem",
            "dynamodb:BatchWriteItem",
            "dynamodb:ConditionCheckItem",
            "dynamodb:DeleteItem",
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:Query",
            "dynamodb:UpdateItem"
        ])
    );
    assert_eq!(
        st["Resource"],
        serde_json::json!([
            "arn:aws:dynamodb:*:*:table/${ENV}_Members",
            "arn:aws:dynamodb:*:*:table/${ENV}_Members/index/GSI1"
        ])
    );
    assert_eq!(
        st["Condition"],
        serde_json::json!({
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": [
                "TENANT#${aws:PrincipalTag/TenantId}#*",
                "${aws:PrincipalTag/TenantId}",
                "PLAN#*"
            ]},
            "Null": {"dynamodb:LeadingKeys": "false", "aws:PrincipalTag/TenantId": "false"}
        })
    );
    for action in st["Action"].as_array().unwrap() {
        let action = action.as_str().unwrap();
        assert!(!action.contains('*') && action != "dynamodb:Scan", "{action}");
    }

    // Read only, some attributes: no write action, and the attribute conditions.
    let names = IamPolicy::read_only().tenant_tag("TenantId").attributes(["name"]).table_name("Members");
    let json: serde_json::Value = serde_json::from_str(&def.iam_policy(&names).unwrap()).unwrap();
    let st = &json["Statement"][0];
    assert_eq!(st["Action"], serde_json::json!(["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"]));
    assert_eq!(
        st["Condition"]["ForAllValues:StringEquals"]["dynamodb:Attributes"],
        serde_json::json!(["GSI1PK", "GSI1SK", "PK", "SK", "entity_type", "name"])
    );
    assert_eq!(st["Condition"]["StringEqualsIfExists"]["dynamodb:Select"], "SPECIFIC_ATTRIBUTES");

    // Without a tenant a role may scan; region and account as given.
    let reporting = IamPolicy::read_only().table_name("Members").region("eu-west-1").account("123456789012");
    let json: serde_json::Value = serde_json::from_str(&def.iam_policy(&reporting).unwrap()).unwrap();
    assert!(json["Statement"][0]["Action"].as_array().unwrap().contains(&"dynamodb:Scan".into()));
    assert_eq!(json["Statement"][0]["Resource"][0], "arn:aws:dynamodb:eu-west-1:123456789012:table/Members");
    assert!(json["Statement"][0].get("Condition").is_none());

    // Refused: no table name, a bad tag, attributes on a writer, a tenant policy without tenants.
    for bad in [
        def.iam_policy(&IamPolicy::read_write()),
        def.iam_policy(&IamPolicy::read_write().table_name("t").tenant_tag("Tenant*")),
        def.iam_policy(&IamPolicy::read_write().table_name("t").attributes(["name"])),
        all_options().iam_policy(&IamPolicy::read_write().table_name("t").tenant_tag("TenantId")),
    ] {
        assert!(matches!(bad, Err(dynamo_entity::Error::Validation(_))), "{bad:?}");
    }
}

/// An organisation's record beside the tenants' users, whose tenant is the organisation:
/// `ORG#*` would match every tenant's keys (issue 33, item 6).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#<org_id>"]
#[sk = "ORG"]
#[entity(tenant_shared)]
pub struct Org {
    pub org_id: String,
    pub name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORG#<tenant_id>#USER#<user_id>"]
#[sk = "USER"]
#[entity(tenant = "tenant_id")]
pub struct OrgUser {
    pub tenant_id: String,
    pub user_id: String,
}

/// A tenant entity keyed `<tenant_id>` alone, with an index keyed `TEAM#<tenant_id>#..`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "<tenant_id>"]
#[sk = "TEAM#<team>"]
#[gsi1(pk = "TEAM#<tenant_id>#<team>", sk = "TEAM", query = "by_team")]
#[entity(tenant = "tenant_id")]
pub struct Team {
    pub tenant_id: String,
    pub team: String,
}

/// A shared entity whose prefix is a tenant's key text followed by `#`: tenant `TEAM`'s index keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TEAM#<id>"]
#[sk = "TEAM"]
#[entity(tenant_shared)]
pub struct TeamTemplate {
    pub id: String,
}

#[test]
fn a_shared_prefix_that_matches_tenant_keys_is_refused() {
    let validation = |r: Result<TableDefinition, dynamo_entity::Error>| match r {
        Err(dynamo_entity::Error::Validation(m)) => m,
        other => panic!("{other:?}"),
    };
    // Both templates are named, whichever order the entities come in.
    for m in [
        validation(TableDefinition::from_entities(&[Org::SCHEMA, OrgUser::SCHEMA])),
        validation(TableDefinition::from_entities(&[OrgUser::SCHEMA, Org::SCHEMA])),
    ] {
        assert!(m.contains("`ORG#<org_id>`") && m.contains("`ORG#<tenant_id>#USER#<user_id>`"), "{m}");
    }
    // An index key of a tenant entity counts: `TEAM#*` matches tenant t1's index keys `TEAM#t1#..`.
    let m = validation(TableDefinition::from_entities(&[Team::SCHEMA, TeamTemplate::SCHEMA]));
    assert!(m.contains("`TEAM#<id>`") && m.contains("`TEAM#<tenant_id>#<team>`"), "{m}");

    // The policy of a definition put together by hand is refused too, naming both.
    let mut def = TableDefinition::from_entities(&[OrgUser::SCHEMA]).unwrap();
    def.entities.push(Org::SCHEMA);
    let policy = IamPolicy::read_write().tenant_tag("TenantId").table_name("Orgs");
    match def.iam_policy(&policy) {
        Err(dynamo_entity::Error::Validation(m)) => {
            assert!(m.contains("`ORG#<org_id>`") && m.contains("`ORG#<tenant_id>#USER#<user_id>`"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    assert!(def.clone().with_iam_policy(policy).is_err());

    // Prefixes no tenant key can start with pass: `PLAN#` beside `TENANT#` and beside a key
    // that is the tenant alone (a tenant id holds no `#`).
    tenants();
    TableDefinition::from_entities(&[Team::SCHEMA, Plan::SCHEMA]).unwrap();
}

#[test]
fn the_exports_hold_the_policies() {
    let def = tenants();
    let cfn: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("members")).unwrap();
    let policy = &cfn["Resources"]["memberstenantreadwrite"];
    assert_eq!(policy["Type"], "AWS::IAM::ManagedPolicy");
    assert_eq!(policy["Properties"]["ManagedPolicyName"], "members-tenant-read-write");
    let doc = &policy["Properties"]["PolicyDocument"]["Statement"][0];
    assert_eq!(doc["Resource"][0], serde_json::json!({"Fn::GetAtt": ["members", "Arn"]}));
    assert_eq!(doc["Resource"][1], serde_json::json!({"Fn::Sub": "${members.Arn}/index/GSI1"}));
    assert_eq!(
        doc["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0],
        "TENANT#${aws:PrincipalTag/TenantId}#*"
    );
    assert_eq!(cfn["Resources"].as_object().unwrap().len(), 4, "the table and three policies");

    let tf = def.to_terraform("members");
    assert!(tf.contains("resource \"aws_iam_policy\" \"members-tenant-read-write\" {"), "{tf}");
    assert!(tf.contains("\"${aws_dynamodb_table.members.arn}/index/GSI1\""), "{tf}");
    assert!(tf.contains("\"TENANT#$${aws:PrincipalTag/TenantId}#*\""), "{tf}");
    // Definitions without policies export as before.
    assert!(!chat::definition().unwrap().to_terraform("chat").contains("aws_iam_policy"));
}

/// The guide's "Multi-tenant tables" (`src/guide/tenancy.md`) shows the policy the chat example's
/// role needs: the code's.
#[test]
fn the_guide_shows_the_chat_policy() {
    let policy = IamPolicy::read_write().table_name_prefix("${ENV}_").table_name(chat::TABLE_NAME);
    let json = chat::definition().unwrap().iam_policy(&policy).unwrap();
    if std::env::var_os("DYNAMO_ENTITY_PRINT").is_some() {
        println!("{json}");
    }
    let guide =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/guide/tenancy.md")).unwrap();
    assert!(guide.contains(&format!("```json\n{json}```")), "src/guide/tenancy.md lacks the chat policy:\n{json}");
}

#[test]
fn a_global_table_is_exported_with_its_replicas() {
    let def = regions();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("orders-global")).unwrap();
    let t = &json["Resources"]["ordersglobal"];
    assert_eq!(t["Type"], "AWS::DynamoDB::GlobalTable");
    assert_eq!(t["DeletionPolicy"], "Retain");
    let p = &t["Properties"];
    assert_eq!(p["MultiRegionConsistency"], "EVENTUAL");
    assert_eq!(p["StreamSpecification"]["StreamViewType"], "NEW_AND_OLD_IMAGES", "a global table needs its stream");
    assert_eq!(p["SSESpecification"], serde_json::json!({"SSEEnabled": true, "SSEType": "KMS"}));
    assert_eq!(p["WriteOnDemandThroughputSettings"], serde_json::json!({"MaxWriteRequestUnits": 200}));
    for table_only in ["PointInTimeRecoverySpecification", "DeletionProtectionEnabled", "OnDemandThroughput", "Tags"] {
        assert!(p.get(table_only).is_none(), "{table_only} is each replica's");
    }
    let gsi2 = p["GlobalSecondaryIndexes"].as_array().unwrap().iter().find(|i| i["IndexName"] == "GSI2").unwrap();
    assert_eq!(gsi2["WriteOnDemandThroughputSettings"], serde_json::json!({"MaxWriteRequestUnits": 25}));
    let replicas = p["Replicas"].as_array().unwrap();
    let regions: Vec<&str> = replicas.iter().map(|r| r["Region"].as_str().unwrap()).collect();
    assert_eq!(regions, ["eu-west-1", "us-east-1", "ap-northeast-1"]);
    // The first replica: the table's settings.
    let eu = &replicas[0];
    assert_eq!(eu["DeletionProtectionEnabled"], true);
    assert_eq!(eu["PointInTimeRecoverySpecification"], serde_json::json!({"PointInTimeRecoveryEnabled": true}));
    assert_eq!(eu["ContributorInsightsSpecification"], serde_json::json!({"Enabled": true, "Mode": "THROTTLED_KEYS"}));
    assert_eq!(eu["ReadOnDemandThroughputSettings"], serde_json::json!({"MaxReadRequestUnits": 400}));
    assert_eq!(eu["SSESpecification"], serde_json::json!({"KMSMasterKeyId": KMS_EU}));
    assert_eq!(
        eu["GlobalSecondaryIndexes"],
        serde_json::json!([{"IndexName": "GSI2", "ReadOnDemandThroughputSettings": {"MaxReadRequestUnits": 50}}])
    );
    assert_eq!(eu["Tags"], serde_json::json!([{"Key": "Env", "Value": "prod"}, {"Key": "Team", "Value": "orders"}]));
    assert!(eu.get("TableClass").is_none(), "Standard is the default");
    // The second: its own.
    let us = &replicas[1];
    assert_eq!(us["DeletionProtectionEnabled"], false);
    assert_eq!(us["TableClass"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(us["ReadOnDemandThroughputSettings"], serde_json::json!({"MaxReadRequestUnits": 500}));
    assert_eq!(us["SSESpecification"], serde_json::json!({"KMSMasterKeyId": KMS_US}));
    assert_eq!(
        us["ContributorInsightsSpecification"],
        serde_json::json!({"Enabled": true, "Mode": "ACCESSED_AND_THROTTLED_KEYS"})
    );

    let tf = def.to_terraform("orders-global");
    for line in [
        "  replica {",
        "    region_name                 = \"us-east-1\"",
        "    kms_key_arn                 = \"arn:aws:kms:us-east-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab\"",
        "    point_in_time_recovery      = true",
        "    deletion_protection_enabled = false",
        "    propagate_tags              = true",
        "    region_name                 = \"ap-northeast-1\"",
        "  deletion_protection_enabled = true",
        "  stream_view_type = \"NEW_AND_OLD_IMAGES\"",
        "    \"Env\"  = \"prod\"",
        "  #   us-east-1: table class STANDARD_INFREQUENT_ACCESS, at most 500 reads/s, Contributor Insights ACCESSED_AND_THROTTLED_KEYS",
    ] {
        assert!(tf.lines().any(|l| l == line), "no line {line:?} in\n{tf}");
    }
    assert!(!tf.contains("region_name                 = \"eu-west-1\""), "the first replica is the table:\n{tf}");
    assert!(tf.contains(&format!("kms_key_arn = \"{KMS_EU}\"")), "{tf}");

    let md = def.to_markdown("orders-global");
    for line in [
        "## Regions",
        "A global table with multi-Region eventual consistency (MREC), created in `eu-west-1`.",
        "| `eu-west-1` | STANDARD | 400/s | on | THROTTLED_KEYS | `arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab` |",
        "| `us-east-1` | STANDARD_INFREQUENT_ACCESS | 500/s | off | ACCESSED_AND_THROTTLED_KEYS | `arn:aws:kms:us-east-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab` |",
        "- Tags: `Env` = `prod`, `Team` = `orders`",
    ] {
        assert!(md.lines().any(|l| l == line), "no line {line:?} in\n{md}");
    }
    assert!(md.contains("MREC: creates, #[version] checks, #[unique] guards"), "{md}");
}

#[test]
fn a_strongly_consistent_table_is_exported_with_its_witness() {
    let def = strong();
    let json: serde_json::Value = serde_json::from_str(&def.to_cloudformation_json("orders-strong")).unwrap();
    let p = &json["Resources"]["ordersstrong"]["Properties"];
    assert_eq!(p["MultiRegionConsistency"], "STRONG");
    assert_eq!(p["GlobalTableWitnesses"], serde_json::json!([{"Region": "us-west-2"}]));
    let replicas = p["Replicas"].as_array().unwrap();
    assert_eq!(replicas.len(), 2);
    assert!(replicas.iter().all(|r| r["TableClass"] == "STANDARD_INFREQUENT_ACCESS"), "{replicas:?}");
    let tf = def.to_terraform("orders-strong");
    for line in [
        "  table_class                 = \"STANDARD_INFREQUENT_ACCESS\"",
        "    consistency_mode            = \"STRONG\"",
        "  global_table_witness {",
        "    region_name = \"us-west-2\"",
    ] {
        assert!(tf.lines().any(|l| l == line), "no line {line:?} in\n{tf}");
    }
    assert!(def.to_markdown("orders-strong").contains("MRSC: strongly consistent reads and conditional writes"));
    // A table of one Region with a table class and tags: AWS::DynamoDB::Table's own properties.
    let one = TableDefinition::from_entities(&[Order::SCHEMA])
        .unwrap()
        .table_class(TableClass::StandardInfrequentAccess)
        .tag("Env", "dev")
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&one.to_cloudformation_json("orders")).unwrap();
    let p = &json["Resources"]["orders"]["Properties"];
    assert_eq!(p["TableClass"], "STANDARD_INFREQUENT_ACCESS");
    assert_eq!(p["Tags"], serde_json::json!([{"Key": "Env", "Value": "dev"}]));
    assert!(one.to_terraform("orders").contains("  tags = {\n    \"Env\" = \"dev\"\n  }\n"));
}

#[test]
fn what_dynamodb_refuses_of_a_global_table_is_refused_by_the_builder() {
    let def = || TableDefinition::from_entities(&[Order::SCHEMA]).unwrap();
    let message = |r: Result<TableDefinition, dynamo_entity::Error>| match r {
        Err(dynamo_entity::Error::Validation(m)) => m,
        other => panic!("not a validation error: {other:?}"),
    };
    let two = || GlobalTable::eventual(["eu-west-1", "us-east-1"]);
    // The stream is stated for the global table, unless another one is.
    assert_eq!(def().global_table(two()).unwrap().options.stream, Some(Some(StreamView::NewAndOldImages)));
    let m = message(def().stream(StreamView::KeysOnly).global_table(two()));
    assert!(m.contains("must be on with NEW_AND_OLD_IMAGES"), "{m}");
    let m = message(def().billing(Billing::Provisioned(Throughput { read: 5, write: 5 })).global_table(two()));
    assert!(m.contains("write auto scaling"), "{m}");
    // A customer managed key serves one Region: the other replicas name theirs.
    let m = message(def().sse(Sse::CustomerManaged(KMS_EU.into())).global_table(two()));
    assert!(m.contains("replica us-east-1: the table's KMS key") && m.contains("Replica::kms_key"), "{m}");
    let m =
        message(def().global_table(GlobalTable::eventual([
            Replica::new("eu-west-1"),
            Replica::new("us-east-1").kms_key(KMS_US),
        ])));
    assert!(m.contains("not encrypted with a customer managed key"), "{m}");
    let m = message(def().global_table(GlobalTable::strong(["us-east-1", "eu-west-1", "us-west-2"])));
    assert!(m.contains("not in one Region set"), "{m}");
    let m = message(def().tag("aws:owner", "x"));
    assert!(m.contains("`aws:`"), "{m}");
    let m = message(def().tag("Env", "a|b"));
    assert!(m.contains("letters, digits, spaces"), "{m}");
}
