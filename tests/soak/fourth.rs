//! The fourth stage's operations (issue 45 item 20), each part behind a [`Config`] switch:
//! nested updates of a versioned entity with a unique field, filled times in a key and an
//! index, an integer tenant leading a multi-attribute index, `write_batch` across types, and
//! `apply` adding an index while the clients write.

use std::sync::atomic::Ordering;
use std::time::{Duration, UNIX_EPOCH};

use dynamo_entity::{Entity, Error, Table, TableDefinition};

use super::history::{Effect, Outcome, definite};
use super::model::{Doc, Event, Extra, Mark, Note, Order, Post, Prefs, Profile};
use super::rng::Rng;
use super::workload::{Client, FEEDS, HANDLES, World, event_sk, note_sk, pick, record, run};

/// Profiles `p0..` created before the run, written by every client (each in its own slot).
pub const PROFILES: u64 = 3;
/// The users whose orders and feeds the clients write and read.
pub const USERS: u64 = 4;
/// The integer tenants of the docs (key text `0000000007`, ...).
pub const ORG_NOS: &[u32] = &[7, 8, 9];
const KINDS: &[&str] = &["memo", "spec"];
/// The index the soak's table starts without when `apply` adds it in the middle.
pub const ADDED_INDEX: &str = "GSI3";

/// The slot of client `c` in every profile's `prefs.slots` (a path's map key is `'static`: each
/// client's is made once).
pub fn slot(c: usize) -> &'static str {
    static SLOTS: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut slots = SLOTS.lock().unwrap();
    while slots.len() <= c {
        let name = format!("c{}", slots.len());
        slots.push(Box::leak(name.into_boxed_str()));
    }
    slots[c]
}

/// The key text of an integer tenant: its id.
pub fn org_text(org: u32) -> String {
    format!("{org:010}")
}

/// The definition the table is created from: the whole model, less [`ADDED_INDEX`] when
/// `apply` is to add it.
pub fn initial_definition(apply_index: bool) -> TableDefinition {
    let mut def = TableDefinition::from_entities(&super::model::all_schemas()).expect("the soak's definition");
    if apply_index {
        def.indexes.retain(|i| i.name != ADDED_INDEX);
    }
    def
}

/// Whether `result` is the bare SDK error DynamoDB answers a nested update under a missing
/// parent with, where the library promises `Error::MissingParent` (issue 45 item 12).
fn untyped<T>(result: &Result<T, Error>) -> Option<String> {
    match result {
        Err(e) if !definite(e) && format!("{e:?}").contains("ValidationException") => Some(e.to_string()),
        _ => None,
    }
}

/// Profiles: nested updates of one document by every client, each its own map key; some with
/// a version check (conflicts), some with a new unique handle, some under a parent that may be
/// missing.
pub async fn profile_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let id = format!("p{}", rng.below(PROFILES));
    let slot = slot(me.c);
    let f = Profile::fields();
    me.n += 1;
    let value = me.n;
    let key = || Profile::key(id.as_str());
    let which = match rng.below(6) {
        4 if !w.config.nested_missing_parent => 0,
        x => x,
    };
    match which {
        0..=3 => {
            let mut u = Profile::update(key());
            let mut name = "nested_set";
            let mut read_back = false;
            if which == 2 {
                // On the version this client last saw: another writer makes it stale.
                u = u.if_version(me.profile_versions.get(&id).copied().unwrap_or(1));
                name = "nested_if_version";
            } else if which == 3 {
                u = u.set(Profile::fields().handle, format!("h{}", rng.below(HANDLES)));
                name = "nested_and_unique";
                read_back = true;
            }
            let u = u.set(f.prefs.slots.key(slot), value);
            let ran = run(w, w.table.update(u)).await;
            let (version, answered) = match &ran.result {
                Ok(p) => {
                    me.profile_versions.insert(id.clone(), p.version);
                    (if read_back { None } else { Some(p.version) }, p.prefs.slots.get(slot).copied())
                }
                Err(_) => (None, None),
            };
            let effects = vec![Effect::Nested { id: id.clone(), slot: slot.to_owned(), value, version, answered }];
            record(w, me.c, name, &ran, effects);
        }
        4 => {
            // Under `extra`, which another client may have removed: `MissingParent` then, the
            // unique path's too (with a new handle).
            let mut u = Profile::update(key());
            let unique = rng.chance(0.5);
            if unique {
                u = u.set(Profile::fields().handle, format!("h{}", rng.below(HANDLES)));
            }
            let u = u.add(f.extra.hits, 1);
            let ran = run(w, w.table.update(u)).await;
            let mut effects = vec![Effect::Refusal {
                what: format!(
                    "a nested update of {id} under extra{}",
                    if unique { " with a unique value" } else { "" }
                ),
                error: untyped(&ran.result),
            }];
            if let (Ok(p), false) = (&ran.result, unique) {
                effects.push(Effect::ProfileVersion { id: id.clone(), version: p.version });
            }
            record(w, me.c, "nested_missing_parent", &ran, effects);
        }
        _ => {
            // The parent comes and goes.
            let u = if rng.chance(0.5) {
                Profile::update(key()).set(Profile::fields().extra, Extra { note: slot.to_owned(), hits: 0 })
            } else {
                Profile::update(key()).remove(Profile::fields().extra)
            };
            let ran = run(w, w.table.update(u)).await;
            let effects = match &ran.result {
                Ok(p) => vec![Effect::ProfileVersion { id: id.clone(), version: p.version }],
                Err(_) => vec![],
            };
            record(w, me.c, "parent_toggle", &ran, effects);
        }
    }
}

/// The profiles that exist before the run (fault free), at version 1.
pub async fn setup_profiles(w: &World) -> Vec<Effect> {
    let mut effects = Vec::new();
    for k in 0..PROFILES {
        let p = Profile {
            id: format!("p{k}"),
            handle: format!("init-p{k}"),
            prefs: Prefs { theme: "light".into(), slots: Default::default() },
            extra: None,
            version: 0,
        };
        w.base.create(&p).await.expect("setup profile");
        effects.push(Effect::ProfileVersion { id: p.id, version: 1 });
    }
    effects
}

fn sk_of(order: &Order) -> Option<String> {
    match order.to_item().ok()?.remove("SK") {
        Some(dynamo_entity::AttributeValue::S(sk)) => Some(sk),
        _ => None,
    }
}

/// Orders keyed on their creation time: `create` (the library fills the time), `put` (the
/// struct's time), an upsert (when [`Config::filled_upsert`]); a user's feed read through the
/// index (once it exists).
pub async fn order_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let user = format!("u{}", rng.below(USERS));
    let id = me.fresh("o");
    let total = rng.below(100) as u32;
    // A time of its own for each order (milliseconds apart), in the past.
    let created = UNIX_EPOCH + Duration::from_millis(1_700_000_000_000 + me.c as u64 * 1_000_000_000 + me.n);
    let order = Order { user_id: user.clone(), id: id.clone(), created, updated: None, total };
    let which = rng.below(if w.config.filled_upsert { 7 } else { 5 });
    match which {
        0 | 1 => {
            let ran = run(w, w.table.create(&order).returning()).await;
            let sk = ran.result.as_ref().ok().and_then(sk_of);
            record(w, me.c, "order_create", &ran, vec![Effect::Order { user, id, sk, upsert: false }]);
        }
        2 => {
            let ran = run(w, w.table.put(&order)).await;
            record(w, me.c, "order_put", &ran, vec![Effect::Order { user, id, sk: sk_of(&order), upsert: false }]);
        }
        3 => {
            if !w.config.apply_index || w.applied.load(Ordering::SeqCst) {
                let ran = run(w, w.table.query_all(Order::query_feed(user.as_str()))).await;
                let (ids, error) = match &ran.result {
                    Ok(orders) => (orders.iter().map(|o| o.id.clone()).collect(), None),
                    Err(e) => (vec![], Some(e.to_string())),
                };
                record(w, me.c, "feed", &ran, vec![Effect::Feed { user, ids, error }]);
            }
        }
        4 => {
            // The time in the index only: `create` fills it.
            let p = Post { user_id: user.clone(), id: id.clone(), created, text: "hi".into() };
            let ran = run(w, w.table.create(&p)).await;
            record(w, me.c, "post_create", &ran, vec![Effect::Post { user, id }]);
        }
        5 => {
            // Issue 45 item 2: an upsert of a new item leaves it out of the index keyed on the
            // time it fills.
            let u = Post::update(Post::key(user.as_str(), id.as_str())).set(Post::fields().text, "up").upsert();
            let ran = run(w, w.table.update(u)).await;
            record(w, me.c, "post_upsert", &ran, vec![Effect::Post { user, id }]);
        }
        _ => {
            // Issue 45 items 1-2: the key's time is the caller's, the stored one the clock's.
            let u = Order::update(Order::key(user.as_str(), created, id.as_str()))
                .set(Order::fields().total, total)
                .upsert();
            let ran = run(w, w.table.update(u)).await;
            record(w, me.c, "order_upsert", &ran, vec![Effect::Order { user, id, sk: sk_of(&order), upsert: true }]);
        }
    }
}

/// Docs of integer tenants through their tenants' handles; a multi-attribute index queried
/// through them (when [`Config::tenant_multi_attribute`], else through the table), and through a
/// handle whose tenant is the unpadded number.
pub async fn doc_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let t = rng.below(ORG_NOS.len() as u64) as usize;
    let (org, handle) = (ORG_NOS[t], &w.docs[t]);
    let mine: Vec<usize> = (0..me.docs.len()).filter(|&i| me.docs[i].org_no == org).collect();
    match rng.below(6) {
        0 | 1 => {
            let d =
                Doc { org_no: org, id: me.fresh("d"), kind: pick(rng, KINDS).to_string(), rank: rng.below(50) as u32 };
            let ran = run(w, async { handle.create(&d).await.map(|()| d.clone()) }).await;
            if ran.outcome != Outcome::Failed {
                me.docs.push(d.clone());
            }
            record(
                w,
                me.c,
                "doc_create",
                &ran,
                vec![Effect::Doc { org, id: d.id.clone(), delete: false, after: Some(d) }],
            );
        }
        2 | 3 if !mine.is_empty() => {
            let i = mine[rng.below(mine.len() as u64) as usize];
            if rng.chance(0.3) {
                let d = me.docs.swap_remove(i);
                let ran = run(w, handle.delete(Doc::key(org, d.id.as_str()))).await;
                record(w, me.c, "doc_delete", &ran, vec![Effect::Doc { org, id: d.id, delete: true, after: None }]);
            } else {
                let d = Doc { rank: rng.below(50) as u32, kind: pick(rng, KINDS).to_string(), ..me.docs[i].clone() };
                let ran = run(w, async { handle.put(&d).await.map(|()| d.clone()) }).await;
                if ran.result.is_ok() {
                    me.docs[i] = d.clone();
                }
                record(
                    w,
                    me.c,
                    "doc_put",
                    &ran,
                    vec![Effect::Doc { org, id: d.id.clone(), delete: false, after: Some(d) }],
                );
            }
        }
        2 => {
            // Another tenant's doc through this handle: refused before anything is sent.
            let other = ORG_NOS[(t + 1 + rng.below(ORG_NOS.len() as u64 - 1) as usize) % ORG_NOS.len()];
            let d = Doc { org_no: other, id: me.fresh("x"), kind: "memo".into(), rank: 0 };
            let result = handle.put(&d).await;
            let refused = matches!(result, Err(Error::OutsideTenant { .. }));
            let ran = run(w, async { Ok::<_, Error>(()) }).await;
            let what = format!("put of doc of {} through {}: {result:?}", org_text(other), org_text(org));
            record(w, me.c, "cross_tenant", &ran, vec![Effect::CrossTenant { what, refused }]);
        }
        _ => {
            let kind = pick(rng, KINDS).to_string();
            let unpadded = w.config.tenant_multi_attribute && rng.chance(0.3);
            let org = if unpadded { ORG_NOS[0] } else { org };
            // The tenant text every item returned must have.
            let (name, via, tenant) = if !w.config.tenant_multi_attribute {
                ("doc_query_table", &w.table, org_text(org))
            } else if unpadded {
                // Issue 45 item 3: the unpadded number is not the tenant's id.
                ("doc_query_unpadded", &w.loose_docs, org.to_string())
            } else {
                ("doc_query", handle, org_text(org))
            };
            let q = Doc::query_by_org(org, kind.as_str());
            let ran = if rng.chance(0.5) {
                run(w, via.query_all(q)).await
            } else {
                run(w, async { via.query(q).await.map(|page| page.items) }).await
            };
            let (returned, error) = match &ran.result {
                Ok(docs) => (docs.iter().map(|d| org_text(d.org_no)).collect(), None),
                Err(e) => (vec![], Some(format!("{e:?}"))),
            };
            let effects = vec![Effect::TenantQuery { handle: tenant, org, own: !unpadded, returned, error }];
            record(w, me.c, name, &ran, effects);
        }
    }
}

/// One `write_batch` of several entity types: events and notes put, new marks put, some of
/// this client's marks deleted.
pub async fn batch_op(w: &World, me: &mut Client, rng: &mut Rng) {
    let feed = format!("f{}", rng.below(FEEDS));
    let events: Vec<Event> = (0..1 + rng.below(3))
        .map(|_| Event { feed: feed.clone(), seq: w.next_seq(), id: me.fresh("e"), by: me.c as u32 })
        .collect();
    let notes: Vec<Note> = (0..1 + rng.below(3))
        .map(|_| Note { feed: feed.clone(), seq: w.next_seq(), id: me.fresh("n"), by: me.c as u32 })
        .collect();
    let marks: Vec<Mark> = (0..1 + rng.below(3))
        .map(|_| {
            me.n += 1;
            Mark { owner: me.c as u32, n: me.n }
        })
        .collect();
    let mut gone = Vec::new();
    for _ in 0..rng.below(3) {
        if me.marks.is_empty() {
            break;
        }
        gone.push(me.marks.swap_remove(rng.below(me.marks.len() as u64) as usize));
    }
    let mut batch = w.table.write_batch();
    for e in &events {
        batch = batch.put(e);
    }
    for n in &notes {
        batch = batch.put(n);
    }
    for m in &marks {
        batch = batch.put(m);
    }
    for &n in &gone {
        batch = batch.delete(Mark::key(me.c as u32, n));
    }
    let ran = run(w, batch.send()).await;
    if ran.outcome != Outcome::Failed {
        me.marks.extend(marks.iter().map(|m| m.n));
    }
    let mut effects: Vec<Effect> = Vec::new();
    effects.extend(events.iter().map(|e| Effect::Event { feed: feed.clone(), sk: event_sk(e.seq, &e.id) }));
    effects.extend(notes.iter().map(|n| Effect::Note { feed: feed.clone(), sk: note_sk(n.seq, &n.id) }));
    effects.extend(marks.iter().map(|m| Effect::Mark { owner: m.owner, n: m.n, delete: false }));
    effects.extend(gone.iter().map(|&n| Effect::Mark { owner: me.c as u32, n, delete: true }));
    record(w, me.c, "write_batch", &ran, effects);
}

/// `apply` of the whole definition in the middle of the run: adds [`ADDED_INDEX`] while the
/// clients write.
pub async fn apply_index(w: &World) {
    let wanted = initial_definition(false);
    let started = std::time::Instant::now();
    let result = w.base.apply(&wanted).poll_interval(Duration::from_millis(50)).await;
    w.applied.store(true, Ordering::SeqCst);
    w.background.lock().unwrap().push(match result {
        Ok(applied) => format!(
            "apply: {} change(s) in {:.1} s: {}",
            applied.changes.len(),
            started.elapsed().as_secs_f64(),
            applied.to_string().replace('\n', "; ")
        ),
        Err(e) => format!("apply failed: {e}"),
    });
}

/// The marked spot of issue 45 item 8: the update that adds `n` to a feed head's counter. When
/// the library's `.idempotent()` lands (a one-action TransactWriteItems with a
/// ClientRequestToken, retried safely; `Error::Indeterminate` otherwise), call it here and turn
/// [`super::workload::SOAK_EXACT_COUNTERS`] on.
pub fn head_add(feed: &str, n: i64, idempotent: bool) -> dynamo_entity::Update<super::model::Head> {
    let add =
        super::model::Head::update(super::model::Head::key(feed)).add(super::model::Head::fields().notes, n).upsert();
    // Issue 45 item 8: an idempotent ADD is a one-action transaction with its own token, which the
    // library sends again after a lost answer; the others are never sent again after one, and end
    // `Error::Indeterminate`.
    if idempotent { add.idempotent() } else { add }
}

/// Every item of each global index of the table (their table keys): what DynamoDB holds in it.
pub async fn index_items(
    table: &Table,
) -> std::collections::BTreeMap<String, std::collections::BTreeSet<(String, String)>> {
    let mut out = std::collections::BTreeMap::new();
    let Ok(described) = table.client().describe_table().table_name(table.name()).send().await else { return out };
    let names: Vec<String> = described
        .table()
        .map(|t| t.global_secondary_indexes().iter().filter_map(|g| g.index_name().map(str::to_owned)).collect())
        .unwrap_or_default();
    for name in names {
        let mut keys = std::collections::BTreeSet::new();
        let mut start = None;
        loop {
            let page = table
                .client()
                .scan()
                .table_name(table.name())
                .index_name(&name)
                .set_exclusive_start_key(start)
                .send()
                .await
                .expect("scan of an index");
            for item in page.items.unwrap_or_default() {
                keys.insert(super::check::key_of(&item));
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        out.insert(name, keys);
    }
    out
}
