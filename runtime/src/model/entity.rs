//! What the derive implements: [`Entity`] for the struct and [`EntityKey`] for its key.

use crate::error::Error;
use crate::error::KeyError;
pub use crate::key::attr::KeySchema;
use crate::model::Item;

/// A struct stored as items of a single table, with keys generated from its templates.
///
/// Implemented by `#[derive(Entity)]`; see the crate documentation for the attributes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity",
    label = "not an entity",
    note = "derive it: `#[derive(Entity)]` with `#[pk = \"..\"]`; a collection's variants each hold one entity"
)]
pub trait Entity: Sized + Send + Sync + 'static {
    /// The generated `<Name>Key`: the values of the primary-key fields.
    type Key: EntityKey<Entity = Self>;

    /// Key templates, indexes and attribute names of this entity.
    const SCHEMA: EntitySchema;

    /// The whole item: keys, index keys (when every component is present), the type
    /// attribute and every field as its own attribute (`None` fields omitted).
    fn to_item(&self) -> Result<Item, Error>;

    /// Reads an item back. Key fields missing as attributes are read from the keys.
    fn from_item(item: Item) -> Result<Self, Error>;

    /// [`Entity::from_item`] of an item whose type attribute is known to name this entity or to
    /// be absent (a query's pager looked it up already). The derive implements it without a
    /// second look-up; the default checks again.
    #[doc(hidden)]
    fn __from_typed_item(item: Item) -> Result<Self, Error> {
        Self::from_item(item)
    }

    /// The primary key of this value.
    fn primary_key(&self) -> Self::Key;

    /// Writes the item into `w`: [`Entity::to_item`] is this into a new writer, and with a
    /// `stamp` the `#[created_at]` and `#[updated_at]` fields are filled from it (a write's
    /// item). The derive implements it; the default, for an entity implemented by hand, hands
    /// `to_item`'s item to the writer whole.
    #[doc(hidden)]
    fn __write(&self, w: &mut crate::codec::Writer, stamp: Option<crate::model::filled::Stamp>) -> Result<(), Error> {
        let _ = stamp;
        w.absorb(self.to_item()?);
        Ok(())
    }

    /// The attributes an update writes for the filled fields at `now`. The derive implements it
    /// for entities with such fields.
    #[doc(hidden)]
    fn __stamps(now: std::time::SystemTime) -> Result<crate::model::filled::Stamps, Error> {
        let _ = now;
        Ok(crate::model::filled::Stamps::default())
    }

    /// Runs the `#[entity(validate = "..")]` validators of the fields and of the struct:
    /// [`Error::Invalid`] for the first that refuses. The derive implements it for entities
    /// with validators.
    #[doc(hidden)]
    fn __validate(&self) -> Result<(), Error> {
        Ok(())
    }
}

/// The primary key of an entity: formats to, and parses from, the key attributes.
pub trait EntityKey: Clone + core::fmt::Debug + Send + Sync + 'static {
    /// The entity this key belongs to.
    type Entity: Entity<Key = Self>;

    /// The partition-key text, or why it cannot be written.
    fn try_pk(&self) -> Result<String, KeyError>;

    /// The sort-key text (`None` for a table without sort key), or why it cannot be written.
    fn try_sk(&self) -> Result<Option<String>, KeyError>;

    /// Parses key texts written by this entity.
    fn parse_keys(pk: &str, sk: Option<&str>) -> Result<Self, KeyError>;

    /// The partition-key text, for display and tests; a value that cannot be written shows as
    /// `<invalid key: ..>`. Operations use [`EntityKey::try_pk`] and never send such a key.
    fn pk(&self) -> String {
        crate::codec::display_key(self.try_pk())
    }

    /// The sort-key text, for display and tests (empty for a table without sort key); a value
    /// that cannot be written shows as `<invalid key: ..>`. Operations use
    /// [`EntityKey::try_sk`] and never send such a key.
    fn sk(&self) -> String {
        crate::codec::display_key(self.try_sk().map(Option::unwrap_or_default))
    }

    /// Each key field's attribute and its encoding, as the item codec writes it: what a view
    /// restores from the keys and an upsert writes. The derive implements it.
    #[doc(hidden)]
    fn __attrs(&self) -> Vec<(&'static str, crate::codec::Encoded)> {
        Vec::new()
    }

    /// The key as an item (`{PK: S, SK: S}`), checked against DynamoDB's key-size limits
    /// ([`Error::Validation`] for an empty or oversized key).
    fn to_key_item(&self) -> Result<Item, Error> {
        let schema = &<Self::Entity as Entity>::SCHEMA;
        let mut item = Item::with_capacity(2);
        let pk = self.try_pk()?;
        crate::codec::check_key_size(schema.pk.attr, &pk, crate::model::MAX_PARTITION_KEY_BYTES)?;
        item.insert(schema.pk.attr.to_owned(), schema.pk.value_of(pk)?);
        if let (Some(sk), Some(sk_schema)) = (self.try_sk()?, schema.sk.as_ref()) {
            crate::codec::check_key_size(sk_schema.attr, &sk, crate::model::MAX_SORT_KEY_BYTES)?;
            item.insert(sk_schema.attr.to_owned(), sk_schema.value_of(sk)?);
        }
        Ok(item)
    }
}

/// `Debug` of a generated key type: its name and its key texts, as DynamoDB holds them
/// (`MessageKey { pk: "CHATROOM#r1", sk: "MESSAGE#0001709234567000#m1" }`; a value that cannot
/// be written shows as `<invalid key: ..>`). Called by generated code.
#[doc(hidden)]
pub fn debug_key<K: EntityKey>(f: &mut core::fmt::Formatter<'_>, name: &'static str, key: &K) -> core::fmt::Result {
    let mut d = f.debug_struct(name);
    d.field("pk", &key.pk());
    if let Ok(Some(_)) | Err(_) = key.try_sk() {
        d.field("sk", &key.sk());
    }
    d.finish()
}

/// Global or local secondary index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// A global secondary index: its own partition key.
    Global,
    /// A local secondary index: the table's partition key, another sort key.
    Local,
}

/// A secondary index an entity writes keys for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexSchema {
    /// The index name, such as `GSI1`.
    pub name: &'static str,
    /// Global or local.
    pub kind: IndexKind,
    /// The partition key; `None` for a local index (it is the table's).
    pub pk: Option<KeySchema>,
    /// The sort key, if any.
    pub sk: Option<KeySchema>,
    /// The attributes the entity declares the index holds (`projection`/`include` in its
    /// index attribute).
    pub projection: IndexProjection,
    /// Whether the index attribute says so (`projection` or `include`); without, the
    /// projection is [`IndexProjection::All`] by default.
    pub projection_declared: bool,
    /// A multi-attribute index (`pk = ["a", "b"], sk = ["c", "d"]`): every partition-key and
    /// sort-key attribute, in order (`pk` and `sk` are the first of each); `None` for an index
    /// keyed on one attribute per side.
    pub multi: Option<MultiKeys>,
}

/// The keys of a multi-attribute global index (DynamoDB, November 2025): one to four
/// attributes per side, each a field's own attribute with its native type (S, N or B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiKeys {
    /// The partition-key attributes, in order.
    pub pk: &'static [KeySchema],
    /// The sort-key attributes, in order (empty: no sort key).
    pub sk: &'static [KeySchema],
}

/// Which attributes of an entity's items an index holds besides the keys: `projection =
/// "keys_only"` or `include = "a, b"` in `#[gsiN(..)]`/`#[lsiN(..)]` (the default is all).
///
/// The table definition ([`crate::TableDefinition::from_entities`]) makes the index's
/// projection from every entity's: any [`IndexProjection::All`] makes it `ALL`; otherwise the
/// attributes included by every entity together, plus each entity's type attribute, make an
/// `INCLUDE`; only `KEYS_ONLY` everywhere makes `KEYS_ONLY`. A KEYS_ONLY index holds no type
/// attribute: its items are told apart by their keys. An index shared by entities of which one
/// declares a narrower projection and another declares none (so `ALL` by default) is an
/// error: the default would widen the index for both without anyone saying so; the second
/// says `projection = "all"` if it needs the whole item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexProjection {
    /// Every attribute.
    All,
    /// The table's and the index's keys only.
    KeysOnly,
    /// The keys and these attributes (the fields' attribute names).
    Include(&'static [&'static str]),
}

impl IndexSchema {
    /// The partition-key attributes: one, or a multi-attribute index's list (none for a local
    /// index: the table's).
    pub fn partition_keys(&self) -> &[KeySchema] {
        match &self.multi {
            Some(m) => m.pk,
            None => self.pk.as_slice(),
        }
    }

    /// The sort-key attributes: none, one, or a multi-attribute index's list.
    pub fn sort_keys(&self) -> &[KeySchema] {
        match &self.multi {
            Some(m) => m.sk,
            None => self.sk.as_slice(),
        }
    }

    /// Whether a read through this index finds `attr` in `entity`'s items: every key attribute
    /// of the table and of the index, and what the projection names.
    pub fn holds(&self, entity: &EntitySchema, attr: &str) -> bool {
        let key = attr == entity.pk.attr
            || entity.sk.is_some_and(|k| k.attr == attr)
            || self.partition_keys().iter().chain(self.sort_keys()).any(|k| k.attr == attr);
        key || match self.projection {
            IndexProjection::All => true,
            IndexProjection::KeysOnly => false,
            IndexProjection::Include(attrs) => attrs.contains(&attr) || attr == entity.type_attr,
        }
    }
}

/// Everything the runtime needs to know of an entity besides its codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntitySchema {
    /// The entity's name: the value of the type attribute, the struct name or
    /// `#[entity(type_name)]`. It also names the entity's unique guards
    /// (`UNIQUE#<entity type>#..`), capacity rows, spans and documents, with `type_attr = false`
    /// too: a `type_name` keeps them when the struct is renamed.
    pub entity_type: &'static str,
    /// The attribute holding the type, `entity_type` by default.
    pub type_attr: &'static str,
    /// The partition key.
    pub pk: KeySchema,
    /// The sort key, if the table has one.
    pub sk: Option<KeySchema>,
    /// Secondary indexes.
    pub indexes: &'static [IndexSchema],
    /// The `#[ttl]` attribute.
    pub ttl_attr: Option<&'static str>,
    /// The `#[version]` attribute.
    pub version_attr: Option<&'static str>,
    /// The largest version the `#[version]` field's type holds ([`crate::Version::MAX`];
    /// `u64::MAX` without one): writes that would pass it are refused.
    pub version_max: u64,
    /// How the entity stands towards the tenants of a multi-tenant table.
    pub tenant: crate::model::tenant::Tenancy,
    /// The attribute of every field its items hold, in declaration order: not `skip`ped fields,
    /// nor key fields kept in the keys only (`key_attributes = false`, `key_attribute = false`).
    pub attributes: &'static [&'static str],
    /// The `#[unique]` fields: each value owns a guard item (see [`UniqueField`]).
    pub unique: &'static [UniqueField],
    /// The `#[created_at]` attribute: set by a create (and an upsert where the item has none).
    pub created_at: Option<&'static str>,
    /// The `#[updated_at]` attribute: set by every write of the item.
    pub updated_at: Option<&'static str>,
    /// The `#[encrypt]` fields' attributes: encrypted and signed on the client by AWS's
    /// Database Encryption SDK (feature `encryption`, `Table::with_encryption`); every other
    /// attribute of the entity's items is signed.
    pub encrypted: &'static [&'static str],
    /// The `#[vector(..)]` indexes: vector attributes searched with `Table::search`.
    pub vectors: &'static [crate::model::vector::VectorIndexSchema],
}

/// A `#[unique]` field: no two items of the entity hold the same value. Each value owns a
/// guard item in the same table, partition key `UNIQUE#<entity type>#<attribute>#<value>` (the
/// value as stored: a string's text, a number's digits; led by the tenant, `TENANT#t1#UNIQUE#..`,
/// for an entity with a tenant, whose values are unique within the tenant), sort key `UNIQUE`
/// (when the table has one), written and removed in the same transaction as the item that
/// holds the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniqueField {
    /// The field's name in the struct.
    pub field: &'static str,
    /// The attribute holding it.
    pub attr: &'static str,
}

impl EntitySchema {
    /// Room for every attribute an item of this entity can have: the table's keys, two per
    /// index, the type attribute and the fields.
    #[inline(always)]
    pub const fn item_capacity(&self) -> usize {
        2 + self.indexes.len() * 2 + self.attributes.len() + 1
    }

    /// An entity without indexes, TTL, version, tenant or unique fields; the derive adds only
    /// what the entity uses (`with_indexes`, `with_ttl`, ..), so that its expansion does not grow
    /// with features it does not use. Called by generated code.
    #[doc(hidden)]
    pub const fn new(
        entity_type: &'static str,
        type_attr: &'static str,
        pk: KeySchema,
        sk: Option<KeySchema>,
        attributes: &'static [&'static str],
    ) -> Self {
        EntitySchema {
            entity_type,
            type_attr,
            pk,
            sk,
            indexes: &[],
            ttl_attr: None,
            version_attr: None,
            version_max: u64::MAX,
            tenant: crate::model::tenant::Tenancy::Untenanted,
            attributes,
            unique: &[],
            created_at: None,
            updated_at: None,
            encrypted: &[],
            vectors: &[],
        }
    }

    /// The schema with these secondary indexes. Called by generated code.
    #[doc(hidden)]
    pub const fn with_indexes(self, indexes: &'static [IndexSchema]) -> Self {
        EntitySchema { indexes, ..self }
    }

    /// The schema with a `#[ttl]` attribute. Called by generated code.
    #[doc(hidden)]
    pub const fn with_ttl(self, attr: &'static str) -> Self {
        EntitySchema { ttl_attr: Some(attr), ..self }
    }

    /// The schema with a `#[version]` attribute whose type holds at most `max`. Called by
    /// generated code.
    #[doc(hidden)]
    pub const fn with_version(self, attr: &'static str, max: u64) -> Self {
        EntitySchema { version_attr: Some(attr), version_max: max, ..self }
    }

    /// The schema of an entity with a tenant field, or shared by all tenants. Called by
    /// generated code.
    #[doc(hidden)]
    pub const fn with_tenant(self, tenant: crate::model::tenant::Tenancy) -> Self {
        EntitySchema { tenant, ..self }
    }

    /// The schema with these `#[unique]` fields. Called by generated code.
    #[doc(hidden)]
    pub const fn with_unique(self, unique: &'static [UniqueField]) -> Self {
        EntitySchema { unique, ..self }
    }

    /// The schema with the attributes the library fills on write (`#[created_at]`,
    /// `#[updated_at]`). Called by generated code.
    #[doc(hidden)]
    pub const fn with_filled(self, created_at: Option<&'static str>, updated_at: Option<&'static str>) -> Self {
        EntitySchema { created_at, updated_at, ..self }
    }

    /// The schema with these `#[encrypt]` attributes. Called by generated code; `F` is `()`
    /// only with the feature `encryption`, so that without it `#[encrypt]` does not compile
    /// (the field would be stored in plaintext).
    #[doc(hidden)]
    pub const fn with_encrypted<F: EncryptionFeature>(self, encrypted: &'static [&'static str]) -> Self {
        EntitySchema { encrypted, ..self }
    }

    /// The schema with these `#[vector(..)]` indexes. Called by generated code.
    #[doc(hidden)]
    pub const fn with_vectors(self, vectors: &'static [crate::model::vector::VectorIndexSchema]) -> Self {
        EntitySchema { vectors, ..self }
    }

    /// The vector index named `name`.
    pub fn vector_index(&self, name: &str) -> Option<&'static crate::model::vector::VectorIndexSchema> {
        self.vectors.iter().find(|v| v.name == name)
    }

    /// The index named `name`.
    pub fn index(&self, name: &str) -> Option<&'static IndexSchema> {
        self.indexes.iter().find(|i| i.name == name)
    }
}

/// Implemented for `()` by the feature `encryption`: what `#[encrypt]` needs.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`#[encrypt]` needs the feature `encryption` of dynamo-entity",
    label = "enable the feature `encryption`",
    note = "without it the field would be written in plaintext"
)]
pub trait EncryptionFeature {}

#[cfg(feature = "encryption")]
impl EncryptionFeature for () {}

/// The partition-key and sort-key text of `item` (a whole item or a key), as errors name it;
/// `None` if a key attribute of `schema` is missing or not of the key's type. (A key on a number
/// attribute reads as its number's text, one on a binary attribute as lower-case hex.)
pub(crate) fn item_key(schema: &EntitySchema, item: &Item) -> Option<(String, Option<String>)> {
    item_key_ref(schema, item).map(|(pk, sk)| (pk.into_owned(), sk.map(std::borrow::Cow::into_owned)))
}

/// [`item_key`], borrowed from the item where the key is text already.
pub(crate) fn item_key_ref<'i>(
    schema: &EntitySchema,
    item: &'i Item,
) -> Option<(std::borrow::Cow<'i, str>, Option<std::borrow::Cow<'i, str>>)> {
    let pk = schema.pk.text_of(item.get(schema.pk.attr)?)?;
    let sk = match &schema.sk {
        Some(k) => Some(k.text_of(item.get(k.attr)?)?),
        None => None,
    };
    Some((pk, sk))
}

impl Error {
    /// An error of `kind` naming the entity and the key of `item` (its key attributes).
    pub(crate) fn for_item(kind: crate::error::ItemErrorKind, schema: &EntitySchema, item: &Item) -> Self {
        let entity = schema.entity_type;
        let (pk, sk) = item_key(schema, item).unwrap_or_default();
        match kind {
            crate::error::ItemErrorKind::AlreadyExists => Error::AlreadyExists { entity, pk, sk },
            crate::error::ItemErrorKind::NotFound => Error::NotFound { entity, pk, sk },
            crate::error::ItemErrorKind::VersionConflict => Error::VersionConflict { entity, pk, sk },
        }
    }

    /// [`Error::Indeterminate`] of the `operation` on the item with `key` (its key attributes):
    /// `source` left its outcome unknown.
    pub(crate) fn indeterminate(operation: &'static str, schema: &EntitySchema, key: &Item, source: Error) -> Self {
        let (pk, sk) = item_key(schema, key).unwrap_or_default();
        Error::Indeterminate { operation, entity: schema.entity_type, pk, sk, source: Box::new(source) }
    }

    /// [`Error::NotFound`] for `key`: for a `get` whose `None` the caller treats as an error,
    /// `table.get(key.clone()).await?.ok_or_else(|| Error::not_found(&key))?`.
    pub fn not_found<K: EntityKey>(key: &K) -> Self {
        let invalid = |e: KeyError| format!("<invalid key: {e}>");
        Error::NotFound {
            entity: <K::Entity as Entity>::SCHEMA.entity_type,
            pk: key.try_pk().unwrap_or_else(invalid),
            sk: key.try_sk().unwrap_or_else(|e| Some(invalid(e))),
        }
    }
}

// Reading an item as an entity: generic over the description, so on this floor (the codec
// below reads fields and keys through `ItemKeys` and `ParseKeys`).

impl crate::codec::ItemKeys for EntitySchema {
    #[inline]
    fn item_keys(&self) -> (&'static str, &KeySchema, Option<&KeySchema>) {
        (self.entity_type, &self.pk, self.sk.as_ref())
    }
}

impl<K: EntityKey> crate::codec::ParseKeys for K {
    #[inline]
    fn __parse_item_keys(pk: &str, sk: Option<&str>) -> Result<Self, KeyError> {
        K::parse_keys(pk, sk)
    }
}

/// `Entity::from_item` of a generated entity: the type attribute checked, then
/// `__from_typed_item`. Called by generated code.
#[doc(hidden)]
#[inline]
pub fn from_checked<E: Entity>(item: Item) -> Result<E, Error> {
    crate::codec::check_type(E::SCHEMA.entity_type, E::SCHEMA.type_attr, &item)?;
    E::__from_typed_item(item)
}

/// Whether an item read by a query of `E` is one of `E`'s: its type attribute names `E`, or,
/// where it has no type attribute (an item written by other code), its primary key parses as
/// one of `E`'s keys. Items of other entities sharing the partition are stepped over.
#[doc(hidden)]
pub fn belongs<E: Entity>(item: &Item) -> bool {
    membership::<E>(item).is_some()
}

/// [`belongs`], and whether the type attribute was found naming `E` or absent (`Some(true)`: the
/// decoder need not look it up again) or is there but not a string (`Some(false)`: decoding
/// reports it).
#[inline]
pub(crate) fn membership<E: Entity>(item: &Item) -> Option<bool> {
    let schema = &E::SCHEMA;
    let checked = match item.get(schema.type_attr) {
        Some(aws_sdk_dynamodb::types::AttributeValue::S(t)) => return (t == schema.entity_type).then_some(true),
        None => true,
        // A type attribute that is not a string: the key decides, and decoding reports it.
        Some(_) => false,
    };
    let (pk, sk) = item_key_ref(schema, item)?;
    <E::Key as EntityKey>::parse_keys(&pk, sk.as_deref()).is_ok().then_some(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shard of a key text (`key::shard`), and whether two keys differ only in it.
    #[test]
    fn a_sharded_key_schema_reads_the_shard_of_a_key_text() {
        let schema = KeySchema::of("pk", "<date>.<shard:unpadded>", Default::default()).sharded(12, false);
        assert_eq!(schema.shard_in("2026-11-26.10"), Some(10));
        assert_eq!(schema.shard_in("2026-11-26.010"), None);
        assert!(schema.same_but_shard("2026-11-26.10", "2026-11-26.3"));
        assert!(!schema.same_but_shard("2026-11-26.10", "2026-11-27.3"));
        let padded = KeySchema::of("pk", "A#<shard>#<x>", Default::default()).sharded(16, false);
        assert_eq!(padded.shard_in("A#07#b"), Some(7));
        assert_eq!(padded.shard_in("A#7#b"), None);
    }
}
