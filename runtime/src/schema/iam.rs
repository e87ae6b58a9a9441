//! A least-privilege IAM policy for the entities of a [`TableDefinition`]: the actions the
//! runtime's operations use, on the table's and its indexes' ARNs, and for a multi-tenant table
//! `dynamodb:LeadingKeys` limited to the tenant named by a principal tag.

use super::TableDefinition;
use std::fmt::Write as _;

use super::export::{Doc, identifier, map, s};
use crate::error::Error;
use crate::model::entity::{EntitySchema, IndexKind, KeySchema};
use crate::model::tenant::Tenancy;

/// What [`TableDefinition::iam_policy`] grants: reading, or reading and writing, the items of
/// the table, optionally only those of the tenant a principal tag names, optionally only some
/// attributes (a view-only role).
///
/// ```
/// # use dynamo_entity_runtime::IamPolicy;
/// let app = IamPolicy::read_write().table_name("Chat").table_name_prefix("${ENV}_").tenant_tag("TenantId");
/// let reporting = IamPolicy::read_only().table_name("Chat").attributes(["name", "email"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IamPolicy {
    write: bool,
    tenant_tag: Option<String>,
    table_name: Option<String>,
    prefix: String,
    region: String,
    account: String,
    attributes: Option<Vec<String>>,
    name: Option<String>,
}

/// Actions of the reads: `GetItem` (get, get_view), `BatchGetItem`, `Query`, and the item-level
/// actions that `TransactGetItems` and `TransactWriteItems` are authorized by (`GetItem`,
/// `ConditionCheckItem`).
const READ_ACTIONS: [&str; 4] =
    ["dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:GetItem", "dynamodb:Query"];
/// Actions of the writes: put, create, delete, update, batch writes, and the item-level actions
/// of a transaction's puts, updates and deletes.
const WRITE_ACTIONS: [&str; 4] =
    ["dynamodb:BatchWriteItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"];

impl IamPolicy {
    fn new(write: bool) -> IamPolicy {
        IamPolicy {
            write,
            tenant_tag: None,
            table_name: None,
            prefix: String::new(),
            region: "*".to_owned(),
            account: "*".to_owned(),
            attributes: None,
            name: None,
        }
    }

    /// Reads and writes: every operation of a tenant handle (scans only without a tenant).
    pub fn read_write() -> IamPolicy {
        IamPolicy::new(true)
    }

    /// Reads only: get, query, batch get, transactional get (scans only without a tenant).
    pub fn read_only() -> IamPolicy {
        IamPolicy::new(false)
    }

    /// Only the items of the tenant that the principal's tag `tag` names: `dynamodb:LeadingKeys`
    /// (which AWS documents as the table's partition key; for a global index query the policy
    /// grants the index's own key patterns) must be the tenant entities' literal prefix and the
    /// tag's value (`TENANT#${aws:PrincipalTag/TenantId}#*`). Scans are not granted; nor is a
    /// global index keyed on several attributes or on the tenant field's own number attribute
    /// (refused: see [`TableDefinition::iam_policy`]).
    pub fn tenant_tag(mut self, tag: impl Into<String>) -> IamPolicy {
        self.tenant_tag = Some(tag.into());
        self
    }

    /// The table's name in the policy's ARNs (required for [`TableDefinition::iam_policy`]; the
    /// Terraform and CloudFormation exports name the table resource instead).
    pub fn table_name(mut self, name: impl Into<String>) -> IamPolicy {
        self.table_name = Some(name.into());
        self
    }

    /// Text before the table name in the ARNs, such as an environment `${ENV}_` that the
    /// deployment substitutes, so that a role of one environment cannot touch another's table.
    pub fn table_name_prefix(mut self, prefix: impl Into<String>) -> IamPolicy {
        self.prefix = prefix.into();
        self
    }

    /// The region of the ARNs (`*` unless set).
    pub fn region(mut self, region: impl Into<String>) -> IamPolicy {
        self.region = region.into();
        self
    }

    /// The account id of the ARNs (`*` unless set).
    pub fn account(mut self, account: impl Into<String>) -> IamPolicy {
        self.account = account.into();
        self
    }

    /// Only these attributes (besides the keys and the type attribute) may be read, with
    /// `dynamodb:Attributes` and `dynamodb:Select = SPECIFIC_ATTRIBUTES`: a role that reads
    /// views only (`get_view`, `.view::<V>()`). Read-only policies only; `ConditionCheckItem`
    /// (a transaction's condition check) is not granted then.
    pub fn attributes<I, A>(mut self, attributes: I) -> IamPolicy
    where
        I: IntoIterator<Item = A>,
        A: Into<String>,
    {
        self.attributes = Some(attributes.into_iter().map(Into::into).collect());
        self
    }

    /// The name of the policy resource in the Terraform and CloudFormation exports
    /// (`<table>-read-write` and the like unless set).
    pub fn name(mut self, name: impl Into<String>) -> IamPolicy {
        self.name = Some(name.into());
        self
    }

    /// The policy's name for a table named `table`.
    pub(super) fn resource_name(&self, table: &str) -> String {
        self.name.clone().unwrap_or_else(|| {
            let access = if self.write { "read-write" } else { "read-only" };
            let tenant = if self.tenant_tag.is_some() { "-tenant" } else { "" };
            let view = if self.attributes.is_some() { "-attributes" } else { "" };
            format!("{table}{tenant}-{access}{view}")
        })
    }
}

/// Where the policy's resources are: plain ARNs, or references of an export's table resource.
pub(super) enum Arns<'a> {
    /// `arn:aws:dynamodb:<region>:<account>:table/<prefix><name>`.
    Plain(&'a IamPolicy),
    /// Terraform: `${aws_dynamodb_table.<name>.arn}` (in a heredoc).
    Terraform(&'a str),
    /// CloudFormation: `Fn::GetAtt` and `Fn::Sub` of the table's logical id.
    CloudFormation(&'a str),
}

/// A tag key IAM accepts: 1 to 128 letters, digits, spaces and `_ . : / = + - @`.
fn valid_tag(tag: &str) -> bool {
    (1..=128).contains(&tag.chars().count())
        && tag.chars().all(|c| c.is_alphanumeric() || " _.:/=+-@".contains(c))
        && !tag.starts_with("aws:")
}

/// The literal text of `key`'s template before its first placeholder, and whether the template
/// is that text and the first placeholder alone.
fn leading(key: &KeySchema) -> (&'static str, bool) {
    let prefix = crate::model::tenant::leading_literal(key.template);
    let rest = key.template.get(prefix.len()..).unwrap_or_default();
    // No placeholder, or exactly one placeholder after the prefix.
    let whole = rest.is_empty() || rest.find('>').is_some_and(|end| end + 1 == rest.len());
    (prefix, whole)
}

/// The partition keys of `e`: the table's and every global index's.
fn partition_keys(e: &EntitySchema) -> impl Iterator<Item = &KeySchema> {
    std::iter::once(&e.pk).chain(e.indexes.iter().filter(|i| i.kind == IndexKind::Global).filter_map(|i| i.pk.as_ref()))
}

/// Refuses a tenant entity (`e`) with a global index whose partition key `dynamodb:LeadingKeys`
/// cannot confine to the tenant by the tenant id's rule (its key text, see
/// `crate::model::tenant`):
/// - a multi-attribute partition key: AWS documents `dynamodb:LeadingKeys` as "the first key
///   attribute of a table—in other words, the partition key" (Amazon DynamoDB Developer Guide,
///   "Using IAM policy conditions for fine-grained access control",
///   <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html>),
///   and documents no value for a partition key of several attributes, so what a query of such
///   an index is compared with is unknown;
/// - the tenant field's own number (or binary) attribute: IAM compares the value's text as the
///   request writes it (`7`, or `0007`: one number to DynamoDB) with the tag's, while the tenant
///   id is the key text (`0000000007`; a signed integer's key text is another number's digits).
fn unconfinable_index(e: &EntitySchema) -> Result<(), Error> {
    use crate::key::attr::AttributeType;
    for index in e.indexes.iter().filter(|i| i.kind == IndexKind::Global) {
        let why = if index.multi.is_some_and(|m| m.pk.len() > 1) {
            "its partition key is several attributes, and AWS documents `dynamodb:LeadingKeys` as the table's \
             partition key (\"the first key attribute of a table\", Developer Guide, \"Using IAM policy conditions \
             for fine-grained access control\") with no value for a multi-attribute partition key"
        } else if index.partition_keys().first().is_some_and(|k| k.ty != AttributeType::S) {
            "its partition key is the tenant field's own number attribute, whose text in a request (`7`, or \
             `0007`: one number) is not the tenant id, the tenant field's key text (`0000000007`) that the tag \
             holds, and `dynamodb:LeadingKeys` compares text"
        } else {
            continue;
        };
        return Err(Error::Validation(format!(
            "a tenant policy cannot confine index {} of {} to the principal's tenant: {why}; the tenant handle \
             (`Table::for_tenant`) still confines it in the client; for IAM, key the index on a template \
             (`TENANT#<tenant_id>#..`)",
            index.name, e.entity_type
        )));
    }
    Ok(())
}

impl TableDefinition {
    /// A least-privilege IAM policy document (JSON) for the entities of this table: see
    /// [`IamPolicy`]. Only the actions the runtime's operations need (never `*`; `Scan` only
    /// without a tenant), on the table's ARN and each index's; with
    /// [`IamPolicy::tenant_tag`], `ForAllValues:StringLike` on `dynamodb:LeadingKeys` with the
    /// tenant entities' partition-key prefixes followed by `${aws:PrincipalTag/<tag>}`, a
    /// `Null` check that a leading key and the tag are present (`ForAllValues` holds for an
    /// empty set), and the prefixes of `tenant_shared` entities.
    ///
    /// [`Error::Validation`] without [`IamPolicy::table_name`], for a tenant tag IAM would not
    /// accept, a tenant policy of a table without tenant entity, `attributes` on a
    /// read-write policy, or a `tenant_shared` entity whose partition key has no literal prefix
    /// (its pattern would match every key) or one that a tenant entity's keys start with, or
    /// that starts them (`ORG#<org_id>` beside `ORG#<tenant_id>#USER#..`: `ORG#*` would match
    /// every tenant's keys), naming both templates. A tenant policy of a tenant entity with a
    /// global index keyed on several attributes, or on the tenant field's own number
    /// attribute, is refused too: `dynamodb:LeadingKeys` cannot confine it (see the guide,
    /// `dynamo_entity::guide::tenancy`, "The IAM policy").
    pub fn iam_policy(&self, policy: &IamPolicy) -> Result<String, Error> {
        if policy.table_name.is_none() {
            return Err(Error::Validation(
                "an IAM policy names its table: `IamPolicy::read_write().table_name(\"..\")`".into(),
            ));
        }
        let mut out = String::new();
        self.policy_doc(policy, &Arns::Plain(policy))?.json(&mut out, 0);
        out.push('\n');
        Ok(out)
    }

    /// With `policy` written beside the table by [`TableDefinition::to_terraform`] (an
    /// `aws_iam_policy`) and the CloudFormation templates (an `AWS::IAM::ManagedPolicy`), its
    /// resources the table resource's ARN and its indexes'. Refused as
    /// [`TableDefinition::iam_policy`] refuses a policy (a table name is not needed).
    pub fn with_iam_policy(mut self, policy: IamPolicy) -> Result<TableDefinition, Error> {
        self.policy_doc(&policy, &Arns::Terraform("check"))?;
        self.iam_policies.push(policy);
        Ok(self)
    }

    /// The `aws_iam_policy` resources of [`TableDefinition::with_iam_policy`], after the table
    /// resource `resource` (a heredoc of JSON; `${aws:..}` escaped as `$${aws:..}`).
    pub(super) fn terraform_policies(&self, out: &mut String, resource: &str, table_name: &str) {
        for policy in &self.iam_policies {
            let Ok(doc) = self.policy_doc(policy, &Arns::Terraform(resource)) else { continue };
            let mut json = String::new();
            doc.json(&mut json, 2);
            let json = json.replace("${aws:", "$${aws:").replace("%{", "%%{");
            let name = policy.resource_name(table_name);
            let id = identifier(&name, &['_', '-']);
            let _ = write!(
                out,
                "\nresource \"aws_iam_policy\" {} {{\n  name   = {}\n  policy = <<-EOT\n    {json}\n  EOT\n}}\n",
                crate::json::json_str(&id),
                crate::json::json_str(&name),
            );
        }
    }

    /// The CloudFormation resources: the table (`logical`, `table`) and one
    /// `AWS::IAM::ManagedPolicy` per policy of [`TableDefinition::with_iam_policy`].
    pub(super) fn cloudformation_resources(&self, logical: String, table: Doc, table_name: &str) -> Vec<(String, Doc)> {
        let mut out = Vec::with_capacity(1 + self.iam_policies.len());
        for policy in &self.iam_policies {
            let Ok(doc) = self.policy_doc(policy, &Arns::CloudFormation(&logical)) else { continue };
            let name = policy.resource_name(table_name);
            let resource = map(vec![
                ("Type", s("AWS::IAM::ManagedPolicy")),
                (
                    "Properties",
                    map(vec![
                        ("ManagedPolicyName", s(name.as_str())),
                        (
                            "Description",
                            s(format!("Access to DynamoDB table {table_name}, generated by dynamo-entity")),
                        ),
                        ("PolicyDocument", doc),
                    ]),
                ),
            ]);
            out.push((identifier(&name, &[]), resource));
        }
        out.insert(0, (logical, table));
        out
    }

    /// The policy document, its resources as `arns` says.
    pub(super) fn policy_doc(&self, policy: &IamPolicy, arns: &Arns<'_>) -> Result<Doc, Error> {
        if policy.write && policy.attributes.is_some() {
            return Err(Error::Validation(
                "`attributes` limits what a role reads: a read-write policy writes whole items; use read_only()".into(),
            ));
        }
        let mut actions: Vec<&str> = READ_ACTIONS.to_vec();
        if policy.attributes.is_some() {
            // A view-only role reads: condition checks are a writer's (and `dynamodb:Select`,
            // which the role is held to, does not apply to them).
            actions.retain(|a| *a != "dynamodb:ConditionCheckItem");
        }
        if policy.write {
            actions.extend(WRITE_ACTIONS);
        }
        if policy.tenant_tag.is_none() {
            // Scans (and backfill, migrate) are refused on a tenant handle only.
            actions.push("dynamodb:Scan");
        }
        // Vector search (`SearchVectors`), on each vector index's ARN: not in a tenant policy,
        // whose `dynamodb:LeadingKeys` is not known to confine a search's HASH to the tenant.
        let vectors = policy.tenant_tag.is_none() && !self.vector_indexes.is_empty();
        if vectors {
            actions.push("dynamodb:SearchVectors");
        }
        actions.sort_unstable();
        let table_arn = match arns {
            Arns::Plain(p) => s(format!(
                "arn:aws:dynamodb:{}:{}:table/{}{}",
                p.region,
                p.account,
                p.prefix,
                p.table_name.as_deref().unwrap_or_default()
            )),
            Arns::Terraform(resource) => s(format!("${{aws_dynamodb_table.{resource}.arn}}")),
            Arns::CloudFormation(logical) => map(vec![("Fn::GetAtt", Doc::List(vec![s(*logical), s("Arn")]))]),
        };
        let index_arn = |name: &str| match (arns, &table_arn) {
            (Arns::CloudFormation(logical), _) => map(vec![("Fn::Sub", s(format!("${{{logical}.Arn}}/index/{name}")))]),
            (_, Doc::Str(table)) => s(format!("{table}/index/{name}")),
            _ => s(name),
        };
        let mut resources = vec![table_arn.clone()];
        resources.extend(self.indexes.iter().map(|i| index_arn(&i.name)));
        if vectors {
            resources.extend(self.vector_indexes.iter().map(|v| index_arn(v.name)));
        }

        let mut conditions: Vec<(&str, Doc)> = Vec::new();
        if let Some(tag) = &policy.tenant_tag {
            if !valid_tag(tag) {
                return Err(Error::Validation(format!(
                    "`{tag}` is not a tag key IAM accepts (1 to 128 letters, digits, spaces and `_ . : / = + - @`, \
                     not starting with `aws:`)"
                )));
            }
            let variable = format!("${{aws:PrincipalTag/{tag}}}");
            let mut patterns: Vec<String> = Vec::new();
            let mut push = |p: String| {
                if !patterns.contains(&p) {
                    patterns.push(p);
                }
            };
            crate::model::tenant::check_shared_apart(&self.entities)?;
            crate::model::tenant::check_tenants_apart(&self.entities.iter().collect::<Vec<_>>(), false)?;
            let mut tenants = 0;
            for e in &self.entities {
                match e.tenant {
                    Tenancy::Field(_) => {
                        tenants += 1;
                        unconfinable_index(e)?;
                        for key in partition_keys(e) {
                            let (prefix, whole) = leading(key);
                            if whole {
                                push(format!("{prefix}{variable}"));
                            } else {
                                push(format!("{prefix}{variable}#*"));
                            }
                        }
                        // The guards of unique values lead with the tenant: `<tenant>#UNIQUE#..`.
                        if !e.unique.is_empty() {
                            let (prefix, _) = leading(&e.pk);
                            push(format!("{prefix}{variable}#*"));
                        }
                    }
                    Tenancy::Shared => {
                        for key in partition_keys(e) {
                            let (prefix, _) = leading(key);
                            if prefix.is_empty() {
                                return Err(Error::Validation(format!(
                                    "{} is tenant_shared, but its partition key `{}` has no literal prefix: the \
                                     policy could not grant its items without granting every key",
                                    e.entity_type, key.template
                                )));
                            }
                            push(format!("{prefix}*"));
                        }
                        // The guards of a shared entity's unique values (shared too).
                        if !e.unique.is_empty() {
                            push(format!("UNIQUE#{}#*", e.entity_type));
                        }
                    }
                    Tenancy::Untenanted => {}
                }
            }
            if tenants == 0 {
                return Err(Error::Validation(
                    "a tenant policy of a table without entity having `#[entity(tenant = \"..\")]`: no key could \
                     name a tenant"
                        .into(),
                ));
            }
            conditions.push((
                "ForAllValues:StringLike",
                map(vec![("dynamodb:LeadingKeys", Doc::List(patterns.into_iter().map(s).collect()))]),
            ));
            conditions.push((
                "Null",
                Doc::Map(vec![
                    ("dynamodb:LeadingKeys".to_owned(), s("false")),
                    (format!("aws:PrincipalTag/{tag}"), s("false")),
                ]),
            ));
        }
        if let Some(attributes) = &policy.attributes {
            let mut all: Vec<String> = self.key_attributes();
            // (An entity with `type_attr = false` has none.)
            all.extend(self.entities.iter().filter(|e| !e.type_attr.is_empty()).map(|e| e.type_attr.to_owned()));
            all.extend(attributes.iter().cloned());
            all.sort_unstable();
            all.dedup();
            conditions.push((
                "ForAllValues:StringEquals",
                map(vec![("dynamodb:Attributes", Doc::List(all.into_iter().map(s).collect()))]),
            ));
            conditions.push(("StringEqualsIfExists", map(vec![("dynamodb:Select", s("SPECIFIC_ATTRIBUTES"))])));
        }
        let sid = if policy.write { "ReadWriteItems" } else { "ReadItems" };
        let mut statement = vec![
            ("Sid", s(sid)),
            ("Effect", s("Allow")),
            ("Action", Doc::List(actions.into_iter().map(s).collect())),
            ("Resource", Doc::List(resources)),
        ];
        if !conditions.is_empty() {
            statement.push(("Condition", map(conditions)));
        }
        Ok(map(vec![("Version", s("2012-10-17")), ("Statement", Doc::List(vec![map(statement)]))]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::attr::AttributeType;

    #[test]
    fn leading_text_and_whole_templates() {
        let key = |t| KeySchema::of("PK", t, AttributeType::S);
        assert_eq!(leading(&key("TENANT#<t>#USER#<u>")), ("TENANT#", false));
        assert_eq!(leading(&key("TENANT#<t>")), ("TENANT#", true));
        assert_eq!(leading(&key("<t>#X")), ("", false));
        assert!(valid_tag("TenantId") && !valid_tag("") && !valid_tag("a*b") && !valid_tag("aws:x"));
    }
}
