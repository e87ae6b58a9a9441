#!/bin/sh
# Regenerates tests/seed_items/ecommerce.json: the items the e-commerce seed's own TypeScript
# (scripts/seed-items/write.mjs, AWS JS SDK v3) writes into DynamoDB Local, as DynamoDB JSON.
# DynamoDB Local is started by the crate's launcher (dynamo_entity::local), through the ignored
# test that runs the script. Needs Node.js and npm; CI only reads the checked-in file.
set -eu
cd "$(dirname "$0")/.."
(cd scripts/seed-items && npm ci --no-audit --no-fund)
cargo test --test seed_items -- --ignored regenerate_the_dump_from_the_seeds_typescript
git diff --stat -- tests/seed_items/ecommerce.json
