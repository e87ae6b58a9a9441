resource "aws_dynamodb_table" "battle-royale" {
  name                        = "battle-royale"
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "PK"
  range_key                   = "SK"
  deletion_protection_enabled = false

  attribute {
    name = "PK"
    type = "S"
  }

  attribute {
    name = "SK"
    type = "S"
  }

  attribute {
    name = "map"
    type = "S"
  }

  attribute {
    name = "open_timestamp"
    type = "S"
  }

  global_secondary_index {
    name            = "InvertedIndex"
    hash_key        = "SK"
    range_key       = "PK"
    projection_type = "ALL"
  }

  global_secondary_index {
    name            = "OpenGamesIndex"
    hash_key        = "map"
    range_key       = "open_timestamp"
    projection_type = "ALL"
  }

  stream_enabled = false

  point_in_time_recovery {
    enabled = false
  }
}
