resource "aws_dynamodb_table" "leaderboard" {
  name                        = "leaderboard"
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
    name = "region"
    type = "S"
  }

  attribute {
    name = "replay_id"
    type = "S"
  }

  attribute {
    name = "round"
    type = "S"
  }

  attribute {
    name = "score"
    type = "N"
  }

  attribute {
    name = "tournament_id"
    type = "S"
  }

  # Leaderboard: a multi-attribute key (2 HASH, 2 RANGE), written as `key_schema` blocks, which
  # need an AWS provider whose global_secondary_index has them (hash_key/range_key hold one attribute).
  global_secondary_index {
    name            = "Leaderboard"
    projection_type = "ALL"

    key_schema {
      attribute_name = "tournament_id"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "region"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "round"
      key_type       = "RANGE"
    }

    key_schema {
      attribute_name = "score"
      key_type       = "RANGE"
    }
  }

  # Replays: a multi-attribute key (1 HASH, 2 RANGE), written as `key_schema` blocks, which
  # need an AWS provider whose global_secondary_index has them (hash_key/range_key hold one attribute).
  global_secondary_index {
    name            = "Replays"
    projection_type = "ALL"

    key_schema {
      attribute_name = "region"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "replay_id"
      key_type       = "RANGE"
    }

    key_schema {
      attribute_name = "score"
      key_type       = "RANGE"
    }
  }

  stream_enabled = false

  point_in_time_recovery {
    enabled = false
  }
}
