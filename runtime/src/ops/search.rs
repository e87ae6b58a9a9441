//! Vector search (`SearchVectors`): what the generated `search_*` builders produce, as a plain
//! description that can be inspected without a database ([`Search::request`]) and executed by
//! [`Table::search`].

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Condition;
use crate::model::collection::Readable;
use crate::model::entity::{EntitySchema, IndexProjection};
use crate::model::vector::VectorIndexSchema;
use crate::model::view::{HasFields, View};
use crate::table::Table;

/// A vector search of entity `E` (or of a view of it), built by the generated `search_*`
/// functions: the index, the query vector, equality on every `HASH` attribute of the search
/// schema, equalities of its `INLINE_FILTER` attributes, and `top_k`.
pub struct Search<E> {
    schema: &'static EntitySchema,
    index: &'static VectorIndexSchema,
    vector: Vec<f32>,
    /// The `HASH` attributes fixed so far, and their values (`None`: not encodable; the
    /// condition says why).
    hash: Vec<(&'static str, Option<AttributeValue>)>,
    condition: Option<Condition<()>>,
    top_k: Option<u32>,
    projection: Option<Vec<&'static str>>,
    /// The key fields' attributes, which a read restores from the table's keys when the index
    /// does not hold them.
    restorable: &'static [&'static str],
    /// The entity and the key text of the tenant the search fixes (its `HASH` value as the table's
    /// partition key writes it: `0000000007` for a `u32` 7), which a tenant handle compares with
    /// its id ([`Search::__tenant_key`]).
    tenant_key: Option<(&'static str, Result<String, crate::error::KeyError>)>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Search<E> {
    fn clone(&self) -> Self {
        Search {
            schema: self.schema,
            index: self.index,
            vector: self.vector.clone(),
            hash: self.hash.clone(),
            condition: self.condition.clone(),
            top_k: self.top_k,
            projection: self.projection.clone(),
            restorable: self.restorable,
            tenant_key: self.tenant_key.clone(),
            _entity: PhantomData,
        }
    }
}

impl<E> core::fmt::Debug for Search<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Search")
            .field("entity", &self.schema.entity_type)
            .field("index", &self.index.name)
            .field("dimensions", &self.vector.len())
            .field("hash", &self.hash)
            .field("condition", &self.condition)
            .field("top_k", &self.top_k)
            .finish()
    }
}

/// How many results a search asks for when it does not say ([`Search::top_k`]): `SearchVectors`
/// requires its `TopK`.
pub const DEFAULT_TOP_K: u32 = 10;

/// The most results one `SearchVectors` returns (its `TopK` is 1 to 100).
pub const MAX_TOP_K: u32 = 100;

/// A vector search as DynamoDB's `SearchVectors` takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// `IndexName`: the vector index.
    pub index_name: &'static str,
    /// `SearchVector`: the query vector as a list of numbers.
    pub search_vector: Vec<AttributeValue>,
    /// `SearchConditionExpression`: equality on the `HASH` attributes, comparisons of the
    /// `INLINE_FILTER` ones, every name and value behind a placeholder.
    pub search_condition_expression: Option<String>,
    /// `ExpressionAttributeNames`.
    pub expression_attribute_names: HashMap<String, String>,
    /// `ExpressionAttributeValues`.
    pub expression_attribute_values: HashMap<String, AttributeValue>,
    /// `TopK`: how many results, best first (a required member: [`DEFAULT_TOP_K`] unless the
    /// search says otherwise).
    pub top_k: u32,
    /// `ProjectionExpression`, for a view: the attributes read.
    pub projection_expression: Option<String>,
}

impl<E: HasFields> Search<E> {
    /// Starts a search of `E`'s items through its vector index `index`, with `vector`. Called by
    /// generated code; an index the entity does not have is [`Error::Validation`] when sent.
    #[doc(hidden)]
    pub fn __new(index: &'static str, vector: &[f32]) -> Self {
        const NONE: VectorIndexSchema =
            VectorIndexSchema::new("", "", 0, crate::model::vector::Distance::Cosine, &[], &[]);
        static MISSING: VectorIndexSchema = NONE;
        Search {
            schema: &E::SCHEMA,
            index: E::SCHEMA.vector_index(index).unwrap_or(&MISSING),
            vector: vector.to_vec(),
            hash: Vec::new(),
            condition: None,
            top_k: None,
            projection: None,
            restorable: E::__key_field_attributes(None),
            tenant_key: None,
            _entity: PhantomData,
        }
    }
}

impl<E: HasFields> Search<E> {
    /// The same search, reading view `V` of the entity: a ProjectionExpression of exactly its
    /// attributes (and the table's keys), for an index that projects fewer attributes than the
    /// entity has. An attribute of the view that the index does not hold is
    /// [`Error::NotProjected`] before sending.
    pub fn view<V: View<Entity = E>>(self) -> Search<V> {
        let mut attrs = V::attributes();
        attrs.push(self.schema.pk.attr);
        attrs.extend(self.schema.sk.map(|k| k.attr));
        if !self.schema.type_attr.is_empty() && self.index.holds(self.schema, self.schema.type_attr) {
            attrs.push(self.schema.type_attr);
        }
        let mut seen: Vec<&'static str> = Vec::with_capacity(attrs.len());
        for a in attrs {
            let restored = self.restorable.contains(&a) && !self.index.holds(self.schema, a);
            if !seen.contains(&a) && !restored {
                seen.push(a);
            }
        }
        Search {
            schema: self.schema,
            index: self.index,
            vector: self.vector,
            hash: self.hash,
            condition: self.condition,
            top_k: self.top_k,
            projection: Some(seen),
            restorable: self.restorable,
            tenant_key: self.tenant_key,
            _entity: PhantomData,
        }
    }
}

/// An inline filter of a vector search on one of the index's filter fields:
/// `Doc::search_similar(t, &v).category().eq("manuals")`. DynamoDB's `SearchConditionExpression`
/// is an AND of equalities only, so `eq` is its one operator.
#[must_use = "a search filter does nothing until `eq` is called"]
pub struct SearchFilter<E, T, S> {
    search: Search<E>,
    path: crate::expr::Path<E, T>,
    _search: core::marker::PhantomData<fn() -> S>,
}

impl<E, T, S> core::fmt::Debug for SearchFilter<E, T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SearchFilter").field("path", &self.path).finish_non_exhaustive()
    }
}

impl<E, T, S: From<Search<E>>> SearchFilter<E, T, S> {
    /// A filter on `path` of `search`. Called by generated code.
    #[doc(hidden)]
    pub fn __new(search: Search<E>, path: impl crate::expr::FieldPath<E, Value = T>) -> Self {
        SearchFilter { search, path: path.__path(), _search: core::marker::PhantomData }
    }

    /// Items whose value here equals `value`.
    pub fn eq(self, value: impl crate::expr::Value<T>) -> S {
        S::from(self.search.__and(self.path.eq(value)))
    }
}

impl<E> Search<E> {
    /// Fixes the `HASH` attribute `attr` with `condition` (its equality). Called by generated
    /// code.
    #[doc(hidden)]
    pub fn __hash<S>(mut self, attr: &'static str, condition: Condition<S>) -> Self {
        let (mut names, mut values) = (HashMap::new(), HashMap::new());
        let value = condition.render(&mut names, &mut values).ok().and_then(|_| values.into_values().next());
        self.hash.push((attr, value));
        Condition::and_into(&mut self.condition, condition.cast());
        self
    }

    /// The key text of the tenant the search fixes (the `HASH` value of the tenant field, written
    /// as the table's partition key writes it), for entity `entity`: what a tenant handle compares
    /// with its id. Called by generated code.
    #[doc(hidden)]
    pub fn __tenant_key(mut self, entity: &'static str, text: Result<String, crate::error::KeyError>) -> Self {
        self.tenant_key = Some((entity, text));
        self
    }

    /// Adds an equality of an `INLINE_FILTER` attribute ([`SearchFilter::eq`]).
    #[doc(hidden)]
    pub fn __and<S>(mut self, condition: Condition<S>) -> Self {
        Condition::and_into(&mut self.condition, condition.cast());
        self
    }

    /// The `top_k` most similar items (DynamoDB's `TopK`, 1 to [`MAX_TOP_K`]; [`DEFAULT_TOP_K`]
    /// when not said); 0 or more than [`MAX_TOP_K`] is [`Error::Validation`] before sending.
    pub fn top_k(mut self, n: u32) -> Self {
        self.top_k = Some(n);
        self
    }

    /// The vector index searched.
    pub fn index_name(&self) -> &'static str {
        self.index.name
    }

    /// The request this search sends, or why it cannot be sent: an index the entity lacks, a
    /// vector of another length than the index's dimensions or holding NaN or an infinity, a
    /// `HASH` attribute not fixed, a condition on an attribute outside the search schema,
    /// `top_k(0)`.
    pub fn request(&self) -> Result<SearchRequest, Error> {
        request_of(
            self.schema,
            self.index,
            &self.vector,
            &self.hash,
            self.condition.as_ref(),
            self.top_k,
            self.projection.as_deref(),
        )
    }
}

/// [`Search::request`], for every entity.
fn request_of(
    schema: &EntitySchema,
    index: &'static VectorIndexSchema,
    vector: &[f32],
    hash: &[(&'static str, Option<AttributeValue>)],
    condition: Option<&Condition<()>>,
    top_k: Option<u32>,
    projection: Option<&[&'static str]>,
) -> Result<SearchRequest, Error> {
    if index.name.is_empty() {
        return Err(Error::Validation(format!("{} has no such vector index", schema.entity_type)));
    }
    crate::model::vector::check_vector(index.name, index.attr, index.dimensions, vector)?;
    if let Some(missing) = index.hash.iter().find(|a| !hash.iter().any(|(h, _)| h == *a)) {
        return Err(Error::Validation(format!(
            "a search of vector index {} names no value of `{missing}`, a HASH attribute of its search schema",
            index.name
        )));
    }
    let top_k = top_k.unwrap_or(DEFAULT_TOP_K);
    if top_k == 0 {
        return Err(Error::Validation("top_k(0): a search must ask for at least one item".into()));
    }
    if top_k > MAX_TOP_K {
        return Err(Error::Validation(format!(
            "top_k({top_k}): DynamoDB's TopK is 1 to {MAX_TOP_K}; search again with a condition that narrows it"
        )));
    }
    let mut names = HashMap::new();
    let mut values = HashMap::new();
    let search_condition_expression = match condition {
        Some(c) => {
            let text = c.render(&mut names, &mut values).map_err(Error::Validation)?;
            if let Some(attr) = names.values().find(|a| !index.searches_on(a)) {
                return Err(Error::Validation(format!(
                    "the search condition names `{attr}`, which is not in the search schema of vector index {}",
                    index.name
                )));
            }
            Some(text)
        }
        None => None,
    };
    let projection_expression = projection.map(|attrs| crate::model::view::projection_expression(attrs, &mut names));
    Ok(SearchRequest {
        index_name: index.name,
        search_vector: crate::model::vector::to_list(vector),
        search_condition_expression,
        expression_attribute_names: names,
        expression_attribute_values: values,
        top_k,
        projection_expression,
    })
}

/// The attributes a search through `index` needs that the index does not hold: those of
/// `projection` (a view's), or every stored attribute (a whole entity).
fn not_projected(
    schema: &EntitySchema,
    index: &VectorIndexSchema,
    projection: Option<&[&'static str]>,
    restorable: &[&'static str],
) -> Vec<&'static str> {
    if index.projection == IndexProjection::All {
        return Vec::new();
    }
    let attrs = projection.unwrap_or(schema.attributes).iter().copied();
    attrs.filter(|a| !index.holds(schema, a) && !restorable.contains(a)).collect()
}

impl Table {
    /// Sends a vector search (`SearchVectors`): the items most similar to the search's vector,
    /// each with DynamoDB's score, best first (in DynamoDB's order). DynamoDB returns no vector
    /// unless the projection names it: a whole entity comes back with its vector field empty
    /// (`get` it to read the vector). Items of other entities the
    /// index holds are stepped over, as queries step over them (so fewer than `top_k` may come
    /// back). On a tenant handle the search schema's `HASH` must be the tenant, fixed to the
    /// handle's id. The capacity report gets the vector search bytes DynamoDB reports.
    pub async fn search<E: Readable>(&self, search: impl Into<Search<E>>) -> Result<Vec<(E, f64)>, Error> {
        let search = search.into();
        let request = search.request()?;
        let (schema, index) = (search.schema, search.index);
        if self.reads_whole_items(schema) {
            return Err(Error::Validation(format!(
                "a vector search of {}, which this handle encrypts: not supported",
                schema.entity_type
            )));
        }
        if let Some(t) = &self.tenant {
            let fixed: Vec<&str> = search.hash.iter().map(|(a, _)| *a).collect();
            let tenant_key = search.tenant_key.as_ref().map(|(entity, text)| (*entity, text.as_deref()));
            t.check_search(schema, index, &fixed, tenant_key)?;
        }
        let missing = not_projected(schema, index, search.projection.as_deref(), search.restorable);
        if !missing.is_empty() {
            return Err(Error::NotProjected { entity: E::NAME, index: index.name, missing });
        }
        let names = request.expression_attribute_names;
        let values = request.expression_attribute_values;
        let sdk = self
            .client()
            .search_vectors()
            .table_name(self.name())
            .index_name(index.name)
            .set_search_vector(Some(request.search_vector))
            .set_search_condition_expression(request.search_condition_expression)
            .set_expression_attribute_names((!names.is_empty()).then_some(names))
            .set_expression_attribute_values((!values.is_empty()).then_some(values))
            .top_k(i32::try_from(request.top_k).unwrap_or(i32::MAX))
            .set_projection_expression(request.projection_expression)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let call = crate::send::call("SearchVectors", self.name(), E::NAME, Some(index.name)).of(schema);
        let out = crate::send::send(&self.meter, &call, sdk).await.map_err(crate::error::sdk_error)?;
        let results = out.search_results.unwrap_or_default();
        let mut hits = Vec::with_capacity(results.len());
        let mut skipped = 0usize;
        for r in results {
            // DynamoDB leaves the vector out of a result unless the projection names it: the
            // item is read with an empty vector (which no write path stores: a put refuses it).
            let item = r.item.map(|mut item| {
                item.entry(index.attr.to_owned()).or_insert_with(|| AttributeValue::L(Vec::new()));
                item
            });
            match item.map(E::read) {
                Some(Some(read)) => hits.push((read?, r.score)),
                // Another entity's item, or (as the SDK's model allows) a result without one.
                _ => skipped += 1,
            }
        }
        call.span.record("items", hits.len());
        if skipped > 0 {
            tracing::debug!(parent: &call.span, skipped, "items of other entities stepped over");
        }
        Ok(hits)
    }
}
