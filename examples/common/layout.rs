//! Prints a table's single-table layout, shared by the examples.

use dynamo_entity::{AttributeValue, Error, Table, TableDefinition};

fn show(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::L(l) => format!("[{}]", l.iter().map(show).collect::<Vec<_>>().join(", ")),
        other => format!("{other:?}"),
    }
}

/// Prints every item as PK | SK | Type | other attributes, and draws the table
/// (`TableDefinition::to_html`) into `target/<example>.html`. (A Scan, for display only: every
/// access pattern below is a Get or a Query.)
pub async fn print(table: &Table, definition: &TableDefinition, example: &str) -> Result<(), Error> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let out = table
            .client()
            .scan()
            .table_name(table.name())
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| Error::Sdk(Box::new(e.into())))?;
        items.extend(out.items.unwrap_or_default());
        start = out.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    let cell = |item: &dynamo_entity::Item, k: &str| item.get(k).map(show).unwrap_or_default();
    items.sort_by_key(|i| (cell(i, "PK"), cell(i, "SK")));
    println!("Single-table layout of {} ({} items)\n", table.name(), items.len());
    println!("{:<22} | {:<36} | {:<17} | other attributes", "PK", "SK", "Type");
    println!("{}", "-".repeat(120));
    for item in &items {
        let mut others: Vec<String> = item
            .iter()
            .filter(|(k, _)| !["PK", "SK", "Type", "entityType", "entity_type"].contains(&k.as_str()))
            .map(|(k, v)| {
                let v = show(v);
                let v =
                    if v.chars().count() > 28 { format!("{}…", v.chars().take(27).collect::<String>()) } else { v };
                format!("{k}={v}")
            })
            .collect();
        others.sort();
        let kind =
            ["Type", "entityType", "entity_type"].iter().find_map(|a| item.get(*a)).map(show).unwrap_or_default();
        println!("{:<22} | {:<36} | {:<17} | {}", cell(item, "PK"), cell(item, "SK"), kind, others.join(", "));
    }
    println!();
    let dir =
        std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target").to_owned());
    let path = std::path::Path::new(&dir).join(format!("{example}.html"));
    std::fs::write(&path, definition.to_html(example, &items))
        .map_err(|e| Error::Validation(format!("cannot write {}: {e}", path.display())))?;
    println!("The table drawn: {}\n", path.display());
    Ok(())
}
