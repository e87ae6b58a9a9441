//! A [`TableDefinition`] written out as infrastructure code (Terraform's
//! `aws_dynamodb_table`, CloudFormation's `AWS::DynamoDB::Table` in JSON or YAML) and as an
//! access-pattern document in Markdown, so that the deployed table and the code cannot drift.

use std::fmt::Write as _;

use super::{Billing, TableDefinition};
use crate::json::json_str;
use crate::model::entity::IndexKind;
use crate::model::entity::KeySchema;

/// A document tree that prints as JSON or YAML.
#[derive(Clone)]
pub(super) enum Doc {
    Str(String),
    Num(u64),
    /// A number that is no `u64` (negative, fractional), or `null`: written as JSON writes it,
    /// which YAML reads alike.
    Raw(String),
    Bool(bool),
    List(Vec<Doc>),
    Map(Vec<(String, Doc)>),
}

/// A JSON value (a resource policy) as a document, its keys in their order.
fn from_json(v: &serde_json::Value) -> Doc {
    use serde_json::Value;
    match v {
        Value::Null => Doc::Raw("null".to_owned()),
        Value::Bool(b) => Doc::Bool(*b),
        Value::Number(n) => n.as_u64().map_or_else(|| Doc::Raw(n.to_string()), Doc::Num),
        Value::String(v) => Doc::Str(v.clone()),
        Value::Array(items) => Doc::List(items.iter().map(from_json).collect()),
        Value::Object(entries) => Doc::Map(entries.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

pub(super) fn map(entries: Vec<(&str, Doc)>) -> Doc {
    Doc::Map(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

pub(super) fn s(v: impl Into<String>) -> Doc {
    Doc::Str(v.into())
}

impl Doc {
    pub(super) fn json(&self, out: &mut String, indent: usize) {
        let pad = |n: usize| "  ".repeat(n);
        match self {
            Doc::Str(v) => out.push_str(&json_str(v)),
            Doc::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Doc::Raw(v) => out.push_str(v),
            Doc::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Doc::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    out.push_str(&pad(indent + 1));
                    item.json(out, indent + 1);
                }
                if !items.is_empty() {
                    out.push('\n');
                    out.push_str(&pad(indent));
                }
                out.push(']');
            }
            Doc::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    out.push_str(&pad(indent + 1));
                    out.push_str(&json_str(k));
                    out.push_str(": ");
                    v.json(out, indent + 1);
                }
                if !entries.is_empty() {
                    out.push('\n');
                    out.push_str(&pad(indent));
                }
                out.push('}');
            }
        }
    }

    /// YAML block style; every string double-quoted (JSON escapes are YAML escapes).
    fn yaml(&self, out: &mut String, indent: usize) {
        let pad = "  ".repeat(indent);
        match self {
            Doc::Map(entries) => {
                for (k, v) in entries {
                    out.push_str(&pad);
                    out.push_str(&yaml_key(k));
                    out.push(':');
                    v.yaml_value(out, indent);
                }
            }
            Doc::List(items) => {
                for item in items {
                    out.push_str(&pad);
                    out.push('-');
                    match item {
                        Doc::Map(entries) if !entries.is_empty() => {
                            // The first entry on the dash's line, the others aligned under it.
                            let mut first = String::new();
                            item.yaml(&mut first, indent + 1);
                            out.push(' ');
                            out.push_str(first.trim_start());
                        }
                        other => other.yaml_value(out, indent),
                    }
                }
            }
            scalar => {
                out.push_str(&pad);
                scalar.scalar(out);
                out.push('\n');
            }
        }
    }

    fn yaml_value(&self, out: &mut String, indent: usize) {
        match self {
            Doc::Map(e) if !e.is_empty() => {
                out.push('\n');
                self.yaml(out, indent + 1);
            }
            Doc::List(l) if !l.is_empty() => {
                out.push('\n');
                self.yaml(out, indent + 1);
            }
            Doc::Map(_) => out.push_str(" {}\n"),
            Doc::List(_) => out.push_str(" []\n"),
            scalar => {
                out.push(' ');
                scalar.scalar(out);
                out.push('\n');
            }
        }
    }

    fn scalar(&self, out: &mut String) {
        match self {
            Doc::Str(v) => out.push_str(&json_str(v)),
            Doc::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Doc::Raw(v) => out.push_str(v),
            Doc::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Doc::List(_) | Doc::Map(_) => {}
        }
    }
}

/// A YAML mapping key: plain, but quoted where YAML would read another scalar (`Null` is null,
/// `Yes` a boolean in YAML 1.1) or a plain scalar cannot start.
fn yaml_key(k: &str) -> String {
    const SPECIAL: [&str; 23] = [
        "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes", "YES", "no",
        "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y",
    ];
    let plain = k.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !SPECIAL.contains(&k)
        && !matches!(k, "Y" | "n" | "N")
        && !k.contains(": ")
        && !k.contains(" #");
    if plain { k.to_owned() } else { json_str(k) }
}

/// An HCL string literal: JSON escapes, and `${`/`%{` escaped so nothing interpolates.
pub(super) fn hcl_str(v: &str) -> String {
    json_str(v).replace("${", "$${").replace("%{", "%%{")
}

/// Lines of `key = value` in one block, aligned on `=` as `terraform fmt` does.
pub(super) fn hcl_attrs(out: &mut String, indent: usize, attrs: &[(&str, String)]) {
    let width = attrs.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in attrs {
        let _ = writeln!(out, "{}{k:<width$} = {v}", "  ".repeat(indent));
    }
}

pub(super) fn hcl_block(out: &mut String, indent: usize, name: &str, attrs: &[(&str, String)]) {
    let pad = "  ".repeat(indent);
    out.push('\n');
    let _ = writeln!(out, "{pad}{name} {{");
    hcl_attrs(out, indent + 1, attrs);
    let _ = writeln!(out, "{pad}}}");
}

/// A `ContributorInsightsSpecification` turned on in `mode`.
pub(super) fn insights_doc(mode: super::InsightsMode) -> Doc {
    map(vec![("Enabled", Doc::Bool(true)), ("Mode", s(mode.as_str()))])
}

/// A `ResourcePolicy` of the policy document `policy` (JSON; as text if it is not).
pub(super) fn policy_doc(policy: &str) -> Doc {
    let doc = serde_json::from_str::<serde_json::Value>(policy).map_or_else(|_| s(policy), |v| from_json(&v));
    map(vec![("PolicyDocument", doc)])
}

/// CloudFormation's `Tags`: `[{Key, Value}]`, in key order.
pub(super) fn tags_doc(tags: &std::collections::BTreeMap<String, String>) -> Doc {
    Doc::List(tags.iter().map(|(k, v)| map(vec![("Key", s(k.as_str())), ("Value", s(v.as_str()))])).collect())
}

/// A CloudFormation logical id or Terraform resource name from a table name: letters and digits
/// (Terraform also `_` and `-`), starting with a letter.
pub(super) fn identifier(name: &str, extra: &[char]) -> String {
    let mut id: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || extra.contains(c)).collect();
    if !id.starts_with(|c: char| c.is_ascii_alphabetic()) {
        id.insert_str(0, "Table");
    }
    id
}

/// What the CloudFormation and Terraform exports say of vector indexes.
const VECTOR_NOTE: &str = "the AWS provider's aws_dynamodb_table has no argument for them (and no published \
                           resource of its own), so this file does not create them: Table::apply \
                           (UpdateTable with VectorIndexUpdates) or Table::create_table does";

/// One vector index in a line: `Similar: embedding, 1536 dimensions, COSINE, HASH tenant_id, ..`.
fn vector_line(v: &crate::model::vector::VectorIndexSchema) -> String {
    let mut line = format!("{}: {}, {} dimensions, {}", v.name, v.attr, v.dimensions, v.distance.as_str());
    if !v.hash.is_empty() {
        let _ = write!(line, ", HASH {}", v.hash.join(" + "));
    }
    if !v.filter.is_empty() {
        let _ = write!(line, ", INLINE_FILTER {}", v.filter.join(", "));
    }
    let _ = write!(line, ", projection {}", vector_projection(v));
    line
}

/// A vector index's `ProjectionType`.
fn vector_projection_type(v: &crate::model::vector::VectorIndexSchema) -> &'static str {
    match v.projection {
        crate::model::entity::IndexProjection::All => "ALL",
        crate::model::entity::IndexProjection::KeysOnly => "KEYS_ONLY",
        crate::model::entity::IndexProjection::Include(_) => "INCLUDE",
    }
}

/// A vector index's projection as the exports write it: `ALL`, `KEYS_ONLY`, `INCLUDE (a, b)`.
fn vector_projection(v: &crate::model::vector::VectorIndexSchema) -> String {
    match v.projection {
        crate::model::entity::IndexProjection::All => "ALL".to_owned(),
        crate::model::entity::IndexProjection::KeysOnly => "KEYS_ONLY".to_owned(),
        crate::model::entity::IndexProjection::Include(attrs) => format!("INCLUDE ({})", attrs.join(", ")),
    }
}

/// How the exports name the format of client-side encrypted attributes.
const CLIENT_SIDE_FORMAT: &str = "AWS Database Encryption SDK for DynamoDB";
/// What the exports say of them.
const CLIENT_SIDE_NOTE: &str = "DynamoDB holds their ciphertext (and every item of these entities holds \
                                the signature attributes aws_dbe_head and aws_dbe_foot): no key, index, \
                                condition or filter reads them";

impl TableDefinition {
    /// The entities with `#[encrypt]` fields, and those fields' attributes, in the order of
    /// the definition.
    fn encrypted_attributes(&self) -> Vec<(&'static str, &'static [&'static str])> {
        self.entities.iter().filter(|e| !e.encrypted.is_empty()).map(|e| (e.entity_type, e.encrypted)).collect()
    }

    fn attribute_docs(&self) -> Doc {
        Doc::List(
            self.attribute_definitions()
                .into_iter()
                .map(|(a, ty)| map(vec![("AttributeName", s(a)), ("AttributeType", s(ty.as_str()))]))
                .collect(),
        )
    }

    /// The table as a Terraform `aws_dynamodb_table` resource named after `table_name`:
    /// billing, keys, one `attribute` block per key attribute, every index (projection and
    /// capacity), TTL, stream, point-in-time recovery, deletion protection and encryption at
    /// rest (a `server_side_encryption` block unless [`Sse::AwsOwned`](super::Sse::AwsOwned)).
    ///
    /// A global table's first replica is the table, in the provider's Region, with that replica's
    /// own settings; the others are `replica` blocks (and the witness a `global_table_witness`
    /// block); what the provider's `replica` block has no argument for is said in comments.
    pub fn to_terraform(&self, table_name: &str) -> String {
        match self.stated_global().and_then(|g| g.replicas.first()) {
            Some(first) => self.for_region(Some(&first.region)).terraform(table_name),
            None => self.terraform(table_name),
        }
    }

    /// [`TableDefinition::to_terraform`] of the definition as its first replica has it.
    fn terraform(&self, table_name: &str) -> String {
        let o = &self.options.for_new_table();
        let primary = self.stated_global().and_then(|g| g.replicas.first());
        let mut out = String::new();
        let encrypted = self.encrypted_attributes();
        if !encrypted.is_empty() {
            let _ = writeln!(out, "# Client-side encrypted ({CLIENT_SIDE_FORMAT}):");
            for (entity, attrs) in encrypted {
                let _ = writeln!(out, "#   {entity}: {}", attrs.join(", "));
            }
            let _ = writeln!(out, "# {CLIENT_SIDE_NOTE}.");
        }
        if !self.vector_indexes.is_empty() {
            let _ = writeln!(out, "# Vector indexes ({VECTOR_NOTE}):");
            for v in &self.vector_indexes {
                let _ = writeln!(out, "#   {}", vector_line(v));
            }
        }
        let _ = writeln!(out, "resource \"aws_dynamodb_table\" {} {{", hcl_str(&identifier(table_name, &['_', '-'])));
        let mut top: Vec<(&str, String)> = vec![("name", hcl_str(table_name))];
        match o.billing {
            Billing::OnDemand => top.push(("billing_mode", hcl_str("PAY_PER_REQUEST"))),
            Billing::Provisioned(t) => {
                top.push(("billing_mode", hcl_str("PROVISIONED")));
                top.push(("read_capacity", t.read.to_string()));
                top.push(("write_capacity", t.write.to_string()));
            }
        }
        top.push(("hash_key", hcl_str(&self.pk_attr)));
        if let Some(sk) = &self.sk_attr {
            top.push(("range_key", hcl_str(sk)));
        }
        top.push(("deletion_protection_enabled", o.deletion_protection.to_string()));
        let class = primary.and_then(|p| p.table_class).unwrap_or(o.table_class);
        if class != super::TableClass::Standard {
            top.push(("table_class", hcl_str(class.as_str())));
        }
        hcl_attrs(&mut out, 1, &top);
        // Key attributes only: the AWS provider's `aws_dynamodb_table` refuses an `attribute` that
        // no index of its own uses, and it has no argument for vector indexes (a comment below),
        // whose search attributes CloudFormation and CreateTable declare.
        for a in self.key_attributes() {
            let ty = self.attribute_type(&a);
            hcl_block(&mut out, 1, "attribute", &[("name", hcl_str(&a)), ("type", hcl_str(ty.as_str()))]);
        }
        for i in &self.indexes {
            let mut attrs: Vec<(&str, String)> = vec![("name", hcl_str(&i.name))];
            let multi = i.is_multi_attribute();
            let block = match i.kind {
                IndexKind::Global if multi => "global_secondary_index",
                IndexKind::Global => {
                    attrs.push(("hash_key", hcl_str(&i.pk_attr)));
                    "global_secondary_index"
                }
                IndexKind::Local => "local_secondary_index",
            };
            if let Some(sk) = i.sk_attr.as_ref().filter(|_| !multi) {
                attrs.push(("range_key", hcl_str(sk)));
            }
            attrs.push(("projection_type", hcl_str(i.projection.type_name())));
            let include = i.projection.attributes();
            if !include.is_empty() {
                let list: Vec<String> = include.iter().map(|a| hcl_str(a)).collect();
                attrs.push(("non_key_attributes", format!("[{}]", list.join(", "))));
            }
            if i.kind == IndexKind::Global
                && let Some(t) = self.effective_throughput(i)
            {
                attrs.push(("read_capacity", t.read.to_string()));
                attrs.push(("write_capacity", t.write.to_string()));
            }
            let max = i.max_on_demand.filter(|_| i.kind == IndexKind::Global);
            if multi {
                multi_attribute_block(&mut out, i, &attrs, max);
            } else if let Some(t) = max {
                // The index's block, with its on_demand_throughput block inside.
                let _ = write!(out, "\n  {block} {{\n");
                hcl_attrs(&mut out, 2, &attrs);
                on_demand_block(&mut out, 2, t);
                out.push_str("  }\n");
            } else {
                hcl_block(&mut out, 1, block, &attrs);
            }
        }
        if let Some(ttl) = &self.ttl_attr {
            hcl_block(&mut out, 1, "ttl", &[("attribute_name", hcl_str(ttl)), ("enabled", "true".into())]);
        }
        out.push('\n');
        match o.stream {
            Some(v) => {
                hcl_attrs(&mut out, 1, &[("stream_enabled", "true".into()), ("stream_view_type", hcl_str(v.as_str()))])
            }
            None => hcl_attrs(&mut out, 1, &[("stream_enabled", "false".into())]),
        }
        let mut pitr = vec![("enabled", o.point_in_time_recovery.to_string())];
        if let Some(days) = o.recovery_period_days.filter(|_| o.point_in_time_recovery) {
            pitr.push(("recovery_period_in_days", days.to_string()));
        }
        hcl_block(&mut out, 1, "point_in_time_recovery", &pitr);
        if let Some(t) = o.warm_throughput {
            hcl_block(
                &mut out,
                1,
                "warm_throughput",
                &[("read_units_per_second", t.read.to_string()), ("write_units_per_second", t.write.to_string())],
            );
        }
        if let Some(t) = o.max_on_demand {
            on_demand_block(&mut out, 1, t);
        }
        // The AWS owned key is the provider's default (no block); a KMS key without an ARN is
        // the AWS managed key.
        match &o.sse {
            super::Sse::AwsOwned => {}
            super::Sse::AwsManaged => hcl_block(&mut out, 1, "server_side_encryption", &[("enabled", "true".into())]),
            super::Sse::CustomerManaged(arn) => {
                // The first replica's key, where it names one of its Region's.
                let arn = primary.and_then(|p| p.kms_key.as_ref()).unwrap_or(arn);
                hcl_block(
                    &mut out,
                    1,
                    "server_side_encryption",
                    &[("enabled", "true".into()), ("kms_key_arn", hcl_str(arn))],
                )
            }
        }
        if let Some(global) = self.stated_global() {
            self.terraform_replicas(&mut out, global);
        }
        if !self.options.tags.is_empty() {
            out.push('\n');
            let tags: Vec<(String, String)> = self.options.tags.iter().map(|(k, v)| (hcl_str(k), hcl_str(v))).collect();
            let width = tags.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
            out.push_str("  tags = {\n");
            for (k, v) in tags {
                let _ = writeln!(out, "    {k:<width$} = {v}");
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
        let resource = identifier(table_name, &['_', '-']);
        if let Some(mode) = o.contributor_insights {
            // The provider's resource takes the table (and index) only: the mode is DynamoDB's
            // default, ACCESSED_AND_THROTTLED_KEYS, unless set with UpdateContributorInsights.
            let _ = write!(
                out,
                "\n# Contributor Insights, mode {}{}\nresource \"aws_dynamodb_contributor_insights\" {} {{\n  table_name = aws_dynamodb_table.{resource}.name\n}}\n",
                mode.as_str(),
                if mode == super::InsightsMode::AccessedAndThrottledKeys {
                    ""
                } else {
                    " (the provider's resource sets no mode: apply it with `Table::apply`, or UpdateContributorInsights)"
                },
                json_str(&resource),
            );
        }
        if let Some(policy) = &o.resource_policy {
            let mut json = String::new();
            serde_json::from_str::<serde_json::Value>(policy)
                .map_or_else(|_| s(policy.as_str()), |v| from_json(&v))
                .json(&mut json, 2);
            let json = json.replace("${", "$${").replace("%{", "%%{");
            let _ = write!(
                out,
                "\nresource \"aws_dynamodb_resource_policy\" {} {{\n  resource_arn = aws_dynamodb_table.{resource}.arn\n  policy       = <<-EOT\n    {json}\n  EOT\n}}\n",
                json_str(&resource),
            );
        }
        self.terraform_policies(&mut out, &resource, table_name);
        out
    }

    fn cloudformation_doc(&self, table_name: &str) -> Doc {
        let o = &self.options.for_new_table();
        // A global table is an `AWS::DynamoDB::GlobalTable`: what each Region keeps for its
        // replica goes into the replica's entry.
        let replicated = self.stated_global();
        let key = |pk: &str, sk: Option<&str>| {
            let mut v = vec![map(vec![("AttributeName", s(pk)), ("KeyType", s("HASH"))])];
            if let Some(sk) = sk {
                v.push(map(vec![("AttributeName", s(sk)), ("KeyType", s("RANGE"))]));
            }
            Doc::List(v)
        };
        let throughput = |t: super::Throughput| {
            map(vec![("ReadCapacityUnits", Doc::Num(t.read)), ("WriteCapacityUnits", Doc::Num(t.write))])
        };
        let on_demand = |t: super::Throughput| {
            map(vec![("MaxReadRequestUnits", Doc::Num(t.read)), ("MaxWriteRequestUnits", Doc::Num(t.write))])
        };
        let mut props: Vec<(&str, Doc)> = vec![("TableName", s(table_name))];
        match o.billing {
            Billing::OnDemand => props.push(("BillingMode", s("PAY_PER_REQUEST"))),
            Billing::Provisioned(t) => {
                props.push(("BillingMode", s("PROVISIONED")));
                if replicated.is_none() {
                    props.push(("ProvisionedThroughput", throughput(t)));
                }
            }
        }
        props.push(("AttributeDefinitions", self.attribute_docs()));
        props.push(("KeySchema", key(&self.pk_attr, self.sk_attr.as_deref())));
        let (mut global, mut local) = (Vec::new(), Vec::new());
        for i in &self.indexes {
            let mut projection = vec![("ProjectionType", s(i.projection.type_name()))];
            let include = i.projection.attributes();
            if !include.is_empty() {
                projection.push(("NonKeyAttributes", Doc::List(include.iter().map(|a| s(a.as_str())).collect())));
            }
            let mut index = vec![
                ("IndexName", s(i.name.as_str())),
                (
                    "KeySchema",
                    if i.is_multi_attribute() { multi_key(i) } else { key(&i.pk_attr, i.sk_attr.as_deref()) },
                ),
                ("Projection", map(projection)),
            ];
            match i.kind {
                IndexKind::Global if replicated.is_some() => {
                    // Writes are the table's, reads each replica's.
                    if let Some(t) = i.max_on_demand {
                        index.push((
                            "WriteOnDemandThroughputSettings",
                            map(vec![("MaxWriteRequestUnits", Doc::Num(t.write))]),
                        ));
                    }
                    global.push(map(index));
                }
                IndexKind::Global => {
                    if let Some(t) = self.effective_throughput(i) {
                        index.push(("ProvisionedThroughput", throughput(t)));
                    }
                    if let Some(t) = i.max_on_demand {
                        index.push(("OnDemandThroughput", on_demand(t)));
                    }
                    global.push(map(index));
                }
                IndexKind::Local => local.push(map(index)),
            }
        }
        if !global.is_empty() {
            props.push(("GlobalSecondaryIndexes", Doc::List(global)));
        }
        if !local.is_empty() {
            props.push(("LocalSecondaryIndexes", Doc::List(local)));
        }
        if let Some(ttl) = &self.ttl_attr {
            props.push((
                "TimeToLiveSpecification",
                map(vec![("AttributeName", s(ttl.as_str())), ("Enabled", Doc::Bool(true))]),
            ));
        }
        if let Some(v) = o.stream {
            props.push(("StreamSpecification", map(vec![("StreamViewType", s(v.as_str()))])));
        }
        let mut pitr = vec![("PointInTimeRecoveryEnabled", Doc::Bool(o.point_in_time_recovery))];
        if let Some(days) = o.recovery_period_days.filter(|_| o.point_in_time_recovery) {
            pitr.push(("RecoveryPeriodInDays", Doc::Num(u64::from(days))));
        }
        let pitr = map(pitr);
        let warm = o
            .warm_throughput
            .map(|t| map(vec![("ReadUnitsPerSecond", Doc::Num(t.read)), ("WriteUnitsPerSecond", Doc::Num(t.write))]));
        let kms = |key: Option<&str>| {
            let mut v = vec![("SSEEnabled", Doc::Bool(true)), ("SSEType", s("KMS"))];
            v.extend(key.map(|k| ("KMSMasterKeyId", s(k))));
            map(v)
        };
        if let Some(global) = replicated {
            if let Some(warm) = warm {
                props.push(("WarmThroughput", warm));
            }
            if let Some(t) = o.max_on_demand {
                props.push(("WriteOnDemandThroughputSettings", map(vec![("MaxWriteRequestUnits", Doc::Num(t.write))])));
            }
            // The key itself is each replica's (a KMS key serves one Region).
            if o.sse != super::Sse::AwsOwned {
                props.push(("SSESpecification", kms(None)));
            }
            props.push(("MultiRegionConsistency", s(global.consistency.as_str())));
            if let Some(w) = &global.witness {
                props.push(("GlobalTableWitnesses", Doc::List(vec![map(vec![("Region", s(w.as_str()))])])));
            }
            props.push(("Replicas", self.cloudformation_replicas(global, &pitr)));
        } else {
            props.push(("PointInTimeRecoverySpecification", pitr));
            if let Some(warm) = warm {
                props.push(("WarmThroughput", warm));
            }
            if let Some(t) = o.max_on_demand {
                props.push(("OnDemandThroughput", on_demand(t)));
            }
            if let Some(mode) = o.contributor_insights {
                props.push(("ContributorInsightsSpecification", insights_doc(mode)));
            }
            if let Some(policy) = &o.resource_policy {
                props.push(("ResourcePolicy", policy_doc(policy)));
            }
            match &o.sse {
                super::Sse::AwsOwned => {}
                super::Sse::AwsManaged => props.push(("SSESpecification", kms(None))),
                super::Sse::CustomerManaged(arn) => props.push(("SSESpecification", kms(Some(arn)))),
            }
            props.push(("DeletionProtectionEnabled", Doc::Bool(o.deletion_protection)));
            if o.table_class != super::TableClass::Standard {
                props.push(("TableClass", s(o.table_class.as_str())));
            }
            if !self.options.tags.is_empty() {
                props.push(("Tags", tags_doc(&self.options.tags)));
            }
        }
        let protected = o.deletion_protection
            || replicated.is_some_and(|g| g.replicas.iter().any(|r| r.deletion_protection == Some(true)));
        let policy = if protected { "Retain" } else { "Delete" };
        let logical = identifier(table_name, &[]);
        let get_att = |attr: &str| map(vec![("Fn::GetAtt", Doc::List(vec![s(logical.as_str()), s(attr)]))]);
        let mut outputs = vec![
            ("TableName", map(vec![("Value", map(vec![("Ref", s(logical.as_str()))]))])),
            ("TableArn", map(vec![("Value", get_att("Arn"))])),
        ];
        if o.stream.is_some() {
            outputs.push(("StreamArn", map(vec![("Value", get_att("StreamArn"))])));
        }
        // `VectorIndexes` of `AWS::DynamoDB::Table` (as CloudFormation's resource schema has it;
        // `AWS::DynamoDB::GlobalTable` has none: `Table::apply` makes them).
        if !self.vector_indexes.is_empty() && replicated.is_none() {
            let indexes = self.vector_indexes.iter().map(|v| {
                let element =
                    |a: &str, ty: &str| map(vec![("AttributeName", s(a)), ("SearchSchemaElementType", s(ty))]);
                let schema: Vec<Doc> = v
                    .hash
                    .iter()
                    .map(|a| element(a, "HASH"))
                    .chain(v.filter.iter().map(|a| element(a, "INLINE_FILTER")))
                    .collect();
                let mut projection = vec![("ProjectionType", s(vector_projection_type(v)))];
                if let crate::model::entity::IndexProjection::Include(attrs) = v.projection {
                    projection.push(("NonKeyAttributes", Doc::List(attrs.iter().map(|a| s(*a)).collect())));
                }
                let mut index = vec![
                    ("IndexName", s(v.name)),
                    ("VectorAttribute", map(vec![("AttributeName", s(v.attr))])),
                    ("Dimensions", Doc::Num(u64::from(v.dimensions))),
                    ("DistanceFunction", s(v.distance.as_str())),
                ];
                if !schema.is_empty() {
                    index.push(("SearchSchema", Doc::List(schema)));
                }
                index.push(("Projection", map(projection)));
                map(index)
            });
            props.push(("VectorIndexes", Doc::List(indexes.collect())));
        }
        let kind = if replicated.is_some() { "AWS::DynamoDB::GlobalTable" } else { "AWS::DynamoDB::Table" };
        let mut resource = vec![("Type", s(kind)), ("DeletionPolicy", s(policy)), ("UpdateReplacePolicy", s(policy))];
        // Client-side encryption is no property of the table: CloudFormation keeps it as the
        // resource's `Metadata`, which deploys nothing.
        let encrypted = self.encrypted_attributes();
        if !encrypted.is_empty() {
            let entities =
                encrypted.iter().map(|(e, attrs)| (*e, Doc::List(attrs.iter().map(|a| s(*a)).collect()))).collect();
            resource.push((
                "Metadata",
                map(vec![(
                    "DynamoEntity",
                    map(vec![(
                        "ClientSideEncryption",
                        map(vec![
                            ("Format", s(CLIENT_SIDE_FORMAT)),
                            ("EncryptedAndSigned", map(entities)),
                            ("Note", s(CLIENT_SIDE_NOTE)),
                        ]),
                    )]),
                )]),
            ));
        }
        resource.push(("Properties", map(props)));
        let resource = map(resource);
        map(vec![
            ("AWSTemplateFormatVersion", s("2010-09-09")),
            ("Description", s(format!("DynamoDB table {table_name}, generated by dynamo-entity from its entities"))),
            ("Resources", Doc::Map(self.cloudformation_resources(logical, resource, table_name))),
            ("Outputs", map(outputs)),
        ])
    }

    /// The table as a CloudFormation template (JSON) holding one `AWS::DynamoDB::Table` with
    /// every option, and outputs for its name, ARN and stream ARN.
    pub fn to_cloudformation_json(&self, table_name: &str) -> String {
        let mut out = String::new();
        self.cloudformation_doc(table_name).json(&mut out, 0);
        out.push('\n');
        out
    }

    /// The same template as [`TableDefinition::to_cloudformation_json`], in YAML.
    pub fn to_cloudformation_yaml(&self, table_name: &str) -> String {
        let mut out = String::new();
        self.cloudformation_doc(table_name).yaml(&mut out, 0);
        out
    }

    /// The access patterns as a Markdown document: the table's keys and indexes, then one row
    /// per entity and query (the table's, and each index's) with its key templates, the index,
    /// and the sort-key conditions the query builder offers.
    pub fn to_markdown(&self, table_name: &str) -> String {
        let o = &self.options.for_new_table();
        let mut out = String::new();
        let _ = writeln!(out, "# Table `{}`\n", md(table_name));
        let _ = writeln!(out, "| Index | Kind | Partition key | Sort key | Projection |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
        let _ = writeln!(
            out,
            "| (table) | table | `{}` | {} | ALL |",
            md(&self.pk_attr),
            self.sk_attr.as_deref().map_or("—".to_owned(), |s| format!("`{}`", md(s)))
        );
        for i in &self.indexes {
            let mut projection = i.projection.type_name().to_owned();
            if !i.projection.attributes().is_empty() {
                let attrs: Vec<String> = i.projection.attributes().iter().map(|a| format!("`{}`", md(a))).collect();
                let _ = write!(projection, " ({})", attrs.join(", "));
            }
            let list = |attrs: &[String]| attrs.iter().map(|a| format!("`{}`", md(a))).collect::<Vec<_>>().join(" + ");
            let (pk, sk) = if i.is_multi_attribute() {
                let sk = if i.sk_attrs.is_empty() { "—".to_owned() } else { list(&i.sk_attrs) };
                (list(&i.pk_attrs), sk)
            } else {
                (
                    format!("`{}`", md(&i.pk_attr)),
                    i.sk_attr.as_deref().map_or("—".to_owned(), |s| format!("`{}`", md(s))),
                )
            };
            let _ = writeln!(
                out,
                "| {} | {} | {pk} | {sk} | {projection} |",
                md(&i.name),
                if i.kind == IndexKind::Global { "global" } else { "local" },
            );
        }
        let billing = match o.billing {
            Billing::OnDemand => "on demand".to_owned(),
            Billing::Provisioned(t) => format!("provisioned ({} RCU, {} WCU)", t.read, t.write),
        };
        let _ = writeln!(out);
        let _ = writeln!(out, "- Billing: {billing}");
        let _ = writeln!(out, "- Stream: {}", o.stream.map_or("off", |v| v.as_str()));
        let _ =
            writeln!(out, "- TTL: {}", self.ttl_attr.as_deref().map_or("off".to_owned(), |a| format!("`{}`", md(a))));
        let _ = writeln!(
            out,
            "- Point-in-time recovery: {}{}",
            on_off(o.point_in_time_recovery),
            o.recovery_period_days
                .filter(|_| o.point_in_time_recovery)
                .map(|d| format!(" ({d} days)"))
                .unwrap_or_default()
        );
        let per_second = |t: super::Throughput| format!("{} reads/s, {} writes/s", t.read, t.write);
        if let Some(t) = o.warm_throughput {
            let _ = writeln!(out, "- Warm throughput: {}", per_second(t));
        }
        if let Some(t) = o.max_on_demand {
            let _ = writeln!(out, "- Maximum on-demand throughput: {}", per_second(t));
        }
        for i in self.indexes.iter().filter(|i| i.kind == IndexKind::Global) {
            if let Some(t) = i.max_on_demand {
                let _ = writeln!(out, "- Maximum on-demand throughput of {}: {}", md(&i.name), per_second(t));
            }
        }
        if let Some(mode) = o.contributor_insights {
            let _ = writeln!(out, "- Contributor Insights: on, {}", mode.as_str());
        }
        if o.resource_policy.is_some() {
            let _ = writeln!(out, "- Resource-based policy: attached (see the CloudFormation or Terraform export)");
        }
        let _ = writeln!(out, "- Deletion protection: {}", on_off(o.deletion_protection));
        if o.sse != super::Sse::AwsOwned {
            let _ = writeln!(out, "- Encryption at rest: {}", md(&o.sse.to_string()));
        }
        if o.table_class != super::TableClass::Standard {
            let _ = writeln!(out, "- Table class: {}", o.table_class.as_str());
        }
        if !self.options.tags.is_empty() {
            let tags: Vec<String> =
                self.options.tags.iter().map(|(k, v)| format!("`{}` = `{}`", md(k), md(v))).collect();
            let _ = writeln!(out, "- Tags: {}", tags.join(", "));
        }
        if let Some(global) = self.stated_global() {
            self.markdown_regions(&mut out, global);
        }
        if !self.vector_indexes.is_empty() {
            let _ = writeln!(out, "\n## Vector indexes\n");
            let _ = writeln!(
                out,
                "| Vector index | Vector attribute | Dimensions | Distance | HASH | INLINE_FILTER | Projection |"
            );
            let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- | --- |");
            let list = |attrs: &[&str]| {
                if attrs.is_empty() {
                    "—".to_owned()
                } else {
                    attrs.iter().map(|a| format!("`{}`", md(a))).collect::<Vec<_>>().join(", ")
                }
            };
            for v in &self.vector_indexes {
                let _ = writeln!(
                    out,
                    "| {} | `{}` | {} | {} | {} | {} | {} |",
                    md(v.name),
                    md(v.attr),
                    v.dimensions,
                    v.distance.as_str(),
                    list(v.hash),
                    list(v.filter),
                    md(&vector_projection(v))
                );
            }
            let _ = writeln!(out, "\nSearched with `SearchVectors` (`Table::search`).");
        }
        let _ = writeln!(out, "\n## Access patterns\n");
        let _ = writeln!(out, "| Entity | Index | Partition key | Sort key | Sort-key conditions |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
        for e in &self.entities {
            let _ = writeln!(
                out,
                "| {} | (table) | {} | {} | {} |",
                md(e.entity_type),
                key_cell(&e.pk),
                e.sk.as_ref().map_or("—".to_owned(), key_cell),
                conditions(&e.pk, e.sk.as_ref())
            );
            for i in e.indexes {
                if let Some(multi) = &i.multi {
                    let cells = |keys: &[KeySchema]| keys.iter().map(key_cell).collect::<Vec<_>>().join(" + ");
                    let sk = if multi.sk.is_empty() { "—".to_owned() } else { cells(multi.sk) };
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {sk} | {} |",
                        md(e.entity_type),
                        md(i.name),
                        cells(multi.pk),
                        multi_conditions(multi.sk)
                    );
                    continue;
                }
                let pk = i.pk.as_ref().unwrap_or(&e.pk);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    md(e.entity_type),
                    md(i.name),
                    key_cell(pk),
                    i.sk.as_ref().map_or("—".to_owned(), key_cell),
                    conditions(pk, i.sk.as_ref())
                );
            }
        }
        let _ = writeln!(out, "\n## Entities\n");
        let _ = writeln!(out, "| Entity | Type attribute | Attributes | TTL | Version |");
        let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
        for e in &self.entities {
            // Only what its items hold: no type attribute with `type_attr = false`, no key field
            // kept in the keys only (`EntitySchema::attributes` leaves those out).
            // `#[encrypt]` attributes hold ciphertext (DB-ESDK, feature `encryption`): marked.
            let attrs: Vec<String> =
                e.attributes
                    .iter()
                    .map(|a| {
                        if e.encrypted.contains(a) {
                            format!("`{}` (encrypted)", md(a))
                        } else {
                            format!("`{}`", md(a))
                        }
                    })
                    .collect();
            let type_attr = if e.type_attr.is_empty() {
                "none (told by its keys)".to_owned()
            } else {
                format!("`{}` = `{}`", md(e.type_attr), md(e.entity_type))
            };
            let _ = writeln!(
                out,
                "| {} | {type_attr} | {} | {} | {} |",
                md(e.entity_type),
                attrs.join(", "),
                e.ttl_attr.map_or("—".to_owned(), |a| format!("`{}`", md(a))),
                e.version_attr.map_or("—".to_owned(), |a| format!("`{}`", md(a))),
            );
        }
        if self.entities.iter().any(|e| e.created_at.is_some() || e.updated_at.is_some()) {
            let _ = writeln!(out, "\n## Fields the library fills\n");
            let _ = writeln!(
                out,
                "Written from the table's clock, one reading per request: the creation time by a create (and \
                 by an upsert where the item has none; a put writes the value it holds), the update time by \
                 every write of the item.\n"
            );
            let _ = writeln!(out, "| Entity | Created at | Updated at |");
            let _ = writeln!(out, "| --- | --- | --- |");
            for e in self.entities.iter().filter(|e| e.created_at.is_some() || e.updated_at.is_some()) {
                let cell = |a: Option<&str>| a.map_or("—".to_owned(), |a| format!("`{}`", md(a)));
                let _ = writeln!(out, "| {} | {} | {} |", md(e.entity_type), cell(e.created_at), cell(e.updated_at));
            }
        }
        if self.entities.iter().any(|e| !e.unique.is_empty()) {
            let _ = writeln!(out, "\n## Unique values\n");
            let _ = writeln!(
                out,
                "Each value owns a guard item, written and removed in the same transaction as the item \
                 that holds it; queries and scans of the entity step over it.\n"
            );
            let _ = writeln!(out, "| Entity | Field | Guard partition key | Guard sort key | Type attribute |");
            let _ = writeln!(out, "| --- | --- | --- | --- | --- |");
            for e in &self.entities {
                for u in e.unique {
                    let type_attr = if e.type_attr.is_empty() {
                        "none".to_owned()
                    } else {
                        format!("`{}` = `{}`", md(e.type_attr), md(&crate::ops::unique::guard_type(e, u)))
                    };
                    let _ = writeln!(
                        out,
                        "| {} | `{}` | `{}` = `{}` | {} | {type_attr} |",
                        md(e.entity_type),
                        md(u.field),
                        md(&self.pk_attr),
                        md(&crate::ops::unique::guard_template(e, u)),
                        self.sk_attr.as_deref().map_or("—".to_owned(), |s| format!(
                            "`{}` = `{}`",
                            md(s),
                            crate::ops::unique::GUARD_SK
                        )),
                    );
                }
            }
        }
        out
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// Text safe in a Markdown table cell.
pub(super) fn md(v: &str) -> String {
    v.replace('|', "\\|").replace('\n', " ")
}

fn key_cell(k: &KeySchema) -> String {
    let cell = match k.ty {
        crate::key::attr::AttributeType::S => format!("`{}` = `{}`", md(k.attr), md(k.template)),
        ty => format!("`{}` = `{}` ({})", md(k.attr), md(k.template), ty.as_str()),
    };
    if k.shards > 0 {
        // The fan-out a reader pays: one request per shard unless the query fixes the shard.
        format!("{cell}, {} shards (a query reads every shard and merges them, one when it fixes the shard)", k.shards)
    } else {
        cell
    }
}

/// The placeholders of a template, in order.
fn placeholders(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        let inner = &after[..close];
        out.push(inner.split(':').next().unwrap_or(inner));
        rest = &after[close + 1..];
    }
    out
}

/// An `on_demand_throughput` block (the table's, or inside an index's block).
fn on_demand_block(out: &mut String, indent: usize, t: super::Throughput) {
    hcl_block(
        out,
        indent,
        "on_demand_throughput",
        &[("max_read_request_units", t.read.to_string()), ("max_write_request_units", t.write.to_string())],
    );
}

/// A multi-attribute index's `global_secondary_index` block: its keys as `key_schema` blocks
/// (the Terraform AWS provider's form for several attributes per side; `hash_key`/`range_key`
/// hold one attribute each, so they cannot say it), after a comment that says so.
fn multi_attribute_block(
    out: &mut String,
    i: &super::IndexDefinition,
    attrs: &[(&str, String)],
    max_on_demand: Option<super::Throughput>,
) {
    out.push('\n');
    let _ = writeln!(
        out,
        "  # {}: a multi-attribute key ({} HASH, {} RANGE), written as `key_schema` blocks, which\n  # \
         need an AWS provider whose global_secondary_index has them (hash_key/range_key hold one attribute).",
        i.name,
        i.pk_attrs.len(),
        i.sk_attrs.len()
    );
    let _ = writeln!(out, "  global_secondary_index {{");
    hcl_attrs(out, 2, attrs);
    let keys = i.pk_attrs.iter().map(|a| (a, "HASH")).chain(i.sk_attrs.iter().map(|a| (a, "RANGE")));
    for (a, kind) in keys {
        hcl_block(out, 2, "key_schema", &[("attribute_name", hcl_str(a)), ("key_type", hcl_str(kind))]);
    }
    if let Some(t) = max_on_demand {
        on_demand_block(out, 2, t);
    }
    let _ = writeln!(out, "  }}");
}

/// A multi-attribute index's `KeySchema`: every HASH attribute, then every RANGE one, in order.
fn multi_key(i: &super::IndexDefinition) -> Doc {
    let keys = i.pk_attrs.iter().map(|a| (a, "HASH")).chain(i.sk_attrs.iter().map(|a| (a, "RANGE")));
    Doc::List(keys.map(|(a, kind)| map(vec![("AttributeName", s(a.as_str())), ("KeyType", s(kind))])).collect())
}

/// The query rule of a multi-attribute sort key, in words: `eq` on its fields from the left,
/// then one range on the next, nothing after a range.
fn multi_conditions(sk: &[KeySchema]) -> String {
    if sk.is_empty() {
        return "—".to_owned();
    }
    let names: Vec<&str> = sk.iter().map(|k| k.template.trim_start_matches('<').trim_end_matches('>')).collect();
    format!(
        "{} (equalities from the left, then at most one range, `.begins_with(..)` too on a `String`; nothing \
         after a range)",
        condition_methods(&names)
    )
}

/// The conditions on placeholders (or fields) `names`, in the shape of the generated methods:
/// each one's operators, the later ones after `eq` on all earlier ones
/// (`` `.ts().eq/lt/lte/gt/gte/between(..)`; `.id().eq/lt/lte/gt/gte/between(..)` after `.ts().eq(..)` ``).
fn condition_methods(names: &[&str]) -> String {
    let mut parts = Vec::new();
    for (n, name) in names.iter().enumerate() {
        let mut part = format!("`.{name}().eq/lt/lte/gt/gte/between(..)`");
        if n > 0 {
            let earlier: String = names[..n].iter().map(|p| format!(".{p}().eq(..)")).collect();
            let _ = write!(part, " after `{earlier}`");
        }
        parts.push(part);
    }
    parts.join("; ")
}

/// The sort-key conditions of a query on a sort key of `sk`'s template, as the generated
/// query offers them (see [`condition_methods`]). Leading placeholders that are fields of the
/// partition key `pk` are fixed by the partition: they offer none, and a sort key made only of
/// them is one exact key.
fn conditions(pk: &KeySchema, sk: Option<&KeySchema>) -> String {
    let Some(sk) = sk else { return "—".to_owned() };
    let in_pk = placeholders(pk.template);
    let all = placeholders(sk.template);
    let fixed = all.iter().take_while(|p| in_pk.contains(p)).count();
    let names = &all[fixed..];
    if names.is_empty() {
        return format!("the exact key `{}`", md(sk.template));
    }
    condition_methods(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_order() {
        assert_eq!(placeholders("MESSAGE#<ts:13>#<id>"), ["ts", "id"]);
        assert_eq!(placeholders("METADATA"), Vec::<&str>::new());
    }

    #[test]
    fn strings_cannot_break_out() {
        assert_eq!(hcl_str("a\"${x}%{y}"), r#""a\"$${x}%%{y}""#);
        assert_eq!(json_str("a\nb\u{1}"), r#""a\nb\u0001""#);
        assert_eq!(identifier("9-chat.table", &[]), "Table9chattable");
        assert_eq!(identifier("chat-table", &['_', '-']), "chat-table");
    }
}
