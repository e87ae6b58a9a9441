//! Typed changes from the DynamoDB events a Rust Lambda receives
//! (`aws_lambda_events::event::dynamodb::Event`, as `lambda_runtime` hands it over).
//!
//! ```ignore
//! async fn handler(event: LambdaEvent<Event>) -> Result<(), Error> {
//!     for change in dynamo_entity::stream::lambda::changes::<Order>(event.payload) {
//!         match change?.kind { ChangeKind::Inserted(order) => .., _ => .. }
//!     }
//!     Ok(())
//! }
//! ```

use aws_lambda_events::event::dynamodb::{Event, EventRecord};

use super::{Change, Record};
use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;

/// An image of a Lambda record: absent images arrive as empty maps.
fn image(item: serde_dynamo::Item) -> Option<Item> {
    let item: Item = item.into();
    (!item.is_empty()).then_some(item)
}

impl From<EventRecord> for Record {
    fn from(r: EventRecord) -> Self {
        let change = r.change;
        Record {
            event_name: r.event_name,
            user_identity: r.user_identity.map(|u| (u.type_, u.principal_id)),
            keys: change.keys.into(),
            new_image: image(change.new_image),
            old_image: image(change.old_image),
            sequence_number: change.sequence_number.unwrap_or_default(),
            view_type: change.stream_view_type.map(|v| v.to_string()),
        }
    }
}

/// The change of `T` one Lambda record holds: `None` for a record of another entity.
pub fn change<T: Readable>(record: EventRecord) -> Option<Result<Change<T>, Error>> {
    Record::from(record).change(None)
}

/// The changes of `T` in a Lambda event, in the event's order; records of other entities are
/// stepped over, a record that cannot be decoded is an error in its place (the others still
/// come: report its sequence number as a batch item failure).
pub fn changes<T: Readable>(event: Event) -> impl Iterator<Item = Result<Change<T>, Error>> {
    event.records.into_iter().filter_map(change::<T>)
}
