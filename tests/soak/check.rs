//! The checker: reads the whole table raw after the run and holds it, and the history, to the
//! invariants. Every check that is evaluated is counted; every one that fails is a violation
//! with enough words to find the item.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use dynamo_entity::{AttributeValue, Entity, Item, shard_of};

use super::fourth::{initial_definition, org_text};
use super::history::{Effect, Op, Outcome, PageSeq};
use super::model::{Account, Doc, Event, Head, Mark, Member, Note, Order, Post, Profile, Ticket, TicketV1, UNIQUE};
use super::workload::RATE_WINDOW_SLACK;

/// What the checker found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Invariant checks evaluated.
    pub checks: u64,
    pub violations: Vec<String>,
    /// Operations that ended in a transaction cancelled for throttling.
    pub throttled_cancels: u64,
    /// `ADD`s to a head's counter that ended neither acknowledged nor definitely refused.
    pub indeterminate_adds: u64,
}

impl Verdict {
    fn holds(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checks += 1;
        if !ok {
            self.violations.push(what());
        }
    }
}

fn s<'a>(item: &'a Item, attr: &str) -> Option<&'a str> {
    match item.get(attr) {
        Some(AttributeValue::S(v)) => Some(v),
        _ => None,
    }
}

pub fn key_of(item: &Item) -> (String, String) {
    (s(item, "PK").unwrap_or("").to_owned(), s(item, "SK").unwrap_or("").to_owned())
}

const KEY_ATTRS: &[&str] = &["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "GSI3PK", "GSI3SK"];

/// What the checker reads besides the table.
#[derive(Debug)]
pub struct Inputs<'a> {
    pub history: &'a [Op],
    /// The keys a backfill reported failed: their guards and index keys are not held to the
    /// invariants (the report said so).
    pub exempt: &'a [(String, Option<String>)],
    /// What the tenant watch saw.
    pub tenant_violations: &'a [String],
    /// Hold a transaction cancelled for throttling as a violation (it should have been retried).
    pub throttled_transactions: bool,
    /// The clients' rate limit, and the units of each answer (seconds, read, write).
    pub rate_limit: Option<(f64, f64)>,
    pub answers: &'a [(f64, f64, f64)],
    /// The table keys of the items each global index holds (a scan of each after the run).
    pub index_items: &'a BTreeMap<String, BTreeSet<(String, String)>>,
    /// Hold each head's counter to its exact value ([`SOAK_EXACT_COUNTERS`]), not a range.
    ///
    /// [`SOAK_EXACT_COUNTERS`]: super::workload::SOAK_EXACT_COUNTERS
    pub exact_counters: bool,
}

/// Checks `raw` (every item of the table) against the invariants.
pub fn check(raw: &[Item], inputs: &Inputs<'_>) -> Verdict {
    let (history, exempt, tenant_violations) = (inputs.history, inputs.exempt, inputs.tenant_violations);
    let mut v = Verdict::default();
    let exempt: BTreeSet<(String, String)> =
        exempt.iter().map(|(pk, sk)| (pk.clone(), sk.clone().unwrap_or_default())).collect();
    guards(&mut v, raw, &exempt);
    index_keys(&mut v, raw, &exempt);
    accounts(&mut v, raw, history);
    appended(&mut v, raw, history, inputs.exact_counters);
    indexes(&mut v, raw, inputs.index_items);
    nested(&mut v, raw, history);
    orders(&mut v, raw, history);
    docs(&mut v, raw, history);
    owned(&mut v, raw, history);
    pages(&mut v, history);
    for op in history {
        for e in &op.effects {
            if let Effect::CrossTenant { what, refused } = e {
                v.holds(*refused, || format!("tenant: a handle did not refuse {what}"));
            }
        }
        if op.throttled_cancel {
            v.throttled_cancels += 1;
            if inputs.throttled_transactions {
                v.holds(false, || {
                    format!("throttled transaction not retried: {} of client {}: {:?}", op.name, op.client, op.error)
                });
            }
        }
    }
    if let Some(limit) = inputs.rate_limit {
        rate(&mut v, limit, inputs.answers);
    }
    v.checks += 1;
    v.violations.extend(tenant_violations.iter().map(|t| format!("tenant: {t}")));
    v
}

/// Every unique value held by an item has exactly one guard, owned by that item; every guard's
/// owner exists and holds its value.
fn guards(v: &mut Verdict, raw: &[Item], exempt: &BTreeSet<(String, String)>) {
    let by_key: HashMap<(String, String), &Item> = raw.iter().map(|i| (key_of(i), i)).collect();
    let mut holders: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for item in raw {
        let Some(ty) = s(item, "entity_type") else { continue };
        for &(t, field) in UNIQUE {
            if t != ty {
                continue;
            }
            let Some(value) = s(item, field) else { continue };
            let prefix = match s(item, "tenant") {
                Some(tenant) if ty == "Member" => format!("TENANT#{tenant}#"),
                _ => String::new(),
            };
            let guard = format!("{prefix}UNIQUE#{ty}#{field}#{value}");
            holders.entry(guard.clone()).or_default().push(key_of(item));
            if exempt.contains(&key_of(item)) {
                continue;
            }
            let g = by_key.get(&(guard.clone(), "UNIQUE".to_owned()));
            let (pk, sk) = key_of(item);
            v.holds(g.is_some(), || format!("unique: {pk} holds {ty}.{field} = {value} without a guard ({guard})"));
            if let Some(g) = g {
                let owner = (s(g, "owner_pk").unwrap_or(""), s(g, "owner_sk").unwrap_or(""));
                v.holds(owner == (pk.as_str(), sk.as_str()), || {
                    format!("unique: {pk} holds {ty}.{field} = {value}, its guard names {owner:?}")
                });
            }
        }
    }
    for (guard, items) in &holders {
        v.holds(items.len() == 1, || format!("unique: {} items hold {guard}: {items:?}", items.len()));
    }
    for g in raw.iter().filter(|i| s(i, "SK") == Some("UNIQUE")) {
        let (pk, _) = key_of(g);
        let owner = (s(g, "owner_pk").unwrap_or("").to_owned(), s(g, "owner_sk").unwrap_or("").to_owned());
        let held = holders.get(&pk).is_some_and(|items| items.contains(&owner));
        v.holds(held, || format!("unique: orphan guard {pk}: its owner {owner:?} does not hold the value"));
    }
}

fn rederive<E: Entity>(item: &Item) -> Result<Item, String> {
    E::from_item(item.clone()).and_then(|e| e.to_item()).map_err(|e| e.to_string())
}

/// Every item's key attributes are the ones its fields derive (none stale, none missing): the
/// library's encoder applied to the decoded item, and for accounts the templates written out.
fn index_keys(v: &mut Verdict, raw: &[Item], exempt: &BTreeSet<(String, String)>) {
    for item in raw {
        let Some(ty) = s(item, "entity_type") else { continue };
        let derived = match ty {
            "Account" => rederive::<Account>(item),
            "Event" => rederive::<Event>(item),
            "Note" => rederive::<Note>(item),
            "Head" => rederive::<Head>(item),
            "Member" => rederive::<Member>(item),
            "TicketV1" => rederive::<TicketV1>(item),
            "Ticket" => rederive::<Ticket>(item),
            "Profile" => rederive::<Profile>(item),
            "Order" => rederive::<Order>(item),
            "Post" => rederive::<Post>(item),
            "Doc" => rederive::<Doc>(item),
            "Mark" => rederive::<Mark>(item),
            _ => continue,
        };
        let (pk, sk) = key_of(item);
        if exempt.contains(&(pk.clone(), sk.clone())) {
            continue;
        }
        if ty == "Order" || ty == "Post" {
            // The templates written out by hand: the key's time is the stored creation time
            // (issue 45 item 1), and the index keys are there (item 2), decodable or not.
            let (user, id, created) =
                (s(item, "user_id"), s(item, "id").unwrap_or(""), s(item, "created").unwrap_or(""));
            let want_sk = if ty == "Order" { format!("ORDER#{created}#{id}") } else { format!("POST#{id}") };
            v.holds(sk == want_sk, || format!("filled: {ty} {pk} {sk}: its key's time is not its created {created}"));
            let (want1, want2) = (user.map(|u| format!("FEED#{u}")), format!("{created}#{id}"));
            v.holds(s(item, "GSI3PK").map(str::to_owned) == want1 && s(item, "GSI3SK") == Some(want2.as_str()), || {
                format!(
                    "filled: {ty} {pk} {sk}: index keys GSI3PK {:?} GSI3SK {:?}, its fields make {want1:?} {want2:?}",
                    s(item, "GSI3PK"),
                    s(item, "GSI3SK")
                )
            });
        }
        let derived = match derived {
            Ok(d) => d,
            Err(e) => {
                v.holds(false, || format!("decode: {pk} {sk}: {e}"));
                continue;
            }
        };
        for attr in KEY_ATTRS {
            let (stored, want) = (s(item, attr), s(&derived, attr));
            v.holds(stored == want, || {
                format!("index keys: {pk} {sk}: {attr} is {stored:?}, its fields derive {want:?}")
            });
        }
        if ty == "Account" {
            // The templates, written out by hand.
            let (id, org, nick) = (s(item, "id").unwrap_or(""), s(item, "org").unwrap_or(""), s(item, "nick"));
            let gsi1 = nick.map(|n| format!("NICK#{n}"));
            let gsi2 = format!("ORG#{org}#{}", shard_of(&[id], 4));
            v.holds(s(item, "GSI1PK").map(str::to_owned) == gsi1, || {
                format!("index keys: {pk}: GSI1PK for nick {nick:?}")
            });
            v.holds(s(item, "GSI2PK") == Some(gsi2.as_str()), || format!("index keys: {pk}: GSI2PK, want {gsi2}"));
        }
    }
}

fn accounts_in(raw: &[Item]) -> HashMap<String, Account> {
    raw.iter()
        .filter(|i| s(i, "entity_type") == Some("Account"))
        .filter_map(|i| Account::from_item(i.clone()).ok())
        .map(|a| (a.id.clone(), a))
        .collect()
}

/// Versions only grew; no two acknowledged writes made the same version (a lost update); a
/// consistent read saw every write acknowledged before it began; the final item is the last
/// acknowledged write, or a later indeterminate one; an acknowledged write is present unless a
/// delete may have followed, an acknowledged delete is never undone.
fn accounts(v: &mut Verdict, raw: &[Item], history: &[Op]) {
    struct W<'a> {
        op: &'a Op,
        delete: bool,
        after: Option<&'a Account>,
    }
    let mut by_id: BTreeMap<&str, Vec<W<'_>>> = BTreeMap::new();
    let mut reads: Vec<(&Op, &str, Option<u64>)> = Vec::new();
    for op in history {
        for e in &op.effects {
            match e {
                Effect::Account { id, delete, after } => {
                    by_id.entry(id).or_default().push(W { op, delete: *delete, after: after.as_ref() })
                }
                Effect::AccountRead { id, version } => reads.push((op, id, *version)),
                _ => {}
            }
        }
    }
    let finals = accounts_in(raw);
    for (id, writes) in &by_id {
        let acked: Vec<&W<'_>> = writes.iter().filter(|w| w.op.outcome == Outcome::Acked && !w.delete).collect();
        let mut versions: BTreeMap<u64, usize> = BTreeMap::new();
        for w in &acked {
            if let Some(a) = w.after {
                *versions.entry(a.version).or_default() += 1;
            }
        }
        for (ver, n) in &versions {
            v.holds(*n == 1, || {
                format!("versions: {n} acknowledged writes of account {id} made version {ver} (a lost update)")
            });
        }
        for a in &acked {
            for b in &acked {
                if let (Some(x), Some(y)) = (a.after, b.after)
                    && a.op.complete < b.op.invoke
                {
                    v.holds(x.version < y.version, || {
                        format!(
                            "versions: account {id}: {} (v{}) finished before {} (v{}) began",
                            a.op.name, x.version, b.op.name, y.version
                        )
                    });
                }
            }
        }
        let maybe_deleted = writes.iter().any(|w| w.delete && w.op.outcome != Outcome::Failed);
        let acked_delete = writes.iter().any(|w| w.delete && w.op.outcome == Outcome::Acked);
        let last = acked.iter().filter_map(|w| w.after).max_by_key(|a| a.version);
        match finals.get(*id) {
            Some(f) => {
                v.holds(!acked_delete, || {
                    format!("presence: account {id} was deleted (acknowledged) and is back: {f:?}")
                });
                if let Some(last) = last {
                    v.holds(f.version >= last.version, || {
                        format!("versions: account {id} is at v{} below the acknowledged v{}", f.version, last.version)
                    });
                    if f.version == last.version {
                        v.holds(f == last, || {
                            format!("content: account {id} v{}: stored {f:?}, acknowledged {last:?}", f.version)
                        });
                    } else {
                        // An indeterminate write, or an acknowledged one whose state is unknown.
                        let explained = writes.iter().any(|w| {
                            !w.delete
                                && (w.op.outcome == Outcome::Unknown
                                    || (w.op.outcome == Outcome::Acked && w.after.is_none()))
                        });
                        v.holds(explained, || {
                            format!(
                                "versions: account {id} at v{} past the acknowledged v{} with no indeterminate write",
                                f.version, last.version
                            )
                        });
                    }
                }
            }
            None => {
                v.holds(last.is_none() || maybe_deleted, || {
                    format!("presence: account {id} lost (acknowledged {last:?}, no delete)")
                });
            }
        }
    }
    for (read, id, seen) in reads {
        let Some(writes) = by_id.get(id) else { continue };
        for w in writes.iter().filter(|w| w.op.outcome == Outcome::Acked && !w.delete && w.op.complete < read.invoke) {
            let Some(after) = w.after else { continue };
            match seen {
                Some(seen) => v.holds(seen >= after.version, || {
                    format!("versions: a read of account {id} saw v{seen} after v{} was acknowledged", after.version)
                }),
                None => {
                    let deleted = writes
                        .iter()
                        .any(|d| d.delete && d.op.outcome != Outcome::Failed && d.op.invoke < read.complete);
                    v.holds(deleted, || {
                        format!(
                            "presence: a read of account {id} found nothing after v{} was acknowledged",
                            after.version
                        )
                    })
                }
            }
        }
    }
}

/// Appended items (events, notes): every acknowledged one is there, nothing is there that was
/// never written or definitely refused; each head's counter is within what its `ADD`s allow.
fn appended(v: &mut Verdict, raw: &[Item], history: &[Op], exact: bool) {
    let mut stored: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut heads: BTreeMap<String, i64> = BTreeMap::new();
    for item in raw {
        match (s(item, "entity_type"), s(item, "feed"), s(item, "SK")) {
            (Some(t @ ("Event" | "Note")), Some(feed), Some(sk)) => {
                stored.insert((t.to_owned(), feed.to_owned(), sk.to_owned()));
            }
            (Some("Head"), Some(feed), _) => {
                let n = match item.get("notes") {
                    Some(AttributeValue::N(n)) => n.parse().unwrap_or(i64::MIN),
                    _ => 0,
                };
                heads.insert(feed.to_owned(), n);
            }
            _ => {}
        }
    }
    let mut allowed: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut bounds: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for op in history {
        for e in &op.effects {
            let (t, feed, sk) = match e {
                Effect::Event { feed, sk } => ("Event", feed, sk),
                Effect::Note { feed, sk } => ("Note", feed, sk),
                Effect::HeadAdd { feed, n } => {
                    let b = bounds.entry(feed.clone()).or_default();
                    if op.outcome == Outcome::Acked {
                        b.0 += n;
                    }
                    if op.outcome != Outcome::Failed {
                        // Each attempt the SDK sent may have been applied (an answer lost after
                        // the ADD applied, injected or a real timeout, is sent again).
                        b.1 += n * (1 + op.resent as i64);
                    }
                    continue;
                }
                _ => continue,
            };
            let key = (t.to_owned(), feed.clone(), sk.clone());
            if op.outcome == Outcome::Acked {
                v.holds(stored.contains(&key), || {
                    format!("presence: acknowledged {t} {feed} {sk} ({}) is missing", op.name)
                });
            }
            if op.outcome != Outcome::Failed {
                allowed.insert(key);
            }
        }
    }
    for key in &stored {
        v.holds(allowed.contains(key), || {
            format!("presence: {key:?} is stored but was never written (or was refused)")
        });
    }
    let counters = exact_counters(history);
    v.indeterminate_adds = counters.values().map(|c| c.indeterminate.len() as u64).sum();
    for (feed, n) in heads {
        if exact {
            let c = counters.get(&feed).cloned().unwrap_or_default();
            v.holds(c.admits(n), || {
                format!(
                    "counter: head of {feed} holds {n}, exactly {} from its acknowledged ADDs{}",
                    c.acked,
                    if c.indeterminate.is_empty() {
                        String::new()
                    } else {
                        format!(" plus some of the indeterminate {:?} (each at most once)", c.indeterminate)
                    }
                )
            });
        } else {
            let (lo, hi) = bounds.get(&feed).copied().unwrap_or((0, 0));
            v.holds(lo <= n && n <= hi, || format!("counter: head of {feed} holds {n}, its ADDs allow {lo}..={hi}"));
        }
    }
}

/// What one item (written only by its creator, so its operations are ordered) may be at the
/// end: present as written, present with unknown content, or absent.
#[derive(Debug, Clone, PartialEq)]
enum Cand<T> {
    Absent,
    Is(T),
    Some,
}

fn step<T: Clone + PartialEq>(cands: &mut Vec<Cand<T>>, outcome: Outcome, next: Cand<T>) {
    match outcome {
        Outcome::Failed => {}
        Outcome::Acked => *cands = vec![next],
        Outcome::Unknown => {
            if !cands.contains(&next) {
                cands.push(next);
            }
        }
    }
}

fn admits<T: PartialEq>(cands: &[Cand<T>], last: &Cand<T>) -> bool {
    cands.iter().any(|c| match (c, last) {
        (Cand::Some, Cand::Is(_) | Cand::Some) => true,
        (a, b) => a == b,
    })
}

/// Members and tickets: every acknowledged write is present unless a later one removed it,
/// with the content written; an indeterminate one may or may not be.
fn owned(v: &mut Verdict, raw: &[Item], history: &[Op]) {
    let members: HashMap<(String, String), Member> = raw
        .iter()
        .filter(|i| s(i, "entity_type") == Some("Member"))
        .filter_map(|i| Member::from_item(i.clone()).ok())
        .map(|m| ((m.tenant.clone(), m.id.clone()), m))
        .collect();
    let tickets: BTreeSet<String> = raw
        .iter()
        .filter(|i| matches!(s(i, "entity_type"), Some("Ticket" | "TicketV1")))
        .filter_map(|i| s(i, "id").map(str::to_owned))
        .collect();
    let mut ops: Vec<&Op> = history.iter().collect();
    ops.sort_by_key(|o| o.invoke);
    let mut m_cands: BTreeMap<(String, String), Vec<Cand<Member>>> = BTreeMap::new();
    let mut t_cands: BTreeMap<String, Vec<Cand<()>>> = BTreeMap::new();
    for op in ops {
        for e in &op.effects {
            match e {
                Effect::Member { tenant, id, delete, after } => {
                    let next = match (delete, after) {
                        (true, _) => Cand::Absent,
                        (false, Some(m)) => Cand::Is(m.clone()),
                        (false, None) => Cand::Some,
                    };
                    step(
                        m_cands.entry((tenant.clone(), id.clone())).or_insert_with(|| vec![Cand::Absent]),
                        op.outcome,
                        next,
                    );
                }
                Effect::Ticket { id, delete } => {
                    let next = if *delete { Cand::Absent } else { Cand::Is(()) };
                    step(t_cands.entry(id.clone()).or_insert_with(|| vec![Cand::Absent]), op.outcome, next);
                }
                _ => {}
            }
        }
    }
    for (key, cands) in &m_cands {
        let last = members.get(key).map_or(Cand::Absent, |m| Cand::Is(m.clone()));
        v.holds(admits(cands, &last), || format!("presence: member {key:?} is {last:?}, the history allows {cands:?}"));
    }
    for (id, cands) in &t_cands {
        let last = if tickets.contains(id) { Cand::Is(()) } else { Cand::Absent };
        v.holds(admits(cands, &last), || format!("presence: ticket {id} is {last:?}, the history allows {cands:?}"));
    }
}

/// The items each page sequence could return: (what, feed) -> sort key -> (outcome, invoke,
/// complete) of the write.
type Universe<'a> = HashMap<(&'a str, &'a str), BTreeMap<&'a str, (Outcome, u64, u64)>>;

/// Every page sequence returned its keys in order, each at most once; nothing that was never
/// written; and every item acknowledged before a page began, past the position the pages had
/// reached then, and within where the sequence ended.
fn pages(v: &mut Verdict, history: &[Op]) {
    // (what, feed) -> sk -> (outcome, invoke, complete)
    let mut universe: Universe<'_> = HashMap::new();
    for op in history {
        for e in &op.effects {
            let (whats, feed, sk): (&[&str], _, _) = match e {
                Effect::Event { feed, sk } => (&["events"], feed, sk),
                Effect::Note { feed, sk } => (&["notes", "log"], feed, sk),
                _ => continue,
            };
            for what in whats {
                universe.entry((what, feed)).or_default().insert(sk, (op.outcome, op.invoke, op.complete));
            }
        }
    }
    let seqs = history.iter().flat_map(|op| op.effects.iter().map(move |e| (op, e))).filter_map(|(op, e)| match e {
        Effect::Pages(p) => Some((op, p)),
        _ => None,
    });
    for (op, seq) in seqs {
        let mut items = universe.get(&(seq.what, seq.feed.as_str())).cloned().unwrap_or_default();
        if seq.what == "log" {
            items.insert("HEAD", (Outcome::Acked, 0, 0));
        }
        one_sequence(v, op, seq, &items);
    }
}

fn one_sequence(v: &mut Verdict, op: &Op, seq: &PageSeq, items: &BTreeMap<&str, (Outcome, u64, u64)>) {
    let name = format!(
        "{} of {} (client {}, {})",
        seq.what,
        seq.feed,
        op.client,
        if seq.descending { "descending" } else { "ascending" }
    );
    let after = |a: &str, b: &str| if seq.descending { a < b } else { a > b };
    // Order, once each, no phantom.
    let mut prev: Option<&str> = None;
    let mut returned: BTreeSet<&str> = BTreeSet::new();
    for page in &seq.pages {
        for k in &page.keys {
            if let Some(p) = prev {
                v.holds(after(k, p), || format!("pages: {name} returned {k} after {p} (repeated or out of order)"));
            }
            prev = Some(k);
            returned.insert(k);
            let known =
                items.get(k.as_str()).is_some_and(|&(o, invoke, _)| o != Outcome::Failed && invoke < page.complete);
            v.holds(known, || format!("pages: {name} returned {k}, never written before that page"));
        }
    }
    // Completeness.
    let end: Option<&str> = if seq.complete { None } else { prev };
    for (&k, &(outcome, _, complete)) in items {
        if outcome != Outcome::Acked {
            continue;
        }
        let mut pos: Option<&str> = None;
        let mut first = None;
        for (i, page) in seq.pages.iter().enumerate() {
            if page.invoke > complete {
                first = Some(i);
                break;
            }
            pos = page.keys.last().map(String::as_str).or(pos);
        }
        let Some(i) = first else { continue };
        let beyond = pos.is_none_or(|p| after(k, p));
        let within = end.is_none_or(|e| !after(k, e));
        if beyond && within {
            v.holds(returned.contains(k), || {
                format!("pages: {name} missed {k}: acknowledged before page {} began, past the position {pos:?}", i + 1)
            });
        }
    }
}

/// The units DynamoDB reported in every one-second window stay within the limit (times
/// [`RATE_WINDOW_SLACK`]), reads and writes apart.
fn rate(v: &mut Verdict, (read, write): (f64, f64), answers: &[(f64, f64, f64)]) {
    let mut sorted = answers.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut worst_r, mut worst_w) = ((0.0, 0.0), (0.0, 0.0));
    let mut end = 0;
    let (mut sum_r, mut sum_w) = (0.0, 0.0);
    for start in 0..sorted.len() {
        while end < sorted.len() && sorted[end].0 < sorted[start].0 + 1.0 {
            sum_r += sorted[end].1;
            sum_w += sorted[end].2;
            end += 1;
        }
        if sum_r > worst_r.0 {
            worst_r = (sum_r, sorted[start].0);
        }
        if sum_w > worst_w.0 {
            worst_w = (sum_w, sorted[start].0);
        }
        sum_r -= sorted[start].1;
        sum_w -= sorted[start].2;
    }
    let (bound_r, bound_w) = (read * RATE_WINDOW_SLACK, write * RATE_WINDOW_SLACK);
    v.holds(worst_r.0 <= bound_r + 1e-9, || {
        format!(
            "rate limit: {:.1} read units in the second from {:.2} s, limit {read}/s (window bound {bound_r})",
            worst_r.0, worst_r.1
        )
    });
    v.holds(worst_w.0 <= bound_w + 1e-9, || {
        format!(
            "rate limit: {:.1} write units in the second from {:.2} s, limit {write}/s (window bound {bound_w})",
            worst_w.0, worst_w.1
        )
    });
}

/// A counter's exact expectation: the sum of its acknowledged `ADD`s, and the amounts of those
/// that may or may not have applied (an `Error::Indeterminate`, or any error after a fault),
/// each applied at most once: the library never resends a non-idempotent write (issue 45
/// item 8). Definitely refused ones count nothing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExactCounter {
    pub acked: i64,
    pub indeterminate: Vec<i64>,
}

impl ExactCounter {
    /// Whether `n` is the acknowledged sum plus the sum of some of the indeterminate ones.
    pub fn admits(&self, n: i64) -> bool {
        let mut sums: BTreeSet<i64> = BTreeSet::from([self.acked]);
        for d in &self.indeterminate {
            let more: Vec<i64> = sums.iter().map(|s| s + d).collect();
            sums.extend(more);
        }
        sums.contains(&n)
    }
}

/// Each feed head's [`ExactCounter`], from the history.
pub fn exact_counters(history: &[Op]) -> BTreeMap<String, ExactCounter> {
    let mut out: BTreeMap<String, ExactCounter> = BTreeMap::new();
    for op in history {
        for e in &op.effects {
            if let Effect::HeadAdd { feed, n } = e {
                let c = out.entry(feed.clone()).or_default();
                match op.outcome {
                    Outcome::Acked => c.acked += n,
                    Outcome::Unknown => c.indeterminate.push(*n),
                    Outcome::Failed => {}
                }
            }
        }
    }
    out
}

/// Every item is in every global index it belongs to (it holds each of the index's key
/// attributes), and in no other; every index of the entities exists.
fn indexes(v: &mut Verdict, raw: &[Item], index_items: &BTreeMap<String, BTreeSet<(String, String)>>) {
    let def = initial_definition(false);
    for index in def.indexes.iter().filter(|i| matches!(i.kind, dynamo_entity::IndexKind::Global)) {
        let held = index_items.get(&index.name);
        v.holds(held.is_some(), || format!("index: the table has no index {}", index.name));
        let Some(held) = held else { continue };
        for item in raw {
            let belongs = index.pk_attrs.iter().chain(&index.sk_attrs).all(|a| item.contains_key(a));
            let (pk, sk) = key_of(item);
            let is_in = held.contains(&(pk.clone(), sk.clone()));
            v.holds(belongs == is_in, || {
                if belongs {
                    format!("index: {pk} {sk} holds the keys of {} but is not in it", index.name)
                } else {
                    format!("index: {pk} {sk} is in {} without its keys", index.name)
                }
            });
        }
    }
}

/// Nested updates: each slot (written by one client) is at the end what the history allows
/// (an acknowledged change is kept unless the same client changed it again: no lost update);
/// every acknowledged answer holds its change; no two acknowledged writes made one version,
/// and the final version is at least each acknowledged one; a nested update under a missing
/// parent is refused with `Error::MissingParent`.
fn nested(v: &mut Verdict, raw: &[Item], history: &[Op]) {
    let finals: HashMap<String, Profile> = raw
        .iter()
        .filter(|i| s(i, "entity_type") == Some("Profile"))
        .filter_map(|i| Profile::from_item(i.clone()).ok())
        .map(|p| (p.id.clone(), p))
        .collect();
    let mut ops: Vec<&Op> = history.iter().collect();
    ops.sort_by_key(|o| o.invoke);
    let mut slots: BTreeMap<(String, String), Vec<Cand<u64>>> = BTreeMap::new();
    let mut versions: BTreeMap<(String, u64), Vec<&'static str>> = BTreeMap::new();
    for op in ops {
        for e in &op.effects {
            match e {
                Effect::Nested { id, slot, value, version, answered } => {
                    step(
                        slots.entry((id.clone(), slot.clone())).or_insert_with(|| vec![Cand::Absent]),
                        op.outcome,
                        Cand::Is(*value),
                    );
                    if op.outcome == Outcome::Acked {
                        v.holds(answered == &Some(*value), || {
                            format!(
                                "nested: the answer of {} to {id}.prefs.slots.{slot} = {value} holds {answered:?}",
                                op.name
                            )
                        });
                        if let Some(ver) = version {
                            versions.entry((id.clone(), *ver)).or_default().push(op.name);
                        }
                    }
                }
                Effect::ProfileVersion { id, version } if op.outcome == Outcome::Acked => {
                    versions.entry((id.clone(), *version)).or_default().push(op.name);
                }
                Effect::Refusal { what, error } => {
                    v.holds(error.is_none(), || {
                        format!("missing parent: {what} answered {error:?}, not Error::MissingParent")
                    });
                }
                _ => {}
            }
        }
    }
    for ((id, ver), names) in &versions {
        v.holds(names.len() == 1, || {
            format!(
                "nested: {} acknowledged writes of profile {id} made version {ver} (a lost update): {names:?}",
                names.len()
            )
        });
        let last = finals.get(id).map(|p| p.version);
        v.holds(last.is_some_and(|l| l >= *ver), || {
            format!("nested: profile {id} is at {last:?}, below the acknowledged version {ver}")
        });
    }
    for ((id, slot), cands) in &slots {
        let last = finals.get(id).and_then(|p| p.prefs.slots.get(slot)).map_or(Cand::Absent, |x| Cand::Is(*x));
        v.holds(admits(cands, &last), || {
            format!("nested: {id}.prefs.slots.{slot} is {last:?}, the history allows {cands:?} (a lost update)")
        });
    }
}

/// Orders: every acknowledged one is stored once, at the key its write said, and readable;
/// none definitely refused is; each feed query returned every order of its user acknowledged
/// before it began, and nothing of another user.
fn orders(v: &mut Verdict, raw: &[Item], history: &[Op]) {
    let mut stored: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for item in raw.iter().filter(|i| s(i, "entity_type") == Some("Order")) {
        let (user, id) = (s(item, "user_id").unwrap_or("").to_owned(), s(item, "id").unwrap_or("").to_owned());
        stored.entry((user, id)).or_default().push(key_of(item).1);
    }
    let mut acked: Vec<(&Op, &str, &str)> = Vec::new();
    for op in history {
        for e in &op.effects {
            let Effect::Order { user, id, sk, upsert } = e else { continue };
            let found = stored.get(&(user.clone(), id.clone()));
            let how = if *upsert { "upsert" } else { op.name };
            match op.outcome {
                Outcome::Acked => {
                    acked.push((op, user, id));
                    v.holds(found.is_some_and(|f| f.len() == 1), || {
                        format!("filled: acknowledged order {user}/{id} ({how}) is stored {found:?}")
                    });
                    if let (Some(sk), Some(f)) = (sk, found) {
                        v.holds(f.contains(sk), || format!("filled: order {user}/{id} ({how}) is at {f:?}, not {sk}"));
                    }
                }
                Outcome::Failed => v.holds(found.is_none(), || {
                    format!("filled: refused order {user}/{id} ({how}) is stored {found:?}")
                }),
                Outcome::Unknown => v.holds(found.is_none_or(|f| f.len() == 1), || {
                    format!("filled: order {user}/{id} ({how}) is stored {} times", found.map_or(0, Vec::len))
                }),
            }
        }
    }
    let posts: BTreeSet<(&str, &str)> = raw
        .iter()
        .filter(|i| s(i, "entity_type") == Some("Post"))
        .map(|i| (s(i, "user_id").unwrap_or(""), s(i, "id").unwrap_or("")))
        .collect();
    for op in history {
        for e in &op.effects {
            let Effect::Post { user, id } = e else { continue };
            let found = posts.contains(&(user.as_str(), id.as_str()));
            match op.outcome {
                Outcome::Acked => {
                    v.holds(found, || format!("filled: acknowledged post {user}/{id} ({}) is missing", op.name))
                }
                Outcome::Failed => {
                    v.holds(!found, || format!("filled: refused post {user}/{id} ({}) is stored", op.name))
                }
                Outcome::Unknown => {}
            }
        }
    }
    for op in history {
        for e in &op.effects {
            let Effect::Feed { user, ids, error } = e else { continue };
            v.holds(error.is_none(), || format!("filled: the feed of {user} ({}) failed: {error:?}", op.name));
            if error.is_some() {
                continue;
            }
            let got: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
            for (w, u, id) in &acked {
                if *u == user && w.complete < op.invoke {
                    v.holds(got.contains(id), || {
                        format!("filled: the feed of {user} missed order {id}, acknowledged before")
                    });
                }
            }
            for id in &got {
                v.holds(stored.contains_key(&(user.clone(), (*id).to_owned())), || {
                    format!("filled: the feed of {user} returned order {id}, not the user's")
                });
            }
        }
    }
}

/// Docs and marks (each written only by its creator): what the history allows; no tenant
/// handle's query returned another tenant's item, nor was a tenant refused its own query.
fn docs(v: &mut Verdict, raw: &[Item], history: &[Op]) {
    let stored: HashMap<(u32, String), Doc> = raw
        .iter()
        .filter(|i| s(i, "entity_type") == Some("Doc"))
        .filter_map(|i| Doc::from_item(i.clone()).ok())
        .map(|d| ((d.org_no, d.id.clone()), d))
        .collect();
    let marks: BTreeSet<(u32, u64)> = raw
        .iter()
        .filter(|i| s(i, "entity_type") == Some("Mark"))
        .filter_map(|i| Mark::from_item(i.clone()).ok())
        .map(|m| (m.owner, m.n))
        .collect();
    let mut ops: Vec<&Op> = history.iter().collect();
    ops.sort_by_key(|o| o.invoke);
    let mut d_cands: BTreeMap<(u32, String), Vec<Cand<Doc>>> = BTreeMap::new();
    let mut m_cands: BTreeMap<(u32, u64), Vec<Cand<()>>> = BTreeMap::new();
    for op in ops {
        for e in &op.effects {
            match e {
                Effect::Doc { org, id, delete, after } => {
                    let next = match (delete, after) {
                        (true, _) => Cand::Absent,
                        (false, Some(d)) => Cand::Is(d.clone()),
                        (false, None) => Cand::Some,
                    };
                    step(d_cands.entry((*org, id.clone())).or_insert_with(|| vec![Cand::Absent]), op.outcome, next);
                }
                Effect::Mark { owner, n, delete } => {
                    let next = if *delete { Cand::Absent } else { Cand::Is(()) };
                    step(m_cands.entry((*owner, *n)).or_insert_with(|| vec![Cand::Absent]), op.outcome, next);
                }
                Effect::TenantQuery { handle, org, own, returned, error } => {
                    let foreign: Vec<&String> = returned.iter().filter(|t| *t != handle).collect();
                    v.holds(foreign.is_empty(), || {
                        format!(
                            "tenant: a query of org {org}'s index partition through tenant handle {handle:?} read {} items of tenants {foreign:?}",
                            foreign.len()
                        )
                    });
                    let refused =
                        error.as_deref().is_some_and(|e| e.contains("OutsideTenant") || e.contains("TenantRefused"));
                    v.holds(!(*own && refused), || {
                        format!(
                            "tenant: tenant handle {handle:?} was refused its own index query ({}): {error:?}",
                            org_text(*org)
                        )
                    });
                }
                _ => {}
            }
        }
    }
    for (key, cands) in &d_cands {
        let last = stored.get(key).map_or(Cand::Absent, |d| Cand::Is(d.clone()));
        v.holds(admits(cands, &last), || format!("presence: doc {key:?} is {last:?}, the history allows {cands:?}"));
    }
    for (key, cands) in &m_cands {
        let last = if marks.contains(key) { Cand::Is(()) } else { Cand::Absent };
        v.holds(admits(cands, &last), || format!("presence: mark {key:?} is {last:?}, the history allows {cands:?}"));
    }
    for key in &marks {
        v.holds(m_cands.contains_key(key), || format!("presence: mark {key:?} is stored but was never written"));
    }
}
