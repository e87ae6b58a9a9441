//! One Parquet file per entity: a column per stored field, typed from what the items hold.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder, TimestampMillisecondBuilder,
    UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use aws_sdk_dynamodb::types::AttributeValue;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::{ExportError, TableExport};
use crate::error::Error;
use crate::key::time::read_epoch_ms;
use crate::model::entity::Entity;

/// Rows per row group of the Parquet files written: large enough for column statistics and
/// compression to pay (engines read a row group per task), small enough that the writer holds
/// one group's encoded columns, not the file.
pub const PARQUET_ROW_GROUP: usize = 131_072;

/// Rows per Arrow batch handed to the writer.
const BATCH: usize = 8_192;

/// What a column holds, from the values seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unseen,
    Str,
    /// Strings, every one the ISO 8601 text of the crate's time fields.
    Iso,
    Int,
    /// Integers, one above `i64::MAX`.
    UInt,
    Float,
    Bool,
    Bin,
    /// The `#[ttl]` attribute: epoch seconds.
    Ttl,
    Json,
}

#[derive(Debug, Clone, Copy)]
struct Column {
    kind: Kind,
    present: u64,
    negative: bool,
}

fn kind_of(value: &AttributeValue, ttl: bool) -> Option<(Kind, bool)> {
    Some(match value {
        AttributeValue::Null(_) => return None,
        AttributeValue::S(s) if read_epoch_ms(s).is_some() => (Kind::Iso, false),
        AttributeValue::S(_) => (Kind::Str, false),
        AttributeValue::N(n) if ttl && n.parse::<i64>().is_ok() => (Kind::Ttl, false),
        AttributeValue::N(n) => match n.parse::<i64>() {
            Ok(v) => (Kind::Int, v < 0),
            Err(_) if n.parse::<u64>().is_ok() => (Kind::UInt, false),
            Err(_) => (Kind::Float, n.starts_with('-')),
        },
        AttributeValue::Bool(_) => (Kind::Bool, false),
        AttributeValue::B(_) => (Kind::Bin, false),
        _ => (Kind::Json, false),
    })
}

fn merge(a: Kind, b: Kind, negative: bool) -> Kind {
    use Kind::*;
    match (a, b) {
        (a, b) if a == b => a,
        (Unseen, x) | (x, Unseen) => x,
        (Iso, Str) | (Str, Iso) => Str,
        (Int, UInt) | (UInt, Int) if !negative => UInt,
        (Int | UInt | Float, Int | UInt | Float) => Float,
        _ => Json,
    }
}

impl Column {
    fn data_type(&self) -> DataType {
        match self.kind {
            Kind::Unseen | Kind::Str | Kind::Json => DataType::Utf8,
            Kind::Iso | Kind::Ttl => DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            Kind::Int => DataType::Int64,
            Kind::UInt => DataType::UInt64,
            Kind::Float => DataType::Float64,
            Kind::Bool => DataType::Boolean,
            Kind::Bin => DataType::Binary,
        }
    }
}

/// A column being filled.
enum Builder {
    Str(StringBuilder),
    Json(StringBuilder, String),
    Time(TimestampMillisecondBuilder, bool),
    Int(Int64Builder),
    UInt(UInt64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Bin(BinaryBuilder),
}

impl Builder {
    fn new(kind: Kind) -> Self {
        let time = || TimestampMillisecondBuilder::with_capacity(BATCH).with_timezone("UTC");
        match kind {
            Kind::Unseen | Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::Json => Builder::Json(StringBuilder::new(), String::new()),
            Kind::Iso => Builder::Time(time(), false),
            Kind::Ttl => Builder::Time(time(), true),
            Kind::Int => Builder::Int(Int64Builder::with_capacity(BATCH)),
            Kind::UInt => Builder::UInt(UInt64Builder::with_capacity(BATCH)),
            Kind::Float => Builder::Float(Float64Builder::with_capacity(BATCH)),
            Kind::Bool => Builder::Bool(BooleanBuilder::with_capacity(BATCH)),
            Kind::Bin => Builder::Bin(BinaryBuilder::new()),
        }
    }

    /// Appends `value`; `Err` if it is not of the column's kind (the items changed between the
    /// passes).
    fn append(&mut self, value: Option<&AttributeValue>) -> Result<(), String> {
        let value = match value {
            None | Some(AttributeValue::Null(_)) => {
                match self {
                    Builder::Str(b) | Builder::Json(b, _) => b.append_null(),
                    Builder::Time(b, _) => b.append_null(),
                    Builder::Int(b) => b.append_null(),
                    Builder::UInt(b) => b.append_null(),
                    Builder::Float(b) => b.append_null(),
                    Builder::Bool(b) => b.append_null(),
                    Builder::Bin(b) => b.append_null(),
                }
                return Ok(());
            }
            Some(v) => v,
        };
        let bad = || format!("unexpected value {value:?}");
        match (self, value) {
            (Builder::Str(b), AttributeValue::S(s)) => b.append_value(s),
            (Builder::Json(b, text), v) => {
                text.clear();
                super::json::plain_json(v, text);
                b.append_value(&*text);
            }
            (Builder::Time(b, false), AttributeValue::S(s)) => b.append_value(read_epoch_ms(s).ok_or_else(bad)?),
            (Builder::Time(b, true), AttributeValue::N(n)) => {
                let secs: i64 = n.parse().map_err(|_| bad())?;
                b.append_value(secs.checked_mul(1000).ok_or_else(bad)?);
            }
            (Builder::Int(b), AttributeValue::N(n)) => b.append_value(n.parse().map_err(|_| bad())?),
            (Builder::UInt(b), AttributeValue::N(n)) => b.append_value(n.parse().map_err(|_| bad())?),
            (Builder::Float(b), AttributeValue::N(n)) => b.append_value(n.parse().map_err(|_| bad())?),
            (Builder::Bool(b), AttributeValue::Bool(v)) => b.append_value(*v),
            (Builder::Bin(b), AttributeValue::B(v)) => b.append_value(v.as_ref()),
            _ => return Err(bad()),
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) | Builder::Json(b, _) => Arc::new(b.finish()),
            Builder::Time(b, _) => Arc::new(b.finish()),
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::UInt(b) => Arc::new(b.finish()),
            Builder::Float(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::Bin(b) => Arc::new(b.finish()),
        }
    }
}

pub(super) fn write<E: Entity>(export: &TableExport, path: &Path) -> Result<u64, Error> {
    let result = write_inner::<E>(export, path);
    if result.is_err() {
        let _ = std::fs::remove_file(path);
    }
    result
}

fn write_inner<E: Entity>(export: &TableExport, path: &Path) -> Result<u64, Error> {
    let schema = &E::SCHEMA;
    let attrs = schema.attributes;
    let is_ttl = |a: &str| schema.ttl_attr == Some(a);
    let parquet_error = |reason: String| -> Error { ExportError::Parquet { file: path.to_owned(), reason }.into() };

    // Pass 1: each column's type, from every item's values.
    let mut columns = vec![Column { kind: Kind::Unseen, present: 0, negative: false }; attrs.len()];
    let mut rows = 0u64;
    for item in export.items::<E>() {
        let item = item?.to_item()?;
        rows += 1;
        for (c, attr) in columns.iter_mut().zip(attrs) {
            let Some((kind, negative)) = item.get(*attr).and_then(|v| kind_of(v, is_ttl(attr))) else { continue };
            c.present += 1;
            c.negative |= negative;
            c.kind = merge(c.kind, kind, c.negative);
        }
    }
    let fields: Vec<Field> = columns
        .iter()
        .zip(attrs)
        .map(|(c, attr)| Field::new(*attr, c.data_type(), c.present < rows || c.kind == Kind::Unseen))
        .collect();
    let arrow_schema = Arc::new(Schema::new(fields));

    // Pass 2: the rows, a batch at a time.
    let file = File::create(path).map_err(|e| parquet_error(e.to_string()))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_size(PARQUET_ROW_GROUP)
        .build();
    let mut writer =
        ArrowWriter::try_new(file, arrow_schema.clone(), Some(props)).map_err(|e| parquet_error(e.to_string()))?;
    let mut builders: Vec<Builder> = columns.iter().map(|c| Builder::new(c.kind)).collect();
    let mut in_batch = 0usize;
    let mut written = 0u64;
    let flush = |builders: &mut Vec<Builder>, writer: &mut ArrowWriter<File>| -> Result<(), Error> {
        let arrays: Vec<ArrayRef> = builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(arrow_schema.clone(), arrays).map_err(|e| parquet_error(e.to_string()))?;
        writer.write(&batch).map_err(|e| parquet_error(e.to_string()))
    };
    // (The second pass counts no skipped items again.)
    let again = TableExport { skipped: Default::default(), ..export.clone() };
    for item in again.items::<E>() {
        let item = item?.to_item()?;
        for (b, attr) in builders.iter_mut().zip(attrs) {
            b.append(item.get(*attr)).map_err(|m| parquet_error(format!("attribute `{attr}`: {m}")))?;
        }
        in_batch += 1;
        written += 1;
        if in_batch == BATCH {
            flush(&mut builders, &mut writer)?;
            in_batch = 0;
        }
    }
    if in_batch > 0 {
        flush(&mut builders, &mut writer)?;
    }
    writer.close().map_err(|e| parquet_error(e.to_string()))?;
    if written != rows {
        return Err(parquet_error(format!("the export gave {rows} items, then {written}")));
    }
    Ok(written)
}
