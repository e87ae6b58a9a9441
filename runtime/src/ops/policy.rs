//! What a table handle adds to or refuses of an operation beyond what the caller asked: nothing
//! for a plain handle. An encrypting one (feature `encryption`) adds to every Query and Scan a
//! filter keeping on the server the items it could not read, reads whole items (no projection),
//! and refuses writes with update expressions of the entities it encrypts.

use std::collections::HashMap;

use crate::error::Error;
use crate::model::Item;
use crate::model::entity::EntitySchema;
use crate::table::Table;

/// A rendered filter: its text, names and values.
pub(crate) type Rendered = (String, HashMap<String, String>, Item);

/// How a handle reads one entity's (or collection's) items.
#[derive(Debug, Default)]
pub(crate) struct Reads {
    /// A filter every page carries, beside the caller's. It is the handle's, not the query's:
    /// no cursor is bound to it, so a cursor made through another handle resumes the same query.
    pub(crate) guard: Option<Rendered>,
    /// Whole items only: no `ProjectionExpression`.
    pub(crate) whole_items: bool,
}

impl Reads {
    /// `filter` (the caller's text, its names and values in `names` and `values`) and the
    /// guard's, both: the text DynamoDB gets.
    pub(crate) fn and_guard(
        &self,
        filter: Option<String>,
        names: &mut HashMap<String, String>,
        values: &mut Item,
    ) -> Option<String> {
        let Some((guard, guard_names, guard_values)) = &self.guard else { return filter };
        names.extend(guard_names.iter().map(|(k, v)| (k.clone(), v.clone())));
        values.extend(guard_values.iter().map(|(k, v)| (k.clone(), v.clone())));
        Some(match filter {
            Some(f) if !f.is_empty() => format!("({f}) AND ({guard})"),
            _ => guard.clone(),
        })
    }

    /// [`Reads::and_guard`] of a rendered filter.
    pub(crate) fn filter(&self, filter: Option<Rendered>) -> Option<Rendered> {
        if self.guard.is_none() {
            return filter;
        }
        let (text, mut names, mut values) = match filter {
            Some((text, names, values)) => (Some(text), names, values),
            None => (None, HashMap::new(), Item::new()),
        };
        let text = self.and_guard(text, &mut names, &mut values)?;
        Some((text, names, values))
    }
}

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
        if let Some(signed) = crate::encryption::signed_attributes(self, schema, old) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    fn guard() -> Reads {
        Reads {
            guard: Some((
                "#g = :g".to_owned(),
                HashMap::from([("#g".to_owned(), "type".to_owned())]),
                Item::from([(":g".to_owned(), AttributeValue::S("Visit".to_owned()))]),
            )),
            whole_items: true,
        }
    }

    #[test]
    fn the_guard_joins_the_callers_filter() {
        let mut names = HashMap::from([("#a".to_owned(), "ward".to_owned())]);
        let mut values = Item::from([(":a".to_owned(), AttributeValue::S("west".to_owned()))]);
        let text = guard().and_guard(Some("#a = :a OR #a = :a".to_owned()), &mut names, &mut values);
        assert_eq!(text.as_deref(), Some("(#a = :a OR #a = :a) AND (#g = :g)"));
        assert_eq!((names.len(), values.len()), (2, 2));
        let alone = guard().filter(None).unwrap();
        assert_eq!(alone.0, "#g = :g");
        let none = Reads::default().filter(None);
        assert!(none.is_none());
    }
}
