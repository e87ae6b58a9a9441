//! Queries of collections (`#[derive(Collection)]`, described in `model::collection`): a
//! partition's query of every member, and the key conditions the members share.

use super::{Query, SortCondition};
use crate::error::KeyError;
use crate::model::collection::{Collection, Member, Partition, SortKeyValue};
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;

impl<E> Partition<E> {
    /// A query of every item of collection `C` in this partition. Called by the generated
    /// `<Collection>::query`.
    #[doc(hidden)]
    pub fn __query<C: Collection>(self) -> Query<C>
    where
        E: Member<C>,
    {
        self.query_of(SortCondition::Any)
    }

    /// A query of the entity's items in this partition, with sort condition `sort`. Called by
    /// the generated `query_*` functions.
    #[doc(hidden)]
    #[inline]
    pub fn __entity_query(self, sort: SortCondition) -> Query<E> {
        self.query_of(sort)
    }

    /// A query of the items of the sort-key template's prefix `prefix` in this partition, open
    /// to conditions on the template's placeholders. Called by the generated `query_*`
    /// functions.
    #[doc(hidden)]
    #[inline]
    pub fn __level(self, prefix: &'static str) -> super::QueryLevel<E> {
        let sort = match prefix {
            "" => SortCondition::Any,
            p => SortCondition::BeginsWith(p.to_owned()),
        };
        super::QueryLevel::__new(self.query_of(sort), prefix)
    }

    /// The query of this partition, of items of type `X`.
    fn query_of<X>(self, sort: SortCondition) -> Query<X> {
        let (pk_type, sk_type) = self.key_types;
        let mut q = Query::__new(self.index, self.global, self.pk_attr, self.pk, self.sk_attr, sort)
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

impl<C: Collection> Query<C> {
    /// Only the items under a member's item in the hierarchy of sort keys: those whose sort key
    /// starts with that item's sort key and `#` (`begins_with(SK, "char#01#")` under the character
    /// `char#01`), exact as entity conditions are, since `#` ends every component. The key must be
    /// in the query's partition of the table (a sort key of an index is another attribute). Where
    /// a member's sort key is a field's own attribute (a table keyed on plain attributes), which
    /// holds values as they are (a string may hold `#`), `under` would not be exact: the query is
    /// refused before sending ([`Error::Key`](crate::Error::Key)); the member's own sort-key
    /// conditions say what is meant (`begins_with` on a string).
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
            // A sort key on a field's own attribute (a table keyed on plain attributes), the key's
            // or another member's: its values are as they are, not key text whose components `#`
            // ends (a string may hold `#`; a number or binary is compared as a value).
            let natural = std::iter::once(schema)
                .chain(C::MEMBERS.iter().copied())
                .find_map(|m| m.sk.filter(|k| m.attributes.contains(&k.attr)).map(|k| (m.entity_type, k)));
            if let Some((entity, k)) = natural {
                return Err(mismatch(&format!(
                    "`under` narrows to the sort keys that begin with the key's and `#`, exact for key text only \
                     (where `#` ends every component); the sort key of {entity} is field's own attribute `{}`, \
                     {}, which holds each value as it is{}: use the member's own sort-key conditions{}",
                    k.attr,
                    k.ty.describe(),
                    if k.ty == crate::key::attr::AttributeType::S {
                        " (a `#` in it is part of the value)"
                    } else {
                        ", compared as a value: none begins with another"
                    },
                    if k.ty == crate::key::attr::AttributeType::S { " (`begins_with`)" } else { "" },
                )));
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
impl<C: Collection> Query<C> {
    /// Items whose sort key's shared first component is between `from` and `to`, both included
    /// (a `to` that is a prefix includes every value beginning with it: `"2022-05-30"` includes
    /// that whole day). Values are written as key text (`KeyPart`: strings escaped, numbers
    /// padded to their type's width, times in ISO 8601). [`Error::Validation`](crate::Error::Validation) when sent if the
    /// members' sort keys (of the queried index) do not all begin with the same literal text
    /// followed by a placeholder without width.
    pub fn sort_key_between(self, from: impl SortKeyValue, to: impl SortKeyValue) -> Self {
        let range = self.shared_component().and_then(|prefix| {
            let lower = format!("{prefix}{}", from.sort_key_text()?);
            let upper = super::sort::max_with_prefix(format!("{prefix}{}", to.sort_key_text()?));
            Ok(if lower > upper {
                SortCondition::Nothing
            } else {
                SortCondition::Range { lower: Some(lower), upper: Some(upper) }
            })
        });
        self.with_shared(range)
    }

    /// Items whose sort key's shared first component begins with `prefix` (see
    /// [`Query::sort_key_between`](crate::Query::sort_key_between)).
    pub fn sort_key_begins_with(self, prefix: impl SortKeyValue) -> Self {
        let sort = self
            .shared_component()
            .and_then(|shared| Ok(SortCondition::BeginsWith(format!("{shared}{}", prefix.sort_key_text()?))));
        self.with_shared(sort)
    }

    fn with_shared(mut self, sort: Result<SortCondition, String>) -> Self {
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
