//! A table export turned into one Parquet file per entity, and queried with DuckDB:
//! `cargo run --example analytics --features analytics [-- --items N --out DIR]`.
//!
//! Writes a full export of the seed chat design (`examples/chat/model.rs`) as DynamoDB's export
//! to S3 leaves it (`<prefix>/AWSDynamoDB/<ExportId>/` with `manifest-summary.json`,
//! `manifest-files.json` and gzipped DynamoDB JSON data files; no AWS account needed), reads it
//! with `TableExport`, writes `<Entity>.parquet` for each of the seven entities, and, when
//! Python with `duckdb` is installed (`pip install duckdb`; `PYTHON` names the interpreter,
//! `python3` by default), runs a query joining the messages with their rooms and prints it.
//! Prints items per second for reading the export and for writing each file.

mod export;
#[allow(dead_code)]
#[path = "../chat/model.rs"]
mod model;

use std::path::{Path, PathBuf};
use std::time::Instant;

use dynamo_entity::Entity;
use dynamo_entity::export::TableExport;
use model::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut items = 20_000usize;
    let mut out = PathBuf::from("target/analytics-example");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--items" => items = args.next().ok_or("--items N")?.parse()?,
            "--out" => out = args.next().ok_or("--out DIR")?.into(),
            other => return Err(format!("unknown argument `{other}`: --items N, --out DIR").into()),
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    let started = Instant::now();
    let dir = export::write_export(&out, items)?;
    println!("wrote an export of {items} chat items in {:.1?}: {}", started.elapsed(), dir.display());

    let export = TableExport::open(&dir)?;
    let started = Instant::now();
    let mut read = 0u64;
    for message in export.items::<Message>() {
        message?;
        read += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "read {read} Message items in {secs:.2} s ({:.0} items/s of the export's {} lines; {} stepped over), {} threads",
        (read + export.skipped()) as f64 / secs,
        export.item_count().unwrap_or(0),
        export.skipped(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );

    let parquet = out.join("parquet");
    std::fs::create_dir_all(&parquet)?;
    macro_rules! write {
        ($($e:ty),*) => {$(
            let path = parquet.join(format!("{}.parquet", <$e>::SCHEMA.entity_type));
            let started = Instant::now();
            let rows = export.write_parquet::<$e>(&path)?;
            let secs = started.elapsed().as_secs_f64();
            println!("  {:<26} {rows:>9} rows in {secs:.2} s ({:.0} rows/s)", path.file_name().unwrap().to_string_lossy(), rows as f64 / secs);
        )*};
    }
    println!("one Parquet file per entity in {}:", parquet.display());
    write!(User, Connection, UserConnection, ChatParticipation, ChatRoom, Message, LastMessage);

    duckdb(&parquet);
    Ok(())
}

/// The query, run by DuckDB through Python when it is installed.
fn duckdb(parquet: &Path) {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let script = r#"
import sys
try:
    import duckdb
except ImportError:
    sys.exit(3)
d = sys.argv[1]
print(duckdb.sql(f"""
    SELECT r.name AS room, count(*) AS messages, count(DISTINCT m.senderId) AS senders,
           min(m.createdAt) AS first, max(m.createdAt) AS last
    FROM '{d}/Message.parquet' m JOIN '{d}/ChatRoom.parquet' r USING (chatRoomId)
    GROUP BY r.name ORDER BY messages DESC, room LIMIT 5
"""))
"#;
    match std::process::Command::new(&python).arg("-c").arg(script).arg(parquet).status() {
        Ok(s) if s.success() => {}
        Ok(s) if s.code() == Some(3) => {
            println!("DuckDB is not installed for {python} (`pip install duckdb`): the query was skipped")
        }
        Ok(s) => println!("the DuckDB query failed ({s})"),
        Err(e) => println!("{python} could not be run ({e}): the DuckDB query was skipped"),
    }
}
