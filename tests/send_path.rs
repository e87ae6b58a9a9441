//! Every request the runtime makes goes through one send path (`runtime/src/send/`): each
//! operation below is run on a client whose SDK interceptor counts the operations the SDK
//! executes, and the table's own count (kept by the send path) must move with it, operation by
//! operation. A request sent around the send path would show as a difference. The source check
//! below keeps any other SDK `send()` out of the runtime.

mod common;

use common::Executed;
use common::sources::sources;
use dynamo_entity::prelude::*;
use dynamo_entity::{Collection, Entity, Table, View};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "NOTE#<id>"]
#[gsi1(pk = "AUTHOR#<author>", sk = "NOTE#<id>", query = "by_author")]
pub struct Note {
    pub room: String,
    pub id: String,
    pub author: String,
    pub text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "META"]
pub struct Room {
    pub room: String,
    pub name: String,
}

#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RoomItems {
    Room(Room),
    Note(Note),
}

#[derive(View, Debug, Clone, PartialEq)]
#[view(entity = "Note")]
pub struct NoteText {
    pub text: String,
}

fn note(id: &str) -> Note {
    Note { room: "r1".into(), id: id.into(), author: "ann".into(), text: format!("text {id}") }
}

#[tokio::test]
async fn every_operation_sends_through_the_send_path() {
    common::spans::install();
    let executed = Executed::default();
    let client = dynamo_entity::local::client().await.expect("DynamoDB Local");
    let client =
        aws_sdk_dynamodb::Client::from_conf(client.config().to_builder().interceptor(executed.clone()).build());
    let table = Table::new(client, format!("send-path-{}", std::process::id()));

    // Each step: the SDK's count and the send path's moved by the same amount, at least one.
    let mut last = (0, 0);
    let mut step = |what: &str, table: &Table| {
        let now = (executed.count(), table.requests_sent());
        let moved = (now.0 - last.0, now.1 - last.1);
        assert!(moved.0 > 0, "{what}: the SDK executed nothing");
        assert_eq!(moved.0, moved.1, "{what}: {} executed by the SDK, {} through the send path", moved.0, moved.1);
        last = now;
    };

    assert!(table.create_table_if_not_exists(&[Note::SCHEMA, Room::SCHEMA]).await.unwrap());
    step("create_table_if_not_exists", &table);
    assert!(!table.create_table_if_not_exists(&[Note::SCHEMA, Room::SCHEMA]).await.unwrap());
    step("create_table_if_not_exists (exists)", &table);

    table.put(&note("n1")).await.unwrap();
    step("put", &table);
    table.create(&note("n2")).await.unwrap();
    step("create", &table);
    table.put(&Room { room: "r1".into(), name: "one".into() }).await.unwrap();
    step("put room", &table);
    assert_eq!(table.get(Note::key("r1", "n1")).await.unwrap(), Some(note("n1")));
    step("get", &table);
    assert!(table.get_consistent(Note::key("r1", "n2")).await.unwrap().is_some());
    step("get_consistent", &table);
    let view = table.get_view::<NoteText>(Note::key("r1", "n1")).await.unwrap();
    assert_eq!(view, Some(NoteText { text: "text n1".into() }));
    step("get_view", &table);
    let updated = table.update(Note::update(Note::key("r1", "n2")).set(Note::fields().text, "edited")).await.unwrap();
    assert_eq!(updated.text, "edited");
    step("update", &table);
    assert_eq!(table.query_all(Note::query_by_author("ann")).await.unwrap().len(), 2);
    step("query (index)", &table);
    assert_eq!(table.query(Note::query_by_author("ann").limit(1)).await.unwrap().items.len(), 1);
    step("query page", &table);
    let texts = table.query_all(Note::query_by_author("ann").into_query().view::<NoteText>()).await.unwrap();
    assert_eq!(texts.len(), 2);
    step("query view", &table);
    assert_eq!(table.query_all(RoomItems::query(Room::partition("r1"))).await.unwrap().len(), 3);
    step("collection query", &table);
    assert_eq!(table.scan::<Note>().all().await.unwrap().len(), 2);
    step("scan", &table);
    assert_eq!(table.scan::<Note>().segments(2).all().await.unwrap().len(), 2);
    step("parallel scan", &table);

    let many: Vec<Note> = (0..30).map(|i| note(&format!("b{i:02}"))).collect();
    table.batch_put(&many).await.unwrap();
    step("batch_put", &table);
    let keys: Vec<_> = many.iter().map(Entity::primary_key).collect();
    assert_eq!(table.batch_get(keys.clone()).await.unwrap().len(), 30);
    step("batch_get", &table);
    let mixed = vec![RoomItemsKey::from(Room::key("r1")), Note::key("r1", "n1").into()];
    assert_eq!(table.batch_get(mixed.clone()).await.unwrap().len(), 2);
    step("collection batch_get", &table);
    assert_eq!(table.transact_get(mixed).await.unwrap().len(), 2);
    step("transact_get", &table);
    table.batch_delete(keys).await.unwrap();
    step("batch_delete", &table);
    table.transact().put(&note("t1")).delete(Note::key("r1", "n2")).send().await.unwrap();
    step("transaction", &table);
    table.delete(Note::key("r1", "t1")).await.unwrap();
    step("delete", &table);
    assert_eq!(table.scan::<Note>().all().await.unwrap(), vec![note("n1")]);
    step("scan after the writes", &table);

    // A backfill (nothing to write, then an item without its index key) and a migration to
    // the same form (in place).
    table.backfill::<Note>().segments(2).run().await.unwrap();
    step("backfill", &table);
    let mut raw = note("r").to_item().unwrap();
    raw.remove("GSI1PK");
    // Written by other code (a client without the counter).
    let other = dynamo_entity::local::client().await.unwrap();
    other.put_item().table_name(table.name()).set_item(Some(raw)).send().await.unwrap();
    assert_eq!(table.backfill::<Note>().run().await.unwrap().written, 1);
    step("backfill writing", &table);
    let moved =
        table.migrate(|n: Note| -> Note { Note { text: format!("{} (moved)", n.text), ..n } }).run().await.unwrap();
    assert_eq!(moved.written, 2);
    step("migrate", &table);

    // The table's own life: plan (Describe* only), then apply (UpdateTable, its waits).
    let def = dynamo_entity::TableDefinition::from_entities(&[Note::SCHEMA, Room::SCHEMA])
        .unwrap()
        .stream(dynamo_entity::StreamView::KeysOnly);
    assert!(!table.plan(&def).await.unwrap().is_empty());
    step("plan", &table);
    table.apply(&def).poll_interval(std::time::Duration::from_millis(50)).await.unwrap();
    step("apply", &table);

    // Clones share the count.
    let clone = table.clone();
    clone.get(Note::key("r1", "n1")).await.unwrap();
    step("get through a clone", &table);
}

/// Every module of the runtime names what it uses by the module that defines it
/// (`crate::model::entity::Entity`), never through a re-export of `lib.rs` (`crate::Entity`):
/// `lib.rs` only declares the layers and re-exports the public names.
#[test]
fn no_module_reaches_a_sibling_through_lib_rs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    let modules: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("pub ").strip_prefix("mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(modules.contains(&"model") && modules.contains(&"ops") && modules.contains(&"send"), "{modules:?}");
    let mut offenders = Vec::new();
    for (relative, text) in sources(&root) {
        if relative == "lib.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && !modules.contains(&name.as_str()) {
                    offenders.push(format!("{relative}:{}: crate::{name}", n + 1));
                }
            }
            if code.contains("crate::{") {
                offenders.push(format!("{relative}:{}: crate::{{..}}", n + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "modules reaching a sibling through lib.rs:\n{}", offenders.join("\n"));
}

/// The SDK's `send()` is called in the send path only (the DynamoDB Local launcher's own probe,
/// which is not part of any operation, aside; and, in `encryption/`, the Material Providers
/// Library's keyring constructors, which build a keyring in the process, and DB-ESDK's item
/// encryptor (pages and stream images), which decrypts in the process: neither sends anything to
/// DynamoDB, and a `send()` there is allowed only in a chain that starts from `mpl.`,
/// `self.items.` or `items.decrypt_item()` (or the hierarchical keyring's builder `keyring` and
/// DB-ESDK's branch key id supplier, made by `dbesdk`); and DB-ESDK's key store (`self.key_store`), whose
/// requests administer the key store's own table through the clients its caller gave, outside
/// any operation of a table).
#[test]
fn no_module_but_the_send_path_calls_the_sdk() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/src");
    let mut offenders = Vec::new();
    for (relative, text) in sources(&root) {
        if relative.starts_with("send/") || relative.starts_with("local/") {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // The head of the call chain the line ends: the nearest line not starting with `.`.
            let head = lines[..=n].iter().rev().find(|l| !l.trim_start().starts_with('.')).map_or("", |l| l.trim());
            let keyring = relative.starts_with("encryption/")
                && (head.contains("mpl.")
                    || head.ends_with("mpl")
                    || head.contains("self.items.")
                    || head.contains("items.decrypt_item()")
                    || head.contains("self.key_store")
                    // The hierarchical keyring's builder (made from `mpl.` above it) and DB-ESDK's
                    // branch key id supplier: both built in the process.
                    || head == "keyring"
                    || head.starts_with("let supplier = dbesdk"));
            if (code.contains(".send()") || code.contains(".send_with(")) && !keyring {
                offenders.push(format!("{relative}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "requests sent around runtime/src/send/:\n{}", offenders.join("\n"));
}
