//! Cost per call of each access pattern, estimated from item sizes by DynamoDB's rules: a write
//! costs one WCU per KB of the item (rounded up) on the table and on every index that holds it,
//! a read one RCU per 4 KB read (rounded up, per request), half that eventually consistent.
//! [`TableDefinition::to_markdown_with_costs`] prints them.

use std::fmt::Write as _;

use super::{Projection, TableDefinition};
use crate::error::Error;
use crate::model::entity::{Entity, IndexKind};
use crate::size::item_size;

/// What an index item holds at most under a `KEYS_ONLY` or `INCLUDE` projection, for the
/// estimates: the keys and a few attributes fit in one KB.
const PROJECTED_BYTES: usize = 1024;

/// Item sizes for the cost estimates: given per entity, or measured on a sample item.
///
/// ```
/// use dynamo_entity_runtime::ItemSizes;
///
/// let sizes = ItemSizes::new().entity("Order", 1800).query_items(50);
/// assert_eq!(sizes.size_of("Order"), Some(1800));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemSizes {
    sizes: Vec<(String, usize)>,
    query_items: u32,
}

impl Default for ItemSizes {
    /// No sizes; queries of 25 items.
    fn default() -> Self {
        ItemSizes { sizes: Vec::new(), query_items: 25 }
    }
}

impl ItemSizes {
    /// No sizes; queries of 25 items.
    pub fn new() -> Self {
        Self::default()
    }

    /// `entity`'s items weigh `bytes` (by DynamoDB's rules: attribute names and values).
    pub fn entity(mut self, entity: &str, bytes: usize) -> Self {
        self.sizes.retain(|(e, _)| e != entity);
        self.sizes.push((entity.to_owned(), bytes));
        self
    }

    /// `E`'s items weigh what `sample` weighs, measured on its encoded item.
    pub fn sample<E: Entity>(self, sample: &E) -> Result<Self, Error> {
        let bytes = item_size(&sample.to_item()?);
        Ok(self.entity(E::SCHEMA.entity_type, bytes))
    }

    /// The items a query returns, for its estimate (default 25).
    pub fn query_items(mut self, n: u32) -> Self {
        self.query_items = n.max(1);
        self
    }

    /// The size given or measured for `entity`.
    pub fn size_of(&self, entity: &str) -> Option<usize> {
        self.sizes.iter().find(|(e, _)| e == entity).map(|(_, b)| *b)
    }
}

/// Write units of one item of `bytes`.
pub(crate) fn write_units(bytes: usize) -> f64 {
    bytes.div_ceil(1024).max(1) as f64
}

/// Read units of one request reading `bytes`, strongly consistent.
pub(crate) fn read_units(bytes: usize) -> f64 {
    bytes.div_ceil(4096).max(1) as f64
}

fn projected(projection: Option<&Projection>, bytes: usize) -> usize {
    match projection {
        Some(Projection::All) | None => bytes,
        Some(_) => bytes.min(PROJECTED_BYTES),
    }
}

fn units(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v}") }
}

impl TableDefinition {
    /// [`TableDefinition::to_markdown`], followed by the estimated cost per call of each access
    /// pattern of the entities `sizes` knows: a put (WCU on the table and on each index that
    /// holds the item, whole under an `ALL` projection, at most 1 KB under another), a get and a
    /// query of `sizes`' item count on the table and on each index (RCU eventually and strongly
    /// consistent; a global index reads eventually only). On-demand tables bill the same numbers
    /// of request units. Estimates: a sparse index holds fewer items, a query with a filter reads
    /// what it drops, and items of other entities in a partition are read too.
    pub fn to_markdown_with_costs(&self, table_name: &str, sizes: &ItemSizes) -> String {
        let mut out = self.to_markdown(table_name);
        let n = sizes.query_items;
        let _ = writeln!(out, "\n## Cost per call (estimates)\n");
        let _ = writeln!(out, "| Entity | Item size | Call | Index | RCU eventual | RCU strong | WCU |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |");
        for e in &self.entities {
            let Some(bytes) = sizes.size_of(e.entity_type) else { continue };
            let projection = |name: &str| self.indexes.iter().find(|i| i.name == name).map(|i| &i.projection);
            let size = format!("{bytes} B");
            let writes: f64 = write_units(bytes)
                + e.indexes.iter().map(|i| write_units(projected(projection(i.name), bytes))).sum::<f64>();
            let entity = e.entity_type;
            let _ = writeln!(out, "| {entity} | {size} | put | (table) | — | — | {} |", units(writes));
            let get = read_units(bytes);
            let _ = writeln!(out, "| {entity} | {size} | get | (table) | {} | {} | — |", units(get / 2.0), units(get));
            let query = read_units(bytes * n as usize);
            let _ = writeln!(
                out,
                "| {entity} | {size} | query of {n} | (table) | {} | {} | — |",
                units(query / 2.0),
                units(query)
            );
            for i in e.indexes {
                let read = read_units(projected(projection(i.name), bytes) * n as usize);
                let strong = if i.kind == IndexKind::Global { "—".to_owned() } else { units(read) };
                let _ = writeln!(
                    out,
                    "| {entity} | {size} | query of {n} | {} | {} | {strong} | — |",
                    i.name,
                    units(read / 2.0)
                );
            }
        }
        out
    }
}
