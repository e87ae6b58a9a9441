//! The long invariant soak (issue 39): the engine of `tests/soak/` for as long as asked.
//!
//! ```text
//! cargo run --example soak -- --seconds 600 --clients 16 --seed 7
//! cargo run --example soak -- --seconds 120 --runs 30            # 30 seeds, one after the other
//! cargo run --example soak -- --seed 1 --ops 25 --clients 6      # replay a bounded run's seed
//! cargo run --example soak -- --seconds 60 --rate-limit 100,50    # another rate limit
//! cargo run --example soak -- --seconds 600 --all-on              # every switch on
//! cargo run --example soak -- --seconds 60 --off filled-upsert,tenant-multi-attribute
//! ```
//!
//! Flags: `--seconds S` (per seed; else `--ops N` per client, default 25), `--clients N`
//! (default 16), `--seed N` (default: from the clock; printed), `--runs K` (seeds N..N+K),
//! `--no-faults`, `--rate-limit R,W` (read and write units per second of the clients' handle;
//! default 40,20). The operations and checks that issue 33's defects once kept out (merged
//! pages of the sharded partition, the in-place migrate, the rate limit, throttled
//! transactions) are on by default: `--page-sharded`, `--migrate` and
//! `--check-throttled-transactions` are kept and change nothing; `--known-defects` is
//! `--rate-limit 200,100`. A seed fixes
//! each client's choices and the fault mix; the interleaving of the clients (and so which
//! request meets which fault) is the scheduler's, so a replay is the same schedule of
//! operations, not the same history. Exits 1 if any run found a violation.
//!
//! The fourth stage's parts (issue 45 item 20) are switches, on or off as their `pub const`s in
//! `tests/soak/workload.rs` say (every one on but `exact-counters`, which waits for issue 45
//! item 8): `--on NAME[,NAME..]`, `--off NAME[,NAME..]`, `--all-on` (every switch on). Names:
//! `nested` (nested updates), `missing-parent` (nested updates under a missing parent, item
//! 12), `filled` (times filled in a key and an index), `filled-upsert` (items 1-2), `docs`
//! (integer tenants on a multi-attribute index), `tenant-multi-attribute` (that index queried
//! through tenant handles, item 3), `write-batch`, `apply-index` (the table starts without
//! GSI3, `apply` adds it in the middle), `exact-counters` (item 8).

#[path = "../../tests/soak/mod.rs"]
mod soak;

use soak::faults::FaultRates;
use soak::workload::Config;

fn usage(msg: &str) -> ! {
    eprintln!("soak: {msg}\nsee the top of examples/soak/main.rs for the flags");
    std::process::exit(2)
}

fn number<T: std::str::FromStr>(args: &mut impl Iterator<Item = String>, flag: &str) -> T {
    let v = args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
    let v = v
        .strip_prefix("0x")
        .map_or_else(|| v.clone(), |h| u64::from_str_radix(h, 16).map_or(v.clone(), |n| n.to_string()));
    v.parse().unwrap_or_else(|_| usage(&format!("{flag}: not a number: {v}")))
}

#[tokio::main]
async fn main() {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs());
    let mut config = Config { clients: 16, ..Config::bounded(seed) };
    let mut runs = 1u64;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--seconds" => config.seconds = Some(number(&mut args, &flag)),
            "--ops" => config.ops_per_client = number(&mut args, &flag),
            "--clients" => config.clients = number(&mut args, &flag),
            "--seed" => config.seed = number(&mut args, &flag),
            "--runs" => runs = number(&mut args, &flag),
            "--no-faults" => config.faults = FaultRates::NONE,
            "--page-sharded" => config.page_sharded = true,
            "--migrate" => config.migrate = true,
            "--check-throttled-transactions" => config.check_throttled_transactions = true,
            "--rate-limit" => {
                let v: String = args.next().unwrap_or_else(|| usage("--rate-limit needs R,W"));
                let (r, w) = v.split_once(',').unwrap_or_else(|| usage("--rate-limit needs R,W"));
                let parse = |x: &str| x.parse::<f64>().unwrap_or_else(|_| usage("--rate-limit needs R,W"));
                config.rate_limit = Some((parse(r), parse(w)));
            }
            "--on" | "--off" => {
                let names: String = args.next().unwrap_or_else(|| usage(&format!("{flag} needs NAME[,NAME..]")));
                for name in names.split(',') {
                    if !config.switch(name, flag == "--on") {
                        usage(&format!("{flag}: no switch {name} (one of {})", Config::SWITCHES.join(", ")))
                    }
                }
            }
            "--all-on" => {
                for name in Config::SWITCHES {
                    config.switch(name, true);
                }
            }
            "--known-defects" => {
                config.page_sharded = true;
                config.migrate = true;
                config.check_throttled_transactions = true;
                config.rate_limit = Some((200.0, 100.0));
            }
            other => usage(&format!("unknown flag {other}")),
        }
    }
    println!("soak: {config:?}");
    let (mut ops, mut seconds, mut faults, mut checks, mut violations) = (0, 0.0, 0, 0, 0);
    let mut failing = Vec::new();
    for k in 0..runs {
        let report = soak::run(Config { seed: config.seed + k, ..config.clone() }).await;
        println!("{report}");
        ops += report.ops;
        seconds += report.seconds;
        faults += report.faults;
        checks += report.verdict.checks;
        violations += report.verdict.violations.len();
        if !report.verdict.violations.is_empty() {
            failing.push(report.seed);
        }
    }
    println!(
        "soak: {runs} seed(s) from {:#x}: {ops} operations in {seconds:.0} s ({:.0} ops/s), {faults} faults injected, {checks} invariants checked, {violations} violations{}",
        config.seed,
        ops as f64 / seconds.max(1e-9),
        if failing.is_empty() { String::new() } else { format!(" (seeds {failing:x?})") }
    );
    if violations > 0 {
        std::process::exit(1);
    }
}
