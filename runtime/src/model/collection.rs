//! Item collections: many entity types read in one request. What `#[derive(Collection)]`
//! implements, and the traits that let a query, a get or a batch read either one entity or a
//! collection of them.

use std::marker::PhantomData;

use crate::error::Error;
use crate::error::KeyError;
use crate::model::Item;
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::entity::EntitySchema;
use aws_sdk_dynamodb::types::AttributeValue;

/// What a query, a get or a batch reads: one entity (every [`Entity`] is `Readable`), or a
/// collection of entities (`#[derive(Collection)]`).
pub trait Readable: Sized + Send + Sync + 'static {
    /// The entity type, or the collection's name: cursors and spans carry it.
    const NAME: &'static str;

    /// The schema that describes the key attributes of `index` (`None`: the table): the
    /// entity's own, or that of the first member having the index.
    fn schema(index: Option<&str>) -> Option<&'static EntitySchema>;

    /// Reads an item of a query: `None` if it is not one of this type's (another entity's item,
    /// stepped over), else the decoded value or the error naming the item.
    fn read(item: Item) -> Option<Result<Self, Error>>;

    /// The schemas of what a read returns: the entity's, or every member's (a tenant handle
    /// checks a partition against each).
    #[doc(hidden)]
    const __SCHEMAS: &'static [&'static EntitySchema];

    /// [`Readable::read`] for a query's pager, which also needs to know of an item that is not
    /// this type's whether it had a type attribute: if not, its key texts (`keys`: the key
    /// attributes), to name it (`Query::strict`). An entity looks its type attribute up once
    /// for an item of its own (the decoder does not repeat it), and a second time only for an
    /// item it steps over. An item of its own is handed to `take` as it is decoded (moved once,
    /// not returned through each caller: issue 51).
    #[doc(hidden)]
    #[inline]
    fn __read_in_page(
        item: Item,
        type_attr: &str,
        keys: (&str, Option<&str>),
        take: impl FnOnce(Result<Self, Error>),
    ) -> PageRead {
        let untyped = untyped(&item, type_attr, keys);
        match Self::read(item) {
            Some(read) => {
                take(read);
                PageRead::Mine
            }
            None => PageRead::NotMine { untyped },
        }
    }
}

/// [`PageRead::NotMine`]'s `untyped` of `item`: its key texts if it has no type attribute.
fn untyped(item: &Item, type_attr: &str, keys: (&str, Option<&str>)) -> Option<Option<(String, Option<String>)>> {
    if item.contains_key(type_attr) { None } else { Some(crate::error::key_texts(item, keys)) }
}

/// How a query's pager reads an item ([`Readable::__read_in_page`]).
#[doc(hidden)]
#[derive(Debug)]
pub enum PageRead {
    /// One of the type's items: decoded, or the error naming it, handed over.
    Mine,
    /// Another type's item, stepped over.
    NotMine {
        /// `Some` if it had no type attribute: its key texts, if it has its key attributes.
        untyped: Option<Option<(String, Option<String>)>>,
    },
}

impl<E: Entity> Readable for E {
    const NAME: &'static str = E::SCHEMA.entity_type;

    const __SCHEMAS: &'static [&'static EntitySchema] = &[&E::SCHEMA];

    fn schema(_: Option<&str>) -> Option<&'static EntitySchema> {
        Some(&E::SCHEMA)
    }

    #[inline]
    fn read(item: Item) -> Option<Result<Self, Error>> {
        // One look-up of the type attribute: the decoder does not repeat it.
        Some(match crate::model::entity::membership::<E>(&item)? {
            true => E::__from_typed_item(item),
            false => E::from_item(item),
        })
    }

    #[inline]
    fn __read_in_page(
        item: Item,
        type_attr: &str,
        keys: (&str, Option<&str>),
        take: impl FnOnce(Result<Self, Error>),
    ) -> PageRead {
        match crate::model::entity::membership::<E>(&item) {
            Some(true) => take(E::__from_typed_item(item)),
            Some(false) => take(E::from_item(item)),
            None => return PageRead::NotMine { untyped: untyped(&item, type_attr, keys) },
        }
        PageRead::Mine
    }
}

/// A key that `get`, `batch_get` and `transact_get` read: an entity's key (every
/// [`EntityKey`]), or a collection's key enum (`<Collection>Key`). Both are `Send + Sync` (an
/// entity key by its trait, a key enum because it holds entity keys); that is not a supertrait
/// here, so that a collection member that is not an entity is one error, not one more at the enum.
pub trait ReadKey: Clone + core::fmt::Debug + 'static {
    /// What reading the key gives.
    type Output: Readable;

    /// The key as an item (`{PK: S, SK: S}`), checked against DynamoDB's key-size limits.
    fn to_key_item(&self) -> Result<Item, Error>;

    /// Decodes the item stored under this key. An item of another entity under it is an error
    /// (a key collision), not `None`.
    fn decode(&self, item: Item) -> Result<Self::Output, Error>;

    /// The schema of the entity this key is of (a tenant handle checks the key against it).
    #[doc(hidden)]
    fn __schema(&self) -> &'static EntitySchema;
}

impl<K: EntityKey> ReadKey for K {
    type Output = K::Entity;

    fn to_key_item(&self) -> Result<Item, Error> {
        EntityKey::to_key_item(self)
    }

    fn decode(&self, item: Item) -> Result<K::Entity, Error> {
        <K::Entity as Entity>::from_item(item)
    }

    fn __schema(&self) -> &'static EntitySchema {
        &<K::Entity as Entity>::SCHEMA
    }
}

/// The schema of the entity `key` is of: called by the generated `<Collection>Key`.
#[doc(hidden)]
pub fn key_schema_of<K: EntityKey>(_: &K) -> &'static EntitySchema {
    &<K::Entity as Entity>::SCHEMA
}

/// A collection of entities, implemented by `#[derive(Collection)]` on an enum with one
/// variant per member entity.
pub trait Collection: Readable {
    /// The members' schemas, in variant order.
    const MEMBERS: &'static [&'static EntitySchema];
}

/// Entity `Self` is a member of collection `C`: its partitions can start a query of `C`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a member of the collection `{C}`",
    label = "a partition of `{Self}`, which `{C}` does not hold",
    note = "a collection query starts from the partition of one of its members: add a variant holding `{Self}` to `{C}`, or use a member's `partition(..)`"
)]
pub trait Member<C: Collection> {}

/// A partition of a table or index, typed by the entity whose key template it was formatted
/// from: `<Entity>::partition(..)` for the table, `<Entity>::partition_<query>(..)` per index.
/// A collection query starts from one: `<Collection>::query(partition)`.
pub struct Partition<E> {
    pub(crate) index: Option<&'static str>,
    pub(crate) global: bool,
    pub(crate) pk_attr: &'static str,
    pub(crate) pk: Result<String, KeyError>,
    pub(crate) sk_attr: Option<&'static str>,
    /// The types of the partition and sort keys (S but for keys on a field's own attribute).
    pub(crate) key_types: (crate::key::attr::AttributeType, crate::key::attr::AttributeType),
    /// A sharded partition: every shard's key (a query reads them all, merged).
    pub(crate) shards: Option<Box<crate::key::shard::Shards>>,
    /// A multi-attribute index's other partition-key attributes (attribute, type, text).
    pub(crate) also: Vec<(&'static str, crate::key::attr::AttributeType, Result<String, KeyError>)>,
    /// The tenant's key text of a partition key on a field's own attribute (see
    /// `Query::__tenant_key`).
    pub(crate) tenant_key: Option<(&'static str, Result<String, KeyError>)>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Clone for Partition<E> {
    fn clone(&self) -> Self {
        Partition {
            index: self.index,
            global: self.global,
            pk_attr: self.pk_attr,
            pk: self.pk.clone(),
            sk_attr: self.sk_attr,
            key_types: self.key_types,
            shards: self.shards.clone(),
            also: self.also.clone(),
            tenant_key: self.tenant_key.clone(),
            _entity: PhantomData,
        }
    }
}

impl<E> core::fmt::Debug for Partition<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Partition").field("index", &self.index).field("pk", &self.pk).finish()
    }
}

impl<E> Partition<E> {
    /// A partition. Called by generated code.
    #[doc(hidden)]
    pub fn __new(
        index: Option<&'static str>,
        global: bool,
        pk_attr: &'static str,
        pk: Result<String, KeyError>,
        sk_attr: Option<&'static str>,
    ) -> Self {
        let key_types = (crate::key::attr::AttributeType::S, crate::key::attr::AttributeType::S);
        Partition {
            index,
            global,
            pk_attr,
            pk,
            sk_attr,
            key_types,
            shards: None,
            also: Vec::new(),
            tenant_key: None,
            _entity: PhantomData,
        }
    }

    /// A partition of the table, with partition-key text `pk`. Called by generated code.
    #[doc(hidden)]
    pub fn __of_table(pk: Result<String, KeyError>) -> Self
    where
        E: crate::model::entity::Entity,
    {
        let schema = &E::SCHEMA;
        Partition::__new(None, false, schema.pk.attr, pk, schema.sk.map(|k| k.attr))
    }

    /// A sharded partition: every shard's key (see `Query::__sharded`). Called by generated code.
    #[doc(hidden)]
    pub fn __sharded<const K: usize>(
        self,
        shards: u16,
        partition: impl Fn(u16) -> Result<String, KeyError>,
        by: &'static [&'static str],
        known: [Option<Result<String, KeyError>>; K],
    ) -> Self {
        self.__sharded_with(shards, partition, by, known, crate::key::shard::fnv1a_shard)
    }

    /// [`Partition::__sharded`] of a key whose `shard_fn` is `hash`. Called by generated code.
    #[doc(hidden)]
    pub fn __sharded_with<const K: usize>(
        mut self,
        shards: u16,
        partition: impl Fn(u16) -> Result<String, KeyError>,
        by: &'static [&'static str],
        known: [Option<Result<String, KeyError>>; K],
        hash: crate::key::shard::ShardFn,
    ) -> Self {
        let shards = crate::key::shard::Shards::build(shards, partition, by, known, hash, self.pk_attr);
        match shards.and_then(crate::key::shard::Shards::start) {
            Ok((pk, shards)) => (self.pk, self.shards) = (Ok(pk), shards),
            Err(e) => self.pk = Err(e),
        }
        self
    }

    /// Sets the types of the partition and sort keys. Called by generated code.
    #[doc(hidden)]
    pub fn __key_types(mut self, pk: crate::key::attr::AttributeType, sk: crate::key::attr::AttributeType) -> Self {
        self.key_types = (pk, sk);
        self
    }

    /// A multi-attribute index's partition also has `attr = value`. Called by generated code.
    #[doc(hidden)]
    pub fn __also(
        mut self,
        attr: &'static str,
        ty: crate::key::attr::AttributeType,
        value: Result<String, KeyError>,
    ) -> Self {
        self.also.push((attr, ty, value));
        self
    }

    /// The tenant's key text of a partition key on a field's own attribute (see
    /// `Query::__tenant_key`). Called by generated code.
    #[doc(hidden)]
    pub fn __tenant_key(mut self, entity: &'static str, text: Result<String, KeyError>) -> Self {
        self.tenant_key = Some((entity, text));
        self
    }

    /// The partition-key text (a number's decimal text, for an index keyed on a number
    /// field's own attribute), or why it cannot be written.
    pub fn pk(&self) -> Result<&str, &KeyError> {
        self.pk.as_deref()
    }

    /// The index (`None` for the table).
    pub fn index_name(&self) -> Option<&'static str> {
        self.index
    }
}

/// Which member an item belongs to, if any: by the type attribute (one look-up, when the
/// members share it), else member by member as [`Readable::read`] would decide. Called by the
/// generated collection decoder.
#[doc(hidden)]
#[inline]
pub fn member_of(item: &Item, schemas: &[&EntitySchema], belongs: &[fn(&Item) -> bool]) -> Option<usize> {
    let first = schemas.first()?.type_attr;
    if let Some(AttributeValue::S(t)) = item.get(first)
        && let Some(i) = schemas.iter().position(|s| s.type_attr == first && s.entity_type == t)
    {
        return Some(i);
    }
    belongs.iter().position(|b| b(item))
}

/// The schema of the first member having `index` (`None`: the table). Called by generated code.
#[doc(hidden)]
pub fn member_schema(schemas: &[&'static EntitySchema], index: Option<&str>) -> Option<&'static EntitySchema> {
    match index {
        None => schemas.first().copied(),
        Some(name) => schemas.iter().copied().find(|s| s.index(name).is_some()),
    }
}

/// Whether two members live in one table: the same key attribute names. A `const fn`, so that
/// the generated assertion fails at compile time.
#[doc(hidden)]
pub const fn same_table(a: &EntitySchema, b: &EntitySchema) -> bool {
    const fn eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    let sk = match (a.sk, b.sk) {
        (Some(x), Some(y)) => eq(x.attr, y.attr),
        (None, None) => true,
        _ => false,
    };
    eq(a.pk.attr, b.pk.attr) && sk
}

/// Requires `T` to be an entity, where a collection names its members. Called by generated code.
#[doc(hidden)]
pub fn collection_member<T: Entity>() {}

/// A collection member's type as generated code names it, `<T as IsEntity>::Me`: for a type that
/// is not an entity, every such use fails the same bound at the same span, which rustc reports
/// once, and what is built on it is not reported again.
#[doc(hidden)]
pub trait IsEntity {
    /// `T` itself.
    type Me: Entity;
}

impl<T: Entity> IsEntity for T {
    type Me = T;
}

/// Member `Self`'s key as a key of the collection whose key enum is `K`: generated code converts
/// every member's key with one generic `From` impl through this trait, so that a member that is
/// not an entity is reported once, at its type, and never as conflicting `From` impls.
#[doc(hidden)]
pub trait MemberKey<K> {
    /// The member's key.
    type Key;
    /// The collection key holding `key`.
    fn member_key(key: Self::Key) -> K;
}

/// A value of a collection query's shared sort-key component: any [`KeyPart`](crate::KeyPart)
/// (written as keys write it), or a `&str` (written as a `String` is).
pub trait SortKeyValue {
    /// The value's key text, or why it has none.
    fn sort_key_text(&self) -> Result<String, String>;
}

impl<T: crate::key::KeyPart> SortKeyValue for T {
    fn sort_key_text(&self) -> Result<String, String> {
        let mut out = String::new();
        crate::key::write_part(self, &mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }
}

impl SortKeyValue for &str {
    fn sort_key_text(&self) -> Result<String, String> {
        (*self).to_owned().sort_key_text()
    }
}
