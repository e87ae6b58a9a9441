//! Views: structs holding a subset of an entity's fields (`#[derive(View)]`), read through a
//! ProjectionExpression of exactly their attributes, plus the keys and the type attribute.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::error::Error;
use crate::model::collection::Readable;
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::entity::EntitySchema;
use crate::ops::query::Query;
use crate::table::Table;

/// An entity with `<Name>::fields()`: implemented by `#[derive(Entity)]`.
pub trait HasFields: Entity {
    /// The generated `<Name>Fields`.
    type Fields;
    /// One typed path per stored field.
    fn fields() -> Self::Fields;
    /// The attributes of the key fields a view read through `index` can read back from the
    /// keys: the primary key's, and the index's.
    #[doc(hidden)]
    fn __key_field_attributes(index: Option<&str>) -> &'static [&'static str];
    /// Adds the attributes of key fields that `item` lacks, parsed from its keys (an item read
    /// through an index that does not hold them): the table's keys, and each index's it has.
    #[doc(hidden)]
    fn __restore_key_fields(item: &mut crate::model::Item) -> Result<(), Error>;
}

/// A subset of an entity's fields, read with a projection: implemented by `#[derive(View)]`.
pub trait View: Readable {
    /// The entity the view reads.
    type Entity: HasFields;
    /// The attributes of the view's fields.
    fn attributes() -> Vec<&'static str>;
}

/// The attributes a read of a view projects: the view's, the table's keys, the keys of `index`,
/// and the type attribute (so that other entities' items are still told apart and cursors work).
/// Through an index that does not hold every attribute, the type attribute and the key fields
/// (`restorable`, read back from the keys) are left out when the index lacks them; any
/// other attribute it lacks stays, and the query refuses it before sending
/// ([`Error::NotProjected`]).
pub(crate) fn projected(
    attrs: Vec<&'static str>,
    schema: &EntitySchema,
    index: Option<&str>,
    restorable: &[&'static str],
) -> Vec<&'static str> {
    let mut all = attrs;
    all.push(schema.pk.attr);
    all.extend(schema.sk.map(|k| k.attr));
    let index = index.and_then(|n| schema.index(n));
    if let Some(i) = index {
        all.extend(i.pk.map(|k| k.attr));
        all.extend(i.sk.map(|k| k.attr));
    }
    // (An entity with `type_attr = false` has none to read.)
    if !schema.type_attr.is_empty() {
        all.push(schema.type_attr);
    }
    let mut seen = Vec::with_capacity(all.len());
    for a in all {
        let optional = a == schema.type_attr || restorable.contains(&a);
        if seen.contains(&a) || (optional && index.is_some_and(|i| !i.holds(schema, a))) {
            continue;
        }
        seen.push(a);
    }
    seen
}

/// The attributes a read through `index` needs that it does not hold: those of `projection`
/// (a view's), or every stored attribute (a whole entity).
pub(crate) fn not_projected(
    schema: &EntitySchema,
    index: Option<&str>,
    projection: Option<&[&'static str]>,
) -> Vec<&'static str> {
    let Some(i) = index.and_then(|n| schema.index(n)) else { return Vec::new() };
    if i.projection == crate::model::entity::IndexProjection::All {
        return Vec::new();
    }
    projection.unwrap_or(schema.attributes).iter().copied().filter(|a| !i.holds(schema, a)).collect()
}

/// `ProjectionExpression` over `attrs`, names behind `#p<n>` placeholders added to `names`.
pub(crate) fn projection_expression(attrs: &[&'static str], names: &mut HashMap<String, String>) -> String {
    let mut parts = Vec::with_capacity(attrs.len());
    for (i, a) in attrs.iter().enumerate() {
        let key = format!("#p{i}");
        names.insert(key.clone(), (*a).to_owned());
        parts.push(key);
    }
    parts.join(", ")
}

impl<E: HasFields> Query<E> {
    /// The same query, reading view `V` of the entity: a ProjectionExpression of exactly its
    /// attributes (and the keys), so DynamoDB returns less. Read capacity is the same: DynamoDB
    /// charges for the whole items read.
    pub fn view<V: View<Entity = E>>(self) -> Query<V> {
        let restorable = <V::Entity as HasFields>::__key_field_attributes(self.index);
        let attrs = projected(V::attributes(), &E::SCHEMA, self.index, restorable);
        self.retype::<V>().with_projection(attrs)
    }
}

impl<E: HasFields> crate::ops::query::QueryLevel<E> {
    /// See [`Query::view`]: the query with no further sort-key condition.
    #[inline]
    pub fn view<V: View<Entity = E>>(self) -> Query<V> {
        Query::from(self).view::<V>()
    }
}

impl Table {
    /// Reads view `V` of the item with this key: a GetItem with a ProjectionExpression of exactly
    /// the view's attributes (and the keys). Eventually consistent.
    pub async fn get_view<V: View>(&self, key: <V::Entity as Entity>::Key) -> Result<Option<V>, Error> {
        let schema = &<V::Entity as Entity>::SCHEMA;
        let item_key = key.to_key_item()?;
        self.check_tenant_item(schema, &item_key)?;
        let mut names = HashMap::new();
        let projection = projection_expression(&projected(V::attributes(), schema, None, &[]), &mut names);
        // An encrypting handle reads the whole item: DB-ESDK verifies a signature over it.
        let (projection, names) =
            if self.reads_whole_items(schema) { (None, None) } else { (Some(projection), Some(names)) };
        let call = crate::send::call("GetItem", self.name(), schema.entity_type, None);
        let request = self
            .client()
            .get_item()
            .table_name(self.name())
            .set_key(Some(item_key))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = crate::send::send(&self.meter, &call, request).await.map_err(crate::error::sdk_error)?;
        call.span.record("items", usize::from(out.item.is_some()));
        match out.item {
            None => Ok(None),
            Some(item) => match V::read(item) {
                Some(read) => read.map(Some),
                None => Err(Error::decode(
                    schema.entity_type,
                    schema.type_attr,
                    "the item under this key is another entity's (a key collision)",
                )),
            },
        }
    }
}
