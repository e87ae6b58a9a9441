//! What a table handle adds to or refuses of an operation beyond what the caller asked: nothing
//! for a plain handle. An encrypting one (feature `encryption`) adds to every Query and Scan a
//! filter keeping on the server the items it could not read, reads whole items (no projection),
//! and refuses writes with update expressions of the entities it encrypts.

use crate::error::Error;
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
}
