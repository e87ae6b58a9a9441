//! The facade is all a user depends on: the AWS SDK is reached through
//! `dynamo_entity::aws_sdk_dynamodb`, with no second version to name. Against DynamoDB Local.

use dynamo_entity::aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use dynamo_entity::aws_sdk_dynamodb::{Client, Config};
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "NOTE#<id>"]
pub struct Note {
    pub id: String,
    pub text: String,
}

#[tokio::test]
async fn a_client_built_through_the_facade_runs_a_table() {
    let endpoint = dynamo_entity::local::shared_endpoint().await.expect("DynamoDB Local");
    let config = Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "facade-test"))
        .endpoint_url(endpoint)
        .build();
    let table = Table::new(Client::from_conf(config), format!("facade-{}", std::process::id()));
    table.create_table(&[Note::SCHEMA]).await.unwrap();
    let note = Note { id: "n1".into(), text: "hello".into() };
    table.put(&note).await.unwrap();
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), Some(note));
}
