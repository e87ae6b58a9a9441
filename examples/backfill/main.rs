//! A backfill on the command line: `cargo run --example backfill [-- --items N --segments K]`.
//!
//! Day one, the orders were written without an index by status (`OrderV0`, and a table made
//! for it). Day two the code has one (`Order`, `GSI1`: `STATUS#<status>` / `<placed>#<id>`) and
//! a defaulted `priority`. The example writes N day-one orders to DynamoDB Local, plans and
//! applies the day-two table definition (the new index, with a progress line), starts the backfill with a progress
//! bar (`indicatif`), stops it after a few pages as a crash or a deploy would, saving the
//! progress cursor to a file after every page, and resumes from that file until done. A
//! second run then writes nothing. Against a real table, run it with `--resume` after a stop:
//! the cursor file (`--cursor-file`, `target/backfill.cursor` by default) says where to go on.

use std::time::Duration;

use dynamo_entity::{Cursor, Entity, Error, MigrationReport, Table, TableDefinition};
use indicatif::{ProgressBar, ProgressStyle};

/// The orders as the day-one code wrote them: no index, no priority.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[entity(type_name = "Order")]
pub struct OrderV0 {
    pub customer: String,
    pub id: String,
    pub status: String,
    pub placed: String,
    pub total: u64,
}

/// The orders as the day-two code writes them.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "CUSTOMER#<customer>"]
#[sk = "ORDER#<id>"]
#[gsi1(pk = "STATUS#<status>", sk = "<placed>#<id>", query = "by_status")]
pub struct Order {
    pub customer: String,
    pub id: String,
    pub status: String,
    pub placed: String,
    pub total: u64,
    #[entity(default)]
    pub priority: u8,
}

struct Args {
    items: usize,
    segments: u32,
    cursor_file: std::path::PathBuf,
    stop_after_pages: u64,
    resume: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        items: 5000,
        segments: 4,
        cursor_file: "target/backfill.cursor".into(),
        stop_after_pages: 8,
        resume: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--items" => a.items = value()?.parse().map_err(|e| format!("--items: {e}"))?,
            "--segments" => a.segments = value()?.parse().map_err(|e| format!("--segments: {e}"))?,
            "--cursor-file" => a.cursor_file = value()?.into(),
            "--stop-after-pages" => {
                a.stop_after_pages = value()?.parse().map_err(|e| format!("--stop-after-pages: {e}"))?
            }
            "--resume" => a.resume = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(a)
}

/// Runs the backfill with a progress bar, saving the cursor after every page; stops after
/// `stop_after` pages if given (dropping the run, as a crash would).
async fn backfill(
    table: &Table,
    a: &Args,
    after: Option<Cursor>,
    stop_after: Option<u64>,
) -> Result<Option<MigrationReport>, Error> {
    let bar = ProgressBar::new(a.items as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} items, {per_sec}, eta {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (pages_tx, mut pages_rx) = tokio::sync::watch::channel(0u64);
    let file = a.cursor_file.clone();
    let progress_bar = bar.clone();
    let mut run = table.backfill::<Order>().segments(a.segments).page_size(100).on_progress(move |p| {
        progress_bar.set_position(p.scanned);
        if let Some(total) = p.estimated_items.filter(|t| *t > 0) {
            progress_bar.set_length(total.max(p.scanned));
        }
        progress_bar.set_message(format!("{} written", p.written));
        // The cursor after every page: a crash loses at most the pages in flight.
        match &p.cursor {
            Some(c) => {
                let _ = std::fs::write(&file, c.to_string());
            }
            None => {
                let _ = std::fs::remove_file(&file);
            }
        }
        pages_tx.send_modify(|n| *n += 1);
    });
    if let Some(c) = after {
        run = run.after(c);
    }
    let report = match stop_after {
        Some(pages) => {
            tokio::select! {
                r = run.run() => Some(r?),
                _ = pages_rx.wait_for(|n| *n >= pages) => None,
            }
        }
        None => Some(run.run().await?),
    };
    bar.finish_and_clear();
    Ok(report)
}

async fn main_() -> Result<(), Box<dyn std::error::Error>> {
    let a = args()?;
    if let Some(dir) = a.cursor_file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let client = dynamo_entity::local::client().await?;
    let table = Table::new(client, format!("backfill-{}", std::process::id()));
    // Day one's table: the day-one code's definition, no index.
    table.create_table(&[OrderV0::SCHEMA]).await?;

    println!("Day one: {} orders written without the status index", a.items);
    let day_one: Vec<OrderV0> = (0..a.items)
        .map(|i| OrderV0 {
            customer: format!("customer-{:03}", i % 200),
            id: format!("order-{i:06}"),
            status: ["PENDING", "PAID", "SHIPPED"][i % 3].into(),
            placed: format!("2026-11-{:02}T{:02}:00:00.000Z", 1 + i % 25, i % 24),
            total: (i as u64 % 97) * 100,
        })
        .collect();
    table.batch_put(&day_one).await?;

    // Day two: the table as the new code needs it. The plan reads (Describe* only); apply
    // creates the index and waits until it is ACTIVE.
    let definition = TableDefinition::from_entities(&[Order::SCHEMA])?;
    let plan = table.plan(&definition).await?;
    print!("Day two: the plan\n{plan}");
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(100));
    let line = spinner.clone();
    let applied = table
        .apply(&definition)
        .poll_interval(Duration::from_millis(200))
        .on_progress(move |p| line.set_message(p.to_string()))
        .await?;
    spinner.finish_and_clear();
    let replan = table.plan(&definition).await?;
    println!("   -> applied {} change(s); planned again: {} change(s)", applied.changes.len(), replan.changes.len());
    if !replan.is_empty() {
        return Err("the plan is not empty after apply".into());
    }
    // Queryable now, but it holds only what was written (or backfilled) since.
    let shipped = table.query_all(Order::query_by_status("SHIPPED")).await?.len();
    println!("   -> orders by status SHIPPED through the new index, before the backfill: {shipped}");

    let mut after = None;
    if a.resume {
        after = std::fs::read_to_string(&a.cursor_file).ok().map(|t| t.trim().parse()).transpose()?;
    } else {
        let stop = (a.stop_after_pages > 0).then_some(a.stop_after_pages);
        println!("Backfill in {} segments, stopped after {} pages", a.segments, a.stop_after_pages);
        if let Some(report) = backfill(&table, &a, None, stop).await? {
            println!("   -> finished before the stop: {report}");
        } else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let text = std::fs::read_to_string(&a.cursor_file)?;
            println!("   -> stopped; the cursor saved in {} ({} characters)", a.cursor_file.display(), text.len());
            after = Some(text.trim().parse()?);
        }
    }
    if after.is_some() {
        println!("Resume from the saved cursor");
    }
    let report = backfill(&table, &a, after, None).await?.ok_or("the run did not finish")?;
    println!("   -> {report}");
    let shipped = table.query_all(Order::query_by_status("SHIPPED")).await?;
    println!("   -> orders by status SHIPPED through the index: {}", shipped.len());
    if shipped.len() != a.items / 3 + usize::from(a.items % 3 > 2) {
        return Err(format!("expected {} shipped orders in the index", a.items / 3).into());
    }

    println!("A second backfill writes nothing");
    let again = table.backfill::<Order>().segments(a.segments).run().await?;
    println!("   -> {again}");
    if again.written != 0 {
        return Err("the second backfill wrote items".into());
    }
    let capacity = table.capacity();
    println!("Capacity of it all: {:?}", capacity.entity("Order"));
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    main_().await
}
