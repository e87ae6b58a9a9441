//! Fields the library fills on write (`#[created_at]`, `#[updated_at]`), the clock they read,
//! and the validators of `#[entity(validate = "..")]`.
//!
//! A write reads the table's clock once (a transaction or a batch once for all its items) and
//! fills both fields from that reading: `created_at` on a create (and, with `if_not_exists`,
//! on an upsert), `updated_at` on every write of the item. Entities that use neither field never
//! read the clock.

use std::sync::Arc;
use std::time::SystemTime;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::codec::time::TimeValue;
use crate::codec::{Checked, Writer};
use crate::error::Error;
use crate::model::Item;
use crate::model::entity::{Entity, EntitySchema};

/// The time a write stamps its filled fields with: read once per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Stamp {
    /// The clock's reading.
    pub now: SystemTime,
    /// Whether the write creates the item (`create`): `#[created_at]` is then `now`, otherwise
    /// the value the struct holds.
    pub create: bool,
}

/// The attribute values an update writes for the filled fields: `updated_at` set, `created_at`
/// set only where the item has none (an upsert). Each is `(attribute, value)`.
#[derive(Debug, Clone, Default, PartialEq)]
#[doc(hidden)]
pub struct Stamps {
    pub created: Option<(&'static str, AttributeValue)>,
    pub updated: Option<(&'static str, AttributeValue)>,
}

/// A time type `#[created_at]` and `#[updated_at]` accept: those a time attribute accepts
/// (`SystemTime`, and behind their features `chrono::DateTime<Utc>`, `time::OffsetDateTime`,
/// `jiff::Timestamp`), or an `Option` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a time the library can fill",
    label = "`#[created_at]` and `#[updated_at]` need a time",
    note = "a filled field is a `SystemTime`, `chrono::DateTime<Utc>`, `time::OffsetDateTime` or `jiff::Timestamp` (with their features), or an `Option` of one"
)]
pub trait FilledTime: Sized {
    /// `now` as this type (to the millisecond, as times are stored); `None` if it cannot hold it.
    fn __filled(now: SystemTime) -> Option<Self>;
}

fn from_system<T: TimeValue>(now: SystemTime) -> Option<T> {
    T::from_epoch_millis(crate::key::time::system_time_to_ms(now)?)
}

impl FilledTime for SystemTime {
    fn __filled(now: SystemTime) -> Option<Self> {
        from_system(now)
    }
}

#[cfg(feature = "chrono")]
impl FilledTime for chrono::DateTime<chrono::Utc> {
    fn __filled(now: SystemTime) -> Option<Self> {
        from_system(now)
    }
}

#[cfg(feature = "time")]
impl FilledTime for ::time::OffsetDateTime {
    fn __filled(now: SystemTime) -> Option<Self> {
        from_system(now)
    }
}

#[cfg(feature = "jiff")]
impl FilledTime for jiff::Timestamp {
    fn __filled(now: SystemTime) -> Option<Self> {
        from_system(now)
    }
}

impl<T: FilledTime + TimeValue> FilledTime for Option<T> {
    fn __filled(now: SystemTime) -> Option<Self> {
        T::__filled(now).map(Some)
    }
}

/// `now` as the filled field's type, by its `FilledTime::__filled` (`fill`: the generated code
/// names it at the field's type, so that a type that is not a time is one error). Called by
/// generated code.
#[doc(hidden)]
pub fn filled<T>(entity: &'static str, now: SystemTime, fill: fn(SystemTime) -> Option<T>) -> Result<T, Error> {
    fill(now).ok_or_else(|| Error::Validation(format!("{entity}: the clock's time {now:?} cannot be stored")))
}

/// The clock a table's writes read for `#[created_at]` and `#[updated_at]`: the system's, or
/// the one given to [`crate::Table::with_clock`].
#[derive(Clone, Default)]
pub(crate) struct Clock(Option<Arc<dyn Fn() -> SystemTime + Send + Sync>>);

impl Clock {
    pub(crate) fn new(f: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        Clock(Some(Arc::new(f)))
    }

    /// The time now, by this clock.
    pub(crate) fn now(&self) -> SystemTime {
        match &self.0 {
            Some(f) => f(),
            None => SystemTime::now(),
        }
    }
}

impl core::fmt::Debug for Clock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.0.is_some() { "Clock(given)" } else { "Clock(system)" })
    }
}

/// Whether an entity has fields the library fills.
pub(crate) fn fills(schema: &EntitySchema) -> bool {
    schema.created_at.is_some() || schema.updated_at.is_some()
}

/// One reading of the clock, taken the first time a write needs it: what every item of a
/// request (a transaction, a batch) is stamped with.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Reading(Option<SystemTime>);

impl Reading {
    /// The reading, taken from `clock` the first time.
    pub(crate) fn get(&mut self, clock: &Clock) -> SystemTime {
        *self.0.get_or_insert_with(|| clock.now())
    }
}

/// The item a write of `entity` stores: checked by its validators, with its filled fields
/// stamped from `reading` (a create sets `#[created_at]`).
pub(crate) fn item_to_write<E: Entity>(
    entity: &E,
    create: bool,
    reading: &mut Reading,
    clock: &Clock,
) -> Result<Item, Error> {
    let mut w = Writer::new(E::SCHEMA.entity_type, E::SCHEMA.item_capacity());
    write_item(entity, create, reading, clock, &mut w)?;
    Ok(w.take_item())
}

/// [`Entity::to_item`] as the derive implements it: the generated `__write` into a new
/// [`Writer`] with room for `capacity` attributes. Called by generated code.
#[doc(hidden)]
#[inline(always)]
pub fn item_of<E: Entity>(entity: &E, capacity: usize) -> Result<Item, Error> {
    let mut w = Writer::new(E::SCHEMA.entity_type, capacity);
    entity.__write(&mut w, None)?;
    w.finish()
}

/// Writes the item a write of `entity` stores into `w` ([`item_to_write`]'s, into a writer the
/// caller made: a checking one, see [`Writer::checking`]). Taken by reference, the writer is
/// not moved in and out (a batch put's items each copied it twice).
#[inline(always)]
pub(crate) fn write_item<E: Entity>(
    entity: &E,
    create: bool,
    reading: &mut Reading,
    clock: &Clock,
    w: &mut Writer,
) -> Result<(), Error> {
    entity.__validate()?;
    let stamp = fills(&E::SCHEMA).then(|| Stamp { now: reading.get(clock), create });
    entity.__write(w, stamp)?;
    w.status()?;
    if !E::SCHEMA.vectors.is_empty() {
        crate::model::vector::check_item(&E::SCHEMA, w.item())?;
    }
    Ok(())
}

/// A written item judged ([`judge`]): where its key texts are in the writer's buffer, or, for
/// an item the writer did not see whole, its key attributes found by the walk that checked it.
pub(crate) enum Judged<'i> {
    /// The end of the partition key's text, the end of the sort key's (the partition key's
    /// end without one), and whether there is a sort key.
    Texts(usize, usize, bool),
    Walked(crate::size::KeyValues<'i>),
}

/// Refuses the item of `schema` a checking writer wrote (`checked`: what it saw; `start`: its
/// key buffer's length when lent) if DynamoDB would refuse it, by what the writer counted;
/// where the writer did not see the whole item or did not write both keys as strings (an
/// `Entity` implemented without the derive, a key on a field's own attribute) the item is
/// walked instead ([`crate::size::check_item_key`]): the same errors. A put and a batch's put
/// judge their items here.
#[inline]
pub(crate) fn judge<'i>(
    schema: &EntitySchema,
    item: &'i Item,
    checked: &Checked,
    start: usize,
) -> Result<Judged<'i>, Error> {
    match key_ends(schema, checked, start) {
        Some((pk_end, end, has_sk)) => {
            crate::size::verdict(schema.entity_type, item, checked.size, checked.valid)?;
            Ok(Judged::Texts(pk_end, end, has_sk))
        }
        None => crate::size::check_item_key(schema.entity_type, item, schema.pk.attr, schema.sk.map(|k| k.attr))
            .map(Judged::Walked),
    }
}

/// Where a checking writer put the table's key texts of an item of `schema` in its buffer
/// (`start`: the buffer's length when lent): the end of the partition key's text, the end of
/// the sort key's (the partition key's end without one), and whether there is a sort key.
/// `None` where the writer did not check the whole item or did not write both keys as strings
/// (a key on a field's own attribute): the item is walked then.
#[inline]
fn key_ends(schema: &EntitySchema, checked: &Checked, start: usize) -> Option<(usize, usize, bool)> {
    use crate::key::attr::AttributeType::S;
    if !checked.on || schema.pk.ty != S {
        return None;
    }
    match (checked.pk, checked.sk, schema.sk) {
        (Some((a, b)), None, None) if a == start => Some((b, b, false)),
        (Some((a, b)), Some((c, d)), Some(sk)) if a == start && c == b && sk.ty == S => Some((b, d, true)),
        _ => None,
    }
}

/// A validator's answer as this library's error: [`Error::Invalid`] naming the entity and the
/// field (`None`: the struct's validator). Called by generated code.
#[doc(hidden)]
pub fn valid(entity: &'static str, field: Option<&'static str>, answer: Result<(), String>) -> Result<(), Error> {
    answer.map_err(|message| Error::Invalid { entity, field, message })
}
