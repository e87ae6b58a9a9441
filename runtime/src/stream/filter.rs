//! Lambda event-source filter patterns that select the records of some entities.

use super::EventName;
use crate::json::json_str;
use crate::model::entity::EntitySchema;

fn json_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(json_str).collect();
    format!("[{}]", items.join(","))
}

/// The Lambda filter patterns (`FilterCriteria.Filters[].Pattern`, Terraform's
/// `filter_criteria { filter { pattern = .. } }`) that let through exactly the records of
/// `events` whose image is of one of `entities` (an entity's `&[&E::SCHEMA]`, or a collection's
/// `C::MEMBERS`), by their type attribute.
///
/// `INSERT` and `MODIFY` records are matched on `NewImage`, `REMOVE` records (TTL expiries
/// included) on `OldImage`, so asking for both kinds gives two patterns; entities with
/// different type attributes give one pattern each. Lambda ORs the filters of a mapping.
/// Empty `events` means all three.
///
/// For the e-commerce seed, `filter_patterns(&[&Order::SCHEMA], &[Insert, Modify])` is
/// `{"eventName":["INSERT","MODIFY"],"dynamodb":{"NewImage":{"entityType":{"S":["Order"]}}}}`.
pub fn filter_patterns(entities: &[&EntitySchema], events: &[EventName]) -> Vec<String> {
    let all = [EventName::Insert, EventName::Modify, EventName::Remove];
    let events = if events.is_empty() { &all[..] } else { events };
    let mut patterns = Vec::new();
    let groups: [(&str, Vec<&str>); 2] = [
        ("NewImage", events.iter().filter(|e| **e != EventName::Remove).map(|e| e.as_str()).collect()),
        ("OldImage", events.iter().filter(|e| **e == EventName::Remove).map(|e| e.as_str()).collect()),
    ];
    // Type attributes in first-seen order, each with its type names.
    let mut by_attr: Vec<(&str, Vec<&str>)> = Vec::new();
    // An entity without a type attribute (`type_attr = false`) cannot be matched by one: such
    // records are not filtered out by the event source, and the typed decoder steps over them.
    for e in entities.iter().filter(|e| !e.type_attr.is_empty()) {
        match by_attr.iter_mut().find(|(a, _)| *a == e.type_attr) {
            Some((_, names)) if !names.contains(&e.entity_type) => names.push(e.entity_type),
            Some(_) => {}
            None => by_attr.push((e.type_attr, vec![e.entity_type])),
        }
    }
    for (image, mut names) in groups {
        if names.is_empty() {
            continue;
        }
        names.dedup();
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
    patterns
}
