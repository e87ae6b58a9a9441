resource "aws_dynamodb_table" "orders-global" {
  name                        = "orders-global"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "PK"
  range_key                   = "SK"
  deletion_protection_enabled = true

  attribute {
    name = "GSI1PK"
    type = "S"
  }

  attribute {
    name = "GSI1SK"
    type = "S"
  }

  attribute {
    name = "GSI2PK"
    type = "S"
  }

  attribute {
    name = "GSI2SK"
    type = "S"
  }

  attribute {
    name = "GSI3PK"
    type = "S"
  }

  attribute {
    name = "LSI1SK"
    type = "S"
  }

  attribute {
    name = "PK"
    type = "S"
  }

  attribute {
    name = "SK"
    type = "S"
  }

  global_secondary_index {
    name            = "GSI1"
    hash_key        = "GSI1PK"
    range_key       = "GSI1SK"
    projection_type = "ALL"
  }

  global_secondary_index {
    name            = "GSI2"
    hash_key        = "GSI2PK"
    range_key       = "GSI2SK"
    projection_type = "ALL"

    on_demand_throughput {
      max_read_request_units  = 50
      max_write_request_units = 25
    }
  }

  global_secondary_index {
    name            = "GSI3"
    hash_key        = "GSI3PK"
    projection_type = "ALL"
  }

  local_secondary_index {
    name            = "LSI1"
    range_key       = "LSI1SK"
    projection_type = "ALL"
  }

  ttl {
    attribute_name = "expiresAt"
    enabled        = true
  }

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  point_in_time_recovery {
    enabled = true
  }

  on_demand_throughput {
    max_read_request_units  = 400
    max_write_request_units = 200
  }

  server_side_encryption {
    enabled     = true
    kms_key_arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
  }

  # A global table, multi-Region eventual consistency (MREC): created in eu-west-1 (this provider's Region),
  # replicated to the Regions below.
  replica {
    region_name                 = "us-east-1"
    kms_key_arn                 = "arn:aws:kms:us-east-1:123456789012:key/5678abcd-12ab-34cd-56ef-1234567890ab"
    point_in_time_recovery      = true
    deletion_protection_enabled = false
    propagate_tags              = true
  }

  replica {
    region_name                 = "ap-northeast-1"
    kms_key_arn                 = "arn:aws:kms:ap-northeast-1:123456789012:key/9abcabcd-12ab-34cd-56ef-1234567890ab"
    point_in_time_recovery      = true
    deletion_protection_enabled = true
    propagate_tags              = true
  }

  # Replica settings the provider has no argument for (Table::apply through a handle in each Region sets them):
  #   us-east-1: table class STANDARD_INFREQUENT_ACCESS, at most 500 reads/s, Contributor Insights ACCESSED_AND_THROTTLED_KEYS

  tags = {
    "Env"  = "prod"
    "Team" = "orders"
  }
}

# Contributor Insights, mode THROTTLED_KEYS (the provider's resource sets no mode: apply it with `Table::apply`, or UpdateContributorInsights)
resource "aws_dynamodb_contributor_insights" "orders-global" {
  table_name = aws_dynamodb_table.orders-global.name
}
