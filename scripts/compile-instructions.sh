#!/usr/bin/env bash
# Compile time in instructions: callgrind counts the instructions of the one `rustc` run that
# checks, builds or incrementally rebuilds a crate of scripts/compile-time.sh's workspace (the
# derive's `ct-entity`, serde + use's `ct-serde-use`), run as cargo runs it. Counts do not move
# with the host's speed or load (this VM's time drifts by a third within the hour), so one run
# compares two crates, or two checkouts, to a fraction of a percent. They do not weigh cache
# misses, and a build's parallel code generation counts as if serial: they rank changes and give
# ratios; time is still scripts/compile-time*.sh's.
#
# Run scripts/compile-time.sh first (it generates the crates and builds their dependencies).
# Usage: scripts/compile-instructions.sh MODE [CRATE...]
#   MODE  check (no incremental state, as after `cargo clean -p`), build (the same, with code
#         generation) or incr (a build after compile-time.sh's one-line edit of m0.rs, on the
#         incremental state of the build before it)
#   CRATE default: ct-entity ct-serde-use
# Prints "MODE CRATE INSTRUCTIONS" per crate, then each crate's count over the last one's.
# Environment: COMPILE_TIME_DIR (target/compile-time). About 60x a crate's time in rustc: some
# 3 minutes for a check of 50 entities.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${COMPILE_TIME_DIR:-$ROOT/target/compile-time}"
[[ $# -ge 1 ]] || { sed -n '2,18p' "$0" >&2; exit 2; }
mode=$1
shift
crates=("$@")
[[ ${#crates[@]} -gt 0 ]] || crates=(ct-entity ct-serde-use)
case $mode in
  check) sub=check ;;
  build | incr) sub=build ;;
  *) echo "MODE is check, build or incr" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
[[ -f "$WORK/ct-entity/Cargo.toml" ]] || { echo "no workspace in $WORK: run scripts/compile-time.sh first" >&2; exit 1; }
export CARGO_TARGET_DIR="$WORK/target"

counts=()
for crate in "${crates[@]}"; do
  name=${crate//-/_}
  # The dependencies, uncounted; then the crate itself, to read the command line cargo gives
  # rustc (and, for `incr`, to leave the incremental state the edit is built on).
  (cd "$WORK" && cargo "$sub" -q -p "$crate")
  touch "$WORK/$crate/src/lib.rs"
  cmd=$(cd "$WORK" && cargo "$sub" -v -p "$crate" 2>&1 | sed -n "s/^ *Running \`\(.*--crate-name $name .*\)\`\$/\1/p")
  [[ -n $cmd ]] || { echo "cargo ran no rustc for $crate" >&2; exit 1; }
  if [[ $mode == incr ]]; then
    "$WORK/edit-one-line.sh" "$crate"
  else
    # A clean compile writes its incremental state from nothing, as `cargo clean -p` leaves it.
    fresh="$WORK/target/instructions-incremental"
    rm -rf "$fresh"
    cmd=$(sed "s|-C incremental=[^ ]*|-C incremental=$fresh|" <<<"$cmd")
  fi
  out="$WORK/target/callgrind.$mode.$crate"
  (cd "$WORK" && eval "valgrind --tool=callgrind --callgrind-out-file=$out.out $cmd" >"$out.log" 2>&1) || {
    echo "rustc failed under valgrind for $crate: $out.log" >&2
    exit 1
  }
  n=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.log")
  counts+=("$n")
  echo "$mode $crate $n"
done
last=${counts[${#counts[@]} - 1]}
for i in "${!crates[@]}"; do
  awk -v c="${crates[$i]}" -v n="${counts[$i]}" -v d="$last" 'BEGIN { printf "%s / last: %.3f\n", c, n / d }'
done
