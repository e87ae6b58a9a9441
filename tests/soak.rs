//! The bounded invariant soak (issue 39): a few seeds of the engine in `tests/soak/`, each a
//! fresh table on DynamoDB Local, six concurrent clients, faults injected; the checker must
//! find no violation. `cargo run --example soak -- --seconds 600 --clients 16` is the long run.

#[path = "soak/mod.rs"]
mod soak;

async fn bounded(seed: u64) {
    let report = soak::run(soak::workload::Config::bounded(seed)).await;
    println!("{report}");
    assert!(
        report.verdict.violations.is_empty(),
        "seed {seed:#x}: {} violations:\n{}",
        report.verdict.violations.len(),
        report.verdict.violations.join("\n")
    );
    assert!(report.verdict.checks > 300, "{report}");
    assert!(report.faults > 0, "{report}");
}

// Three seeds, each its own table, run side by side on the binary's DynamoDB Local.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_1() {
    bounded(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_2() {
    bounded(2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_3() {
    bounded(3).await;
}

/// The checker finds each kind of violation it claims to (a table state and a history made up
/// by hand, no database): a soak whose checker cannot fail proves nothing.
#[test]
fn the_checker_reports_each_kind_of_violation() {
    use dynamo_entity::{AttributeValue, Entity, Item};
    use soak::history::{Effect, Op, Outcome, PageRec, PageSeq};
    use soak::model::{Account, Note};

    let op = |name: &'static str, invoke: u64, complete: u64, effects: Vec<Effect>| Op {
        client: 0,
        name,
        invoke,
        complete,
        outcome: Outcome::Acked,
        drops: 0,
        resent: 0,
        micros: 0,
        error: None,
        throttled_cancel: false,
        effects,
    };
    let account = |id: &str, email: &str, version: u64| Account {
        id: id.into(),
        org: "acme".into(),
        email: email.into(),
        nick: None,
        balance: 0,
        version,
    };
    let s = |v: &str| AttributeValue::S(v.into());
    let guard = |value: &str, owner: &str| -> Item {
        [
            ("PK", s(&format!("UNIQUE#Account#email#{value}"))),
            ("SK", s("UNIQUE")),
            ("owner_pk", s(owner)),
            ("owner_sk", s("PROFILE")),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    };
    let mut stale = account("a1", "e1@x.io", 1).to_item().unwrap();
    stale.insert("GSI2PK".into(), s("ORG#globex#0"));
    let note = |seq: u64| Note { feed: "f0".into(), seq, id: format!("n{seq}"), by: 0 };
    let raw = vec![
        stale,
        guard("e1@x.io", "ACCT#a1"),
        account("a2", "e2@x.io", 1).to_item().unwrap(),
        guard("e9@x.io", "ACCT#zz"),
        account("a4", "e4@x.io", 2).to_item().unwrap(),
        guard("e4@x.io", "ACCT#a4"),
        note(1).to_item().unwrap(),
        note(2).to_item().unwrap(),
    ];
    let sk = |seq: u64| format!("N#{seq:010}#n{seq}");
    let history = vec![
        op(
            "setup",
            0,
            0,
            vec![Effect::Account { id: "a3".into(), delete: false, after: Some(account("a3", "e3@x.io", 1)) }],
        ),
        op(
            "put",
            1,
            2,
            vec![Effect::Account { id: "a4".into(), delete: false, after: Some(account("a4", "e4@x.io", 2)) }],
        ),
        op(
            "put",
            1,
            3,
            vec![Effect::Account { id: "a4".into(), delete: false, after: Some(account("a4", "e4@x.io", 2)) }],
        ),
        op("put_note", 1, 2, vec![Effect::Note { feed: "f0".into(), sk: sk(1) }]),
        op("put_note", 1, 2, vec![Effect::Note { feed: "f0".into(), sk: sk(2) }]),
        op("put_note", 1, 2, vec![Effect::Note { feed: "f0".into(), sk: sk(3) }]),
        op("put_event", 1, 2, vec![Effect::Event { feed: "f0".into(), sk: "EV#0000000001#e".into() }]),
        op(
            "pages",
            4,
            9,
            vec![Effect::Pages(PageSeq {
                what: "notes",
                feed: "f0".into(),
                descending: false,
                pages: vec![PageRec { invoke: 5, complete: 6, keys: vec![sk(2), sk(1)] }],
                complete: true,
            })],
        ),
        op("cross_tenant", 10, 10, vec![Effect::CrossTenant { what: "get of t1 through t0".into(), refused: false }]),
    ];
    let inputs = soak::check::Inputs {
        history: &history,
        exempt: &[],
        tenant_violations: &[],
        throttled_transactions: false,
        rate_limit: Some((1.0, 1.0)),
        answers: &[(0.1, 0.0, 2.0), (0.5, 0.0, 1.0)],
    };
    let verdict = soak::check::check(&raw, &inputs);
    let found = |what: &str| verdict.violations.iter().any(|v| v.contains(what));
    for expected in [
        "a1: GSI2PK", // a stale index key
        "ACCT#a2 holds Account.email = e2@x.io without a guard",
        "orphan guard UNIQUE#Account#email#e9@x.io",
        "account a3 lost",
        "2 acknowledged writes of account a4 made version 2",
        "acknowledged Event f0 EV#0000000001#e",
        "(repeated or out of order)",
        &format!("missed {}", sk(3)),
        "did not refuse get of t1",
        "3.0 write units in the second",
    ] {
        assert!(found(expected), "{expected:?} not reported; found:\n{}", verdict.violations.join("\n"));
    }
}
