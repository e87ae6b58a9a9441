resource "aws_dynamodb_table" "orders-settings" {
  name                        = "orders-settings"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "PK"
  range_key                   = "SK"
  deletion_protection_enabled = false

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

  stream_enabled = false

  point_in_time_recovery {
    enabled                 = true
    recovery_period_in_days = 7
  }

  warm_throughput {
    read_units_per_second  = 15000
    write_units_per_second = 6000
  }

  on_demand_throughput {
    max_read_request_units  = 200
    max_write_request_units = 100
  }
}

# Contributor Insights, mode THROTTLED_KEYS (the provider's resource sets no mode: apply it with `Table::apply`, or UpdateContributorInsights)
resource "aws_dynamodb_contributor_insights" "orders-settings" {
  table_name = aws_dynamodb_table.orders-settings.name
}

resource "aws_dynamodb_resource_policy" "orders-settings" {
  resource_arn = aws_dynamodb_table.orders-settings.arn
  policy       = <<-EOT
    {
      "Statement": [
        {
          "Action": "dynamodb:DeleteTable",
          "Effect": "Deny",
          "Principal": {
            "AWS": "arn:aws:iam::123456789012:root"
          },
          "Resource": "arn:aws:dynamodb:eu-west-1:123456789012:table/orders-settings",
          "Sid": "NoDelete"
        }
      ],
      "Version": "2012-10-17"
    }
  EOT
}
