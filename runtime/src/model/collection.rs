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
use crate::ops::query::Query;
use crate::ops::query::SortCondition;
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
        Some(match crate::codec::membership::<E>(&item)? {
            true => E::__from_typed_item(item),
            false => E::from_item(item),
        })
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
    index: Option<&'static str>,
    global: bool,
    pk_attr: &'static str,
    pk: Result<String, KeyError>,
    sk_attr: Option<&'static str>,
    /// The types of the partition and sort keys (S but for keys on a field's own attribute).
    key_types: (crate::model::key_attr::AttributeType, crate::model::key_attr::AttributeType),
    /// A sharded partition: every shard's key (a query reads them all, merged).
    shards: Option<Box<crate::ops::query::Shards>>,
    /// A multi-attribute index's other partition-key attributes (attribute, type, text).
    also: Vec<(&'static str, crate::model::key_attr::AttributeType, Result<String, KeyError>)>,
    /// The tenant's key text of a partition key on a field's own attribute (see
    /// `Query::__tenant_key`).
    tenant_key: Option<(&'static str, Result<String, KeyError>)>,
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
        let key_types = (crate::model::key_attr::AttributeType::S, crate::model::key_attr::AttributeType::S);
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
        let shards = crate::ops::query::Shards::build(shards, partition, by, known, hash, self.pk_attr);
        match shards.and_then(crate::ops::query::Shards::start) {
            Ok((pk, shards)) => (self.pk, self.shards) = (Ok(pk), shards),
            Err(e) => self.pk = Err(e),
        }
        self
    }

    /// Sets the types of the partition and sort keys. Called by generated code.
    #[doc(hidden)]
    pub fn __key_types(
        mut self,
        pk: crate::model::key_attr::AttributeType,
        sk: crate::model::key_attr::AttributeType,
    ) -> Self {
        self.key_types = (pk, sk);
        self
    }

    /// A multi-attribute index's partition also has `attr = value`. Called by generated code.
    #[doc(hidden)]
    pub fn __also(
        mut self,
        attr: &'static str,
        ty: crate::model::key_attr::AttributeType,
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

    /// A query of every item of collection `C` in this partition. Called by the generated
    /// `<Collection>::query`.
    #[doc(hidden)]
    pub fn __query<C: Collection>(self) -> Query<C>
    where
        E: Member<C>,
    {
        let (pk_type, sk_type) = self.key_types;
        let mut q = Query::__new(self.index, self.global, self.pk_attr, self.pk, self.sk_attr, SortCondition::Any)
            .__key_types(pk_type, sk_type);
        q.shards = self.shards;
        for (attr, ty, value) in self.also {
            q = q.__also(attr, ty, value);
        }
        if let Some((entity, text)) = self.tenant_key {
            q = q.__tenant_key(entity, text);
        }
        q
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

impl<C: Collection> Query<C> {
    /// Only the items under a member's item in the hierarchy of sort keys: those whose sort key
    /// starts with that item's sort key and `#` (`begins_with(SK, "char#01#")` under the character
    /// `char#01`), exact as entity conditions are, since `#` ends every component. The key must be
    /// in the query's partition of the table (a sort key of an index is another attribute).
    pub fn under<K>(mut self, key: &K) -> Self
    where
        K: EntityKey,
        K::Entity: Member<C>,
    {
        // Of a sharded partition, the key's shard is the one to read.
        if self.shards.is_some()
            && self.index.is_none()
            && let Ok(pk) = key.try_pk()
        {
            self.narrow_to(&pk);
        }
        let schema = &<K::Entity as Entity>::SCHEMA;
        let sort = (|| {
            let mismatch = |reason: &str| KeyError::Mismatch {
                key: schema.pk.attr,
                template: schema.pk.template,
                text: self.pk.clone(),
                reason: reason.to_owned(),
            };
            if self.index.is_some() {
                return Err(mismatch("`under` narrows a query of the table, not of an index"));
            }
            if key.try_pk()? != self.pk {
                return Err(mismatch("the key given to `under` is in another partition"));
            }
            let Some(mut sk) = key.try_sk()? else {
                return Err(mismatch("`under` needs a key with a sort key"));
            };
            if schema.sk.is_some_and(|k| k.ty != crate::model::key_attr::AttributeType::S) {
                // A number (or binary) natural sort key: no value begins with another and `#`.
                return Err(mismatch(
                    "`under` narrows to the sort keys that begin with the key's and `#`, but this sort key is a \
                     field's own number or binary attribute, compared as a value: none begins with another",
                ));
            }
            sk.push('#');
            Ok(SortCondition::BeginsWith(sk))
        })();
        self.with_sort(sort)
    }
}

/// Key conditions a collection's members share: on the first sort-key component after a literal
/// prefix that every member's sort key has (`<date>` in `<date>#ORDER#<id>` and
/// `<date>#INVOICE#<id>`, or in `a#<date>#..` beside `a#<date>#..`).
impl<C: Collection> crate::ops::query::Query<C> {
    /// Items whose sort key's shared first component is between `from` and `to`, both included
    /// (a `to` that is a prefix includes every value beginning with it: `"2022-05-30"` includes
    /// that whole day). Values are written as key text (`KeyPart`: strings escaped, numbers
    /// padded to their type's width, times in ISO 8601). [`Error::Validation`] when sent if the
    /// members' sort keys (of the queried index) do not all begin with the same literal text
    /// followed by a placeholder without width.
    pub fn sort_key_between(self, from: impl SortKeyValue, to: impl SortKeyValue) -> Self {
        let range = self.shared_component().and_then(|prefix| {
            let lower = format!("{prefix}{}", from.sort_key_text()?);
            let upper = crate::ops::query::sort::max_with_prefix(format!("{prefix}{}", to.sort_key_text()?));
            Ok(if lower > upper {
                crate::ops::query::SortCondition::Nothing
            } else {
                crate::ops::query::SortCondition::Range { lower: Some(lower), upper: Some(upper) }
            })
        });
        self.with_shared(range)
    }

    /// Items whose sort key's shared first component begins with `prefix` (see
    /// [`Query::sort_key_between`](crate::Query::sort_key_between)).
    pub fn sort_key_begins_with(self, prefix: impl SortKeyValue) -> Self {
        let sort = self.shared_component().and_then(|shared| {
            Ok(crate::ops::query::SortCondition::BeginsWith(format!("{shared}{}", prefix.sort_key_text()?)))
        });
        self.with_shared(sort)
    }

    fn with_shared(mut self, sort: Result<crate::ops::query::SortCondition, String>) -> Self {
        match sort {
            Ok(sort) => self.sort = sort,
            Err(reason) => {
                if self.invalid.is_none() {
                    self.invalid = Some(reason);
                }
            }
        }
        self
    }

    /// The literal text every member's sort key (of the queried index) begins with, followed by
    /// a placeholder; or why there is none.
    fn shared_component(&self) -> Result<String, String> {
        let mut shared: Option<&'static str> = None;
        for schema in C::MEMBERS {
            let sk = match self.index {
                None => schema.sk,
                Some(name) => match schema.index(name) {
                    Some(index) => index.sk,
                    None => continue, // not in this index: none of its items are read
                },
            };
            let Some(sk) = sk else {
                return Err(format!("{} has no sort key to range over", schema.entity_type));
            };
            if schema.attributes.contains(&sk.attr) {
                // A natural key: the attribute holds the field's value, not key text.
                return Err(format!(
                    "the sort key of {} is field `{}`'s own attribute ({}), compared as the value itself, not as key \
                     text: a range over the members' shared component is of key templates; query the member with \
                     its own sort-key conditions",
                    schema.entity_type,
                    sk.attr,
                    sk.ty.describe()
                ));
            }
            let template = sk.template;
            let at = template.find('<').ok_or_else(|| {
                format!("the sort key of {} (`{template}`) has no placeholder to range over", schema.entity_type)
            })?;
            let placeholder = &template[at..template[at..].find('>').map_or(template.len(), |end| at + end + 1)];
            if placeholder.contains(':') {
                return Err(format!(
                    "the sort key of {} (`{template}`) begins with `{placeholder}`, a component with a width or raw: \
                     a range over the members' shared component takes plain placeholders",
                    schema.entity_type
                ));
            }
            let prefix = &template[..at];
            match shared {
                None => shared = Some(prefix),
                Some(other) if other == prefix => {}
                Some(other) => {
                    return Err(format!(
                        "the members' sort keys do not share their beginning (`{other}` and `{prefix}` in {}): a range \
                         over a shared component needs the same literal text before it",
                        schema.entity_type
                    ));
                }
            }
        }
        shared.map(str::to_owned).ok_or_else(|| format!("no member of {} has this index", C::NAME))
    }
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
