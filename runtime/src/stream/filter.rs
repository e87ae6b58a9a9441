//! Lambda event-source filter patterns that select the records of some entities.

use super::EventName;
use crate::json::json_str;
use crate::key::attr::{AttributeType, KeySchema};
use crate::model::entity::EntitySchema;

fn json_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(json_str).collect();
    format!("[{}]", items.join(","))
}

/// What the key texts of an entity's items are known to be, from a key's template: the whole
/// text (a template without placeholder) or its start (the literal before the first
/// placeholder), as a Lambda filter value; `None` when nothing is known (a template that starts
/// with a placeholder, a key on a field's own number or binary attribute).
fn key_value(key: &KeySchema) -> Option<String> {
    if key.ty != AttributeType::S {
        return None;
    }
    match key.template.find('<') {
        None => Some(json_str(key.template)),
        Some(0) => None,
        Some(at) => Some(format!("{{\"prefix\":{}}}", json_str(&key.template[..at]))),
    }
}

/// Entities without a type attribute whose partition keys are known alike: the partition key's
/// attribute and filter value (`None`: any value), and the sort key's attribute and filter values
/// (`None`: any value).
struct KeyGroup<'a> {
    pk: Option<(&'a str, String)>,
    sk: Option<(&'a str, Vec<String>)>,
}

/// The Lambda filter patterns (`FilterCriteria.Filters[].Pattern`, Terraform's
/// `filter_criteria { filter { pattern = .. } }`) that let through the records of `events`
/// whose item is one of `entities` (an entity's `&[&E::SCHEMA]`, or a collection's
/// `C::MEMBERS`): none of them is dropped. Lambda ORs the filters of a mapping. Empty `events`
/// means all three.
///
/// - An entity with a type attribute is matched by it: `INSERT` and `MODIFY` records on
///   `NewImage`, `REMOVE` records (TTL expiries included) on `OldImage`, so asking for both
///   kinds gives two patterns; entities with different type attributes give one pattern each.
///   (An item of such an entity written by other code without the type attribute is not let
///   through.)
/// - An entity without a type attribute (`type_attr = false`) is matched by its keys
///   (`dynamodb.Keys`, in every record whatever the stream's view type): the literal text its
///   key templates start with (`{"prefix": "LEGACY#"}`), or the whole key where a template has
///   no placeholder. Such a pattern also lets through the records of other entities whose keys
///   start the same way; the typed decoder steps over them.
/// - An entity without a type attribute whose keys cannot be matched (both its partition and
///   sort key templates start with a placeholder, as a table keyed on a plain attribute,
///   `#[pk = "<match_id>"]`, does) leaves nothing to filter on: the patterns are then the one
///   pattern `{"eventName":[..]}`, which lets through every record of `events`, and the function
///   steps over the records of other entities itself.
///
/// For the e-commerce seed, `filter_patterns(&[&Order::SCHEMA], &[Insert, Modify])` is
/// `{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"entityType":{"S":["Order"]}}}}`.
pub fn filter_patterns(entities: &[&EntitySchema], events: &[EventName]) -> Vec<String> {
    let all = [EventName::Insert, EventName::Modify, EventName::Remove];
    let events = if events.is_empty() { &all[..] } else { events };
    let mut every: Vec<&str> = Vec::with_capacity(3);
    for e in events {
        if !every.contains(&e.as_str()) {
            every.push(e.as_str());
        }
    }
    // Entities without a type attribute, by what their keys are known to be.
    let mut by_keys: Vec<KeyGroup<'_>> = Vec::new();
    for e in entities.iter().filter(|e| e.type_attr.is_empty()) {
        let pk = key_value(&e.pk).map(|v| (e.pk.attr, v));
        let sk = e.sk.as_ref().and_then(|k| key_value(k).map(|v| (k.attr, v)));
        if pk.is_none() && sk.is_none() {
            // Nothing to match this entity's records on: let every record through.
            return vec![format!("{{\"eventName\":{}}}", json_list(every))];
        }
        match by_keys.iter().position(|g| g.pk == pk) {
            // A group whose sort key is any value stays so; else the values add up.
            Some(at) => match sk {
                None => by_keys[at].sk = None,
                Some((_, v)) => {
                    if let Some((_, values)) = &mut by_keys[at].sk
                        && !values.contains(&v)
                    {
                        values.push(v);
                    }
                }
            },
            None => by_keys.push(KeyGroup { pk, sk: sk.map(|(a, v)| (a, vec![v])) }),
        }
    }
    let mut patterns = Vec::new();
    let groups: [(&str, Vec<&str>); 2] = [
        ("NewImage", every.iter().copied().filter(|e| *e != EventName::Remove.as_str()).collect()),
        ("OldImage", every.iter().copied().filter(|e| *e == EventName::Remove.as_str()).collect()),
    ];
    // Type attributes in first-seen order, each with its type names.
    let mut by_attr: Vec<(&str, Vec<&str>)> = Vec::new();
    for e in entities.iter().filter(|e| !e.type_attr.is_empty()) {
        match by_attr.iter_mut().find(|(a, _)| *a == e.type_attr) {
            Some((_, names)) if !names.contains(&e.entity_type) => names.push(e.entity_type),
            Some(_) => {}
            None => by_attr.push((e.type_attr, vec![e.entity_type])),
        }
    }
    for (image, names) in groups {
        if names.is_empty() {
            continue;
        }
        for (attr, types) in &by_attr {
            patterns.push(format!(
                "{{\"eventName\":{},\"dynamodb\":{{{}:{{{}:{{\"S\":{}}}}}}}}}",
                json_list(names.iter().copied()),
                json_str(image),
                json_str(attr),
                json_list(types.iter().copied()),
            ));
        }
    }
    for KeyGroup { pk, sk } in &by_keys {
        let mut keys = Vec::with_capacity(2);
        if let Some((attr, value)) = pk {
            keys.push(format!("{}:{{\"S\":[{value}]}}", json_str(attr)));
        }
        if let Some((attr, values)) = sk {
            keys.push(format!("{}:{{\"S\":[{}]}}", json_str(attr), values.join(",")));
        }
        patterns.push(format!(
            "{{\"eventName\":{},\"dynamodb\":{{\"Keys\":{{{}}}}}}}",
            json_list(every.iter().copied()),
            keys.join(",")
        ));
    }
    patterns
}
