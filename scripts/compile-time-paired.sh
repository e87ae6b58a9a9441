#!/usr/bin/env bash
# Compile time in paired rounds: each round times every crate once, in turn, so that a change in
# the host's speed (this VM's varies by a third within the hour) falls on all of them alike.
# `scripts/compile-time.sh` times one crate's runs after another's; compare its ratios within one
# run only. Run it first (it generates the crates and builds their dependencies), once per
# checkout to compare: COMPILE_TIME_DIR=/tmp/ct-new bash scripts/compile-time.sh, then the same
# from a worktree of the base commit with COMPILE_TIME_DIR=/tmp/ct-base.
#
# Usage: scripts/compile-time-paired.sh ROUNDS MODE LABEL:WORKSPACE:CRATE...
#   MODE  check (`cargo check` after `cargo clean -p`), build (`cargo build` after `cargo clean -p`)
#         or incr (`cargo build` after the one-line edit of compile-time.sh)
#   e.g.  scripts/compile-time-paired.sh 6 check new:/tmp/ct-new:ct-entity \
#           base:/tmp/ct-base:ct-entity use:/tmp/ct-new:ct-serde-use
# Prints one line per timing ("MODE LABEL ROUND wall S cpu S"; CPU: user + system of cargo and
# every rustc), then per label the median CPU time and the median of its per-round ratio to the
# last label's.
set -euo pipefail

[[ $# -ge 3 ]] || { sed -n '2,16p' "$0" >&2; exit 2; }
rounds=$1 mode=$2
shift 2
command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time is needed (apt-get install time)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out" "$out.t"' EXIT
# Untimed: whatever another cargo command left stale (dependencies built with other flags).
for spec in "$@"; do
  IFS=: read -r label dir crate <<<"$spec"
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build -q -p "$crate" && CARGO_TARGET_DIR="$dir/target" cargo check -q -p "$crate")
done
for ((r = 1; r <= rounds; r++)); do
  for spec in "$@"; do
    IFS=: read -r label dir crate <<<"$spec"
    case $mode in
      incr) "$dir/edit-one-line.sh" "$crate"; cmd=build ;;
      check | build) (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo clean -q -p "$crate"); cmd=$mode ;;
      *) echo "MODE is check, build or incr" >&2; exit 2 ;;
    esac
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target" /usr/bin/time -o "$out.t" -f "%e %U %S" cargo "$cmd" -q -p "$crate" >/dev/null 2>&1)
    read -r wall user sys <"$out.t"
    line="$mode $label $r wall $wall cpu $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
    echo "$line"
    echo "$line" >>"$out"
  done
done
last=${*: -1}
last=${last%%:*}
echo
awk -v last="$last" '
  { cpu[$2, $3] = $7; labels[$2] = 1; if (!($2 in order)) order[$2] = ++n; names[order[$2]] = $2; rounds = $3 }
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= n; i++) {
      l = names[i]
      for (r = 1; r <= rounds; r++) { c[r] = cpu[l, r]; q[r] = cpu[l, r] / cpu[last, r] }
      printf "%s: CPU median %.2f s; per round / %s: median %.3f\n", l, median(c, rounds), last, median(q, rounds)
    }
  }' "$out"
