//! What DynamoDB keeps of a table's capacity settings and the embedded engine does not: the
//! table's maximum on-demand throughput, and each global index's maximum on-demand and
//! provisioned throughput. [`KeptCapacity`] reads them from every CreateTable and UpdateTable
//! the engine accepted and adds them to DescribeTable's answers (in the shapes of the SDK's
//! model: `OnDemandThroughput`, `ProvisionedThroughputDescription`), as AWS reports them. The
//! requests themselves go to the engine unchanged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::config::interceptors::{BeforeTransmitInterceptorContextRef, FinalizerInterceptorContextMut};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::{OnDemandThroughput, ProvisionedThroughputDescription};
use aws_smithy_types::config_bag::{Storable, StoreReplace};
use serde_json::Value;

/// (max reads, max writes) and (read units, write units) of one table or index.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Capacity {
    max_on_demand: Option<(i64, i64)>,
    provisioned: Option<(i64, i64)>,
}

/// What one accepted request sets: the table's settings (`None` index) and its indexes'.
type Settings = Vec<(String, Option<String>, Capacity, bool)>;

#[derive(Debug, Clone)]
struct Pending(u64);

impl Storable for Pending {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    pending: HashMap<u64, Settings>,
    /// By (table, index): `None` index for the table itself.
    kept: HashMap<(String, Option<String>), Capacity>,
}

/// The interceptor; clones share what they keep.
#[derive(Debug, Clone, Default)]
pub struct KeptCapacity(Arc<Mutex<State>>);

impl KeptCapacity {
    /// `table`'s client with this interceptor added.
    pub fn on(&self, table: &dynamo_entity::Table) -> dynamo_entity::Table {
        let config = table.client().config().to_builder().interceptor(self.clone());
        dynamo_entity::Table::new(aws_sdk_dynamodb::Client::from_conf(config.build()), table.name())
    }
}

fn units(v: &Value, read: &str, write: &str) -> Option<(i64, i64)> {
    Some((v.get(read)?.as_i64()?, v.get(write)?.as_i64()?))
}

fn capacity(v: &Value) -> Capacity {
    Capacity {
        max_on_demand: v
            .get("OnDemandThroughput")
            .and_then(|o| units(o, "MaxReadRequestUnits", "MaxWriteRequestUnits")),
        provisioned: v.get("ProvisionedThroughput").and_then(|p| units(p, "ReadCapacityUnits", "WriteCapacityUnits")),
    }
}

/// The settings a CreateTable or UpdateTable body states (`true`: an index deleted).
fn settings(op: &str, body: &Value) -> Settings {
    let table = body["TableName"].as_str().unwrap_or_default().to_owned();
    let mut out: Settings = Vec::new();
    let table_max = capacity(body).max_on_demand;
    if table_max.is_some() {
        out.push((table.clone(), None, Capacity { max_on_demand: table_max, provisioned: None }, false));
    }
    let index = |v: &Value| v["IndexName"].as_str().map(str::to_owned);
    if op == "CreateTable" {
        for g in body["GlobalSecondaryIndexes"].as_array().into_iter().flatten() {
            out.push((table.clone(), index(g), capacity(g), false));
        }
    }
    for u in body["GlobalSecondaryIndexUpdates"].as_array().into_iter().flatten() {
        if let Some(c) = u.get("Create").or(u.get("Update")) {
            out.push((table.clone(), index(c), capacity(c), false));
        }
        if let Some(d) = u.get("Delete") {
            out.push((table.clone(), index(d), Capacity::default(), true));
        }
    }
    // Switching to on demand drops the indexes' provisioned capacity.
    if body["BillingMode"] == "PAY_PER_REQUEST" {
        out.push((table, Some(String::new()), Capacity::default(), false));
    }
    out
}

impl Intercept for KeptCapacity {
    fn name(&self) -> &'static str {
        "KeptCapacity"
    }

    fn read_before_transmit(
        &self,
        ctx: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = ctx.request();
        let op = request.headers().get("x-amz-target").unwrap_or_default().trim_start_matches("DynamoDB_20120810.");
        if op != "CreateTable" && op != "UpdateTable" {
            return Ok(());
        }
        let body: Value = serde_json::from_slice(request.body().bytes().unwrap_or_default())?;
        let mut state = self.0.lock().unwrap();
        let n = state.next;
        state.next += 1;
        state.pending.insert(n, settings(op, &body));
        cfg.interceptor_state().store_put(Pending(n));
        Ok(())
    }

    fn modify_before_attempt_completion(
        &self,
        ctx: &mut FinalizerInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut state = self.0.lock().unwrap();
        let accepted = matches!(ctx.output_or_error(), Some(Ok(_)));
        if let Some(Pending(n)) = cfg.load::<Pending>().cloned()
            && let Some(settings) = state.pending.remove(&n)
            && accepted
        {
            for (table, index, c, deleted) in settings {
                match index.as_deref() {
                    // On demand now: no index keeps provisioned capacity.
                    Some("") => {
                        state.kept.iter_mut().filter(|((t, _), _)| *t == table).for_each(|(_, c)| c.provisioned = None)
                    }
                    _ if deleted => {
                        state.kept.remove(&(table, index));
                    }
                    _ => {
                        let kept = state.kept.entry((table, index)).or_default();
                        kept.max_on_demand = c.max_on_demand.or(kept.max_on_demand);
                        kept.provisioned = c.provisioned.or(kept.provisioned);
                    }
                }
            }
        }
        let Some(Ok(output)) = ctx.output_or_error_mut() else { return Ok(()) };
        let Some(out) = output.downcast_mut::<aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput>()
        else {
            return Ok(());
        };
        let Some(t) = out.table.as_mut() else { return Ok(()) };
        let name = t.table_name.clone().unwrap_or_default();
        let max = |(r, w): (i64, i64)| {
            OnDemandThroughput::builder().max_read_request_units(r).max_write_request_units(w).build()
        };
        if let Some(c) = state.kept.get(&(name.clone(), None)) {
            t.on_demand_throughput = c.max_on_demand.map(max);
        }
        for g in t.global_secondary_indexes.iter_mut().flatten() {
            let Some(c) = state.kept.get(&(name.clone(), g.index_name.clone())) else { continue };
            if let Some(m) = c.max_on_demand {
                g.on_demand_throughput = Some(max(m));
            }
            if let Some((r, w)) = c.provisioned {
                g.provisioned_throughput = Some(
                    ProvisionedThroughputDescription::builder()
                        .read_capacity_units(r)
                        .write_capacity_units(w)
                        .number_of_decreases_today(0)
                        .build(),
                );
            }
        }
        Ok(())
    }
}
