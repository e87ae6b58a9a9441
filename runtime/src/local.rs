//! DynamoDB Local launcher (feature `local`).
