//! The table drawn: [`TableDefinition::to_html`], one self-contained HTML page (inline SVG, no
//! script, nothing loaded from elsewhere) laid out as NoSQL Workbench's aggregate view: sample
//! items grouped by partition, sort keys beside them, one colour per entity with a legend, each
//! index's key attributes in columns of their own, and the access patterns with the key
//! condition each sends and the entities it returns.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use super::TableDefinition;
use crate::model::Item;
use crate::model::entity::{EntitySchema, IndexKind, KeySchema};

/// Colours of the entities, in order (a qualitative palette readable on white).
const COLOURS: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
/// Cell width and height, in pixels.
const CELL_W: usize = 190;
const ROW_H: usize = 26;
/// Characters shown in a cell before `…` (the whole value is the cell's tooltip).
const CELL_CHARS: usize = 26;

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A value as a cell shows it: strings and numbers as they are, others in brief.
fn shown(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        AttributeValue::Bool(b) => b.to_string(),
        AttributeValue::Null(_) => "null".to_owned(),
        AttributeValue::B(b) => format!("<{} bytes>", b.as_ref().len()),
        AttributeValue::L(l) => format!("[{} items]", l.len()),
        AttributeValue::M(m) => format!("{{{} members}}", m.len()),
        AttributeValue::Ss(s) => format!("{{{}}}", s.join(", ")),
        AttributeValue::Ns(s) => format!("{{{}}}", s.join(", ")),
        other => format!("{other:?}"),
    }
}

fn short(text: &str) -> String {
    if text.chars().count() <= CELL_CHARS {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(CELL_CHARS - 1).collect();
        s.push('…');
        s
    }
}

/// The entity an item is, by its type attribute, else by its keys' literal text (as
/// [`super::workbench`] tells facets apart).
fn entity_of<'e>(entities: &'e [EntitySchema], item: &Item) -> Option<&'e EntitySchema> {
    let literal = |k: &KeySchema| k.template.split('<').next().unwrap_or_default().to_owned();
    let starts =
        |k: &KeySchema| item.get(k.attr).and_then(|v| k.text_of(v)).is_some_and(|t| t.starts_with(&literal(k)));
    entities.iter().find(|e| match item.get(e.type_attr) {
        Some(AttributeValue::S(t)) if !e.type_attr.is_empty() => t == e.entity_type,
        _ => starts(&e.pk) && e.sk.as_ref().is_none_or(starts),
    })
}

/// A key condition as the query sends it: `PK = ORDER#<id>`, then the sort key's comparisons.
fn condition(pk: &[&KeySchema], sk: &[&KeySchema]) -> String {
    let mut out: Vec<String> = pk.iter().map(|k| format!("{} = {}", k.attr, k.template)).collect();
    if let Some((last, first)) = sk.split_last() {
        out.extend(first.iter().map(|k| format!("{} = {}", k.attr, k.template)));
        let literal = last.template.split('<').next().unwrap_or_default();
        if !last.template.contains('<') && !last.template.is_empty() {
            // A constant sort key: one item per partition, read by equality.
            out.push(format!("{} = {}", last.attr, last.template));
            return out.join(" AND ");
        }
        let ops = if last.ty == crate::key::attr::AttributeType::S && !literal.is_empty() {
            format!("begins_with({}, \"{literal}\") | =, <, >, between {}", last.attr, last.template)
        } else {
            format!("=, <, >, between on {} ({})", last.attr, last.template)
        };
        out.push(format!("[{ops}]"));
    }
    out.join(" AND ")
}

impl TableDefinition {
    /// The table drawn as one self-contained HTML page titled `table_name` (see the module
    /// documentation): `samples` are items as stored (`order.to_item()?`), grouped by partition
    /// key and ordered by sort key, each in its entity's colour.
    pub fn to_html(&self, table_name: &str, samples: &[Item]) -> String {
        let entities = &self.entities;
        let colour = |e: Option<&EntitySchema>| {
            e.and_then(|e| entities.iter().position(|x| x.entity_type == e.entity_type))
                .map_or("#999999", |i| COLOURS[i % COLOURS.len()])
        };
        // Columns: the table's keys, the entity, each index's own key attributes, then the rest.
        let mut columns: Vec<String> = vec![self.pk_attr.clone()];
        columns.extend(self.sk_attr.clone());
        let key_columns = columns.len();
        for i in self.indexes.iter() {
            for a in i.pk_attrs.iter().chain(&i.sk_attrs) {
                if !columns.contains(a) {
                    columns.push(a.clone());
                }
            }
        }
        let index_columns = columns.len();
        let mut others: Vec<String> = Vec::new();
        for item in samples {
            let mut names: Vec<&String> = item.keys().collect();
            names.sort();
            for n in names {
                if !columns.contains(n) && !others.contains(n) {
                    others.push(n.clone());
                }
            }
        }
        columns.extend(others);
        // Rows grouped by partition (in the samples' first-seen order), sorted by sort key.
        let key_text = |item: &Item, attr: &str| item.get(attr).map(shown).unwrap_or_default();
        let mut partitions: Vec<(String, Vec<&Item>)> = Vec::new();
        for item in samples {
            let pk = key_text(item, &self.pk_attr);
            match partitions.iter_mut().find(|(p, _)| *p == pk) {
                Some((_, rows)) => rows.push(item),
                None => partitions.push((pk, vec![item])),
            }
        }
        if let Some(sk) = &self.sk_attr {
            for (_, rows) in &mut partitions {
                rows.sort_by_key(|i| key_text(i, sk));
            }
        }
        let entity_col = key_columns;
        let width = (columns.len() + 1) * CELL_W;
        let rows: usize = partitions.iter().map(|(_, r)| r.len()).sum();
        let height = (rows + 1) * ROW_H + 2;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" aria-label="items of {}">"#,
            escape(table_name)
        );
        // Header row.
        let header: Vec<String> = columns[..key_columns]
            .iter()
            .cloned()
            .chain(std::iter::once("entity".to_owned()))
            .chain(columns[key_columns..].iter().cloned())
            .collect();
        for (c, name) in header.iter().enumerate() {
            let class = if c < key_columns {
                "key"
            } else if c == entity_col {
                "entity"
            } else if c <= index_columns {
                "index"
            } else {
                "attr"
            };
            let x = c * CELL_W;
            let _ = writeln!(
                svg,
                r#"<rect class="h {class}" x="{x}" y="0" width="{CELL_W}" height="{ROW_H}"/><text class="ht" x="{}" y="17">{}</text>"#,
                x + 6,
                escape(&short(name))
            );
        }
        let mut y = ROW_H;
        for (n, (pk, items)) in partitions.iter().enumerate() {
            let band = if n % 2 == 0 { "#f7f7f7" } else { "#ffffff" };
            let h = items.len() * ROW_H;
            let _ = writeln!(
                svg,
                r##"<g class="partition"><rect x="0" y="{y}" width="{width}" height="{h}" fill="{band}" stroke="#cccccc"/><text class="pk" x="6" y="{}"><title>{}</title>{}</text>"##,
                y + 17,
                escape(pk),
                escape(&short(pk))
            );
            for (r, item) in items.iter().enumerate() {
                let ry = y + r * ROW_H;
                let entity = entity_of(entities, item);
                let fill = colour(entity);
                // Items of no entity: the unique guards the library writes (`UNIQUE#..`), or other code's.
                let guard = |a: &str| matches!(item.get(a), Some(AttributeValue::S(s)) if s.starts_with("UNIQUE#"));
                let name =
                    entity.map_or(if guard(&self.pk_attr) { "(unique guard)" } else { "(other)" }, |e| e.entity_type);
                let _ = writeln!(
                    svg,
                    r#"<rect class="item" x="{CELL_W}" y="{ry}" width="{}" height="{ROW_H}" fill="{fill}" fill-opacity="0.18" stroke="{fill}"/>"#,
                    width - CELL_W
                );
                let mut cells: Vec<(usize, String)> = Vec::new();
                for (c, attr) in columns.iter().enumerate().skip(1) {
                    let col = if c < key_columns { c } else { c + 1 };
                    if let Some(v) = item.get(attr) {
                        cells.push((col, shown(v)));
                    }
                }
                cells.push((entity_col, name.to_owned()));
                for (col, text) in cells {
                    let _ = writeln!(
                        svg,
                        r#"<text x="{}" y="{}"><title>{}</title>{}</text>"#,
                        col * CELL_W + 6,
                        ry + 17,
                        escape(&text),
                        escape(&short(&text))
                    );
                }
            }
            y += h;
            let _ = writeln!(svg, "</g>");
        }
        let _ = writeln!(svg, "</svg>");

        let mut legend = String::new();
        for (i, e) in entities.iter().enumerate() {
            let count = samples
                .iter()
                .filter(|s| entity_of(entities, s).is_some_and(|x| x.entity_type == e.entity_type))
                .count();
            let _ = writeln!(
                legend,
                r#"<li><span class="swatch" style="background:{}"></span>{} <small>({} sample{}; {} = {}{})</small></li>"#,
                COLOURS[i % COLOURS.len()],
                escape(e.entity_type),
                count,
                if count == 1 { "" } else { "s" },
                escape(e.pk.attr),
                escape(e.pk.template),
                e.sk.map(|k| format!(", {} = {}", escape(k.attr), escape(k.template))).unwrap_or_default()
            );
        }

        // Access patterns: per entity, the table and each index it has.
        let mut patterns: BTreeMap<(String, String), (String, Vec<&str>)> = BTreeMap::new();
        for e in entities {
            let mut add = |index: &str, pk: Vec<&KeySchema>, sk: Vec<&KeySchema>| {
                let text = condition(&pk, &sk);
                let entry = patterns.entry((index.to_owned(), text)).or_insert_with(|| (index.to_owned(), Vec::new()));
                entry.1.push(e.entity_type);
            };
            add("(table)", vec![&e.pk], e.sk.iter().collect());
            for i in e.indexes {
                let pk: Vec<&KeySchema> =
                    if i.kind == IndexKind::Local { vec![&e.pk] } else { i.partition_keys().iter().collect() };
                add(i.name, pk, i.sort_keys().iter().collect());
            }
        }
        let mut access = String::new();
        for ((_, text), (index, who)) in &patterns {
            let _ = writeln!(
                access,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape(index),
                escape(text),
                escape(&who.join(", "))
            );
        }
        let mut indexes = String::new();
        for i in &self.indexes {
            let kind = if i.kind == IndexKind::Global { "global" } else { "local" };
            let _ = writeln!(
                indexes,
                "<tr><td>{}</td><td>{kind}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&i.name),
                escape(&i.pk_attrs.join(" + ")),
                escape(&i.sk_attrs.join(" + ")),
                escape(i.projection.type_name())
            );
        }
        format!(
            r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }}
svg text {{ font: 12px ui-monospace, monospace; fill: #222; }}
svg .ht {{ font-weight: bold; }}
svg .h {{ fill: #e8e8e8; stroke: #bbbbbb; }}
svg .h.key {{ fill: #d6e4f0; }} svg .h.index {{ fill: #e6f0d6; }} svg .h.entity {{ fill: #f0e6d6; }}
.legend {{ list-style: none; padding: 0; }} .legend li {{ margin: 4px 0; }}
.swatch {{ display: inline-block; width: 14px; height: 14px; margin-right: 8px; vertical-align: middle; }}
table {{ border-collapse: collapse; margin: 12px 0; }} td, th {{ border: 1px solid #ccc; padding: 4px 8px; text-align: left; }}
.scroll {{ overflow-x: auto; border: 1px solid #ddd; }}
</style></head>
<body>
<h1>{title}</h1>
<p>Partition key <code>{pk}</code>{sk}. Items grouped by partition, sorted by sort key; key columns in blue, index key columns in green.</p>
<h2>Entities</h2>
<ul class="legend">
{legend}</ul>
<h2>Items</h2>
<div class="scroll">
{svg}</div>
<h2>Indexes</h2>
<table><tr><th>index</th><th>kind</th><th>partition key</th><th>sort key</th><th>projection</th></tr>
{indexes}</table>
<h2>Access patterns</h2>
<table><tr><th>table or index</th><th>key condition</th><th>returns</th></tr>
{access}</table>
</body></html>
"#,
            title = escape(table_name),
            pk = escape(&self.pk_attr),
            sk = self.sk_attr.as_deref().map(|s| format!(", sort key <code>{}</code>", escape(s))).unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_shortened() {
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(short("abc"), "abc");
        let long = "x".repeat(40);
        assert_eq!(short(&long).chars().count(), CELL_CHARS);
        assert!(short(&long).ends_with('…'));
    }
}
