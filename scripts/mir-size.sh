#!/usr/bin/env bash
# The MIR that rustc borrow-checks for generated code: lines and basic blocks of each body as
# built (`-Zdump-mir=renumber`, the input of borrow checking), per function name, summed.
#
# Usage: scripts/mir-size.sh SOURCE...   (the .rs files of one crate, the first being its lib.rs)
#   e.g. after `scripts/expand-lines.sh`: target/expand-lines/entity.rs (the last chat entity,
#   `ENTITIES=Message`), or after `scripts/compile-time.sh`: target/compile-time/ct-entity/src/*.rs
#   (lib.rs first).
# Builds a scratch crate (MIR_DIR, default target/mir-size/) depending on this checkout by path,
# under RUSTC_BOOTSTRAP=1 (for -Z; hence its own target dir) and without incremental compilation
# (an incremental build may reuse MIR and dump nothing). Prints the totals and the TOP (15)
# function names by blocks; the per-body list is kept in MIR_DIR/sizes.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${MIR_DIR:-$ROOT/target/mir-size}"
[[ $# -ge 1 ]] || { echo "usage: $0 LIB.rs [MODULE.rs...]" >&2; exit 2; }
mkdir -p "$WORK/src"
cat >"$WORK/Cargo.toml" <<TOML
[package]
name = "mirsize"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
dynamo-entity = { path = "$ROOT" }
TOML
[[ -f "$WORK/Cargo.lock" ]] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"
rm -f "$WORK"/src/*.rs
cp "$1" "$WORK/src/lib.rs"
shift
for f in "$@"; do cp "$f" "$WORK/src/"; done
export CARGO_TARGET_DIR="$WORK/target" RUSTC_BOOTSTRAP=1 CARGO_INCREMENTAL=0
(cd "$WORK" && cargo check --quiet --lib 2>/dev/null || true)
rm -rf "$WORK/dump"
touch "$WORK/src/lib.rs"
(cd "$WORK" && cargo rustc --quiet --profile=check --lib -- -Zdump-mir=renumber -Zdump-mir-dir="$WORK/dump" 2>/dev/null)
# One row per body: blocks, lines, the function's last path segment (`-closure` for a closure).
for f in "$WORK"/dump/*.renumber.0.mir; do
  name=$(basename "$f" | sed -E 's/\.-+\.renumber.*//; s/-\{closure#[0-9]+\}/-closure/' |
    awk -F- '{ print ($NF == "closure") ? $(NF-1) "-closure" : $NF }')
  printf '%s %s %s\n' "$(grep -c 'bb[0-9]*: {' "$f")" "$(grep -c . "$f")" "$name"
done | sort -rn >"$WORK/sizes.txt"
awk '{ b += $1; l += $2 } END { printf "bodies %d, blocks %d, lines %d\n", NR, b, l }' "$WORK/sizes.txt"
awk '{ b[$3] += $1; l[$3] += $2; n[$3]++ } END { for (k in b) printf "%7d blocks %8d lines %5d bodies  %s\n", b[k], l[k], n[k], k }' \
  "$WORK/sizes.txt" | sort -rn | head -"${TOP:-15}"
