# Client-side encrypted (AWS Database Encryption SDK for DynamoDB):
#   Visit: diagnosis
#   Prescription: drug
# DynamoDB holds their ciphertext (and every item of these entities holds the signature attributes aws_dbe_head and aws_dbe_foot): no key, index, condition or filter reads them.
resource "aws_dynamodb_table" "clinic" {
  name                        = "clinic"
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

  stream_enabled = false

  point_in_time_recovery {
    enabled = false
  }
}
