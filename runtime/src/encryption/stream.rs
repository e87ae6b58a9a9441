//! Stream records of encrypted entities. A stream record holds the item as stored: DB-ESDK's
//! ciphertext and signature (`aws_dbe_head`, `aws_dbe_foot`). A reader with the encrypting
//! handle decrypts and verifies each image of the handle's entities with DB-ESDK's *item
//! encryptor*, configured as the handle's interceptor is, before decoding it:
//! `StreamReader::for_table` on the handle (or `StreamReader::decrypting`), feature `streams`;
//! `Table::stream_changes` for a Lambda's event, feature `lambda`; [`Record::decrypted_change`]
//! for one record.
//! An image that does not decrypt or verify is [`StreamError::Decrypt`], never garbage; a
//! reader without the keyring gets [`StreamError::Decode`] naming the encrypted attribute.

use std::collections::HashMap;
use std::sync::Arc;

use aws_db_esdk::CryptoAction;
use aws_db_esdk::dynamodb::types::PlaintextOverride;
use aws_db_esdk::item_encryptor::types::dynamo_db_item_encryptor_config::DynamoDbItemEncryptorConfig;
use aws_db_esdk::material_providers::types::DbeAlgorithmSuiteId;
use aws_db_esdk::material_providers::types::keyring::KeyringRef;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::model::Item;
use crate::model::collection::Readable;
use crate::model::entity::EntitySchema;
use crate::stream::{Change, Image, Record, StreamError};
use crate::table::Table;
use crate::table::encryption::Encryption;

/// DB-ESDK's item encryptor: encrypts and decrypts one item without calling DynamoDB.
pub(crate) type ItemEncryptor = aws_db_esdk::item_encryptor::client::Client;

/// The attributes DB-ESDK adds to an item it writes: its header and its footer (signature).
pub(crate) const HEAD: &str = "aws_dbe_head";
pub(crate) const FOOT: &str = "aws_dbe_foot";

/// The item encryptor of the table `table_name` keyed as `first`: the interceptor's attribute
/// actions, keyring and plaintext rule, under the same logical table name (what DB-ESDK binds
/// items to).
pub(crate) fn item_encryptor(
    table_name: &str,
    first: &EntitySchema,
    actions: HashMap<String, CryptoAction>,
    keyring: KeyringRef,
    plaintext: PlaintextOverride,
    suite: DbeAlgorithmSuiteId,
) -> Result<ItemEncryptor, Error> {
    let config = DynamoDbItemEncryptorConfig::builder()
        .logical_table_name(table_name)
        .partition_key_name(first.pk.attr)
        .set_sort_key_name(first.sk.map(|k| k.attr.to_owned()))
        .attribute_actions_on_encrypt(actions)
        .keyring(keyring)
        .plaintext_override(plaintext)
        .algorithm_suite_id(suite)
        .build()
        .map_err(|e| Error::Validation(format!("DB-ESDK item encryptor configuration: {e:?}")))?;
    ItemEncryptor::from_conf(config).map_err(|e| Error::Validation(format!("DB-ESDK item encryptor: {e}")))
}

impl Encryption {
    /// Whether `image` is to be decrypted for a reader of `T`: an item of the handle's (DB-ESDK
    /// wrote it, or its type attribute names one of the handle's entities) that `T` reads (its
    /// type attribute names one of `T`'s entities, or one of them has no type attribute). Any
    /// other image passes unchanged: `T` steps over it, or it is a plain entity's.
    fn decrypts<T: Readable>(&self, image: &Item) -> bool {
        let typed = |attr: &str, entity: &str| {
            !attr.is_empty() && matches!(image.get(attr), Some(AttributeValue::S(t)) if t == entity)
        };
        let handles = image.contains_key(HEAD) || self.entities.iter().any(|(e, attr)| typed(attr, e));
        handles && T::__SCHEMAS.iter().any(|s| s.type_attr.is_empty() || typed(s.type_attr, s.entity_type))
    }

    /// `record` with its images of the handle's entities that `T` reads decrypted and verified;
    /// [`StreamError::Decrypt`] naming the record (and `shard_id`) if one does not decrypt.
    pub(crate) async fn decrypt_record<T: Readable>(
        &self,
        record: Record,
        shard_id: Option<&Arc<str>>,
    ) -> Result<Record, Error> {
        let mut out = self.decrypt_records::<T>(vec![record], shard_id).await;
        out.pop().unwrap_or_else(|| Err(Error::Validation("no record came back from decryption".to_owned())))
    }

    /// [`Encryption::decrypt_record`] for each of `records`, their images decrypted in
    /// parallel on the pool; in the records' order.
    pub(crate) async fn decrypt_records<T: Readable>(
        &self,
        mut records: Vec<Record>,
        shard_id: Option<&Arc<str>>,
    ) -> Vec<Result<Record, Error>> {
        let mut places = Vec::new();
        let mut images = Vec::new();
        for (r, record) in records.iter_mut().enumerate() {
            for (which, image) in [(Image::New, &mut record.new_image), (Image::Old, &mut record.old_image)] {
                if let Some(item) = image.take_if(|i| self.decrypts::<T>(i)) {
                    places.push((r, which));
                    images.push(item);
                }
            }
        }
        let mut failed: Vec<Option<Error>> = (0..records.len()).map(|_| None).collect();
        let decrypted = super::pool::decrypt_all_async(self.items(), images).await;
        for ((r, which), result) in places.into_iter().zip(decrypted) {
            let record = &mut records[r];
            match result {
                Ok(item) => match which {
                    Image::New => record.new_image = Some(item),
                    Image::Old => record.old_image = Some(item),
                },
                Err(f) => {
                    if failed[r].is_none() {
                        failed[r] = Some(
                            StreamError::Decrypt {
                                sequence_number: record.sequence_number.clone(),
                                shard_id: shard_id.map(|s| s.to_string()),
                                image: which,
                                message: f.display,
                            }
                            .into(),
                        );
                    }
                }
            }
        }
        records.into_iter().zip(failed).map(|(record, f)| f.map_or(Ok(record), Err)).collect()
    }
}

impl Record {
    /// [`Record::change`] after decrypting and verifying the images of `table`'s encrypted
    /// entities with its keyring (`table` made by [`Table::with_encryption`]; on another handle,
    /// the same as `change`). An image that does not decrypt or verify (another key, an edited
    /// item) is [`StreamError::Decrypt`] naming the record; images of entities the handle does
    /// not encrypt are decoded as they are.
    pub async fn decrypted_change<T: Readable>(
        self,
        table: &Table,
        shard_id: Option<&Arc<str>>,
    ) -> Option<Result<Change<T>, Error>> {
        let record = match &table.encryption {
            Some(enc) => match enc.decrypt_record::<T>(self, shard_id).await {
                Ok(record) => record,
                Err(e) => return Some(Err(e)),
            },
            None => self,
        };
        record.change(shard_id)
    }
}

#[cfg(feature = "lambda")]
impl Table {
    /// The changes of `T` in a Lambda's DynamoDB event, as [`crate::stream::lambda::changes`]
    /// gives them, with the images of this handle's encrypted entities decrypted and verified
    /// first (a handle made by [`Table::with_encryption`] with the keyring the items were
    /// written with; on another handle, the same as `lambda::changes`). In the event's order;
    /// records of other entities are stepped over; a record whose image does not decrypt or
    /// verify is [`StreamError::Decrypt`] in its place (report its sequence number as a batch
    /// item failure), and the others still come.
    ///
    /// ```ignore
    /// async fn handler(table: &Table, event: LambdaEvent<Event>) -> Result<(), Error> {
    ///     for change in table.stream_changes::<Visit>(event.payload).await {
    ///         match change?.kind { ChangeKind::Inserted(visit) => .., _ => .. }
    ///     }
    ///     Ok(())
    /// }
    /// ```
    pub async fn stream_changes<T: Readable>(
        &self,
        event: aws_lambda_events::event::dynamodb::Event,
    ) -> Vec<Result<Change<T>, Error>> {
        let records: Vec<Record> = event.records.into_iter().map(Record::from).collect();
        let records = match &self.encryption {
            Some(enc) => enc.decrypt_records::<T>(records, None).await,
            None => records.into_iter().map(Ok).collect(),
        };
        records
            .into_iter()
            .filter_map(|record| match record {
                Ok(record) => record.change(None),
                Err(e) => Some(Err(e)),
            })
            .collect()
    }
}

#[cfg(feature = "streams")]
impl crate::stream::StreamReader {
    /// This reader decrypting and verifying the images of `table`'s encrypted entities with its
    /// keyring before decoding them (`table` made by [`Table::with_encryption`]), for a reader
    /// made with [`StreamReader::new`](crate::stream::StreamReader::new);
    /// [`StreamReader::for_table`](crate::stream::StreamReader::for_table) on the handle does it
    /// already. An image that does not decrypt or verify is [`StreamError::Decrypt`] in its
    /// record's place, and the stream goes on. On a handle without encryption, the reader stops
    /// decrypting.
    #[must_use]
    pub fn decrypting(mut self, table: &Table) -> Self {
        self.encryption = table.encryption.clone();
        self
    }
}
