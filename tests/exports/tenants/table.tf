resource "aws_dynamodb_table" "members" {
  name                        = "members"
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

  stream_enabled = false

  point_in_time_recovery {
    enabled = false
  }
}

resource "aws_iam_policy" "members-tenant-read-write" {
  name   = "members-tenant-read-write"
  policy = <<-EOT
    {
      "Version": "2012-10-17",
      "Statement": [
        {
          "Sid": "ReadWriteItems",
          "Effect": "Allow",
          "Action": [
            "dynamodb:BatchGetItem",
            "dynamodb:BatchWriteItem",
            "dynamodb:ConditionCheckItem",
            "dynamodb:DeleteItem",
            "dynamodb:GetItem",
            "dynamodb:PutItem",
            "dynamodb:Query",
            "dynamodb:UpdateItem"
          ],
          "Resource": [
            "${aws_dynamodb_table.members.arn}",
            "${aws_dynamodb_table.members.arn}/index/GSI1"
          ],
          "Condition": {
            "ForAllValues:StringLike": {
              "dynamodb:LeadingKeys": [
                "TENANT#$${aws:PrincipalTag/TenantId}#*",
                "$${aws:PrincipalTag/TenantId}",
                "PLAN#*"
              ]
            },
            "Null": {
              "dynamodb:LeadingKeys": "false",
              "aws:PrincipalTag/TenantId": "false"
            }
          }
        }
      ]
    }
  EOT
}

resource "aws_iam_policy" "members-tenant-read-only-attributes" {
  name   = "members-tenant-read-only-attributes"
  policy = <<-EOT
    {
      "Version": "2012-10-17",
      "Statement": [
        {
          "Sid": "ReadItems",
          "Effect": "Allow",
          "Action": [
            "dynamodb:BatchGetItem",
            "dynamodb:GetItem",
            "dynamodb:Query"
          ],
          "Resource": [
            "${aws_dynamodb_table.members.arn}",
            "${aws_dynamodb_table.members.arn}/index/GSI1"
          ],
          "Condition": {
            "ForAllValues:StringLike": {
              "dynamodb:LeadingKeys": [
                "TENANT#$${aws:PrincipalTag/TenantId}#*",
                "$${aws:PrincipalTag/TenantId}",
                "PLAN#*"
              ]
            },
            "Null": {
              "dynamodb:LeadingKeys": "false",
              "aws:PrincipalTag/TenantId": "false"
            },
            "ForAllValues:StringEquals": {
              "dynamodb:Attributes": [
                "GSI1PK",
                "GSI1SK",
                "PK",
                "SK",
                "entity_type",
                "name"
              ]
            },
            "StringEqualsIfExists": {
              "dynamodb:Select": "SPECIFIC_ATTRIBUTES"
            }
          }
        }
      ]
    }
  EOT
}

resource "aws_iam_policy" "members-read-only" {
  name   = "members-read-only"
  policy = <<-EOT
    {
      "Version": "2012-10-17",
      "Statement": [
        {
          "Sid": "ReadItems",
          "Effect": "Allow",
          "Action": [
            "dynamodb:BatchGetItem",
            "dynamodb:ConditionCheckItem",
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:Scan"
          ],
          "Resource": [
            "${aws_dynamodb_table.members.arn}",
            "${aws_dynamodb_table.members.arn}/index/GSI1"
          ]
        }
      ]
    }
  EOT
}
