#!/usr/bin/env bash
# Where a check of the derive's code spends its time, by generated item: rustc's self-profile
# (`-Zself-profile`, nightly flags under RUSTC_BOOTSTRAP=1) of `cargo check` of the scratch
# crates of scripts/compile-time.sh, summed by scripts/compile-profile/ (each query's own time
# to the item it ran for: `to_item`, `fmt`, `fields`, ..., or to no item: parsing, expansion,
# name resolution, metadata).
#
# Run scripts/compile-time.sh first (it generates the scratch workspace, ENTITIES structs per
# crate). Prints the entity crate and the serde + use crate side by side, in seconds and as
# shares of each crate's total: compare shares across runs, since the host's speed changes
# between them (no hardware counters in a VM: this profile is in time, not instructions).
# Environment: COMPILE_TIME_DIR (target/compile-time), CRATES ("ct-entity ct-serde-use"),
# ROWS (30 rows per table).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${COMPILE_TIME_DIR:-$ROOT/target/compile-time}"
read -r -a CRATES <<<"${CRATES:-ct-entity ct-serde-use}"
if [[ ! -f "$WORK/ct-entity/Cargo.toml" ]]; then
  echo "no scratch workspace in $WORK: run scripts/compile-time.sh first (ENTITIES=50 or 200)" >&2
  exit 1
fi

ANALYZER="$ROOT/scripts/compile-profile"
CARGO_TARGET_DIR="$ROOT/target/compile-profile-tool" cargo build --quiet --release --manifest-path "$ANALYZER/Cargo.toml"
TOOL="$ROOT/target/compile-profile-tool/release/compile-profile"

args=()
for crate in "${CRATES[@]}"; do
  out="$WORK/self-profile/$crate"
  rm -rf "$out" && mkdir -p "$out"
  # No incremental state: every query runs. The crate's dependencies are checked once, untimed.
  (cd "$WORK" && CARGO_TARGET_DIR="$WORK/target" CARGO_INCREMENTAL=0 cargo check --quiet -p "$crate" >&2)
  touch "$WORK/$crate/src/lib.rs"
  (cd "$WORK" && CARGO_TARGET_DIR="$WORK/target" CARGO_INCREMENTAL=0 RUSTC_BOOTSTRAP=1 \
    cargo rustc --quiet -p "$crate" --profile=check -- \
    -Zself-profile="$out" -Zself-profile-events=default,args >&2)
  profile="$(ls "$out"/*.mm_profdata | head -n1)"
  args+=("${profile%.mm_profdata}" "${crate//-/_}")
done
echo "$(sed -n 's/.*compile-time.sh: \([0-9]*\) structs.*/\1/p' "$WORK/ct-entity/src/lib.rs") entities; load: $(uptime | sed 's/.*load average/load average/')"
"$TOOL" "${args[@]}"
