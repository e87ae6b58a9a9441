//! `compile-profile PROFILE CRATE [PROFILE CRATE]`: where a check of CRATE spent its time, from
//! rustc's self-profile (`-Zself-profile -Zself-profile-events=default,args`), PROFILE being the
//! path of the `.mm_profdata` file without its extension.
//!
//! Each query's self time (its time less that of the queries it ran) goes to the item of CRATE
//! it ran for: the innermost query whose argument names an item of CRATE, itself or an
//! enclosing one, else to no item (parsing, expansion, name resolution, metadata). Items are
//! named by the last segment of their path (`to_item`, `fmt`, `fields`), so that the 50 or 200
//! entities of `scripts/compile-time.sh` add up by what the derive generated. With two
//! profiles, prints them side by side, each as seconds and as a share of its crate's total: the
//! shares are what compare across runs, as the host's speed changes between them.

use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

use analyzeme::{EventPayload, ProfilingData, Timestamp};

/// One crate's profile, summed.
struct Sums {
    total: f64,
    by_query: HashMap<String, f64>,
    by_item: HashMap<String, f64>,
}

/// The name an argument gives its item: the last segment of a path in CRATE (a closure keeps
/// the name of its function), digits of generated names folded (`Entity17` → `EntityN`).
fn item_name(arg: &str, krate: &str) -> Option<String> {
    if !arg.contains(krate) {
        return None;
    }
    let folded: String = {
        let mut out = String::with_capacity(arg.len());
        let mut digits = false;
        for c in arg.chars() {
            if c.is_ascii_digit() {
                if !digits {
                    out.push('N');
                }
                digits = true;
            } else {
                digits = false;
                out.push(c);
            }
        }
        out
    };
    let path = folded.trim_end_matches(')');
    let mut segments = path.rsplit("::");
    let last = segments.next().unwrap_or_default();
    if last.contains("closure") {
        return Some(format!("{}::{{closure}}", segments.next().unwrap_or_default()));
    }
    if last == krate {
        return Some("(the crate)".to_owned());
    }
    Some(last.to_owned())
}

fn read(stem: &str, krate: &str) -> Result<Sums, Box<dyn std::error::Error + Send + Sync>> {
    let data = ProfilingData::new(Path::new(stem))?;
    struct Interval {
        start: SystemTime,
        end: SystemTime,
        label: String,
        item: Option<String>,
        thread: u32,
    }
    let mut events: Vec<Interval> = data
        .iter_full()
        .filter_map(|e| match e.payload {
            // The profiler's own work (writing its strings) is not the compiler's.
            _ if e.label.starts_with("self_profile") => None,
            EventPayload::Timestamp(Timestamp::Interval { start, end }) => Some(Interval {
                start,
                end,
                label: e.label.to_string(),
                item: e.additional_data.first().and_then(|a| item_name(a, krate)),
                thread: e.thread_id,
            }),
            _ => None,
        })
        .collect();
    events.sort_by(|a, b| {
        (a.thread, a.start, std::cmp::Reverse(a.end)).cmp(&(b.thread, b.start, std::cmp::Reverse(b.end)))
    });
    let mut sums = Sums { total: 0.0, by_query: HashMap::new(), by_item: HashMap::new() };
    // The open intervals of one thread: (event, time of its children, its item).
    let mut open: Vec<(usize, f64, Option<String>)> = Vec::new();
    let close = |open: &mut Vec<(usize, f64, Option<String>)>, sums: &mut Sums| {
        let Some((at, children, item)) = open.pop() else { return };
        let e = &events[at];
        let length = e.end.duration_since(e.start).map(|d| d.as_secs_f64()).unwrap_or(0.0);
        let own = (length - children).max(0.0);
        *sums.by_query.entry(e.label.clone()).or_default() += own;
        *sums.by_item.entry(item.unwrap_or_else(|| "(no item)".to_owned())).or_default() += own;
        match open.last_mut() {
            Some(parent) => parent.1 += length,
            None => sums.total += length,
        }
    };
    for at in 0..events.len() {
        while let Some(&(top, _, _)) = open.last() {
            if events[top].thread != events[at].thread || events[top].end <= events[at].start {
                close(&mut open, &mut sums);
            } else {
                break;
            }
        }
        let item = events[at].item.clone().or_else(|| open.last().and_then(|o| o.2.clone()));
        open.push((at, 0.0, item));
    }
    while !open.is_empty() {
        close(&mut open, &mut sums);
    }
    Ok(sums)
}

fn table(title: &str, runs: &[(&str, Sums)], pick: fn(&Sums) -> &HashMap<String, f64>, rows: usize) {
    // Every run's keys, the largest (in any run) first.
    let largest = |key: &String| runs.iter().map(|(_, s)| pick(s).get(key).copied().unwrap_or(0.0)).fold(0.0, f64::max);
    let mut keys: Vec<&String> = runs.iter().flat_map(|(_, s)| pick(s).keys()).collect();
    keys.sort();
    keys.dedup();
    keys.sort_by(|a, b| largest(b).total_cmp(&largest(a)));
    print!("\n| {title} |");
    for (krate, _) in runs {
        print!(" {krate} s | share |");
    }
    print!("\n|---|");
    for _ in runs {
        print!("---|---|");
    }
    println!();
    for key in keys.into_iter().take(rows) {
        print!("| `{key}` |");
        for (_, sums) in runs {
            let t = pick(sums).get(key).copied().unwrap_or(0.0);
            print!(" {t:.3} | {:.1}% |", 100.0 * t / sums.total);
        }
        println!();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || !args.len().is_multiple_of(2) {
        eprintln!("usage: compile-profile PROFILE CRATE [PROFILE CRATE]");
        std::process::exit(2);
    }
    let mut runs = Vec::new();
    for pair in args.chunks(2) {
        match read(&pair[0], &pair[1]) {
            Ok(sums) => runs.push((pair[1].as_str(), sums)),
            Err(e) => {
                eprintln!("{}: {e}", pair[0]);
                std::process::exit(1);
            }
        }
    }
    print!("total (s):");
    for (krate, sums) in &runs {
        print!(" {krate} {:.2}", sums.total);
    }
    println!();
    let rows: usize = std::env::var("ROWS").ok().and_then(|r| r.parse().ok()).unwrap_or(30);
    table("item", &runs, |s| &s.by_item, rows);
    table("query", &runs, |s| &s.by_query, rows);
}
