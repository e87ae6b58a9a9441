//! The entry points of writes (`table.put`/`create`/`delete`, `table.update`,
//! `Transaction::send`): each decides which path a write takes. An entity without `#[unique]`
//! fields takes the plain one (`crate::ops::item`, `crate::ops::update`, `crate::ops::transact`);
//! one with them the guarded path (`crate::ops::unique`), a layer above the plain writes that
//! adds the guards of its values. The plain writes never reach up to it.

use std::future::{Future, IntoFuture};
use std::pin::Pin;

use crate::error::Error;
use crate::model::entity::{Entity, EntityKey};
use crate::ops::item::{DeleteItem, PutItem, PutReturning};
use crate::ops::transact::Transaction;
use crate::ops::update::{Updatable, Update};
use crate::table::Table;

impl<'a, E: Entity> IntoFuture for PutItem<'a, E> {
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let parts = self.parts()?;
            if E::SCHEMA.unique.is_empty() {
                return self.send_plain(parts).await;
            }
            // Boxed: held inline, the guarded path's large future (reads, a transaction, its
            // retries) made every put's future about 9 KB, copied on each call.
            Box::pin(crate::ops::unique::put::<E>(self.table, parts, self.mode, self.return_old)).await
        })
    }
}

impl<'a, E: Entity> IntoFuture for PutReturning<'a, E> {
    type Output = Result<E, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<E, Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        let put = self.0;
        Box::pin(async move {
            let parts = put.parts()?;
            let written = parts.item.clone();
            if E::SCHEMA.unique.is_empty() {
                put.send_plain(parts).await?;
            } else {
                Box::pin(crate::ops::unique::put::<E>(put.table, parts, put.mode, put.return_old)).await?;
            }
            E::from_item(written)
        })
    }
}

impl<'a, K: EntityKey> IntoFuture for DeleteItem<'a, K> {
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let schema = &<K::Entity as Entity>::SCHEMA;
            let (key, condition) = self.parts()?;
            if schema.unique.is_empty() {
                return self.send_plain(key, condition).await;
            }
            // Boxed, as in a put: the guarded path's future is large.
            Box::pin(crate::ops::unique::delete(self.table, schema, key, condition, self.return_old)).await
        })
    }
}

impl Table {
    /// Applies a typed update (`<Name>::update(key).set(f.name, ..)`) and returns the updated entity.
    /// A missing item is [`Error::NotFound`] (nothing is created) unless `.upsert()`; a
    /// `.if_version(n)` that does not hold is [`Error::VersionConflict`]. An update that is not
    /// idempotent (an `ADD`, a list append, a `#[version]`) whose outcome a failure left unknown
    /// is [`Error::Indeterminate`] (never sent again), unless sent with
    /// [`Update::idempotent`].
    pub async fn update<E: Updatable>(&self, update: impl Into<Update<E>>) -> Result<E, Error> {
        let mut update: Update<E> = update.into();
        update.keep();
        if let Ok(key) = &update.key {
            self.check_tenant_item(&E::SCHEMA, key)?;
        }
        self.check_update(&E::SCHEMA)?;
        let changes = match E::SCHEMA.unique.is_empty() {
            true => Ok(Vec::new()),
            false => update.unique_changes(),
        };
        let promises = update.promises(matches!(&changes, Ok(c) if !c.is_empty()));
        self.check_promises(E::SCHEMA.entity_type, promises)?;
        let idempotent = update.idempotent;
        let r = update.request_at(&mut crate::model::filled::Reading::default(), &self.clock)?;
        if !E::SCHEMA.unique.is_empty() {
            let changes = changes?;
            if !changes.is_empty() {
                // Boxed, as in a put: the guarded path's future is large.
                return Box::pin(crate::ops::unique::update::<E>(self, r, changes, idempotent)).await;
            }
        }
        if idempotent {
            return self.update_idempotent(r).await;
        }
        self.update_plain(r).await
    }
}

impl Transaction {
    /// Sends the transaction. Refused before sending ([`Error::Validation`]): no action, more than
    /// 100, two on one item, over 4 MB, a token of the wrong length. Cancelled by DynamoDB:
    /// [`Error::TransactionCanceled`] with one typed reason per action, nothing written.
    pub async fn send(mut self) -> Result<(), Error> {
        self.refuse_invalid()?;
        let entities = self.entities.join(",");
        let call = self.call(&entities);
        if self.guarded.is_empty() {
            return self.send_plain(&call).await;
        }
        let plan = crate::ops::unique::Plan {
            table: &self.table,
            items: &self.items,
            guarded: &self.guarded,
            bytes: self.bytes,
            token: self.token.as_deref(),
            own_token: false,
            adds_up: self.adds_up.as_ref().map(|(schema, key)| (*schema, key)),
            conflict_retries: self.conflict_retries,
            call: &call,
            nested: &self.nested,
        };
        // Boxed, as in a put: the guarded path's future is large.
        Box::pin(crate::ops::unique::send_guarded(plan)).await.map_err(crate::ops::unique::Failed::into_error)
    }
}
