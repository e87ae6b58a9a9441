//! Tenants of a multi-tenant table: how an entity stands towards them ([`Tenancy`], described
//! by the derive), and the check a tenant handle (`Table::for_tenant`) makes of every partition
//! key before a request is sent.
//!
//! An entity with `#[entity(tenant = "field")]` has the tenant field as the first placeholder of
//! the partition key of the table and of every index, so the partition-key text of each of its
//! items starts with the template's literal prefix and then the tenant's key text, followed by
//! `#` or the end. The check compares that whole component: tenant `t1` never matches `t10`.

use crate::error::Error;
use crate::model::entity::{EntitySchema, KeySchema};

/// How an entity stands towards the tenants of its table ([`EntitySchema::tenant`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tenancy {
    /// Neither `tenant` nor `tenant_shared`: a tenant handle refuses the entity.
    Untenanted,
    /// `#[entity(tenant_shared)]`: items that every tenant may read and write (plans, global
    /// settings); a tenant handle lets them through whatever their key.
    Shared,
    /// `#[entity(tenant = "field")]`: the field (its attribute name here) is the first
    /// placeholder of every partition key of the entity.
    Field(&'static str),
}

/// The tenant of a tenant handle: its id, which is also its key text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TenantScope {
    pub(crate) id: String,
    /// Why the id cannot be a tenant's (reported by every operation of the handle).
    invalid: Option<String>,
}

/// The longest tag value IAM accepts, in characters: a tenant id is compared with one.
pub const MAX_TENANT_ID_CHARS: usize = 256;

impl TenantScope {
    pub(crate) fn new(id: String) -> TenantScope {
        let invalid = invalid_reason(&id);
        TenantScope { id, invalid }
    }

    /// Whether `pk`, a partition-key text written from `key`'s template, names this tenant:
    /// `Err` with what it names instead.
    fn check_text(&self, key: &KeySchema, pk: &str) -> Result<(), Error> {
        let found = tenant_component(key, pk).unwrap_or(pk);
        if found == self.id {
            Ok(())
        } else {
            Err(Error::OutsideTenant { expected: self.id.clone(), found: found.to_owned() })
        }
    }

    /// Checks that `pk`, the partition-key text of `index` (`None`: the table) for an item
    /// of `schema`, names this tenant, before anything is sent.
    pub(crate) fn check(&self, schema: &EntitySchema, index: Option<&str>, pk: &str) -> Result<(), Error> {
        self.usable()?;
        match schema.tenant {
            Tenancy::Shared => Ok(()),
            Tenancy::Untenanted => Err(self.refused(&format!(
                "{}, which has no tenant: write `#[entity(tenant = \"field\")]`, or `#[entity(tenant_shared)]` for \
                 items that every tenant may use",
                schema.entity_type
            ))),
            Tenancy::Field(_) => {
                let key = match index {
                    None => &schema.pk,
                    Some(name) => match schema.index(name) {
                        Some(i) => i.pk.as_ref().unwrap_or(&schema.pk),
                        None => {
                            return Err(self.refused(&format!("index {name}, which {} has not", schema.entity_type)));
                        }
                    },
                };
                self.check_text(key, pk)
            }
        }
    }

    /// Checks every member of a read (one entity, or a collection's members): each must accept
    /// `pk` (a collection query returns every member's items in the partition).
    pub(crate) fn check_all(&self, schemas: &[&EntitySchema], index: Option<&str>, pk: &str) -> Result<(), Error> {
        for schema in schemas {
            if index.is_none() || schema.index(index.unwrap_or_default()).is_some() {
                self.check(schema, index, pk)?;
            }
        }
        Ok(())
    }

    /// An operation a tenant handle never sends (a scan reads every tenant's items).
    pub(crate) fn refuse(&self, what: &str) -> Error {
        match self.usable() {
            Err(e) => e,
            Ok(()) => self.refused(what),
        }
    }

    fn refused(&self, what: &str) -> Error {
        Error::TenantRefused { tenant: self.id.clone(), what: what.to_owned() }
    }

    /// The id itself is usable as a tenant's.
    fn usable(&self) -> Result<(), Error> {
        match &self.invalid {
            Some(reason) => Err(Error::Validation(reason.clone())),
            None => Ok(()),
        }
    }
}

/// The literal text of `template` before its first placeholder (all of it without one).
pub(crate) fn leading_literal(template: &'static str) -> &'static str {
    template.find('<').map_or(template, |at| template.get(..at).unwrap_or_default())
}

/// The component of `pk` (a partition-key text written from `key`'s template) that its first
/// placeholder wrote: the text after the template's literal prefix, up to `#` or the end. For a
/// tenant entity, its tenant; `None` if `pk` lacks the prefix.
pub(crate) fn tenant_component<'p>(key: &KeySchema, pk: &'p str) -> Option<&'p str> {
    let rest = pk.strip_prefix(leading_literal(key.template))?;
    Some(rest.split('#').next().unwrap_or_default())
}

/// Why `id` cannot be a tenant id: its key text must equal it (it is compared with an IAM tag
/// value in `dynamodb:LeadingKeys`), and it must not hold IAM's wildcards.
fn invalid_reason(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("an empty tenant id: a tenant id is the text of a key component".to_owned());
    }
    if id.chars().count() > MAX_TENANT_ID_CHARS {
        return Some(format!(
            "a tenant id of {} characters: an IAM tag value, which the policy compares it with, has at most \
             {MAX_TENANT_ID_CHARS}",
            id.chars().count()
        ));
    }
    let mut text = String::with_capacity(id.len());
    if crate::key::KeyPart::write_key(&id.to_owned(), &mut text).is_err() || text != id {
        return Some(format!(
            "the tenant id {id:?} is written {text:?} in keys: bytes up to `%` (control characters, space, `!`, \
             `\"`, `#`, `$`, `%`) are escaped, and the IAM policy compares the key text with the tenant tag as it \
             is, so a tenant id must hold none of them"
        ));
    }
    if let Some(c) = id.chars().find(|c| matches!(c, '*' | '?')) {
        return Some(format!(
            "the tenant id {id:?} holds `{c}`, a wildcard of the IAM policy's `StringLike`: a tenant id must \
             hold none"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_whose_key_text_differs_are_refused() {
        for bad in ["", "a b", "t#1", "t%1", "t$", "t*", "t?"] {
            assert!(invalid_reason(bad).is_some(), "{bad:?} accepted");
        }
        for good in ["t1", "acme-corp", "Tenant_42", "a.b:c/d=e+f@g", "日本"] {
            assert_eq!(invalid_reason(good), None, "{good:?} refused");
        }
        assert!(invalid_reason(&"x".repeat(257)).is_some());
    }

    #[test]
    fn the_whole_component_is_compared() {
        let key = KeySchema::of("PK", "TENANT#<tenant_id>#USER#<user_id>", crate::model::key_attr::AttributeType::S);
        let t1 = TenantScope::new("t1".into());
        assert!(t1.check_text(&key, "TENANT#t1#USER#u").is_ok());
        for (pk, found) in [("TENANT#t10#USER#u", "t10"), ("TENANT#t#USER#u", "t"), ("ROOM#t1", "ROOM#t1")] {
            match t1.check_text(&key, pk) {
                Err(Error::OutsideTenant { expected, found: f }) => {
                    assert_eq!((expected.as_str(), f.as_str()), ("t1", found))
                }
                other => panic!("{pk}: {other:?}"),
            }
        }
        let whole = KeySchema::of("PK", "<tenant_id>", crate::model::key_attr::AttributeType::S);
        assert!(t1.check_text(&whole, "t1").is_ok());
        assert!(t1.check_text(&whole, "t1x").is_err());
    }
}
