//! Views: structs holding a subset of an entity's fields (`#[derive(View)]`), read through a
//! ProjectionExpression of exactly their attributes, plus the keys and the type attribute.

use std::collections::HashMap;

use crate::error::Error;
use crate::model::collection::Readable;
use crate::model::entity::Entity;
use crate::model::entity::EntitySchema;

/// An entity with `<Name>::fields()`: implemented by `#[derive(Entity)]`.
pub trait HasFields: Entity {
    /// The generated `<Name>Fields`, which `<Name>::fields()` gives.
    type Fields;
    /// The attributes of the primary-key fields (those stored as attributes of their own).
    #[doc(hidden)]
    const __KEY_FIELDS: &'static [&'static str];
    /// The attributes of the key fields a view read through `index` can read back from the
    /// keys: the primary key's, and the index's. The derive writes it for entities with indexes.
    #[doc(hidden)]
    fn __key_field_attributes(index: Option<&str>) -> &'static [&'static str] {
        let _ = index;
        Self::__KEY_FIELDS
    }
    /// Adds the attributes of key fields that `item` lacks, parsed from its keys (an item read
    /// through an index that does not hold them): the table's keys, and each index's it has.
    /// The derive writes it for entities whose index keys hold fields of their own.
    #[doc(hidden)]
    fn __restore_key_fields(item: &mut crate::model::Item) -> Result<(), Error> {
        restore_primary_of::<Self>(item)
    }
}

/// [`HasFields::__restore_key_fields`] of the primary key: its fields' attributes that `item`
/// lacks, parsed from the table's keys. Called by generated code.
#[doc(hidden)]
pub fn restore_primary_of<E: HasFields>(item: &mut crate::model::Item) -> Result<(), Error> {
    let schema = &E::SCHEMA;
    crate::codec::restore_primary::<E::Key>(
        item,
        schema.entity_type,
        E::__KEY_FIELDS,
        schema.pk.attr,
        schema.sk.map(|k| k.attr),
        crate::model::entity::EntityKey::__attrs,
    )
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
