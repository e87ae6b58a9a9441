//! What a table handle adds to or refuses of an operation beyond what the caller asked: nothing
//! for a plain handle. An encrypting one (feature `encryption`) adds to every Query and Scan a
//! filter keeping on the server the items it could not read, reads whole items (no projection),
//! and refuses writes with update expressions of the entities it encrypts. A handle of a global
//! table with multi-Region eventual consistency (`Table::on_global_table`) refuses, by its write
//! mode, the writes whose promises hold only within one Region ([`Table::check_promises`]).

use crate::error::Error;
use crate::error::region::RegionLocal;
use crate::model::Item;
use crate::model::entity::EntitySchema;
use crate::table::Table;
pub(crate) use crate::table::reads::Reads;

impl Table {
    /// How this handle reads the items of `name` (an entity, or a collection of `schemas`);
    /// an error if it cannot read them at all.
    pub(crate) fn reads(&self, name: &str, schemas: &[&EntitySchema]) -> Result<Reads, Error> {
        #[cfg(feature = "encryption")]
        if let Some(enc) = &self.encryption {
            return enc.reads(name, schemas);
        }
        let _ = (name, schemas);
        Ok(Reads::default())
    }

    /// Whether this handle reads `schema`'s items whole (a view's `GetItem` then asks for no
    /// projection).
    pub(crate) fn reads_whole_items(&self, schema: &EntitySchema) -> bool {
        #[cfg(feature = "encryption")]
        if let Some(enc) = &self.encryption {
            return enc.encrypts(schema.entity_type);
        }
        let _ = schema;
        false
    }

    /// Whether this handle encrypts `schema`'s items: what it writes is ciphertext, which no
    /// item as read (plaintext) can be compared with.
    pub(crate) fn encrypts(&self, schema: &EntitySchema) -> bool {
        self.reads_whole_items(schema)
    }

    /// An error if this handle cannot update `schema`'s items with an update expression.
    pub(crate) fn check_update(&self, schema: &EntitySchema) -> Result<(), Error> {
        #[cfg(feature = "encryption")]
        if let Some(enc) = &self.encryption {
            enc.refuse_update(schema)?;
        }
        let _ = schema;
        Ok(())
    }

    /// The attributes of `old` (an item of `schema` as read) that a condition may name: all of
    /// them, but through an encrypting handle not the encrypted ones (DB-ESDK forbids
    /// conditions on them).
    pub(crate) fn comparable<'a>(&self, schema: &EntitySchema, old: &'a Item) -> std::borrow::Cow<'a, Item> {
        #[cfg(feature = "encryption")]
        if let Some(signed) = crate::table::encryption::signed_attributes(self, schema, old) {
            return std::borrow::Cow::Owned(signed);
        }
        let _ = schema;
        std::borrow::Cow::Borrowed(old)
    }

    /// An error if this handle cannot backfill (`updates_in_place`) or migrate `schema`'s items.
    pub(crate) fn check_evolve(&self, schema: &EntitySchema, updates_in_place: bool) -> Result<(), Error> {
        #[cfg(feature = "encryption")]
        if let Some(enc) = &self.encryption {
            enc.refuse_evolve(schema, updates_in_place)?;
        }
        let _ = (schema, updates_in_place);
        Ok(())
    }

    /// On a handle of an MREC global table, [`Error::RegionLocalWrite`] for a write of `entity`
    /// that carries a promise DynamoDB keeps only within one Region (`promises`), unless the
    /// handle's write mode sends such writes through one Region; `Ok` on every other handle,
    /// which looks at nothing else. The write paths call it where they decide their conditions:
    /// a put or create, a delete, an update, each action of a transaction.
    pub(crate) fn check_promises(&self, entity: &'static str, promises: Promises) -> Result<(), Error> {
        let Some(regions) = &self.regions else { return Ok(()) };
        let Some(promise) = promises.first() else { return Ok(()) };
        match regions.refusal(self.region()) {
            None => Ok(()),
            Some(why) => Err(Error::RegionLocalWrite { entity, promise, why }),
        }
    }
}

/// What one write promises beyond writing the item.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Promises {
    /// It moves `#[unique]` guards (a put or delete of an entity with unique fields, an update
    /// that changes one).
    pub(crate) unique: bool,
    /// It checks or increments a `#[version]`.
    pub(crate) version: bool,
    /// A create: no item may have the key.
    pub(crate) create: bool,
    /// An update sent once by its idempotency token (`.idempotent()`).
    pub(crate) idempotent: bool,
    /// A condition of the caller's (`.condition(..)`, `.if_version(..)`, a transaction's check).
    pub(crate) condition: bool,
}

impl Promises {
    /// A put (a create if `create`) of an item of `schema`, with a condition of the caller's if
    /// `condition`.
    pub(crate) fn put(schema: &EntitySchema, create: bool, condition: bool) -> Promises {
        Promises {
            unique: !schema.unique.is_empty(),
            version: schema.version_attr.is_some(),
            create,
            idempotent: false,
            condition,
        }
    }

    /// A delete of an item of `schema`, with a condition of the caller's if `condition`.
    pub(crate) fn delete(schema: &EntitySchema, condition: bool) -> Promises {
        Promises { unique: !schema.unique.is_empty(), condition, ..Promises::default() }
    }

    /// The first promise of the write that holds only within one Region of an MREC table.
    fn first(self) -> Option<RegionLocal> {
        [
            (self.unique, RegionLocal::Unique),
            (self.version, RegionLocal::Version),
            (self.create, RegionLocal::Create),
            (self.idempotent, RegionLocal::Idempotent),
            (self.condition, RegionLocal::Condition),
        ]
        .into_iter()
        .find_map(|(holds, promise)| holds.then_some(promise))
    }
}
