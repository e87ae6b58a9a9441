//! How a handle reads an entity's (or a collection's) items beyond what the caller asked: a
//! filter of its own beside the caller's, and whole items. A plain handle adds nothing; an
//! encrypting one (`table::encryption`) both.

use std::collections::HashMap;

use crate::model::Item;

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
