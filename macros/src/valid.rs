//! Rules that span several attributes or fields, and the resolved model the expansion uses.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::Ident;
use syn::ext::IdentExt;

use crate::ast::Input;
use crate::attr::{IndexAttr, IndexKind};
use crate::ctxt::Ctxt;
use crate::template::{Part, Template};

/// A key attribute with its template resolved to fields.
pub struct Key {
    pub attr: String,
    pub template: Template,
    /// (field index, width) per placeholder, in template order.
    pub fields: Vec<(usize, Option<usize>)>,
    /// An index key on an attribute that something else writes: no attribute of its own.
    pub reuse: Option<Reuse>,
    /// The partition key holds `<shard>`.
    pub shard: Option<Shard>,
}

/// A part of a key template as a reader of the key text meets it (`Key::read_steps`).
pub enum ReadStep<'k> {
    Literal(&'k str),
    Shard,
    /// A placeholder: its field, width and form, the separator of a shard joined to it (the
    /// separator and the shard are read with it), and whether it ends the template (a joined
    /// placeholder does not: its shard does).
    Field {
        field: usize,
        width: Option<usize>,
        raw: bool,
        joined: Option<u8>,
        last: bool,
    },
}

/// How a sharded partition key finds its shard.
pub struct Shard {
    /// `shards = N`.
    pub count: u16,
    /// The `shard_by` fields, in order; `None`: a random shard per write.
    pub by: Option<Vec<ByField>>,
    /// `shard_fn = "path"`: computes the shard from the `shard_by` fields' key texts.
    pub hash: Option<syn::Path>,
}

/// A `shard_by` field, with the width and form it has in its keys (its key text is hashed).
#[derive(Clone, Copy)]
pub struct ByField {
    pub field: usize,
    pub width: Option<usize>,
    pub raw: bool,
}

/// What writes the attribute of an index key that has none of its own.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reuse {
    /// The field (by index), whose attribute holds exactly what the template `<field>` says:
    /// the attribute has the field's type (S, N or B).
    Field(usize),
    /// The table's partition key: the template is the partition key's.
    TablePk,
    /// The table's sort key: the template is the sort key's.
    TableSk,
    /// A reuse that is not allowed, already reported (so not again as a duplicate attribute).
    Refused,
}

impl Key {
    /// The parameters of the key's formatter: the placeholders' fields, then the `shard_by`
    /// fields the template does not hold.
    pub fn params(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.fields.iter().map(|(i, _)| *i).collect();
        if let Some(by) = self.shard.as_ref().and_then(|s| s.by.as_ref()) {
            for b in by {
                if !out.contains(&b.field) {
                    out.push(b.field);
                }
            }
        }
        out
    }

    /// A sharded key whose shard its own placeholders do not fix: a query reads every shard.
    pub fn fans_out(&self) -> bool {
        match &self.shard {
            None => false,
            Some(Shard { by: None, .. }) => true,
            Some(Shard { by: Some(by), .. }) => by.iter().any(|b| !self.fields.iter().any(|(i, _)| *i == b.field)),
        }
    }

    /// The template's parts as a reader of the key text meets them, each placeholder paired with
    /// its field: what the key type's parser and an index key's description (read back by the
    /// runtime) are both written from.
    pub fn read_steps(&self) -> Vec<ReadStep<'_>> {
        let mut fields = self.fields.iter();
        let mut steps = Vec::new();
        let mut parts = self.template.parts.iter().enumerate();
        while let Some((at, part)) = parts.next() {
            steps.push(match part {
                Part::Literal(lit) => ReadStep::Literal(lit),
                Part::Shard => ReadStep::Shard,
                Part::Field { raw, .. } => {
                    let Some(&(field, width)) = fields.next() else { continue };
                    // `<field>.<shard>`: the separator and the shard are read with the field.
                    let joined = self.template.shard_join(at).map(|sep| {
                        parts.nth(1);
                        sep.as_bytes()[0]
                    });
                    let last = joined.is_none() && parts.len() == 0;
                    ReadStep::Field { field, width, raw: *raw, joined, last }
                }
            });
        }
        steps
    }

    /// The field whose own attribute this key is.
    pub fn plain_field(&self) -> Option<usize> {
        match self.reuse {
            Some(Reuse::Field(i)) => Some(i),
            _ => None,
        }
    }
}

impl Index {
    /// Every key of the index: its partition key (none of its own for a local index), its sort
    /// key, and the further listed fields of a multi-attribute index. A rule about the fields of
    /// an index's keys looks at all of them: a field listed second is as much a key as the first.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.pk.iter().chain(self.sk.iter()).chain(&self.more_pk).chain(&self.more_sk)
    }
}

pub struct Index {
    pub kind: IndexKind,
    pub label: String,
    pub name: String,
    /// `None` for a local index: the table's partition key.
    pub pk: Option<Key>,
    pub sk: Option<Key>,
    /// A multi-attribute index (`pk = [..]`, `sk = [..]`): the partition and sort keys after
    /// `pk` and `sk`, each a field's own attribute. Empty for every other index.
    pub more_pk: Vec<Key>,
    pub more_sk: Vec<Key>,
    /// Whether the index is keyed by lists of fields.
    pub multi: bool,
    pub query_fn: Ident,
    pub projection: crate::projection::Projection,
    /// Whether the index attribute says its projection (`projection` or `include`).
    pub projection_declared: bool,
}

pub struct Model<'a> {
    pub input: Input<'a>,
    pub pk: Key,
    pub sk: Option<Key>,
    pub indexes: Vec<Index>,
    pub ttl: Option<usize>,
    pub version: Option<usize>,
    pub query_fn: Ident,
    pub tenant: crate::tenant::Tenancy,
    /// The `#[created_at]` field.
    pub created_at: Option<usize>,
    /// The `#[updated_at]` field.
    pub updated_at: Option<usize>,
    /// The `#[vector(..)]` indexes (`crate::vector::parse`).
    pub vectors: Vec<crate::vector::VectorSpec>,
}

impl Model<'_> {
    /// Fields of the primary key, pk placeholders then sk placeholders, each once.
    pub fn key_fields(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for (i, _) in self.pk.fields.iter().chain(self.sk.iter().flat_map(|k| &k.fields)) {
            if !out.contains(i) {
                out.push(*i);
            }
        }
        out
    }

    /// Whether field `i` is kept in the keys only (`#[entity(key_attributes = false)]`, or
    /// `#[entity(key_attribute = false)]` on the field, which decides for it): see
    /// [`kept_in_keys_only`].
    pub fn key_only(&self, i: usize) -> bool {
        kept_in_keys_only(&self.input, &self.pk, self.sk.as_ref(), &self.indexes, i)
    }

    /// Whether key-only field `i` of the primary key has an attribute name that something else
    /// writes (a key attribute, the type attribute, another field): it is read from the keys
    /// alone, never from the attribute of that name.
    pub fn key_only_name_taken(&self, i: usize) -> bool {
        let f = &self.input.fields[i];
        let name = &f.attr_name;
        self.key_only(i)
            && (self.pk.attr == *name
                || self.sk.as_ref().is_some_and(|k| k.attr == *name)
                || self.input.type_attr() == *name
                || self.indexes.iter().flat_map(Index::keys).any(|k| k.reuse.is_none() && k.attr == *name)
                || self
                    .input
                    .fields
                    .iter()
                    .enumerate()
                    .any(|(j, g)| j != i && g.attrs.skip.is_none() && g.attr_name == *name && !self.key_only(j)))
    }

    /// Fields of every key template (primary and index keys), each once.
    pub fn all_key_fields(&self) -> Vec<usize> {
        let mut out = self.key_fields();
        for index in &self.indexes {
            for (i, _) in index.keys().flat_map(|k| &k.fields) {
                if !out.contains(i) {
                    out.push(*i);
                }
            }
        }
        out
    }

    /// The partition key of an index: its own, or the table's for a local index.
    pub fn index_pk<'m>(&'m self, index: &'m Index) -> &'m Key {
        index.pk.as_ref().unwrap_or(&self.pk)
    }
}

/// Whether field `i` is kept in the keys only (`#[entity(key_attributes = false)]`, or
/// `#[entity(key_attribute = false)]` on the field, which decides for it): a field of a key
/// template that is not written as an attribute of its own. A field whose own attribute keys an
/// index (`pk = "<field>"` on its attribute, or a multi-attribute list) is written all the same.
fn kept_in_keys_only(input: &Input<'_>, pk: &Key, sk: Option<&Key>, indexes: &[Index], i: usize) -> bool {
    let stored = match &input.fields[i].attrs.key_attribute {
        Some((_, stored)) => *stored,
        None => input.attrs.no_key_attributes.is_none(),
    };
    let holds = |k: &Key| k.fields.iter().any(|(j, _)| *j == i);
    let index_keys = || indexes.iter().flat_map(Index::keys);
    let table_keys = || std::iter::once(pk).chain(sk);
    !stored
        && (holds(pk) || sk.is_some_and(holds) || index_keys().any(holds))
        && !index_keys().chain(table_keys()).any(|k| k.plain_field() == Some(i))
}

/// A table key on a field's own attribute (a natural key, as AWS's multi-attribute designs key
/// their tables: `#[pk = "<match_id>"]` with `pk_attr = "matchId"`, the field's stored name):
/// the attribute is the field's, typed S, N or B by the field, and nothing else is written. The
/// rule that keys an index on a field's own attribute ([`Reuse::Field`]), extended to the table.
/// What cannot apply to such a key is refused here, with the reason.
fn resolve_natural(cx: &Ctxt, input: &Input<'_>, pk: &mut Key, sk: Option<&mut Key>) {
    let attrs = &input.attrs;
    let lits = [attrs.pk_attr.as_ref(), attrs.sk_attr.as_ref()];
    for ((key, which), lit) in std::iter::once((pk, "partition")).chain(sk.map(|k| (k, "sort"))).zip(lits) {
        let Some(i) = single_placeholder(input, key) else { continue };
        let field = &input.fields[i];
        // A field kept in the keys only (`key_attributes = false`, `key_attribute = false`) is
        // written as key text into the key attribute, whatever its name: the template form.
        let stored = match &field.attrs.key_attribute {
            Some((_, stored)) => *stored,
            None => input.attrs.no_key_attributes.is_none(),
        };
        if !stored {
            continue;
        }
        if field.attr_name != key.attr {
            if field.name == key.attr {
                // Meant as the field's attribute, but the field is stored under another name.
                let at = lit.map_or_else(|| key.template.lit.span(), syn::LitStr::span);
                cx.error_at(
                    at,
                    format!(
                        "the table's {which} key names attribute `{}`, but field `{}` is stored as `{}` (renamed): \
                         write `\"{}\"` to key the table on the field's own attribute",
                        key.attr, field.name, field.attr_name, field.attr_name
                    ),
                );
            }
            continue;
        }
        key.reuse = Some(Reuse::Field(i));
        let name = &field.name;
        if let Some((at, _)) = &field.attrs.with {
            cx.error_spanned_by(
                at,
                format!(
                    "`{name}` keys the table on its own attribute, which DynamoDB reads as the table key's type: \
                     `with` cannot change how it is stored"
                ),
            );
        }
        if let (Some((at, _)), "partition") = (&attrs.shards, which) {
            cx.error_spanned_by(
                at,
                format!(
                    "the table is keyed on `{name}`'s own attribute `{}`: a shard number would change the field's \
                     value, so a natural key cannot be sharded; key the table with a template (`#[pk = \"T#<{name}>#<shard>\"]`) \
                     to shard it",
                    key.attr
                ),
            );
        }
        for f in &input.fields {
            if let Some(at) = &f.attrs.unique {
                cx.error_spanned_by(
                    at,
                    format!(
                        "`#[unique]` keeps a guard item per value, keyed by key text of its own (`UNIQUE#..`) in the \
                         table's key attributes; this table is keyed on `{name}`'s own attribute `{}`, so a guard \
                         would be an item whose `{}` is made up, read by every scan and export of the table as one of \
                         its items: a natural-key table cannot hold guards; key the table with a template to use \
                         `#[unique]`",
                        key.attr, key.attr
                    ),
                );
            }
        }
    }
}

fn resolve(cx: &Ctxt, input: &Input<'_>, attr: String, template: &Template, primary: bool) -> Key {
    let mut fields = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (name, width) in template.fields() {
        if seen.contains(&name) {
            cx.error_spanned_by(&template.lit, format!("`<{name}>` appears twice in `{}`", template.source));
            continue;
        }
        seen.push(name);
        let Some(index) = input.fields.iter().position(|f| f.name == name) else {
            let known = input.fields.iter().map(|f| format!("`{}`", f.name)).collect::<Vec<_>>().join(", ");
            cx.error_spanned_by(
                &template.lit,
                format!("unknown field `{name}` in key template `{}`; `{}` has {known}", template.source, input.ident),
            );
            continue;
        };
        let field = &input.fields[index];
        if field.attrs.skip.is_some() {
            cx.error_spanned_by(
                &template.lit,
                format!("`{name}` is `#[entity(skip)]`: a skipped field is not stored, so it cannot be part of a key"),
            );
        }
        if primary && field.option_inner.is_some() {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "`{name}` is an `Option`, but it is part of the primary key (`{}`), which must always have a \
                     value; an `Option` field can be part of a secondary-index key (a sparse index)",
                    template.source
                ),
            );
        }
        fields.push((index, width));
    }
    Key { attr, template: template.clone(), fields, reuse: None, shard: None }
}

/// The template is exactly `<field>` (no width, no literal): the field index.
fn single_placeholder(input: &Input<'_>, key: &Key) -> Option<usize> {
    match (key.template.parts.as_slice(), key.fields.as_slice()) {
        ([crate::template::Part::Field { width: None, .. }], [(i, None)]) => Some(*i),
        _ => None,
    }
    .filter(|i| input.fields[*i].attrs.skip.is_none())
}

/// Marks the index keys whose attribute is written by something else (see [`Reuse`]), and
/// reports the other uses of a field's or the table's key attribute, saying what is allowed.
fn resolve_reuse(cx: &Ctxt, input: &Input<'_>, pk: &Key, sk: Option<&Key>, indexes: &mut [Index]) {
    for (index, a) in indexes.iter_mut().zip(&input.attrs.indexes) {
        let name = index.name.clone();
        let attr_lits = [a.pk_attr.as_ref(), a.sk_attr.as_ref()];
        let keys = index.pk.iter_mut().map(|k| (k, attr_lits[0])).chain(index.sk.iter_mut().map(|k| (k, attr_lits[1])));
        for (key, attr_lit) in keys {
            if key.fields.len() != key.template.fields().count() {
                // A placeholder names no field: reported already, nothing more to say.
                key.reuse = Some(Reuse::Refused);
                continue;
            }
            if let Some(i) = single_placeholder(input, key) {
                let field = &input.fields[i];
                if field.attr_name == key.attr {
                    key.reuse = Some(Reuse::Field(i));
                    continue;
                }
                if field.name == key.attr {
                    // Meant as the field's attribute, but the field is stored under another name.
                    let at = attr_lit.map_or_else(|| key.template.lit.span(), syn::LitStr::span);
                    cx.error_at(
                        at,
                        format!(
                            "index `{name}` names attribute `{}`, but field `{}` is stored as `{}` (renamed): write \
                             `\"{}\"` to key the index on the field's own attribute",
                            key.attr, field.name, field.attr_name, field.attr_name
                        ),
                    );
                    key.reuse = Some(Reuse::Refused);
                    continue;
                }
            }
            let table_keys =
                std::iter::once((pk, Reuse::TablePk, "partition")).chain(sk.map(|k| (k, Reuse::TableSk, "sort")));
            let mut handled = false;
            for (table_key, reuse, which) in table_keys {
                if table_key.attr != key.attr {
                    continue;
                }
                handled = true;
                if table_key.template.source == key.template.source {
                    key.reuse = Some(reuse);
                } else {
                    cx.error_spanned_by(
                        &key.template.lit,
                        format!(
                            "attribute `{}` is the table's {which} key, `{}`, so index `{name}` cannot write `{}` into \
                             it: an index key can use the {which} key's attribute only with the same template (an \
                             inverted index); give the index its own attribute with another `pk_attr`/`sk_attr`",
                            key.attr, table_key.template.source, key.template.source
                        ),
                    );
                    // Reported here: not again as a duplicate attribute.
                    key.reuse = Some(Reuse::Refused);
                }
            }
            if handled {
                continue;
            }
            if let Some(f) = input.fields.iter().find(|f| f.attrs.skip.is_none() && f.attr_name == key.attr) {
                cx.error_spanned_by(
                    &key.template.lit,
                    format!(
                        "attribute `{}` holds field `{}` as it is stored (a string, number or binary, by the \
                         field's type), so index `{name}` cannot write key text `{}` (a string) into it: an index \
                         key can use a field's attribute only when its template is exactly `<{}>`; otherwise give the \
                         index its own attribute with another `pk_attr`/`sk_attr`",
                        key.attr, f.name, key.template.source, f.name
                    ),
                );
                // Reported here: not again as a duplicate attribute.
                key.reuse = Some(Reuse::Refused);
            }
        }
    }
}

/// `query_by_` + the placeholder names with a trailing `_id` stripped, joined by `_and_`.
fn default_query_name(input: &Input<'_>, prefix: &str, key: &Key) -> String {
    let names: Vec<&str> = key
        .fields
        .iter()
        .map(|(i, _)| {
            let n = input.fields[*i].name.as_str();
            n.strip_suffix("_id").filter(|s| !s.is_empty()).unwrap_or(n)
        })
        .collect();
    if names.is_empty() { prefix.to_owned() } else { format!("{prefix}_by_{}", names.join("_and_")) }
}

fn index_model(cx: &Ctxt, input: &Input<'_>, a: &IndexAttr, table_pk: &Key) -> Index {
    let label = a.label();
    let multi = a.pk_list.is_some() || a.sk_list.is_some();
    let (pk, sk, more_pk, more_sk) = match crate::multi::keys(cx, input, a) {
        Some((mut pk, mut sk)) => {
            let (first_pk, first_sk) = (pk.remove(0), (!sk.is_empty()).then(|| sk.remove(0)));
            (Some(first_pk), first_sk, pk, sk)
        }
        None if multi => (None, None, Vec::new(), Vec::new()),
        None => {
            let pk = match (&a.pk, a.pk_attr_name()) {
                (Some(t), Some(attr)) => Some(resolve(cx, input, attr, t, false)),
                _ => None,
            };
            let sk = match (&a.sk, a.sk_attr_name()) {
                (Some(t), Some(attr)) => Some(resolve(cx, input, attr, t, false)),
                _ => None,
            };
            (pk, sk, Vec::new(), Vec::new())
        }
    };
    let query = match &a.query {
        Some(lit) => format!("query_{}", lit.value()),
        None => default_query_name(input, &format!("query_{label}"), pk.as_ref().unwrap_or(table_pk)),
    };
    let span = a.query.as_ref().map_or_else(|| a.path.span(), syn::LitStr::span);
    let projection = crate::projection::resolve(cx, input, a);
    let projection_declared = a.projection.is_some() || a.include.is_some();
    Index {
        kind: a.kind,
        label,
        name: a.index_name(),
        pk,
        sk,
        more_pk,
        more_sk,
        multi,
        query_fn: Ident::new(&query, span),
        projection,
        projection_declared,
    }
}

pub fn check<'a>(cx: &Ctxt, input: Input<'a>) -> Option<Model<'a>> {
    let Some((_, pk_template)) = &input.attrs.pk else {
        if input.attrs.pk_seen {
            // The `#[pk]` attribute is there but malformed: that error is already reported.
            return None;
        }
        cx.error_at(
            input.ident.span(),
            format!(
                "`{}` has no `#[pk = \"...\"]`: every entity needs a partition-key template, such as \
                 `#[pk = \"USER#<user_id>\"]`",
                input.ident
            ),
        );
        return None;
    };
    let mut pk = resolve(cx, &input, input.pk_attr(), pk_template, true);
    let mut sk = input.attrs.sk.as_ref().map(|(_, t)| resolve(cx, &input, input.sk_attr(), t, true));
    resolve_natural(cx, &input, &mut pk, sk.as_mut());

    if !pk_template.has_fields() && !pk_template.has_shard() && input.attrs.constant_pk.is_none() {
        cx.error_spanned_by(
            &pk_template.lit,
            format!(
                "`#[pk = \"{}\"]` has no placeholder, so every item would share one partition (a hot partition); \
                 add a `<field>`, or write `#[entity(constant_pk)]` if one partition is intended",
                pk_template.source
            ),
        );
    }
    if let Some(at) = &input.attrs.constant_pk
        && pk_template.has_fields()
    {
        cx.error_spanned_by(at, "`constant_pk` is set, but the `#[pk]` template has placeholders");
    }
    if let Some(at) = &input.attrs.no_type_attr {
        if input.attrs.type_attr.is_some() {
            cx.error_spanned_by(
                at,
                "`type_attr = false` writes no type attribute, but `type_attr` also names one: keep one",
            );
        }
        // `type_name` still names the entity where no type attribute is written: its unique
        // guards (`UNIQUE#<type name>#..`), capacity rows, spans and documents.
        // Without a type attribute an item is recognised by its key alone.
        let identifying = input.attrs.sk.as_ref().map_or(pk_template, |(_, t)| t);
        if identifying.literal_len() == 0 && input.attrs.owns_partition.is_none() {
            cx.error_spanned_by(
                &identifying.lit,
                format!(
                    "with `type_attr = false` an item of {} is told from other entities' items by its key alone (a \
                     query steps over items whose key does not parse as one of its keys), but `{}` is all \
                     placeholders: any other item in the partition could read as one; give the key literal text of \
                     its own (`ORDER#<id>`), keep the type attribute, or, if no other entity's items share its \
                     partitions (a table of one entity), say so with `#[entity(owns_partition = true)]`",
                    input.ident, identifying.source
                ),
            );
        }
    } else if let Some(at) = &input.attrs.owns_partition {
        cx.error_spanned_by(
            at,
            "`owns_partition = true` goes with `type_attr = false`: an entity that writes its type attribute is told \
             from others by it already",
        );
    }

    let mut ttl = None;
    let mut version = None;
    for (i, f) in input.fields.iter().enumerate() {
        if let Some(at) = &f.attrs.ttl {
            if ttl.is_some() {
                cx.error_spanned_by(at, "a second `#[ttl]` field: DynamoDB allows one TTL attribute per table");
            } else {
                ttl = Some(i);
            }
            if f.attrs.skip.is_some() {
                cx.error_spanned_by(
                    at,
                    "a `#[ttl]` field cannot be `#[entity(skip)]`: TTL is an attribute of the item",
                );
            }
        }
        if let Some(at) = &f.attrs.version {
            if version.is_some() {
                cx.error_spanned_by(at, "a second `#[version]` field: an entity has one version number");
            } else {
                version = Some(i);
            }
            if f.attrs.skip.is_some() {
                cx.error_spanned_by(at, "a `#[version]` field cannot be `#[entity(skip)]`");
            }
        }
    }

    check_defaults(cx, &input, &pk, sk.as_ref());
    check_unique(cx, &input, &pk, sk.as_ref());

    let mut indexes: Vec<Index> = input.attrs.indexes.iter().map(|a| index_model(cx, &input, a, &pk)).collect();
    resolve_reuse(cx, &input, &pk, sk.as_ref(), &mut indexes);
    resolve_shards(cx, &input, &mut pk, sk.as_ref(), &mut indexes);
    // A field stored `with` a module may key an index on its own attribute when the module
    // keeps the type the index declares: a constant assertion of the expansion checks it
    // (`expand::plain::with_types`).

    // Index names and query names are unique.
    let mut index_names: HashMap<String, &Index> = HashMap::new();
    for index in &indexes {
        if let Some(first) = index_names.insert(index.name.clone(), index) {
            cx.error_at(
                index.query_fn.span(),
                format!("`{}` and `{}` both name the index `{}`", first.label, index.label, index.name),
            );
        }
    }
    let query_fn = match &input.attrs.query {
        Some(lit) => Ident::new(&format!("query_{}", lit.value()), lit.span()),
        None => Ident::new(&default_query_name(&input, "query", &pk), Span::call_site()),
    };
    let mut queries: Vec<&Ident> = vec![&query_fn];
    for index in &indexes {
        if let Some(first) = queries.iter().find(|q| **q == &index.query_fn) {
            cx.error_at(
                index.query_fn.span(),
                format!(
                    "the query of `{}` would be named `{}`, like another query of `{}`: give it another name with \
                     `query = \"...\"`",
                    index.label, first, input.ident
                ),
            );
        } else {
            queries.push(&index.query_fn);
        }
    }

    // Attribute names are unique across keys, index keys, the type attribute and the fields.
    let mut attrs: HashMap<String, String> = HashMap::new();
    let mut claim = |cx: &Ctxt, name: &str, owner: String, span: Span| {
        if let Some(first) = attrs.get(name) {
            cx.error_at(span, format!("attribute `{name}` is used by both {first} and {owner}"));
        } else {
            attrs.insert(name.to_owned(), owner);
        }
    };
    // A table key on a field's own attribute is claimed by the field.
    let pk_span = pk_template.lit.span();
    if pk.reuse.is_none() {
        claim(cx, &pk.attr, "the partition key".into(), pk_span);
    }
    if let Some(sk) = sk.as_ref().filter(|k| k.reuse.is_none()) {
        claim(cx, &sk.attr, "the sort key".into(), sk.template.lit.span());
    }
    claim(cx, &input.type_attr(), "the type attribute".into(), input.ident.span());
    for index in &indexes {
        for key in index.pk.iter().chain(index.sk.iter()).filter(|k| k.reuse.is_none()) {
            claim(cx, &key.attr, format!("index `{}`", index.name), key.template.lit.span());
        }
    }
    for (i, f) in input.fields.iter().enumerate().filter(|(_, f)| f.attrs.skip.is_none()) {
        // A primary-key field kept in the keys only writes no attribute of its own, and is read
        // back from the keys alone: its name is free for a key attribute or another field.
        if in_primary_key(&pk, sk.as_ref(), i) && kept_in_keys_only(&input, &pk, sk.as_ref(), &indexes, i) {
            continue;
        }
        claim(cx, &f.attr_name, format!("field `{}`", f.name), f.span());
    }

    for index in input.attrs.indexes.iter().filter(|i| i.kind == IndexKind::Local) {
        if !input.attrs.sk_seen {
            cx.error_spanned_by(
                &index.path,
                format!(
                    "`#[{}]` needs a table with a sort key: a local index is another sort key of the table's \
                     partitions; add `#[sk = \"...\"]`, or use a global index (`#[gsi1(pk = \"...\", sk = \"...\")]`)",
                    index.path
                ),
            );
        }
    }

    check_type_names(cx, &input, &query_fn, sk.as_ref(), &indexes);
    check_key_attribute(cx, &input, &pk, sk.as_ref(), &indexes);
    check_encrypt(cx, &input, &pk, sk.as_ref(), &indexes);
    let tenant = crate::tenant::check(cx, &input, &pk, &indexes);

    if cx.has_errors() {
        return None;
    }
    let (created_at, updated_at) = check_filled(cx, &input, &pk, sk.as_ref(), &indexes);
    Some(Model { input, pk, sk, indexes, ttl, version, query_fn, tenant, created_at, updated_at, vectors: Vec::new() })
}

/// `#[created_at]` and `#[updated_at]`: one of each, on separate fields, stored (not skipped,
/// not the TTL or the version), and `#[updated_at]` in no key template (an update sets it, and
/// an update cannot move a key). Their positions.
fn check_filled(
    cx: &Ctxt,
    input: &Input<'_>,
    pk: &Key,
    sk: Option<&Key>,
    indexes: &[Index],
) -> (Option<usize>, Option<usize>) {
    let keys: Vec<&Key> = std::iter::once(pk).chain(sk).chain(indexes.iter().flat_map(Index::keys)).collect();
    let (mut created, mut updated) = (None, None);
    for (i, f) in input.fields.iter().enumerate() {
        for (at, name, slot) in
            [(&f.attrs.created_at, "created_at", &mut created), (&f.attrs.updated_at, "updated_at", &mut updated)]
        {
            let Some(at) = at else { continue };
            if slot.is_some() {
                cx.error_spanned_by(at, format!("a second `#[{name}]` field: an entity has one"));
                continue;
            }
            *slot = Some(i);
            if f.attrs.skip.is_some() || f.attrs.ttl.is_some() || f.attrs.version.is_some() {
                cx.error_spanned_by(
                    at,
                    format!(
                        "a `#[{name}]` field is a stored time of its own: it cannot be `#[entity(skip)]`, the \
                         `#[ttl]` or the `#[version]`"
                    ),
                );
            }
        }
        if let (Some(_), Some(at)) = (&f.attrs.created_at, &f.attrs.updated_at) {
            cx.error_spanned_by(
                at,
                format!(
                    "`{}` is both `#[created_at]` and `#[updated_at]`: the first keeps the time the item was \
                     created, the second changes on every write; give each a field of its own",
                    f.name
                ),
            );
        }
        if let Some(at) = &f.attrs.updated_at
            && let Some(key) = keys.iter().find(|k| k.fields.iter().any(|(j, _)| *j == i))
        {
            cx.error_spanned_by(
                at,
                format!(
                    "`{}` is `#[updated_at]`, which every write changes, but the key `{}` is made of it: an update \
                     cannot move an item to another key; key the item on `#[created_at]` or another field",
                    f.name, key.attr
                ),
            );
        }
    }
    (created, updated)
}

/// `#[encrypt]` goes on a stored field that nothing reads or compares on the server: not a field
/// of a key (the table's or an index's template, `shard_by` included), nor one an index's
/// `include` names, nor `#[unique]`, `#[ttl]` or `#[version]` (DynamoDB compares or reads each of
/// those, and sees only ciphertext).
fn check_encrypt(cx: &Ctxt, input: &Input<'_>, pk: &Key, sk: Option<&Key>, indexes: &[Index]) {
    for (i, f) in input.fields.iter().enumerate() {
        let Some(at) = &f.attrs.encrypt else { continue };
        let in_key = |k: &Key| k.params().contains(&i) || k.plain_field() == Some(i);
        let why = if in_key(pk) || sk.is_some_and(in_key) {
            Some(format!(
                "`{}` is part of the primary key, which DynamoDB reads to find the item: a key cannot be encrypted \
                 (it is signed)",
                f.name
            ))
        } else if let Some(index) = indexes.iter().find(|index| index.keys().any(in_key)) {
            Some(format!(
                "`{}` is part of a key of index `{}`, which DynamoDB sorts and matches in plaintext: an index key \
                 cannot be encrypted",
                f.name, index.name
            ))
        } else if let Some(index) = indexes.iter().find(
            |index| matches!(&index.projection, crate::projection::Projection::Include(a) if a.contains(&f.attr_name)),
        ) {
            Some(format!(
                "`{}` is in the `include` list of index `{}`: an index holding part of an encrypted item cannot be \
                 decrypted (the signature covers the whole item); remove it from `include`",
                f.name, index.name
            ))
        } else if f.attrs.skip.is_some() {
            Some("a skipped field is not stored, so there is nothing to encrypt".to_owned())
        } else if f.attrs.unique.is_some() {
            Some("a `#[unique]` field cannot be `#[encrypt]`: its value keys a guard item, in plaintext".to_owned())
        } else if f.attrs.ttl.is_some() {
            Some("a `#[ttl]` field cannot be `#[encrypt]`: DynamoDB reads the expiry time itself".to_owned())
        } else if f.attrs.version.is_some() {
            Some(
                "a `#[version]` field cannot be `#[encrypt]`: every versioned write compares it on the server"
                    .to_owned(),
            )
        } else {
            None
        };
        if let Some(message) = why {
            cx.error_spanned_by(at, message);
        }
    }
}

/// `#[entity(key_attribute = ..)]` on a field: only on a field of a key template, only where it
/// changes something (against the entity's `key_attributes`), and not on a field whose own
/// attribute keys an index (that index needs it written).
fn check_key_attribute(cx: &Ctxt, input: &Input<'_>, pk: &Key, sk: Option<&Key>, indexes: &[Index]) {
    let keys: Vec<&Key> = std::iter::once(pk).chain(sk).chain(indexes.iter().flat_map(Index::keys)).collect();
    let entity_stores = input.attrs.no_key_attributes.is_none();
    for (i, f) in input.fields.iter().enumerate() {
        let Some((at, stored)) = &f.attrs.key_attribute else { continue };
        if !keys.iter().any(|k| k.fields.iter().any(|(j, _)| *j == i)) {
            cx.error_spanned_by(
                at,
                format!(
                    "`key_attribute` says whether a key field is also written as an attribute of its own, but `{}` \
                     is in no key template: it is always written",
                    f.name
                ),
            );
        } else if *stored == entity_stores {
            let what = if *stored {
                "key fields are written as attributes of their own unless the entity says \
                 `#[entity(key_attributes = false)]`: `key_attribute` on a field changes nothing here"
            } else {
                "the entity's `key_attributes = false` already keeps every key field in the keys only"
            };
            cx.error_spanned_by(at, format!("`key_attribute` on `{}`: {what}", f.name));
        } else if !*stored && let Some(index) = indexes.iter().find(|index| index.keys().any(|k| k.attr == f.attr_name))
        {
            cx.error_spanned_by(
                at,
                format!(
                    "`{}` keys index `{}` with its own attribute `{}`, so the attribute is written: \
                     `key_attribute = false` cannot keep it in the keys only",
                    f.name, index.name, f.attr_name
                ),
            );
        }
    }
}

/// Where `key`'s template (or `other`'s) holds field `i`: its width and whether it is raw.
fn placement(i: usize, keys: &[Option<&Key>]) -> Option<(Option<usize>, bool)> {
    keys.iter()
        .flatten()
        .find_map(|k| k.fields.iter().position(|(f, _)| *f == i).map(|pos| (k.fields[pos].1, k.template.is_raw(pos))))
}

/// One sharded partition key's `shards` and `shard_by`: `<shard>` and `shards` go together,
/// `shard_by` names fields of `keys` (the key's own and its sort key), each once.
#[allow(clippy::too_many_arguments)]
fn shard_of(
    cx: &Ctxt,
    input: &Input<'_>,
    pk: &mut Key,
    other: Option<&Key>,
    shards: Option<&(proc_macro2::TokenStream, u16)>,
    shard_by: Option<&syn::LitStr>,
    shard_fn: Option<&syn::Path>,
    owner: &str,
    which_keys: &str,
) {
    match (pk.template.has_shard(), shards) {
        (true, None) => cx.error_spanned_by(
            &pk.template.lit,
            format!(
                "`<shard>` in `{}` needs a shard count: write `shards = N` (2 to 512) on {owner}",
                pk.template.source
            ),
        ),
        (false, Some((at, _))) => cx.error_spanned_by(
            at,
            format!(
                "`shards` is set, but the partition key `{}` of {owner} has no `<shard>`: write where the shard \
                 number goes (`{}#<shard>`)",
                pk.template.source, pk.template.source
            ),
        ),
        _ => {}
    }
    if let (Some(lit), None) = (shard_by, shards) {
        cx.error_spanned_by(lit, format!("`shard_by` without `shards`: {owner} is not sharded"));
    }
    if let (Some(path), None) = (shard_fn, shard_by) {
        cx.error_spanned_by(
            path,
            format!(
                "`shard_fn` without `shard_by` on {owner}: the function computes the shard from the `shard_by` \
                 fields' key texts; name them (`shard_by = \"field\"`)"
            ),
        );
    }
    let Some((_, count)) = shards.filter(|(_, n)| *n > 0) else { return };
    let by = shard_by.map(|lit| {
        let mut by: Vec<ByField> = Vec::new();
        let text = lit.value();
        for name in text.split(',').map(str::trim) {
            let Some(i) = input.fields.iter().position(|f| f.name == name) else {
                let known = input.fields.iter().map(|f| format!("`{}`", f.name)).collect::<Vec<_>>().join(", ");
                cx.error_spanned_by(
                    lit,
                    format!("`shard_by` names `{name}`, which is not a field of `{}` (it has {known})", input.ident),
                );
                continue;
            };
            if by.iter().any(|b| b.field == i) {
                cx.error_spanned_by(lit, format!("`shard_by` names `{name}` twice"));
                continue;
            }
            let Some((width, raw)) = placement(i, &[Some(pk), other]) else {
                cx.error_spanned_by(
                    lit,
                    format!(
                        "`shard_by` names `{name}`, which is not a field of {which_keys}: the shard is computed \
                         from key fields, so that the key alone finds it"
                    ),
                );
                continue;
            };
            by.push(ByField { field: i, width, raw });
        }
        by
    });
    let hash = shard_fn.filter(|_| by.is_some()).cloned();
    pk.shard = Some(Shard { count: *count, by, hash });
}

/// `<shard>`, `shards` and `shard_by` of the table's partition key and of each index.
fn resolve_shards(cx: &Ctxt, input: &Input<'_>, pk: &mut Key, sk: Option<&Key>, indexes: &mut [Index]) {
    let in_sort_key = |cx: &Ctxt, key: &Key| {
        if key.template.has_shard() {
            cx.error_spanned_by(
                &key.template.lit,
                format!(
                    "`<shard>` in the sort key `{}`: shards spread one partition's writes over several \
                     partitions, so the shard goes in a partition key",
                    key.template.source
                ),
            );
        }
    };
    let attrs = &input.attrs;
    // A natural key cannot be sharded: reported by `resolve_natural`, nothing more to say.
    let natural = pk.plain_field().is_some();
    if !natural {
        shard_of(
            cx,
            input,
            pk,
            sk,
            attrs.shards.as_ref(),
            attrs.shard_by.as_ref(),
            attrs.shard_fn.as_ref(),
            "`#[entity(..)]`",
            "the table's keys (`#[pk]` or `#[sk]`)",
        );
    }
    if let (false, Some((at, _)), None) = (natural, &attrs.shards, &attrs.shard_by) {
        cx.error_spanned_by(
            at,
            "a sharded table key needs `shard_by = \"field, ..\"` (fields of `#[pk]` or `#[sk]`): `get` and \
             `<Entity>::key(..)` find an item's shard from its key fields; random shards are for indexes only",
        );
    }
    if let Some(sk) = sk {
        in_sort_key(cx, sk);
    }
    for (index, a) in indexes.iter_mut().zip(&attrs.indexes) {
        if let Some(isk) = &index.sk {
            in_sort_key(cx, isk);
        }
        let owner = format!("`#[{}]`", index.label);
        let which = format!("index `{}`'s keys", index.name);
        if let Some(ipk) = index.pk.as_mut() {
            let (shards, by, hash) = (a.shards.as_ref(), a.shard_by.as_ref(), a.shard_fn.as_ref());
            shard_of(cx, input, ipk, index.sk.as_ref(), shards, by, hash, &owner, &which);
        }
    }
}

/// `#[entity(default)]` and `#[entity(with = "..")]` where they mean something.
fn check_defaults(cx: &Ctxt, input: &Input<'_>, pk: &Key, sk: Option<&Key>) {
    for (i, f) in input.fields.iter().enumerate() {
        if let Some((at, _)) = &f.attrs.default {
            let primary = in_primary_key(pk, sk, i);
            if primary {
                cx.error_spanned_by(
                    at,
                    format!(
                        "`{}` is part of the primary key, so it needs no `default`: a key field whose attribute \
                         is missing is read from the key itself",
                        f.name
                    ),
                );
            }
            if f.attrs.skip.is_some() {
                cx.error_spanned_by(
                    at,
                    "a skipped field is never read, so `default` has no effect: it is always `Default::default()`",
                );
            }
            if f.attrs.version.is_some() {
                cx.error_spanned_by(at, "a `#[version]` field needs no `default`: a missing version reads as 0");
            }
        }
        if let Some((at, _)) = &f.attrs.with {
            if f.attrs.ttl.is_some() {
                cx.error_spanned_by(at, "a `#[ttl]` field is always stored as epoch seconds: remove `with`");
            }
            if f.attrs.version.is_some() {
                cx.error_spanned_by(at, "a `#[version]` field is always stored as a number: remove `with`");
            }
            if f.attrs.skip.is_some() {
                cx.error_spanned_by(at, "a skipped field is not stored, so `with` has no effect");
            }
        }
    }
}

/// Whether field `i` is a placeholder of the table's partition or sort key.
fn in_primary_key(pk: &Key, sk: Option<&Key>, i: usize) -> bool {
    pk.fields.iter().chain(sk.iter().flat_map(|k| &k.fields)).any(|(k, _)| *k == i)
}

/// `#[unique]` goes on a stored field that is not part of the primary key (the key is unique
/// already), is not the TTL or the version, and is stored as the library writes it (no `with`).
fn check_unique(cx: &Ctxt, input: &Input<'_>, pk: &Key, sk: Option<&Key>) {
    for (i, f) in input.fields.iter().enumerate() {
        let Some(at) = &f.attrs.unique else { continue };
        let primary = in_primary_key(pk, sk, i);
        let clash = if primary {
            Some(format!(
                "`{}` is part of the primary key, which is unique already: `#[unique]` is for other fields",
                f.name
            ))
        } else if f.attrs.skip.is_some() {
            Some("a skipped field is not stored, so it cannot be `#[unique]`".to_owned())
        } else if f.attrs.ttl.is_some() {
            Some("a `#[ttl]` field cannot be `#[unique]`: an expiry time is not an identity".to_owned())
        } else if f.attrs.version.is_some() {
            Some("a `#[version]` field cannot be `#[unique]`: it changes on every write".to_owned())
        } else if f.attrs.with.is_some() {
            Some(format!(
                "a `#[unique]` value is compared as its `KeyPart` type stores it, so `with` cannot change how it is \
                 stored: remove `with` from `{}`",
                f.name
            ))
        } else {
            None
        };
        if let Some(message) = clash {
            cx.error_spanned_by(at, message);
        }
    }
}

/// `similar` as `Similar`, for the generated search builders' names.
pub fn pascal_of(s: &str) -> String {
    pascal(s)
}

fn pascal(s: &str) -> String {
    s.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// The name of a query's generated type, `<Name><Query>Query` (generic over `L`, the sort-key
/// fields fixed by `eq`).
pub fn query_type_name(input: &Input<'_>, query_fn: &Ident) -> String {
    let base = query_fn.to_string();
    let base = base.strip_prefix("query_").unwrap_or(&base);
    format!("{}{}Query", input.ident.unraw(), pascal(base))
}

/// Generated type names are unique, and no field type is spelled like one (inside the generated
/// block, the generated type would shadow the user's).
fn check_type_names(cx: &Ctxt, input: &Input<'_>, query_fn: &Ident, sk: Option<&Key>, indexes: &[Index]) {
    let ident = input.ident.unraw();
    let mut names: Vec<(String, String, Span)> = vec![
        (format!("{ident}Key"), format!("the key type of `{ident}`"), input.ident.span()),
        (format!("{ident}Fields"), format!("the field paths of `{ident}`"), input.ident.span()),
    ];
    let queries = std::iter::once((query_fn, sk)).chain(indexes.iter().map(|i| (&i.query_fn, i.sk.as_ref())));
    for (query, sk) in queries {
        if sk.is_none_or(|k| k.fields.is_empty()) {
            continue;
        }
        let name = query_type_name(input, query);
        let source = format!("the builder of `{query}`");
        if let Some((_, first, _)) = names.iter().find(|(n, _, _)| *n == name) {
            // The same query named twice is reported where query names are checked.
            if *first != source {
                cx.error_at(
                    query.span(),
                    format!(
                        "`{name}` would be generated both as {first} and as {source}: give one of the \
                         queries another name with `query = \"...\"`"
                    ),
                );
            }
            continue;
        }
        names.push((name, source, query.span()));
    }
    for f in &input.fields {
        let mut stack: Vec<proc_macro2::TokenStream> = vec![quote::ToTokens::to_token_stream(f.ty)];
        while let Some(tokens) = stack.pop() {
            for tt in tokens {
                match tt {
                    proc_macro2::TokenTree::Ident(i) => {
                        // `<Name>Key` is generated outside the block: no shadowing.
                        if let Some((name, source, _)) = names.iter().skip(1).find(|(n, _, _)| i.unraw() == n.as_str())
                        {
                            cx.error_at(
                                i.span(),
                                format!(
                                    "the type `{name}` of field `{}` has the name of {source}, which the derive \
                                     generates: rename the type",
                                    f.name
                                ),
                            );
                        }
                    }
                    proc_macro2::TokenTree::Group(g) => stack.push(g.stream()),
                    _ => {}
                }
            }
        }
    }
}
