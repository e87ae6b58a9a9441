//! Encryption at rest of a [`TableDefinition`]: which KMS key DynamoDB encrypts the table with.

use super::TableDefinition;

/// Which key DynamoDB encrypts the table at rest with (every table is encrypted; this chooses
/// the key). Written by `Table::create_table_from`, planned and applied by `Table::plan` and
/// `Table::apply`, and exported (`SSESpecification` in CloudFormation, `server_side_encryption`
/// in Terraform).
///
/// DynamoDB Local accepts every choice on CreateTable and UpdateTable but keeps none: its
/// DescribeTable reports no `SSEDescription`, so `plan` does not compare encryption on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Sse {
    /// A key AWS owns (free, not in your account): DynamoDB's default. Exports write nothing
    /// for it, as DynamoDB's own default.
    #[default]
    AwsOwned,
    /// The AWS managed KMS key of your account (`alias/aws/dynamodb`).
    AwsManaged,
    /// Your KMS key, by its key ARN (`arn:aws:kms:region:account:key/id`): DescribeTable
    /// reports the key ARN, which `plan` compares with this text.
    CustomerManaged(String),
}

impl Sse {
    /// The KMS key ARN of a customer managed key.
    pub fn kms_key_arn(&self) -> Option<&str> {
        match self {
            Sse::CustomerManaged(arn) => Some(arn),
            _ => None,
        }
    }
}

impl std::fmt::Display for Sse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sse::AwsOwned => f.write_str("AWS owned key"),
            Sse::AwsManaged => f.write_str("AWS managed KMS key"),
            Sse::CustomerManaged(arn) => write!(f, "KMS key {arn}"),
        }
    }
}

impl TableDefinition {
    /// With encryption at rest under `sse`'s key. Not stated unless called: `apply` leaves a
    /// live table's key as it is, and a new table gets [`Sse::AwsOwned`].
    pub fn sse(mut self, sse: Sse) -> Self {
        self.options.sse = Some(sse);
        self
    }
}
