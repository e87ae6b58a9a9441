//! DynamoDB's 400 KB, weighed on the items as DB-ESDK writes them. The size check of every write
//! path weighs the item the entity makes; encrypted, it grows by DB-ESDK's header
//! (`aws_dbe_head`: the message id, the attribute legend, the encryption context with the
//! table's key values, the encrypted data keys), its footer (`aws_dbe_foot`: an HMAC per data
//! key and, with the default suite, an ECDSA signature) and two type bytes per ciphertext:
//! hundreds of bytes, depending on the keyring, the suite and the key. Which is known only once
//! DB-ESDK has written it, so the handle's interceptor weighs it then, before it is sent.

use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_smithy_runtime_api::client::interceptors::context::Input;

use aws_sdk_dynamodb::types::AttributeValue;

use super::stream::{FOOT, HEAD};
use crate::error::db_esdk::EncryptedTooLarge;
use crate::model::Item;
use crate::size::{MAX_ITEM_BYTES, item_size};

/// The first item `input` (a write DB-ESDK has encrypted) puts into `table` that is over
/// DynamoDB's 400 KB, as an error naming its entity (by its type attribute, among `entities`)
/// and its key (attributes `keys`); `None` for any other request.
pub(super) fn too_large(
    table: &str,
    entities: &[(&'static str, &'static str)],
    keys: (&str, Option<&str>),
    input: &Input,
) -> Option<EncryptedTooLarge> {
    let mut items: Vec<&Item> = Vec::new();
    if let Some(p) = input.downcast_ref::<PutItemInput>() {
        if p.table_name() == Some(table) {
            items.extend(p.item());
        }
    } else if let Some(t) = input.downcast_ref::<TransactWriteItemsInput>() {
        let puts = t.transact_items().iter().filter_map(|a| a.put()).filter(|p| p.table_name() == table);
        items.extend(puts.map(|p| p.item()));
    } else if let Some(b) = input.downcast_ref::<BatchWriteItemInput>() {
        let writes = b.request_items().and_then(|r| r.get(table)).map(Vec::as_slice).unwrap_or_default();
        items.extend(writes.iter().filter_map(|w| w.put_request()).map(|p| p.item()));
    }
    let (item, size) = items.into_iter().map(|i| (i, item_size(i))).find(|(_, size)| *size > MAX_ITEM_BYTES)?;
    let entity = entities
        .iter()
        .find(|(e, type_attr)| {
            !type_attr.is_empty() && item.get(*type_attr).is_some_and(|t| t.as_s().is_ok_and(|t| t == e))
        })
        .map_or("An encrypted", |(e, _)| e);
    let text = |attr: &str| match item.get(attr) {
        Some(AttributeValue::S(s) | AttributeValue::N(s)) => s.clone(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    };
    let key = match keys.1 {
        Some(sk) => format!("(PK `{}`, SK `{}`)", text(keys.0), text(sk)),
        None => format!("(PK `{}`)", text(keys.0)),
    };
    Some(EncryptedTooLarge(format!(
        "{entity} item {key} is {size} bytes once encrypted and signed (DB-ESDK's header and footer, `{HEAD}` \
         and `{FOOT}`, and the ciphertexts' types added to it); DynamoDB allows at most {MAX_ITEM_BYTES}: make it \
         smaller"
    )))
}
