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

/// Whether `c` may be in a tenant id's key text: keys escape every byte up to `%` (`#` among
/// them), and a tenant id holds no IAM wildcard.
fn id_char(c: char) -> bool {
    c > '%' && c != '*' && c != '?'
}

/// Whether a key that starts with `shared` (a `tenant_shared` entity's partition-key prefix, or
/// its guards') can be a key of a tenant entity whose partition keys are `tenant` followed by the
/// tenant's key text, and then nothing (`whole`) or `#` and more. A tenant id is never empty and
/// holds no byte that keys escape (`#` among them), nor `*` or `?`.
pub(crate) fn prefixes_overlap(shared: &str, tenant: &str, whole: bool) -> bool {
    if tenant.starts_with(shared) {
        return true;
    }
    let Some(rest) = shared.strip_prefix(tenant) else { return false };
    // What `shared` adds must read as a tenant id, then (unless the key ends there) `#` and more.
    let id_len = rest.find(|c: char| !id_char(c)).unwrap_or(rest.len());
    if id_len == 0 {
        return false;
    }
    id_len == rest.len() || (!whole && rest[id_len..].starts_with('#'))
}

/// The partition-key templates of `e`: the table's and every global index's.
fn partition_templates(e: &EntitySchema) -> impl Iterator<Item = &'static str> + '_ {
    std::iter::once(e.pk.template).chain(
        e.indexes
            .iter()
            .filter(|i| i.kind == crate::model::entity::IndexKind::Global)
            .filter_map(|i| i.pk.map(|k| k.template)),
    )
}

/// Refuses entities of one table among which a `tenant_shared` entity's partition keys (or its
/// unique guards', `UNIQUE#<type>#..`) could be a tenant entity's: a tenant handle lets shared
/// items through whatever their key, and the IAM policy grants `<shared prefix>*` to every
/// tenant, so either would reach another tenant's items. [`Error::Validation`] naming both
/// templates.
pub(crate) fn check_shared_apart<'a, I>(entities: I) -> Result<(), Error>
where
    I: IntoIterator<Item = &'a EntitySchema>,
    I::IntoIter: Clone,
{
    let entities = entities.into_iter();
    for shared in entities.clone().filter(|e| e.tenant == Tenancy::Shared) {
        let guards = (!shared.unique.is_empty()).then(|| format!("UNIQUE#{}#", shared.entity_type));
        let shared_keys = partition_templates(shared)
            .map(|t| (leading_literal(t).to_owned(), format!("`{t}`")))
            .chain(guards.map(|g| (g.clone(), format!("`{g}<attribute>#<value>` (its unique guards)"))));
        for (prefix, shown) in shared_keys {
            for tenant in entities.clone().filter(|e| matches!(e.tenant, Tenancy::Field(_))) {
                for template in partition_templates(tenant) {
                    let literal = leading_literal(template);
                    // Keys that are the tenant alone: `<prefix><tenant>`, unless the guards of its
                    // unique values go on (`<prefix><tenant>#UNIQUE#..`).
                    let rest = template.get(literal.len()..).unwrap_or_default();
                    let whole = rest.find('>').is_some_and(|end| end + 1 == rest.len())
                        && (tenant.unique.is_empty() || template != tenant.pk.template);
                    if prefixes_overlap(&prefix, literal, whole) {
                        return Err(Error::Validation(format!(
                            "{} is tenant_shared, and its partition key {shown} can be a key of tenant entity {} \
                             (`{template}`): every tenant may use shared items (and the IAM policy grants \
                             `{prefix}*` to all of them), so that would reach another tenant's items; give the \
                             shared entity a literal prefix that no tenant key starts with (`PLAN#<id>` beside \
                             `TENANT#<tenant_id>#..`)",
                            shared.entity_type, tenant.entity_type
                        )));
                    }
                }
            }
        }
    }
    Ok(())
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
    fn shared_prefixes_that_can_start_a_tenant_key_overlap() {
        // (shared prefix, tenant prefix, tenant key ends with the tenant, overlap)
        for (shared, tenant, whole, overlap) in [
            ("ORG#", "ORG#", false, true),   // `ORG#*` matches `ORG#t1#USER#u`
            ("ORG", "ORG#", false, true),    // `ORG*` too
            ("", "TENANT#", false, true),    // no prefix matches everything
            ("ORG#G#", "ORG#", false, true), // tenant `G`'s keys
            ("ORG#G", "ORG#", true, true),   // tenant `G`'s key, or `Gx`'s
            ("TENANT", "", false, true),     // tenant `TENANT`'s keys
            ("TENANTS#", "TENANT#", false, false), // they differ at `S`/`#`
            ("ORG#G#", "ORG#", true, false), // a key `ORG#<tenant>` holds no `#` after the tenant
            ("PLAN#", "", true, false),
            ("PLAN#", "", false, true), // tenant `PLAN`'s `PLAN#USER#..`
            ("ORG##", "ORG#", false, false), // a tenant id is never empty
            ("ORG#$", "ORG#", false, false), // nor starts with an escaped byte
            ("ORG#*", "ORG#", false, false), // nor a wildcard
            ("ORG#G$", "ORG#", false, false),
            ("PLAN#", "TENANT#", false, false),
            ("UNIQUE#Plan#", "TENANT#", false, false),
        ] {
            assert_eq!(prefixes_overlap(shared, tenant, whole), overlap, "{shared:?} beside {tenant:?} ({whole})");
        }
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
