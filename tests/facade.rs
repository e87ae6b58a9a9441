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

/// What the guide ("Getting started", `src/guide/start.md`) tells users of boto3 and the AWS CLI:
/// the engine keeps one database for every access key and Region (DynamoDB Local kept one per
/// access key and Region), so a client of any SDK with any credentials sees the tables the
/// `local` clients made.
#[tokio::test]
async fn other_clients_see_the_local_clients_tables_whatever_their_credentials() {
    let endpoint = dynamo_entity::local::shared_endpoint().await.expect("the engine");
    let name = format!("facade-creds-{}", std::process::id());
    Table::new(dynamo_entity::local::client().await.unwrap(), name.clone())
        .create_table(&[Note::SCHEMA])
        .await
        .unwrap();
    let with = |key: &str, region: &'static str| {
        Client::from_conf(
            Config::builder()
                .behavior_version(BehaviorVersion::latest())
                .region(Region::new(region))
                .credentials_provider(Credentials::new(key, "whatever", None, None, "facade-test"))
                .endpoint_url(endpoint.clone())
                .build(),
        )
    };
    let tables = |c: Client| async move { c.list_tables().send().await.unwrap().table_names.unwrap_or_default() };
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/guide/start.md")).unwrap();
    assert!(guide.contains("AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1"));
    assert!(tables(with("local", "us-east-1")).await.contains(&name), "the guide's credentials see the table");
    // (Another server given by AWS_ENDPOINT_URL_DYNAMODB may keep a database per key and Region.)
    if std::env::var_os(dynamo_entity::local::ENDPOINT_ENV).is_none() {
        assert!(tables(with("someoneelse", "us-east-1")).await.contains(&name), "another access key, the same tables");
        assert!(tables(with("local", "eu-west-1")).await.contains(&name), "another Region, the same tables");
    }
}

/// Every Rust example in the README and in the guide is compiled: the crate's docs are the
/// README and the guide's chapters (`src/guide/*.md`, each the docs of a module of
/// `dynamo_entity::guide`), so each ```` ```rust ```` block is a doctest, and none may opt out with
/// `ignore` (an example that is not compiled drifts from the API). An example that needs a
/// feature wraps its body in a hidden `#[cfg(feature = "..")]` function: `cargo test
/// --all-features` compiles it.
#[test]
fn every_readme_and_guide_example_is_compiled() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    assert!(lib.starts_with("#![doc = include_str!(\"../README.md\")]"), "the crate's docs are the README");
    let guide = std::fs::read_to_string(root.join("src/guide/mod.rs")).unwrap();
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("src/guide")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            assert!(
                guide.contains(&format!("#[doc = include_str!(\"{name}\")]")),
                "src/guide/{name} is not the docs of a module of `dynamo_entity::guide`"
            );
            files.push(path);
        }
    }
    let mut rust_blocks = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let file = file.strip_prefix(root).unwrap().display();
        rust_blocks += rust_examples(&file.to_string(), &text);
    }
    assert!(rust_blocks >= 28, "the README's and the guide's Rust examples were not found ({rust_blocks})");
}

/// Checks the code blocks of one Markdown file that is a page of the crate's docs; returns how
/// many are Rust.
fn rust_examples(file: &str, text: &str) -> usize {
    let mut open = false;
    let mut rust_blocks = 0;
    for (n, line) in text.lines().enumerate() {
        let Some(info) = line.trim_start().strip_prefix("```") else { continue };
        if open {
            open = false;
            continue;
        }
        open = true;
        let info = info.trim();
        // rustdoc treats an unlabelled fence as Rust too.
        let attrs: Vec<&str> = info.split(',').map(str::trim).collect();
        let rust = info.is_empty() || attrs[0] == "rust";
        if rust {
            rust_blocks += 1;
            for attr in &attrs[1..] {
                assert!(
                    matches!(*attr, "no_run" | "should_panic" | "compile_fail"),
                    "{file} line {}: a Rust example marked `{attr}` is not compiled",
                    n + 1
                );
            }
        } else {
            assert!(
                matches!(attrs[0], "sh" | "text" | "json" | "yaml" | "toml" | "hcl"),
                "{file} line {}: a block of `{info}` is neither Rust nor a known non-Rust kind",
                n + 1
            );
        }
    }
    assert!(!open, "{file} ends inside a code block");
    rust_blocks
}
