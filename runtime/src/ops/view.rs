//! Reading views (`#[derive(View)]`, described in `model::view`): a query of an entity turned into
//! one of its view, and a GetItem of a view, each with a ProjectionExpression of exactly the
//! view's attributes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use crate::error::Error;
use crate::model::entity::Entity;
use crate::model::entity::EntityKey;
use crate::model::view::{HasFields, View, projected, projection_expression};
use crate::ops::query::Query;
use crate::table::Table;

impl<E: HasFields> Query<E> {
    /// The same query, reading view `V` of the entity: a ProjectionExpression of exactly its
    /// attributes (and the keys), so DynamoDB returns less. Read capacity is the same: DynamoDB
    /// charges for the whole items read.
    pub fn view<V: View<Entity = E>>(self) -> Query<V> {
        let restorable = <V::Entity as HasFields>::__key_field_attributes(self.index);
        let attrs = projected(V::attributes(), &E::SCHEMA, self.index, restorable);
        self.retype::<V>().with_projection(attrs)
    }
}

impl Table {
    /// Reads view `V` of the item with this key: a GetItem with a ProjectionExpression of exactly
    /// the view's attributes (and the keys). Eventually consistent.
    pub async fn get_view<V: View>(&self, key: <V::Entity as Entity>::Key) -> Result<Option<V>, Error> {
        let schema = &<V::Entity as Entity>::SCHEMA;
        let item_key = key.to_key_item()?;
        self.check_tenant_item(schema, &item_key)?;
        let mut names = HashMap::new();
        let projection = projection_expression(&projected(V::attributes(), schema, None, &[]), &mut names);
        // An encrypting handle reads the whole item: DB-ESDK verifies a signature over it.
        let (projection, names) =
            if self.reads_whole_items(schema) { (None, None) } else { (Some(projection), Some(names)) };
        let call = crate::send::call("GetItem", self.name(), schema.entity_type, None);
        let request = self
            .client()
            .get_item()
            .table_name(self.name())
            .set_key(Some(item_key))
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let out = crate::send::send(&self.meter, &call, request).await.map_err(crate::error::sdk_error)?;
        call.span.record("items", usize::from(out.item.is_some()));
        match out.item {
            None => Ok(None),
            Some(item) => match V::read(item) {
                Some(read) => read.map(Some),
                None => Err(Error::decode(
                    schema.entity_type,
                    schema.type_attr,
                    "the item under this key is another entity's (a key collision)",
                )),
            },
        }
    }
}
