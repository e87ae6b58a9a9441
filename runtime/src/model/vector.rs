//! Vector indexes (DynamoDB `VectorIndexes`, `SearchVectors`, August 2026): what
//! `#[vector(..)]` describes, and the checks of a vector before it is written or searched with.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::model::Item;
use crate::model::entity::{EntitySchema, IndexProjection};

/// The most dimensions DynamoDB allows a vector index.
pub const MAX_VECTOR_DIMENSIONS: u32 = 4096;

/// How a vector index compares vectors (DynamoDB's `DistanceFunction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distance {
    /// `COSINE`.
    Cosine,
    /// `EUCLIDEAN`.
    Euclidean,
    /// `DOT_PRODUCT`.
    DotProduct,
}

impl Distance {
    /// DynamoDB's name: `COSINE`, `EUCLIDEAN` or `DOT_PRODUCT`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Distance::Cosine => "COSINE",
            Distance::Euclidean => "EUCLIDEAN",
            Distance::DotProduct => "DOT_PRODUCT",
        }
    }

    /// The distance DynamoDB names `name` (`None` for another name).
    pub fn from_name(name: &str) -> Option<Distance> {
        [Distance::Cosine, Distance::Euclidean, Distance::DotProduct].into_iter().find(|d| d.as_str() == name)
    }
}

/// A vector index an entity's items are searched through: `#[vector(..)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorIndexSchema {
    /// The index name.
    pub name: &'static str,
    /// The vector attribute (a list of numbers, `Vec<f32>` in the struct).
    pub attr: &'static str,
    /// The number of dimensions every vector has (1 to [`MAX_VECTOR_DIMENSIONS`]).
    pub dimensions: u32,
    /// How vectors are compared.
    pub distance: Distance,
    /// The search schema's `HASH` attributes: a search names each by equality.
    pub hash: &'static [&'static str],
    /// The search schema's `INLINE_FILTER` attributes: a search may compare them.
    pub filter: &'static [&'static str],
    /// The attributes the index holds besides its search schema and the table's keys.
    pub projection: IndexProjection,
    /// The DynamoDB types of the search schema's attributes, `hash` then `filter` (each also an
    /// `AttributeDefinitions` entry of the table, as DynamoDB requires).
    pub types: &'static [crate::key::attr::AttributeType],
}

impl VectorIndexSchema {
    /// A vector index projecting every attribute. Called by generated code.
    #[doc(hidden)]
    pub const fn new(
        name: &'static str,
        attr: &'static str,
        dimensions: u32,
        distance: Distance,
        hash: &'static [&'static str],
        filter: &'static [&'static str],
    ) -> Self {
        VectorIndexSchema {
            name,
            attr,
            dimensions,
            distance,
            hash,
            filter,
            projection: IndexProjection::All,
            types: &[],
        }
    }

    /// The index with the types of its search schema's attributes (`hash` then `filter`).
    /// Called by generated code.
    #[doc(hidden)]
    pub const fn with_types(self, types: &'static [crate::key::attr::AttributeType]) -> Self {
        VectorIndexSchema { types, ..self }
    }

    /// The search schema's attributes with their DynamoDB types (`S` where none was given).
    pub fn search_attributes(&self) -> impl Iterator<Item = (&'static str, crate::key::attr::AttributeType)> + '_ {
        let types = self.types;
        self.hash
            .iter()
            .chain(self.filter)
            .enumerate()
            .map(move |(i, a)| (*a, types.get(i).copied().unwrap_or_default()))
    }

    /// The index with this projection. Called by generated code.
    #[doc(hidden)]
    pub const fn with_projection(self, projection: IndexProjection) -> Self {
        VectorIndexSchema { projection, ..self }
    }

    /// Whether a search through this index finds `attr` in `entity`'s items: the table's keys,
    /// the search schema, the vector and what the projection names.
    pub fn holds(&self, entity: &EntitySchema, attr: &str) -> bool {
        let key = attr == entity.pk.attr
            || entity.sk.is_some_and(|k| k.attr == attr)
            || attr == self.attr
            || self.hash.contains(&attr)
            || self.filter.contains(&attr);
        key || match self.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(attrs) => attrs.contains(&attr) || attr == entity.type_attr,
        }
    }

    /// Whether `attr` is in the search schema (`HASH` or `INLINE_FILTER`).
    pub fn searches_on(&self, attr: &str) -> bool {
        self.hash.contains(&attr) || self.filter.contains(&attr)
    }
}

/// [`Error::Validation`] unless `vector` has `dimensions` finite values (DynamoDB refuses
/// any other vector of the index).
pub fn check_vector(index: &str, attr: &str, dimensions: u32, vector: &[f32]) -> Result<(), Error> {
    if vector.len() != dimensions as usize {
        return Err(Error::Validation(format!(
            "`{attr}` of vector index {index} has {} dimensions; the index has {dimensions}",
            vector.len()
        )));
    }
    if let Some((at, v)) = vector.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(Error::Validation(format!(
            "`{attr}` of vector index {index} holds {v} at {at}: a vector holds finite numbers only"
        )));
    }
    Ok(())
}

/// Checks the vectors of an item about to be written: each vector index's attribute, where the
/// item has one, is a list of `dimensions` finite numbers ([`Error::Validation`] otherwise).
pub(crate) fn check_item(schema: &EntitySchema, item: &Item) -> Result<(), Error> {
    for v in schema.vectors {
        if let Some(value) = item.get(v.attr) {
            check_value(v, value)?;
        }
    }
    Ok(())
}

/// Checks `value`, written to attribute `attr` of `schema`'s items (an update's `SET`): the
/// vector of each vector index on `attr`.
pub(crate) fn check_attribute(schema: &EntitySchema, attr: &str, value: &AttributeValue) -> Result<(), Error> {
    for v in schema.vectors.iter().filter(|v| v.attr == attr) {
        check_value(v, value)?;
    }
    Ok(())
}

/// Checks an update's write under the vector attribute `attr` of `schema` (a path into it,
/// `path` as written): `element` is `i` for a path `attr[i]` (`None` for any other), `value` the
/// value set (`None`: a remove, an `ADD`, an append). One such write keeps the vector's length
/// and finite numbers, and only it is let through: `SET attr[i] = x` (or its `if_not_exists`)
/// of a finite number at an index below the dimensions, which replaces the element the stored
/// vector holds there (every write of the library stores exactly `dimensions` numbers). Any
/// other is refused ([`Error::Validation`]): a remove shortens the vector; a `SET` at an index at
/// or past the dimensions adds an element (DynamoDB sets an index past a list's end as a new last
/// element); an `ADD`'s sum and an append's length cannot be known before writing. Set the whole
/// vector instead.
pub(crate) fn check_element(
    schema: &EntitySchema,
    attr: &str,
    path: &str,
    element: Option<u32>,
    value: Option<&AttributeValue>,
) -> Result<(), Error> {
    for v in schema.vectors.iter().filter(|v| v.attr == attr) {
        let refused = |why: String| {
            Err(Error::Validation(format!(
                "an update of {} writes `{path}`, inside the vector of vector index {} ({} dimensions): {why}; set \
                 the whole vector instead, whose length is checked",
                schema.entity_type, v.name, v.dimensions
            )))
        };
        match (element, value) {
            (Some(i), Some(value)) if i < v.dimensions => match value {
                AttributeValue::N(n) if n.parse::<f32>().is_ok_and(f32::is_finite) => {}
                _ => return refused("the value set is not a finite number".to_owned()),
            },
            (Some(i), Some(_)) => {
                return refused(format!("index {i} is past the vector's last element, so DynamoDB would add one"));
            }
            (Some(_), None) => {
                return refused(
                    "only setting an element keeps its length and its numbers finite (a remove shortens it, \
                     an `ADD`'s sum cannot be checked before writing)"
                        .to_owned(),
                );
            }
            (None, _) => return refused("only an element (`at(i)`) can be set in place".to_owned()),
        }
    }
    Ok(())
}

/// [`check_vector`] of a stored value: a list of numbers.
fn check_value(v: &VectorIndexSchema, value: &AttributeValue) -> Result<(), Error> {
    let AttributeValue::L(list) = value else {
        return Err(Error::Validation(format!("`{}` of vector index {} is not a list of numbers", v.attr, v.name)));
    };
    let mut numbers = Vec::with_capacity(list.len());
    for n in list {
        match n {
            AttributeValue::N(text) => numbers.push(text.parse::<f32>().unwrap_or(f32::NAN)),
            _ => {
                return Err(Error::Validation(format!(
                    "`{}` of vector index {} holds a value that is not a number",
                    v.attr, v.name
                )));
            }
        }
    }
    check_vector(v.name, v.attr, v.dimensions, &numbers)
}

/// The vector as DynamoDB's list of numbers.
pub(crate) fn to_list(vector: &[f32]) -> Vec<AttributeValue> {
    vector.iter().map(|v| AttributeValue::N(v.to_string())).collect()
}
