//! CreateTable (and the updates that follow it) from a [`TableDefinition`].

use crate::send::send;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ContributorInsightsAction, ContributorInsightsMode, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, LocalSecondaryIndex, OnDemandThroughput, PointInTimeRecoverySpecification,
    Projection as SdkProjection, ProjectionType, ProvisionedThroughput, ScalarAttributeType, SseSpecification, SseType,
    StreamSpecification, StreamViewType, TableStatus, TimeToLiveSpecification, WarmThroughput,
};

use super::{Billing, InsightsMode, Projection, StreamView, TableDefinition, Throughput};
use crate::error::Error;
use crate::error::sdk_error;
use crate::model::entity::EntitySchema;
use crate::model::entity::IndexKind;
use crate::table::Table;

pub(super) fn build_error(e: aws_sdk_dynamodb::error::BuildError) -> Error {
    Error::Validation(e.to_string())
}

pub(super) fn keys(pk: &str, sk: Option<&str>) -> Result<Vec<KeySchemaElement>, Error> {
    let key = |attr: &str, kind: KeyType| {
        KeySchemaElement::builder().attribute_name(attr).key_type(kind).build().map_err(build_error)
    };
    let mut v = vec![key(pk, KeyType::Hash)?];
    if let Some(sk) = sk {
        v.push(key(sk, KeyType::Range)?);
    }
    Ok(v)
}

/// The key schema of index `i`: its HASH attribute(s), then its RANGE attribute(s), in order
/// (a multi-attribute index has up to four of each).
pub(super) fn index_keys(i: &super::IndexDefinition) -> Result<Vec<KeySchemaElement>, Error> {
    if !i.is_multi_attribute() {
        return keys(&i.pk_attr, i.sk_attr.as_deref());
    }
    let key = |attr: &str, kind: KeyType| {
        KeySchemaElement::builder().attribute_name(attr).key_type(kind).build().map_err(build_error)
    };
    let pk = i.pk_attrs.iter().map(|a| key(a, KeyType::Hash));
    pk.chain(i.sk_attrs.iter().map(|a| key(a, KeyType::Range))).collect()
}

pub(super) fn projection(p: &Projection) -> SdkProjection {
    let kind = match p {
        Projection::All => ProjectionType::All,
        Projection::KeysOnly => ProjectionType::KeysOnly,
        Projection::Include(_) => ProjectionType::Include,
    };
    let attrs = match p {
        Projection::Include(a) => Some(a.clone()),
        _ => None,
    };
    SdkProjection::builder().projection_type(kind).set_non_key_attributes(attrs).build()
}

/// `n` units as the SDK's `i64`.
fn units(n: u64) -> Result<i64, Error> {
    i64::try_from(n).map_err(|_| Error::Validation(format!("{n} capacity units: too many")))
}

/// The `WarmThroughput` of a definition's warm throughput (units per second).
pub(super) fn warm_throughput(t: Throughput) -> Result<WarmThroughput, Error> {
    Ok(WarmThroughput::builder().read_units_per_second(units(t.read)?).write_units_per_second(units(t.write)?).build())
}

/// The `OnDemandThroughput` of a definition's maximum on-demand throughput.
pub(super) fn on_demand(t: Throughput) -> Result<OnDemandThroughput, Error> {
    Ok(OnDemandThroughput::builder()
        .max_read_request_units(units(t.read)?)
        .max_write_request_units(units(t.write)?)
        .build())
}

/// The `PointInTimeRecoverySpecification` turning recovery on or off (on: with `days` if stated).
pub(super) fn pitr_specification(on: bool, days: Option<u32>) -> Result<PointInTimeRecoverySpecification, Error> {
    let days = days.filter(|_| on).map(|d| i32::try_from(d).unwrap_or(i32::MAX));
    PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(on)
        .set_recovery_period_in_days(days)
        .build()
        .map_err(build_error)
}

/// The SDK's mode of `mode`.
pub(super) fn insights_mode(mode: InsightsMode) -> ContributorInsightsMode {
    match mode {
        InsightsMode::AccessedAndThrottledKeys => ContributorInsightsMode::AccessedAndThrottledKeys,
        InsightsMode::ThrottledKeys => ContributorInsightsMode::ThrottledKeys,
    }
}

pub(super) fn throughput(t: Throughput) -> Result<ProvisionedThroughput, Error> {
    ProvisionedThroughput::builder()
        .read_capacity_units(units(t.read)?)
        .write_capacity_units(units(t.write)?)
        .build()
        .map_err(build_error)
}

/// The `SSESpecification` of `sse`; `None` for the AWS owned key (DynamoDB's default, which
/// CreateTable gets by saying nothing).
pub(super) fn sse_specification(sse: &super::Sse) -> Result<Option<SseSpecification>, Error> {
    let spec = SseSpecification::builder();
    let spec = match sse {
        super::Sse::AwsOwned => return Ok(None),
        super::Sse::AwsManaged => spec.enabled(true).sse_type(SseType::Kms),
        super::Sse::CustomerManaged(arn) => spec.enabled(true).sse_type(SseType::Kms).kms_master_key_id(arn),
    };
    Ok(Some(spec.build()))
}

/// The SDK's table class of `class`.
pub(super) fn table_class(class: super::TableClass) -> aws_sdk_dynamodb::types::TableClass {
    match class {
        super::TableClass::Standard => aws_sdk_dynamodb::types::TableClass::Standard,
        super::TableClass::StandardInfrequentAccess => aws_sdk_dynamodb::types::TableClass::StandardInfrequentAccess,
    }
}

/// `tags` as the SDK's `Tag`s.
pub(super) fn tags(
    tags: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<aws_sdk_dynamodb::types::Tag>, Error> {
    tags.iter()
        .map(|(k, v)| aws_sdk_dynamodb::types::Tag::builder().key(k).value(v).build().map_err(build_error))
        .collect()
}

/// The on-demand read maximum of a replica (`OnDemandThroughputOverride`).
fn read_override(reads: u64) -> Result<aws_sdk_dynamodb::types::OnDemandThroughputOverride, Error> {
    Ok(aws_sdk_dynamodb::types::OnDemandThroughputOverride::builder().max_read_request_units(units(reads)?).build())
}

/// The `ReplicaUpdates` entry creating replica `r`, with the settings DynamoDB keeps for it.
pub(super) fn replica_create(r: &super::Replica) -> Result<aws_sdk_dynamodb::types::ReplicationGroupUpdate, Error> {
    let create = aws_sdk_dynamodb::types::CreateReplicationGroupMemberAction::builder()
        .region_name(&r.region)
        .set_kms_master_key_id(r.kms_key.clone())
        .set_table_class_override(r.table_class.map(table_class))
        .set_on_demand_throughput_override(r.max_reads.map(read_override).transpose()?)
        .build()
        .map_err(build_error)?;
    Ok(aws_sdk_dynamodb::types::ReplicationGroupUpdate::builder().create(create).build())
}

/// The `ReplicaUpdates` entry setting what differs between replica `from` (as the table has
/// it) and `to` (as the definition states it).
pub(super) fn replica_update(
    from: &super::Replica,
    to: &super::Replica,
) -> Result<aws_sdk_dynamodb::types::ReplicationGroupUpdate, Error> {
    let update = aws_sdk_dynamodb::types::UpdateReplicationGroupMemberAction::builder()
        .region_name(&to.region)
        .set_kms_master_key_id(to.kms_key.clone().filter(|k| from.kms_key.as_ref() != Some(k)))
        .set_table_class_override(
            to.table_class.filter(|c| from.table_class.unwrap_or_default() != *c).map(table_class),
        )
        .set_on_demand_throughput_override(
            to.max_reads.filter(|r| from.max_reads != Some(*r)).map(read_override).transpose()?,
        )
        .build()
        .map_err(build_error)?;
    Ok(aws_sdk_dynamodb::types::ReplicationGroupUpdate::builder().update(update).build())
}

pub(super) fn view(v: StreamView) -> StreamViewType {
    match v {
        StreamView::KeysOnly => StreamViewType::KeysOnly,
        StreamView::NewImage => StreamViewType::NewImage,
        StreamView::OldImage => StreamViewType::OldImage,
        StreamView::NewAndOldImages => StreamViewType::NewAndOldImages,
    }
}

impl Table {
    /// Creates this table from `definition` with all its options: key schema, indexes with their
    /// projections (and capacity, or maximum on-demand throughput), billing mode, stream,
    /// deletion protection, encryption at rest ([`Sse`](super::Sse)), warm throughput, maximum
    /// on-demand throughput, resource-based policy; waits until it is ACTIVE, then enables TTL on
    /// its TTL attribute, point-in-time recovery (with its period) and Contributor Insights if
    /// asked. Settings DynamoDB would refuse together are [`Error::Validation`] before any
    /// request. Point-in-time recovery and Contributor Insights are skipped, with a warning,
    /// where the endpoint has no such operation (a local engine). Table class and tags are
    /// CreateTable's too.
    ///
    /// Of a global table ([`TableDefinition::global_table`]) it creates the replica of this
    /// handle's Region, with that replica's own settings; [`Table::apply`] adds the others (a
    /// handle in a Region that is not one of the replicas is [`Error::Validation`]).
    pub async fn create_table_from(&self, definition: &TableDefinition) -> Result<(), Error> {
        definition.check_settings()?;
        if let Some(global) = definition.stated_global()
            && self.region().is_none_or(|r| global.replica(r).is_none())
        {
            return Err(Error::Validation(format!(
                "global_table: this handle's Region ({}) is not one of the replicas ({}): create the table through a \
                 handle in one of them (Table::in_region)",
                self.region().unwrap_or("none named"),
                global.regions().collect::<Vec<_>>().join(", ")
            )));
        }
        // The replica of this handle's Region: its own deletion protection and Contributor Insights.
        let def = &*definition.for_region(self.region());
        let o = &def.options.for_new_table();
        let client = self.client();
        let name = self.name();
        let mut request =
            client.create_table().table_name(name).set_key_schema(Some(keys(&def.pk_attr, def.sk_attr.as_deref())?));
        if o.deletion_protection {
            request = request.deletion_protection_enabled(true);
        }
        if let Some(sse) = sse_specification(&o.sse)? {
            request = request.sse_specification(sse);
        }
        if let Some(t) = o.warm_throughput {
            request = request.warm_throughput(warm_throughput(t)?);
        }
        if let Some(t) = o.max_on_demand {
            request = request.on_demand_throughput(on_demand(t)?);
        }
        if let Some(policy) = &o.resource_policy {
            request = request.resource_policy(policy);
        }
        if o.table_class != super::TableClass::Standard {
            request = request.table_class(table_class(o.table_class));
        }
        if !def.options.tags.is_empty() {
            request = request.set_tags(Some(tags(&def.options.tags)?));
        }
        request = match o.billing {
            Billing::OnDemand => request.billing_mode(BillingMode::PayPerRequest),
            Billing::Provisioned(t) => {
                request.billing_mode(BillingMode::Provisioned).provisioned_throughput(throughput(t)?)
            }
        };
        if let Some(v) = o.stream {
            request = request.stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(view(v))
                    .build()
                    .map_err(build_error)?,
            );
        }
        for (attr, ty) in def.attribute_definitions() {
            request = request.attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_type(ScalarAttributeType::from(ty.as_str()))
                    .attribute_name(attr)
                    .build()
                    .map_err(build_error)?,
            );
        }
        for i in &def.indexes {
            let schema = index_keys(i)?;
            request = match i.kind {
                IndexKind::Global => request.global_secondary_indexes(
                    GlobalSecondaryIndex::builder()
                        .index_name(&i.name)
                        .set_key_schema(Some(schema))
                        .projection(projection(&i.projection))
                        .set_provisioned_throughput(def.effective_throughput(i).map(throughput).transpose()?)
                        .set_on_demand_throughput(i.max_on_demand.map(on_demand).transpose()?)
                        .build()
                        .map_err(build_error)?,
                ),
                IndexKind::Local => request.local_secondary_indexes(
                    LocalSecondaryIndex::builder()
                        .index_name(&i.name)
                        .set_key_schema(Some(schema))
                        .projection(projection(&i.projection))
                        .build()
                        .map_err(build_error)?,
                ),
            };
        }
        for v in &def.vector_indexes {
            request = request.vector_indexes(vector_index(v)?);
        }
        let call = crate::send::call("CreateTable", name, "", None);
        send(&self.meter, &call, request).await.map_err(sdk_error)?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        loop {
            let out = send(&self.meter, &call, client.describe_table().table_name(name)).await.map_err(sdk_error)?;
            if out.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                break;
            }
            if std::time::Instant::now() > deadline {
                return Err(Error::Validation(format!("table {name} did not become ACTIVE in 5 minutes")));
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        if let Some(attr) = &def.ttl_attr {
            let request = client.update_time_to_live().table_name(name).time_to_live_specification(
                TimeToLiveSpecification::builder().enabled(true).attribute_name(attr).build().map_err(build_error)?,
            );
            send(&self.meter, &call, request).await.map_err(sdk_error)?;
        }
        if o.point_in_time_recovery {
            let request = client
                .update_continuous_backups()
                .table_name(name)
                .point_in_time_recovery_specification(pitr_specification(true, o.recovery_period_days)?);
            let sent = send(&self.meter, &call, request).await;
            if let Err(e) = sent {
                use aws_sdk_dynamodb::error::ProvideErrorMetadata;
                let e = aws_sdk_dynamodb::Error::from(e);
                // A local engine has no backups and answers UnknownOperationException: the table
                // is otherwise the one AWS creates, which is what a local copy is for.
                if e.code() != Some("UnknownOperationException") {
                    return Err(Error::Sdk(Box::new(e)));
                }
                tracing::warn!(table = name, "point-in-time recovery is not supported by this endpoint: skipped");
            }
        }
        if let Some(mode) = o.contributor_insights {
            let request = client
                .update_contributor_insights()
                .table_name(name)
                .contributor_insights_action(ContributorInsightsAction::Enable)
                .contributor_insights_mode(insights_mode(mode));
            if let Err(e) = send(&self.meter, &call, request).await {
                use aws_sdk_dynamodb::error::ProvideErrorMetadata;
                let e = aws_sdk_dynamodb::Error::from(e);
                if e.code() != Some("UnknownOperationException") {
                    return Err(Error::Sdk(Box::new(e)));
                }
                tracing::warn!(table = name, "Contributor Insights is not supported by this endpoint: skipped");
            }
        }
        Ok(())
    }
}

impl Table {
    /// Creates this table for `entities` (their [`Entity::SCHEMA`](crate::model::entity::Entity::SCHEMA)s): PAY_PER_REQUEST, the key
    /// schema, every index they use (projecting all attributes), then waits until it is ACTIVE
    /// and enables TTL on their TTL attribute. Conflicting definitions are [`Error::Validation`];
    /// a table that exists already is DynamoDB's `ResourceInUseException` ([`Error::Sdk`]): see
    /// [`Table::create_table_if_not_exists`]. For a table with options (a stream, a billing mode,
    /// projections), see [`Table::create_table_from`]. `entities` are schemas or references to
    /// them, as [`TableDefinition::from_entities`](crate::schema::TableDefinition::from_entities) takes.
    pub async fn create_table<S: std::borrow::Borrow<EntitySchema> + Sync>(&self, entities: &[S]) -> Result<(), Error> {
        self.create_table_from(&crate::schema::TableDefinition::from_entities(entities)?).await
    }

    /// Creates this table as [`Table::create_table`] does, unless a table of this name exists:
    /// then checks that it can hold `entities` (the same key schema, key attributes of type S,
    /// every index they use with the same key schema; other indexes, projections, billing and
    /// TTL are not compared) and waits until it is ACTIVE, changing nothing.
    ///
    /// `Ok(true)`: this call created the table. `Ok(false)`: the table existed already (or
    /// another caller created it meanwhile) and can hold `entities`; nothing was changed, so its
    /// options (TTL, stream, billing) are as they were. A table that differs is
    /// [`Error::TableMismatch`].
    pub async fn create_table_if_not_exists<S: std::borrow::Borrow<EntitySchema> + Sync>(
        &self,
        entities: &[S],
    ) -> Result<bool, Error> {
        let def = crate::schema::TableDefinition::from_entities(entities)?;
        if self.describe_existing().await?.is_none() {
            match self.create_table_from(&def).await {
                Ok(()) => return Ok(true),
                // Created by someone else since: check theirs.
                Err(Error::Sdk(e)) if matches!(*e, aws_sdk_dynamodb::Error::ResourceInUseException(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let existing = self.describe_existing().await?.ok_or_else(|| {
            Error::Validation(format!("table {} exists and does not (it was deleted meanwhile)", self.name))
        })?;
        let differences = def.differences(&existing);
        if !differences.is_empty() {
            return Err(Error::TableMismatch { table: self.name.to_string(), differences: differences.join("; ") });
        }
        self.wait_active().await?;
        Ok(false)
    }

    /// DescribeTable's description of this table, `None` if there is no such table.
    pub(super) async fn describe_existing(&self) -> Result<Option<aws_sdk_dynamodb::types::TableDescription>, Error> {
        let call = crate::send::call("DescribeTable", &self.name, "", None);
        match send(&self.meter, &call, self.client.describe_table().table_name(&*self.name)).await {
            Ok(out) => Ok(out.table),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => Ok(None),
            Err(e) => Err(sdk_error(e)),
        }
    }

    /// Waits (up to 5 minutes) until the table is ACTIVE.
    async fn wait_active(&self) -> Result<(), Error> {
        use aws_sdk_dynamodb::types::TableStatus;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        loop {
            let call = crate::send::call("DescribeTable", &self.name, "", None);
            let request = self.client.describe_table().table_name(&*self.name);
            let out = send(&self.meter, &call, request).await.map_err(sdk_error)?;
            if out.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                return Ok(());
            }
            if std::time::Instant::now() > deadline {
                return Err(Error::Validation(format!("table {} did not become ACTIVE in 5 minutes", self.name)));
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }
}

/// A vector index as `CreateTable`'s `VectorIndexes` (and `UpdateTable`'s create action) take it.
pub(crate) fn vector_index(
    v: &crate::model::vector::VectorIndexSchema,
) -> Result<aws_sdk_dynamodb::types::VectorIndex, Error> {
    use aws_sdk_dynamodb::types::{
        SearchSchemaElement, SearchSchemaElementType, VectorAttributeDefinition, VectorDistanceFunction, VectorIndex,
    };
    let element = |attr: &str, ty: SearchSchemaElementType| {
        SearchSchemaElement::builder().attribute_name(attr).search_schema_element_type(ty).build().map_err(build_error)
    };
    let schema = v
        .hash
        .iter()
        .map(|a| element(a, SearchSchemaElementType::Hash))
        .chain(v.filter.iter().map(|a| element(a, SearchSchemaElementType::InlineFilter)))
        .collect::<Result<Vec<_>, _>>()?;
    let projection = match v.projection {
        crate::model::entity::IndexProjection::All => Projection::All,
        crate::model::entity::IndexProjection::KeysOnly => Projection::KeysOnly,
        crate::model::entity::IndexProjection::Include(attrs) => {
            Projection::Include(attrs.iter().map(|a| (*a).to_owned()).collect())
        }
    };
    VectorIndex::builder()
        .index_name(v.name)
        .vector_attribute(VectorAttributeDefinition::builder().attribute_name(v.attr).build().map_err(build_error)?)
        .set_search_schema((!schema.is_empty()).then_some(schema))
        .projection(self::projection(&projection))
        .dimensions(i64::from(v.dimensions))
        .distance_function(VectorDistanceFunction::from(v.distance.as_str()))
        .build()
        .map_err(build_error)
}
