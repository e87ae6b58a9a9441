#!/usr/bin/env bash
# Generated lines per entity: the rustfmt'd expansion (`-Zunpretty=expanded`, rustfmt at its
# default width, non-blank lines) of each chat entity's `#[derive(Entity)]`, against the same
# struct's `#[derive(Serialize, Deserialize)]`, each net of the struct itself.
#
# Generates a scratch crate (default: target/expand-lines/) holding one struct at a time, copied
# from examples/chat/model.rs, and expands it with `cargo rustc --profile=check` (dependencies
# are checked once, under RUSTC_BOOTSTRAP=1, which `-Z` flags need: hence its own target dir).
# Prints one row per entity and per derive; `-v` also keeps each expansion as
# <dir>/<entity>.<derive>.rs. Environment: EXPAND_DIR (target/expand-lines),
# ENTITIES (all six chat entities).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${EXPAND_DIR:-$ROOT/target/expand-lines}"
ENTITIES="${ENTITIES:-Connection UserConnection ChatParticipation ChatRoom Message LastMessage}"
export CARGO_TARGET_DIR="$WORK/target"
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

mkdir -p "$WORK/src"
: >"$WORK/rustfmt.toml"
[[ -f "$WORK/Cargo.lock" ]] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"
cat >"$WORK/Cargo.toml" <<TOML
[package]
name = "expand-lines"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
dynamo-entity = { path = "$ROOT" }
serde = { version = "1", features = ["derive"] }
TOML

# `struct_source NAME`: the struct's attributes and body from the chat model (doc comments and
# derive line dropped).
struct_source() {
  awk -v name="$1" '
    /^#\[derive\(/ { buf = ""; keep = 1; next }
    keep && /^(pub )?(struct|enum) / { if ($0 ~ ("(struct|enum) " name " ")) { inside = 1; printf "%s", buf } else { keep = 0 } }
    keep && !inside { buf = buf $0 "\n"; next }
    inside { print; if ($0 ~ /^}/) exit }
  ' "$ROOT/examples/chat/model.rs"
}

# `expanded_lines FILE`: non-blank lines of FILE's rustfmt'd expansion, at rustfmt's defaults
# (width 100, default heuristics): rustfmt runs in $WORK, whose empty rustfmt.toml stops it from
# using the project's (width 120), which it would otherwise find in a parent directory.
expanded_lines() {
  cp "$1" "$WORK/src/lib.rs"
  (cd "$WORK" && cargo rustc --quiet --profile=check --lib -- -Zunpretty=expanded 2>/dev/null) \
    | (cd "$WORK" && rustfmt --edition 2024 2>/dev/null) | tee "$WORK/last.rs" | grep -cv '^\s*$'
}

keep=${1:-}
printf '| entity | derive(Entity) | derive(Serialize, Deserialize) | Entity / serde |\n|---|---|---|---|\n'
for name in $ENTITIES; do
  src="$(struct_source "$name")"
  # The derive's helper attributes (`#[pk = ..]`, `#[ttl]`, ..) stay on the struct in its
  # expansion; the plain struct and the serde one go without them.
  plain="$(printf '%s\n' "$src" | grep -v '^\s*#\[')"
  header='#![allow(dead_code, missing_docs)]
use std::time::SystemTime;'
  printf '%s\n%s\n' "$header" "$plain" >"$WORK/plain.rs"
  printf '%s\nuse dynamo_entity::Entity;\n#[derive(Entity)]\n%s\n' "$header" "$src" >"$WORK/entity.rs"
  # serde derives on the plain struct (SystemTime is Serialize).
  printf '%s\nuse serde::{Deserialize, Serialize};\n#[derive(Serialize, Deserialize)]\n#[serde(rename_all = "camelCase")]\n%s\n' \
    "$header" "$plain" >"$WORK/serde.rs"
  base=$(expanded_lines "$WORK/plain.rs")
  e=$(expanded_lines "$WORK/entity.rs")
  [[ $keep == -v ]] && cp "$WORK/last.rs" "$WORK/$name.entity.rs"
  s=$(expanded_lines "$WORK/serde.rs")
  [[ $keep == -v ]] && cp "$WORK/last.rs" "$WORK/$name.serde.rs"
  attrs=$(printf '%s\n' "$src" | grep -c '^\s*#\[' || true)
  awk -v n="$name" -v e="$((e - base - attrs - 1))" -v s="$((s - base - 1))" \
    'BEGIN { printf "| %s | %d | %d | %.2fx |\n", n, e, s, e / s }'
done
