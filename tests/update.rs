//! Typed updates and optimistic locking against DynamoDB Local: index keys move with their
//! fields, missing items are not created by accident, counters are atomic, stale writers lose.

mod common;

use dynamo_entity::{Entity, Error, Table};

#[path = "update/one_way.rs"]
mod one_way;

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "STATUS#<status>", sk = "<created_at>#<id>", query = "by_status")]
#[gsi2(pk = "USER#<user_id>", sk = "ORDER#<created_at>", query = "of_user")]
#[entity(rename_all = "camelCase", type_attr = "Type")]
pub struct Order {
    pub id: String,
    pub status: String,
    pub created_at: String,
    pub user_id: Option<String>,
    pub total: u64,
    pub notes: Option<String>,
    pub tags: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "WAREHOUSE#<warehouse>"]
#[sk = "STOCK#<sku>"]
#[entity(rename_all = "camelCase")]
pub struct Stock {
    pub warehouse: String,
    pub sku: String,
    pub quantity: i64,
    #[version]
    pub version: u64,
}

/// An index made of key fields only: no update action changes it, an upsert must write it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "MEMBER#<org>#<user>"]
#[sk = "METADATA"]
#[gsi1(pk = "ORG#<org>", sk = "USER#<user>", query = "members_of")]
pub struct Member {
    pub org: String,
    pub user: String,
    pub role: String,
    pub since: Option<String>,
}

fn order(id: &str) -> Order {
    Order {
        id: id.into(),
        status: "PENDING".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        user_id: Some("u1".into()),
        total: 100,
        notes: None,
        tags: vec!["a".into()],
    }
}

async fn table(test: &str) -> Table {
    common::table(test, &[Order::SCHEMA, Stock::SCHEMA, Member::SCHEMA]).await
}

#[tokio::test]
async fn set_remove_add_append_return_the_updated_entity() {
    let table = table("upd-basic").await;
    table.put(&order("o1")).await.unwrap();
    let o = table
        .update(
            Order::update(Order::key("o1"))
                .set(Order::fields().notes, "leave at door")
                .add(Order::fields().total, 5)
                .append(Order::fields().tags, ["b".to_owned()]),
        )
        .await
        .unwrap();
    assert_eq!(o.notes.as_deref(), Some("leave at door"));
    assert_eq!(o.total, 105);
    assert_eq!(o.tags, vec!["a", "b"]);
    let o = table.update(Order::update(Order::key("o1")).remove(Order::fields().notes)).await.unwrap();
    assert_eq!(o.notes, None);
    assert_eq!(table.get(Order::key("o1")).await.unwrap(), Some(o));
}

#[tokio::test]
async fn updating_a_missing_item_creates_nothing_unless_upsert() {
    let table = table("upd-missing").await;
    let r = table.update(Stock::update(Stock::key("A", "none")).add(Stock::fields().quantity, 1)).await;
    assert!(
        matches!(&r, Err(Error::NotFound { entity: "Stock", pk, sk }) if pk == "WAREHOUSE#A" && sk.as_deref() == Some("STOCK#none")),
        "{r:?}"
    );
    assert_eq!(table.get(Stock::key("A", "none")).await.unwrap(), None, "nothing created");
    let s =
        table.update(Stock::update(Stock::key("A", "none")).add(Stock::fields().quantity, 3).upsert()).await.unwrap();
    assert_eq!((s.quantity, s.version), (3, 1));
}

#[tokio::test]
async fn twenty_concurrent_adds_sum_exactly() {
    let table = table("upd-adds").await;
    table.put(&Stock { warehouse: "A".into(), sku: "A".into(), quantity: 0, version: 0 }).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let table = table.clone();
        tasks.push(tokio::spawn(async move {
            table.update(Stock::update(Stock::key("A", "A")).add(Stock::fields().quantity, 1)).await
        }));
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    let s = table.get_consistent(Stock::key("A", "A")).await.unwrap().unwrap();
    assert_eq!(s.quantity, 20);
    assert_eq!(s.version, 21, "created at 1, +1 per update");
}

#[tokio::test]
async fn an_index_key_field_update_moves_the_item_in_the_index() {
    let table = table("upd-index").await;
    table.put(&order("o1")).await.unwrap();
    table.put(&order("o2")).await.unwrap();
    let pending = |t: Table| async move { t.query_all(Order::query_by_status("PENDING")).await.unwrap() };
    assert_eq!(pending(table.clone()).await.len(), 2);

    // GSI1's key is STATUS#<status> / <created_at>#<id>: `id` comes from the key, so setting
    // `status` alone is not enough (created_at is needed too) ...
    let r = table.update(Order::update(Order::key("o1")).set(Order::fields().status, "SHIPPED")).await;
    assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("created_at")), "{r:?}");
    // ... and created_at is also part of GSI2's key, which needs user_id: with all three, GSI1
    // and GSI2 keys are rewritten in the same request.
    let r = table
        .update(
            Order::update(Order::key("o1"))
                .set(Order::fields().status, "SHIPPED")
                .set(Order::fields().created_at, "2026-01-01T00:00:00.000Z"),
        )
        .await;
    assert!(matches!(&r, Err(Error::Validation(m)) if m.contains("GSI2") && m.contains("user_id")), "{r:?}");
    let o = table
        .update(
            Order::update(Order::key("o1"))
                .set(Order::fields().status, "SHIPPED")
                .set(Order::fields().created_at, "2026-01-01T00:00:00.000Z")
                .set(Order::fields().user_id, "u1"),
        )
        .await
        .unwrap();
    assert_eq!(o.status, "SHIPPED");
    assert_eq!(pending(table.clone()).await.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(), vec!["o2"]);
    let shipped = table.query_all(Order::query_by_status("SHIPPED")).await.unwrap();
    assert_eq!(shipped, vec![o]);

    // Removing an `Option` index component takes the item out of that (sparse) index. GSI2's key
    // also needs created_at, which GSI1's key needs with status: the update names all of them.
    table
        .update(
            Order::update(Order::key("o2"))
                .remove(Order::fields().user_id)
                .set(Order::fields().created_at, "2026-01-01T00:00:00.000Z")
                .set(Order::fields().status, "PENDING"),
        )
        .await
        .unwrap();
    assert_eq!(table.query_all(Order::query_of_user("u1")).await.unwrap().len(), 1);
    let raw = table.client().scan().table_name(table.name()).index_name("GSI2").send().await.unwrap();
    assert_eq!(raw.count, 1);
}

#[tokio::test]
async fn versions_make_writes_optimistic() {
    let table = table("upd-version").await;
    let s0 = Stock { warehouse: "A".into(), sku: "B".into(), quantity: 5, version: 0 };
    table.put(&s0).await.unwrap();
    assert!(matches!(table.put(&s0).await, Err(Error::VersionConflict { .. })), "version 0 means: must not exist");
    let s1 = table.get(Stock::key("A", "B")).await.unwrap().unwrap();
    assert_eq!(s1.version, 1);

    // Two writers from one version: exactly one wins.
    let (w1, w2) = (Stock { quantity: 6, ..s1.clone() }, Stock { quantity: 7, ..s1.clone() });
    let (a, b) = tokio::join!(table.put(&w1), table.put(&w2));
    assert_eq!(a.is_ok() as u8 + b.is_ok() as u8, 1, "{a:?} {b:?}");
    assert!(matches!(a, Err(Error::VersionConflict { .. })) || matches!(b, Err(Error::VersionConflict { .. })));
    let s2 = table.get(Stock::key("A", "B")).await.unwrap().unwrap();
    assert_eq!(s2.version, 2);

    // Updates increment the version and can require one.
    let s3 =
        table.update(Stock::update(Stock::key("A", "B")).set(Stock::fields().quantity, 1).if_version(2)).await.unwrap();
    assert_eq!(s3.version, 3);
    let stale = table.update(Stock::update(Stock::key("A", "B")).set(Stock::fields().quantity, 9).if_version(2)).await;
    assert!(matches!(stale, Err(Error::VersionConflict { .. })), "{stale:?}");
    let missing =
        table.update(Stock::update(Stock::key("A", "nope")).set(Stock::fields().quantity, 9).if_version(2)).await;
    assert!(matches!(missing, Err(Error::NotFound { .. })), "{missing:?}");
    // upsert allows a missing item, so there the failed check is the version's.
    let upsert = table
        .update(Stock::update(Stock::key("A", "nope")).set(Stock::fields().quantity, 9).upsert().if_version(2))
        .await;
    assert!(matches!(upsert, Err(Error::VersionConflict { .. })), "{upsert:?}");
}

#[tokio::test]
async fn many_writers_retrying_on_conflict_lose_no_update() {
    let table = table("upd-retry").await;
    table.put(&Stock { warehouse: "A".into(), sku: "C".into(), quantity: 0, version: 0 }).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let table = table.clone();
        tasks.push(tokio::spawn(async move {
            let mut conflicts = 0u32;
            loop {
                let mut s = table.get_consistent(Stock::key("A", "C")).await.unwrap().unwrap();
                s.quantity += 1;
                match table.put(&s).await {
                    Ok(()) => return conflicts,
                    Err(Error::VersionConflict { .. }) => conflicts += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }));
    }
    let mut conflicts = 0;
    for t in tasks {
        conflicts += t.await.unwrap();
    }
    let s = table.get_consistent(Stock::key("A", "C")).await.unwrap().unwrap();
    assert_eq!(s.quantity, 10, "every read-modify-write counted ({conflicts} conflicts retried)");
    assert_eq!(s.version, 11);
}

#[tokio::test]
async fn update_from_an_entity_completes_index_keys_and_checks_its_version() {
    let table = table("upd-from").await;
    let o = order("o1");
    table.put(&o).await.unwrap();
    // Only `status` is set; created_at/user_id for GSI1 come from the entity and are not written.
    let shipped = table.update(Order::update_from(&o).set(Order::fields().status, "SHIPPED")).await.unwrap();
    assert_eq!(shipped.status, "SHIPPED");
    assert_eq!(table.query_all(Order::query_by_status("SHIPPED")).await.unwrap(), vec![shipped.clone()]);
    assert!(table.query_all(Order::query_by_status("PENDING")).await.unwrap().is_empty());
    let req = Order::update_from(&o).set(Order::fields().status, "X").request().unwrap();
    let placeholder =
        |attr: &str| req.expression_attribute_names.iter().find(|(_, a)| *a == attr).map(|(p, _)| p.clone());
    let created = placeholder("createdAt").expect("createdAt is checked");
    assert!(!req.update_expression.contains(&created), "createdAt is not written: {}", req.update_expression);
    assert!(req.condition_expression.as_deref().unwrap().contains(&format!("{created} = :")), "{req:?}");
    assert!(req.update_expression.contains(&placeholder("GSI1PK").unwrap()), "{req:?}");
    assert!(placeholder("GSI2PK").is_none(), "GSI2 is untouched: {req:?}");

    // A versioned entity: the update applies only to the version it was read at.
    table.put(&Stock { warehouse: "A".into(), sku: "D".into(), quantity: 1, version: 0 }).await.unwrap();
    let read = table.get(Stock::key("A", "D")).await.unwrap().unwrap();
    table.update(Stock::update_from(&read).set(Stock::fields().quantity, 2)).await.unwrap();
    let stale = table.update(Stock::update_from(&read).set(Stock::fields().quantity, 3)).await;
    assert!(matches!(stale, Err(Error::VersionConflict { .. })), "{stale:?}");
}

#[tokio::test]
async fn an_upsert_that_could_create_an_unreadable_item_is_refused_before_sending() {
    let table = table("upd-upsert-refused").await;
    let r = table.update(Order::update(Order::key("o9")).set(Order::fields().notes, "x").upsert()).await;
    match &r {
        Err(Error::Validation(m)) => {
            assert!(m.contains("`status`, `created_at`, `total`, `tags`"), "{m}");
            assert!(!m.contains("notes") && !m.contains("user_id") && !m.contains("`id`"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    let raw = table.client().scan().table_name(table.name()).send().await.unwrap();
    assert_eq!(raw.count, 0, "nothing written");
    // The request itself is refused, whoever sends it.
    assert!(matches!(
        Order::update(Order::key("o9")).set(Order::fields().notes, "x").upsert().request(),
        Err(Error::Validation(_))
    ));
    // A plain update may set any subset: it never creates an item.
    assert!(Order::update(Order::key("o9")).set(Order::fields().notes, "x").request().is_ok());
}

#[tokio::test]
async fn an_upsert_creates_an_item_that_reads_back_and_is_indexed() {
    let table = table("upd-upsert").await;
    let created = table
        .update(
            Order::update(Order::key("o7"))
                .set(Order::fields().status, "PENDING")
                .set(Order::fields().created_at, "2026-02-01T00:00:00.000Z")
                .set(Order::fields().user_id, "u7")
                .add(Order::fields().total, 40)
                .append(Order::fields().tags, ["new".to_owned()])
                .upsert(),
        )
        .await
        .unwrap();
    let expected = Order {
        id: "o7".into(),
        status: "PENDING".into(),
        created_at: "2026-02-01T00:00:00.000Z".into(),
        user_id: Some("u7".into()),
        total: 40,
        notes: None,
        tags: vec!["new".into()],
    };
    assert_eq!(created, expected);
    assert_eq!(table.get(Order::key("o7")).await.unwrap(), Some(expected.clone()));
    assert_eq!(table.query_all(Order::query_by_status("PENDING")).await.unwrap(), vec![expected.clone()]);
    assert_eq!(table.query_all(Order::query_of_user("u7")).await.unwrap(), vec![expected.clone()]);
    // The key field is stored as its own attribute, as `put` stores it.
    let raw = table.client().get_item().table_name(table.name()).set_key(Some(key_item(&expected))).send().await;
    let raw = raw.unwrap().item.unwrap();
    assert_eq!(raw.get("id"), Some(&dynamo_entity::AttributeValue::S("o7".into())));
    assert_eq!(raw.get("Type"), Some(&dynamo_entity::AttributeValue::S("Order".into())));

    // An index made of key fields only is written too.
    let member = table
        .update(Member::update(Member::key("acme", "ann")).set(Member::fields().role, "admin").upsert())
        .await
        .unwrap();
    let expected = Member { org: "acme".into(), user: "ann".into(), role: "admin".into(), since: None };
    assert_eq!(member, expected);
    assert_eq!(table.get(Member::key("acme", "ann")).await.unwrap(), Some(expected.clone()));
    assert_eq!(table.query_all(Member::query_members_of("acme")).await.unwrap(), vec![expected.clone()]);
    // Upserting an existing item updates it and keeps it indexed.
    let member = table
        .update(Member::update(Member::key("acme", "ann")).set(Member::fields().role, "owner").upsert())
        .await
        .unwrap();
    assert_eq!(member.role, "owner");
    assert_eq!(table.query_all(Member::query_members_of("acme")).await.unwrap(), vec![member]);
}

fn key_item<E: Entity>(e: &E) -> dynamo_entity::Item {
    use dynamo_entity::EntityKey;
    e.primary_key().to_key_item().unwrap()
}

/// An error an update records (generated code records one with `__fail`) is the error its
/// request returns, of the same kind: never rebuilt as another (`Validation`).
#[test]
fn a_recorded_error_keeps_its_kind() {
    let recorded = [
        Error::UniqueViolation { entity: "Order", field: "notes" },
        Error::OutsideTenant { expected: "t1".into(), found: "t2".into() },
        Error::MissingParent { entity: "Order", paths: vec!["a.b".into()] },
        Error::Validation("v".into()),
    ];
    for e in recorded {
        let shown = e.to_string();
        let mut u = Order::update(Order::key("o1")).set(Order::fields().notes, "x");
        u.__fail(e);
        let got = u.request().unwrap_err();
        assert_eq!(got.to_string(), shown, "{got:?}");
        let kept = match &got {
            Error::UniqueViolation { .. } => shown.contains("unique"),
            Error::OutsideTenant { .. } => shown.contains("outside tenant"),
            Error::MissingParent { .. } => shown.contains("lacks"),
            Error::Validation(_) => shown.contains("invalid request"),
            _ => false,
        };
        assert!(kept, "{got:?}");
    }
}
