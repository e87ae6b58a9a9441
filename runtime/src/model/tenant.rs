//! Tenants of a multi-tenant table: how an entity stands towards them ([`Tenancy`], described
//! by the derive), and the check a tenant handle (`Table::for_tenant`) makes of every partition
//! key before a request is sent.
//!
//! An entity with `#[entity(tenant = "field")]` has the tenant field as the first placeholder of
//! the partition key of the table and of every index.
//!
//! **The rule: a tenant id is the tenant field's key text**, the text the table's partition key
//! writes for it (a `String` as it is, an integer zero-padded: `u32` 7 is `0000000007`). Every
//! form of partition key names its tenant by that text ([`named_tenant`]):
//! - a key written from a template (`TENANT#<tenant_id>#..`): the component after the
//!   template's literal prefix, up to `#` or the end (`t1` never matches `t10`'s keys);
//! - a template that is the tenant alone (`<tenant_id>`), or the tenant field's own string
//!   attribute keying an index (alone, or first of a multi-attribute list): the whole value;
//! - the tenant field's own number (or binary) attribute keying an index (alone, or first of a
//!   multi-attribute list): the key text of the value, which the generated query writes beside
//!   it (`Query::__tenant_key`); the attribute's own text (`7`) is never compared. A query
//!   without it (a collection query started from another member's partition) is refused.

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

    /// Whether `pk`, the partition-key value of `key` for an item of `schema`, names this
    /// tenant ([`named_tenant`]): `Err` with what it names instead.
    fn check_key(
        &self,
        schema: &EntitySchema,
        key: &KeySchema,
        pk: &str,
        tenant_key: Option<(&str, &str)>,
    ) -> Result<(), Error> {
        match named_tenant(schema, key, pk, tenant_key) {
            Some(found) if found == self.id => Ok(()),
            Some(found) => Err(Error::OutsideTenant { expected: self.id.clone(), found: found.to_owned() }),
            None => Err(self.refused(&format!(
                "a partition of {}'s key `{}`, its number attribute `{pk}`, without the tenant's key text that only a \
                 query of {} writes (a collection query started from another member's partition): start it from \
                 a partition of {}",
                schema.entity_type, key.attr, schema.entity_type, schema.entity_type
            ))),
        }
    }

    #[cfg(test)]
    fn check_text(&self, key: &KeySchema, pk: &str) -> Result<(), Error> {
        let schema = EntitySchema::new("T", "entity_type", *key, None, &[]);
        self.check_key(&schema, key, pk, None)
    }

    /// Checks that `pk`, the partition-key text of `index` (`None`: the table) for an item
    /// of `schema`, names this tenant, before anything is sent.
    pub(crate) fn check(&self, schema: &EntitySchema, index: Option<&str>, pk: &str) -> Result<(), Error> {
        self.check_query(schema, index, pk, None)
    }

    /// [`TenantScope::check`] of a query, with the tenant's key text the query wrote beside a
    /// partition key on the tenant field's own attribute (`tenant_key`: the entity and the text).
    pub(crate) fn check_query(
        &self,
        schema: &EntitySchema,
        index: Option<&str>,
        pk: &str,
        tenant_key: Option<(&str, &str)>,
    ) -> Result<(), Error> {
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
                    // A multi-attribute index's first partition-key attribute is the tenant's.
                    Some(name) => match schema.index(name) {
                        Some(i) => i.partition_keys().first().unwrap_or(&schema.pk),
                        None => {
                            return Err(self.refused(&format!("index {name}, which {} has not", schema.entity_type)));
                        }
                    },
                };
                self.check_key(schema, key, pk, tenant_key)
            }
        }
    }

    /// Checks a vector search of `schema`'s items through `index`, whose search schema's `HASH`
    /// attributes `hash` are fixed: for an entity with a tenant, the tenant's attribute must be
    /// one of them, and the tenant it names is its key text (`tenant_key`: the entity and the
    /// text the generated search wrote of the value, as the table's partition key writes it),
    /// never the attribute's own value (`7` where the key text is `0000000007`): equal to the
    /// id, or [`Error::OutsideTenant`].
    pub(crate) fn check_search(
        &self,
        schema: &EntitySchema,
        index: &crate::model::vector::VectorIndexSchema,
        hash: &[&str],
        tenant_key: Option<(&str, Result<&str, &crate::error::KeyError>)>,
    ) -> Result<(), Error> {
        self.usable()?;
        match schema.tenant {
            Tenancy::Shared => Ok(()),
            Tenancy::Untenanted => {
                Err(self.refused(&format!("a vector search of {}, which has no tenant", schema.entity_type)))
            }
            Tenancy::Field(attr) => {
                if !index.hash.contains(&attr) {
                    return Err(self.refused(&format!(
                        "vector index {}, whose search schema's HASH is not the tenant `{attr}`",
                        index.name
                    )));
                }
                if !hash.contains(&attr) {
                    return Err(Error::OutsideTenant { expected: self.id.clone(), found: String::new() });
                }
                match tenant_key.filter(|(entity, _)| *entity == schema.entity_type).map(|(_, text)| text) {
                    Some(Ok(t)) if t == self.id => Ok(()),
                    Some(Ok(t)) => Err(Error::OutsideTenant { expected: self.id.clone(), found: t.to_owned() }),
                    Some(Err(e)) => Err(Error::Key(e.clone())),
                    None => Err(self.refused(&format!(
                        "a vector search of {} without the tenant's key text that only its generated `search_*` \
                         writes",
                        schema.entity_type
                    ))),
                }
            }
        }
    }

    /// Checks every member of a read (one entity, or a collection's members): each must accept
    /// `pk` (a collection query returns every member's items in the partition).
    pub(crate) fn check_all(
        &self,
        schemas: &[&EntitySchema],
        index: Option<&str>,
        pk: &str,
        tenant_key: Option<(&str, &str)>,
    ) -> Result<(), Error> {
        for schema in schemas {
            if index.is_none() || schema.index(index.unwrap_or_default()).is_some() {
                self.check_query(schema, index, pk, tenant_key)?;
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

/// The tenant that `pk`, a partition-key value of `key` for an item of `schema` (an entity with
/// a tenant), names: the one rule of this module. `tenant_key` is the entity and the tenant's
/// key text that a query on the tenant field's own number attribute writes beside it; `None`
/// when the key names no tenant this way (a number attribute without the text).
pub(crate) fn named_tenant<'p>(
    schema: &EntitySchema,
    key: &KeySchema,
    pk: &'p str,
    tenant_key: Option<(&str, &'p str)>,
) -> Option<&'p str> {
    use crate::key::attr::AttributeType;
    if key.ty != AttributeType::S {
        // The attribute's own text (`7`) is not the tenant's key text (`0000000007`).
        return tenant_key.filter(|(entity, _)| *entity == schema.entity_type).map(|(_, text)| text);
    }
    if key_is_tenant_alone(key) {
        // A string attribute holds the value as it is: a `#` in it is part of it.
        return Some(pk);
    }
    Some(tenant_component(key, pk).unwrap_or(pk))
}

/// Whether `key`'s template is one placeholder and nothing else (`<tenant_id>`: a key that is
/// the tenant alone, or an index key on the tenant field's own attribute).
pub(crate) fn key_is_tenant_alone(key: &KeySchema) -> bool {
    key.template.starts_with('<') && key.template.find('>').is_some_and(|end| end + 1 == key.template.len())
}

/// The component of `pk` (a partition-key text written from `key`'s template) that its first
/// placeholder wrote: the text after the template's literal prefix, up to `#` or the end. For a
/// tenant entity, its tenant; `None` if `pk` lacks the prefix.
pub(crate) fn tenant_component<'p>(key: &KeySchema, pk: &'p str) -> Option<&'p str> {
    let rest = pk.strip_prefix(leading_literal(key.template))?;
    Some(rest.split('#').next().unwrap_or_default())
}

/// Whether `b` may be in a tenant id's key text: keys escape every byte up to `%` (`#` among
/// them), and a tenant id holds no IAM wildcard.
const fn id_byte(b: u8) -> bool {
    b > b'%' && b != b'*' && b != b'?'
}

const fn starts_with(s: &[u8], prefix: &[u8]) -> bool {
    if prefix.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The literal text of `template` before its first placeholder (all of it without one).
const fn literal(template: &str) -> &[u8] {
    let bytes = template.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i] != b'<' {
        i += 1;
    }
    bytes.split_at(i).0
}

/// Whether a key that starts with `shared` (a `tenant_shared` entity's partition-key prefix, or
/// its guards') can be a key of a tenant entity whose partition keys are `tenant` followed by the
/// tenant's key text, and then nothing (`whole`) or `#` and more. A tenant id is never empty and
/// holds no byte that keys escape (`#` among them), nor `*` or `?`.
pub(crate) const fn prefixes_overlap(shared: &[u8], tenant: &[u8], whole: bool) -> bool {
    if starts_with(tenant, shared) {
        return true;
    }
    if !starts_with(shared, tenant) {
        return false;
    }
    // What `shared` adds must read as a tenant id, then (unless the key ends there) `#` and more.
    let rest = shared.split_at(tenant.len()).1;
    let mut id = 0;
    while id < rest.len() && id_byte(rest[id]) {
        id += 1;
    }
    id > 0 && (id == rest.len() || (!whole && rest[id] == b'#'))
}

/// The `n`th partition-key template of `e`: the table's (0), then each global index's.
const fn partition_template(e: &EntitySchema, n: usize) -> Option<&'static str> {
    if n == 0 {
        return Some(e.pk.template);
    }
    let mut seen = 0;
    let mut i = 0;
    while i < e.indexes.len() {
        let index = &e.indexes[i];
        if let (crate::model::entity::IndexKind::Global, Some(pk)) = (index.kind, index.pk) {
            seen += 1;
            if seen == n {
                return Some(pk.template);
            }
        }
        i += 1;
    }
    None
}

/// What of a shared entity could be a tenant's key: a partition-key template, or its guards.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SharedKey {
    Template(&'static str),
    Guards,
}

/// The longest guard prefix (`UNIQUE#<type>#`) compared whole; a longer one is compared by its
/// start, which can only find more overlaps.
const GUARD_PREFIX_MAX: usize = 512;

/// The first key of `shared` (a `tenant_shared` entity) that could be a key of `tenant` (an
/// entity with a tenant), with the tenant's template it could match; `None` when they are apart.
/// A `const fn`: a collection's members are checked at compile time.
pub(crate) const fn clash(shared: &EntitySchema, tenant: &EntitySchema) -> Option<(SharedKey, &'static str)> {
    if !matches!(shared.tenant, Tenancy::Shared) || !matches!(tenant.tenant, Tenancy::Field(_)) {
        return None;
    }
    // The guards' prefix, `UNIQUE#<type>#`.
    let mut guards = [0u8; GUARD_PREFIX_MAX];
    let mut len = 0;
    let parts: [&[u8]; 3] = [b"UNIQUE#", shared.entity_type.as_bytes(), b"#"];
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() && len < GUARD_PREFIX_MAX {
            guards[len] = parts[p][i];
            len += 1;
            i += 1;
        }
        p += 1;
    }
    let guards = guards.split_at(len).0;
    let mut t = 0;
    while let Some(template) = partition_template(tenant, t) {
        let lit = literal(template);
        // Keys that are the tenant alone: `<prefix><tenant>`, unless the guards of its unique
        // values go on (`<prefix><tenant>#UNIQUE#..`).
        let rest = template.as_bytes().split_at(lit.len()).1;
        let mut close = 0;
        while close < rest.len() && rest[close] != b'>' {
            close += 1;
        }
        let whole = close + 1 == rest.len() && (t > 0 || tenant.unique.is_empty());
        let mut s = 0;
        while let Some(shared_template) = partition_template(shared, s) {
            if prefixes_overlap(literal(shared_template), lit, whole) {
                return Some((SharedKey::Template(shared_template), template));
            }
            s += 1;
        }
        if !shared.unique.is_empty() && prefixes_overlap(guards, lit, whole) {
            return Some((SharedKey::Guards, template));
        }
        t += 1;
    }
    None
}

/// Whether no `tenant_shared` member of a collection could reach a tenant member's keys (see
/// [`check_shared_apart`]). Called by generated code, in a constant.
#[doc(hidden)]
pub const fn shared_apart(members: &[&EntitySchema]) -> bool {
    let mut a = 0;
    while a < members.len() {
        let mut b = 0;
        while b < members.len() {
            if clash(members[a], members[b]).is_some() {
                return false;
            }
            b += 1;
        }
        a += 1;
    }
    true
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
    for shared in entities.clone() {
        for tenant in entities.clone() {
            let Some((key, template)) = clash(shared, tenant) else { continue };
            let (shown, prefix) = match key {
                SharedKey::Template(t) => (format!("partition key `{t}`"), leading_literal(t).to_owned()),
                SharedKey::Guards => {
                    let g = format!("UNIQUE#{}#", shared.entity_type);
                    (format!("unique guards' partition key `{g}<attribute>#<value>`"), g)
                }
            };
            return Err(Error::Validation(format!(
                "{} is tenant_shared, and its {shown} can be a key of tenant entity {} (`{template}`): every \
                 tenant may use shared items (and the IAM policy grants `{prefix}*` to all of them), so that \
                 would reach another tenant's items; give the shared entity a literal prefix that no tenant key \
                 starts with (`PLAN#<id>` beside `TENANT#<tenant_id>#..`)",
                shared.entity_type, tenant.entity_type
            )));
        }
    }
    Ok(())
}

/// Whether the keys from `template` (a partition-key template of `e`, the `n`th: the table's first)
/// are its tenant's key text and nothing after it: one placeholder after the literal prefix, and
/// (for the table's key) no unique guards going on with `#UNIQUE#..`.
fn ends_with_tenant(e: &EntitySchema, template: &'static str, n: usize) -> bool {
    let rest = template.get(leading_literal(template).len()..).unwrap_or_default();
    rest.find('>').is_some_and(|end| end + 1 == rest.len()) && (n > 0 || e.unique.is_empty())
}

/// Refuses entities of one table among which two tenant entities' partition keys name their
/// tenant at different places of one key text: a key of `a` for tenant `X` (`ORG#X#PROJECTS`,
/// from `ORG#<org>#PROJECTS`) that starts with the literal prefix of `b` (`ORG#X#` of
/// `ORG#X#<org>`, read as tenant `PROJECTS`). Whatever reads the tenant from the key text alone,
/// without the entity, would name another tenant for it: DB-ESDK's branch key id supplier
/// ([`crate::encryption::BranchKeys::per_tenant`], given the item's key only: `table_only`, the
/// tables' keys), and IAM's `dynamodb:LeadingKeys` (the tenant `X`'s pattern `ORG#X#*` would
/// grant `b`'s keys of every tenant). Templates with one literal prefix name the tenant at one
/// place: apart, and so are prefixes neither of which starts the other. [`Error::Validation`]
/// naming both templates.
pub(crate) fn check_tenants_apart(entities: &[&EntitySchema], table_only: bool) -> Result<(), Error> {
    let templates = |e: &EntitySchema| {
        let count = if table_only { 1 } else { usize::MAX };
        (0..).map_while(move |n| partition_template(e, n).map(|t| (n, t))).take(count).collect::<Vec<_>>()
    };
    let tenants = entities.iter().filter(|e| matches!(e.tenant, Tenancy::Field(_)));
    for a in tenants.clone() {
        for (n, ta) in templates(a) {
            for b in tenants.clone() {
                for (_, tb) in templates(b) {
                    // A key of both starts with the longer prefix, `lb`, which extends `la`: what
                    // `lb` adds must read as `a`'s tenant (and then `#`, or the end of `a`'s key).
                    let (la, lb) = (literal(ta), literal(tb));
                    if lb.len() <= la.len() || !prefixes_overlap(lb, la, ends_with_tenant(a, ta, n)) {
                        continue;
                    }
                    return Err(Error::Validation(format!(
                        "the partition keys `{ta}` of {} and `{tb}` of {} name their tenant at different places: a \
                         key of one tenant's {} can start as a key of another tenant's {}, so the tenant read from \
                         the key text alone (as DB-ESDK's per-tenant branch key supplier and IAM's \
                         `dynamodb:LeadingKeys` read it) would be another's; give them one literal prefix \
                         (`TENANT#<tenant_id>#PROJECT#..` beside `TENANT#<tenant_id>#AUDIT#..`)",
                        a.entity_type, b.entity_type, a.entity_type, b.entity_type
                    )));
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
            ("ORG#", "ORG#", false, true),         // `ORG#*` matches `ORG#t1#USER#u`
            ("ORG", "ORG#", false, true),          // `ORG*` too
            ("", "TENANT#", false, true),          // no prefix matches everything
            ("ORG#G#", "ORG#", false, true),       // tenant `G`'s keys
            ("ORG#G", "ORG#", true, true),         // tenant `G`'s key, or `Gx`'s
            ("TENANT", "", false, true),           // tenant `TENANT`'s keys
            ("TENANTS#", "TENANT#", false, false), // they differ at `S`/`#`
            ("ORG#G#", "ORG#", true, false),       // a key `ORG#<tenant>` holds no `#` after the tenant
            ("PLAN#", "", true, false),
            ("PLAN#", "", false, true),      // tenant `PLAN`'s `PLAN#USER#..`
            ("ORG##", "ORG#", false, false), // a tenant id is never empty
            ("ORG#$", "ORG#", false, false), // nor starts with an escaped byte
            ("ORG#*", "ORG#", false, false), // nor a wildcard
            ("ORG#G$", "ORG#", false, false),
            ("PLAN#", "TENANT#", false, false),
            ("UNIQUE#Plan#", "TENANT#", false, false),
        ] {
            assert_eq!(
                prefixes_overlap(shared.as_bytes(), tenant.as_bytes(), whole),
                overlap,
                "{shared:?} beside {tenant:?} ({whole})"
            );
        }
    }

    #[test]
    fn the_whole_component_is_compared() {
        let key = KeySchema::of("PK", "TENANT#<tenant_id>#USER#<user_id>", crate::key::attr::AttributeType::S);
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
        let whole = KeySchema::of("PK", "<tenant_id>", crate::key::attr::AttributeType::S);
        assert!(t1.check_text(&whole, "t1").is_ok());
        assert!(t1.check_text(&whole, "t1x").is_err());
    }
}
