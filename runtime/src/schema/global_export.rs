//! A global table in the exports: the replicas of CloudFormation's `AWS::DynamoDB::GlobalTable`,
//! Terraform's `replica` and `global_table_witness` blocks, the Markdown document's Regions.

use std::fmt::Write as _;

use super::export::{Doc, hcl_block, hcl_str, insights_doc, map, md, policy_doc, s, tags_doc};
use super::{GlobalTable, InsightsMode, MultiRegionConsistency, Replica, TableClass, TableDefinition};
use crate::model::entity::IndexKind;

/// What one replica holds, its own settings over the table's.
struct Effective<'a> {
    table_class: TableClass,
    max_reads: Option<u64>,
    kms_key: Option<&'a str>,
    deletion_protection: bool,
    contributor_insights: Option<InsightsMode>,
}

impl TableDefinition {
    /// The settings of replica `r`: its own, else the table's.
    fn effective<'a>(&'a self, r: &'a Replica) -> Effective<'a> {
        let o = &self.options;
        Effective {
            table_class: r.table_class.or(o.table_class).unwrap_or_default(),
            max_reads: r.max_reads.or(o.max_on_demand.map(|t| t.read)),
            kms_key: r.kms_key.as_deref().or(match &o.sse {
                Some(super::Sse::CustomerManaged(arn)) => Some(arn.as_str()),
                _ => None,
            }),
            deletion_protection: r.deletion_protection.or(o.deletion_protection).unwrap_or(false),
            contributor_insights: r.contributor_insights.unwrap_or(o.contributor_insights.flatten()),
        }
    }

    /// The `Replicas` of an `AWS::DynamoDB::GlobalTable`: each Region with what it keeps for its
    /// replica (deletion protection, point-in-time recovery `pitr`, Contributor Insights, read
    /// maxima, KMS key, table class, tags, resource-based policy).
    pub(super) fn cloudformation_replicas(&self, global: &GlobalTable, pitr: &Doc) -> Doc {
        let replicas = global.replicas.iter().map(|r| {
            let e = self.effective(r);
            let mut doc = vec![
                ("Region", s(r.region.as_str())),
                ("DeletionProtectionEnabled", Doc::Bool(e.deletion_protection)),
                ("PointInTimeRecoverySpecification", pitr.clone()),
            ];
            if let Some(mode) = e.contributor_insights {
                doc.push(("ContributorInsightsSpecification", insights_doc(mode)));
            }
            if let Some(reads) = e.max_reads {
                doc.push(("ReadOnDemandThroughputSettings", map(vec![("MaxReadRequestUnits", Doc::Num(reads))])));
            }
            let index_reads: Vec<Doc> = self
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .filter_map(|i| {
                    let t = i.max_on_demand?;
                    Some(map(vec![
                        ("IndexName", s(i.name.as_str())),
                        ("ReadOnDemandThroughputSettings", map(vec![("MaxReadRequestUnits", Doc::Num(t.read))])),
                    ]))
                })
                .collect();
            if !index_reads.is_empty() {
                doc.push(("GlobalSecondaryIndexes", Doc::List(index_reads)));
            }
            if let Some(key) = e.kms_key {
                doc.push(("SSESpecification", map(vec![("KMSMasterKeyId", s(key))])));
            }
            if e.table_class != TableClass::Standard {
                doc.push(("TableClass", s(e.table_class.as_str())));
            }
            if !self.options.tags.is_empty() {
                doc.push(("Tags", tags_doc(&self.options.tags)));
            }
            if let Some(policy) = &self.options.resource_policy {
                doc.push(("ResourcePolicy", policy_doc(policy)));
            }
            map(doc)
        });
        Doc::List(replicas.collect())
    }

    /// The `replica` blocks of the replicas after the first (the table, in the provider's
    /// Region), the `global_table_witness` block, and comments for what the provider's `replica`
    /// block has no argument for.
    pub(super) fn terraform_replicas(&self, out: &mut String, global: &GlobalTable) {
        let o = &self.options;
        let pitr = o.point_in_time_recovery.unwrap_or(false);
        let first = global.replicas.first().map_or("", |r| r.region.as_str());
        let _ = write!(
            out,
            "\n  # A global table, multi-Region {} consistency ({}): created in {first} (this provider's Region),\n  \
             # replicated to the Regions below.",
            if global.consistency == MultiRegionConsistency::Strong { "strong" } else { "eventual" },
            global.consistency.short()
        );
        let mut unsaid: Vec<String> = Vec::new();
        for (n, r) in global.replicas.iter().enumerate() {
            let e = self.effective(r);
            let mut own = Vec::new();
            if r.table_class.is_some() && n > 0 {
                own.push(format!("table class {}", e.table_class.as_str()));
            }
            if let Some(reads) = r.max_reads {
                own.push(format!("at most {reads} reads/s"));
            }
            if r.contributor_insights.is_some() && n > 0 {
                own.push(format!("Contributor Insights {}", e.contributor_insights.map_or("off", |m| m.as_str())));
            }
            if o.recovery_period_days.is_some() && n > 0 {
                own.push("its recovery period".to_owned());
            }
            if !own.is_empty() {
                unsaid.push(format!("{}: {}", r.region, own.join(", ")));
            }
            if n == 0 {
                continue;
            }
            let mut attrs: Vec<(&str, String)> = vec![("region_name", hcl_str(&r.region))];
            if global.consistency == MultiRegionConsistency::Strong {
                attrs.push(("consistency_mode", hcl_str("STRONG")));
            }
            if let Some(key) = e.kms_key {
                attrs.push(("kms_key_arn", hcl_str(key)));
            }
            attrs.push(("point_in_time_recovery", pitr.to_string()));
            attrs.push(("deletion_protection_enabled", e.deletion_protection.to_string()));
            if !o.tags.is_empty() {
                attrs.push(("propagate_tags", "true".to_owned()));
            }
            hcl_block(out, 1, "replica", &attrs);
        }
        if let Some(w) = &global.witness {
            hcl_block(out, 1, "global_table_witness", &[("region_name", hcl_str(w))]);
        }
        if !unsaid.is_empty() {
            out.push('\n');
            let _ = writeln!(
                out,
                "  # Replica settings the provider has no argument for (Table::apply through a handle in each Region \
                 sets them):"
            );
            for line in unsaid {
                let _ = writeln!(out, "  #   {line}");
            }
        }
    }

    /// The Markdown document's Regions: the consistency, each replica's settings, the witness,
    /// and what holds per Region.
    pub(super) fn markdown_regions(&self, out: &mut String, global: &GlobalTable) {
        let _ = writeln!(out, "\n## Regions\n");
        let first = global.replicas.first().map_or("", |r| r.region.as_str());
        let _ = writeln!(
            out,
            "A global table with multi-Region {} consistency ({}), created in `{}`.\n",
            if global.consistency == MultiRegionConsistency::Strong { "strong" } else { "eventual" },
            global.consistency.short(),
            md(first)
        );
        let _ = writeln!(
            out,
            "| Region | Table class | Maximum reads | Deletion protection | Contributor Insights | KMS key |"
        );
        let _ = writeln!(out, "| --- | --- | --- | --- | --- | --- |");
        for r in &global.replicas {
            let e = self.effective(r);
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                md(&r.region),
                e.table_class.as_str(),
                e.max_reads.map_or("—".to_owned(), |n| format!("{n}/s")),
                if e.deletion_protection { "on" } else { "off" },
                e.contributor_insights.map_or("off", |m| m.as_str()),
                e.kms_key.map_or("—".to_owned(), |k| format!("`{}`", md(k))),
            );
        }
        if let Some(w) = &global.witness {
            let _ = writeln!(out, "\nWitness: `{}` (holds the replicated changes, serves no reads or writes).", md(w));
        }
        let _ = writeln!(out, "\n{}.", self.guarantees(global.consistency));
    }
}
