#!/usr/bin/env bash
# Compile time of `#[derive(Entity)]` against `#[derive(Serialize, Deserialize)]`.
#
# Generates a scratch workspace (default: target/compile-time/) with three crates holding the
# same 50 structs (4-10 fields, keys with 1-3 placeholders, some with one or two GSIs, one of
# them sparse):
#   ct-entity     #[derive(Entity, Debug, Clone, PartialEq)]  (dynamo-entity by path)
#   ct-serde      #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)] only
#   ct-serde-use  the same serde derives, plus per struct the hand-written `to_item` /
#                 `from_item` a serde-based project needs (serde_dynamo on the whole struct,
#                 keys with `format!`): serde's derived code is generic and is only compiled
#                 where it is used, so this is the like-for-like comparison
# builds each crate's dependencies once (not timed), then times, RUNS times each (default 3):
#   clean-build        `cargo build -p <crate>` after `cargo clean -p <crate>`
#   clean-check        `cargo check -p <crate>` after `cargo clean -p <crate>`
#   incremental-build  `cargo build -p <crate>` after changing one line (a field of one struct)
# and prints the medians (with min and max) and the ratios to the serde crates: wall time, and
# CPU time (user + system of cargo and every rustc it runs), which other load on the machine
# hardly changes. Then the generated lines per chat entity (scripts/expand-lines.sh; LINES=0
# skips them).
#
# Uses hyperfine if installed (`apt-get install hyperfine`), `date +%s.%N` and bash's `time`
# otherwise (NO_HYPERFINE=1 forces the fallback). Environment: RUNS (3), ENTITIES (50),
# COMPILE_TIME_DIR (target/compile-time), LINES (1), CRATES (all three; a subset measures only
# those, to compare one derive across commits without timing serde again).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${COMPILE_TIME_DIR:-$ROOT/target/compile-time}"
RUNS="${RUNS:-3}"
ENTITIES="${ENTITIES:-50}"
read -r -a CRATES <<<"${CRATES:-ct-entity ct-serde ct-serde-use}"
export CARGO_TARGET_DIR="$WORK/target"
export CARGO_TERM_COLOR=never

# ----------------------------------------------------------------------------------------------
# Generator: the same structs in every crate. `gen_struct KIND I`, KIND = entity|serde|serde-use.
# ----------------------------------------------------------------------------------------------

# Fields that are not part of any key, taken in order to reach the struct's field count.
EXTRA_FIELDS=(
  "name: String"
  "count: u32"
  "score: i64"
  "active: bool"
  "tags: Vec<String>"
  "note: Option<String>"
  "description: String"
  "size: u64"
  "label: String"
  "archived: bool"
)

gen_struct() {
  local kind=$1 i=$2
  local placeholders=$((1 + i % 3))
  # attrs: the derive's key attributes; keys: the same keys as Rust statements for serde-use.
  local fields=() attrs=() keys=()
  case $placeholders in
    1)
      attrs+=("#[pk = \"E$i#<id>\"]" "#[sk = \"METADATA\"]")
      keys+=("item.insert(\"PK\".to_owned(), AttributeValue::S(format!(\"E$i#{}\", self.id)));"
        "item.insert(\"SK\".to_owned(), AttributeValue::S(\"METADATA\".to_owned()));")
      fields+=("id: String")
      ;;
    2)
      attrs+=("#[pk = \"TENANT#<tenant_id>\"]" "#[sk = \"E$i#<id>\"]")
      keys+=("item.insert(\"PK\".to_owned(), AttributeValue::S(format!(\"TENANT#{}\", self.tenant_id)));"
        "item.insert(\"SK\".to_owned(), AttributeValue::S(format!(\"E$i#{}\", self.id)));")
      fields+=("tenant_id: String" "id: String")
      ;;
    3)
      attrs+=("#[pk = \"TENANT#<tenant_id>\"]" "#[sk = \"E$i#<created:13>#<id>\"]")
      keys+=("item.insert(\"PK\".to_owned(), AttributeValue::S(format!(\"TENANT#{}\", self.tenant_id)));"
        "item.insert(\"SK\".to_owned(), AttributeValue::S(format!(\"E$i#{:013}#{}\", self.created, self.id)));")
      fields+=("tenant_id: String" "created: u64" "id: String")
      ;;
  esac
  if ((i % 3 == 0)); then
    attrs+=("#[gsi1(pk = \"E${i}OWNER#<owner>\", sk = \"<id>\", query = \"by_owner\")]")
    keys+=("item.insert(\"GSI1PK\".to_owned(), AttributeValue::S(format!(\"E${i}OWNER#{}\", self.owner)));"
      "item.insert(\"GSI1SK\".to_owned(), AttributeValue::S(self.id.clone()));")
    fields+=("owner: String")
  fi
  if ((i % 5 == 0)); then
    # A sparse index: only items with a status are in it.
    attrs+=("#[gsi2(pk = \"E${i}STATUS#<status>\", sk = \"<id>\", query = \"by_status\")]")
    keys+=("if let Some(status) = &self.status {"
      "    item.insert(\"GSI2PK\".to_owned(), AttributeValue::S(format!(\"E${i}STATUS#{status}\")));"
      "    item.insert(\"GSI2SK\".to_owned(), AttributeValue::S(self.id.clone()));"
      "}")
    fields+=("status: Option<String>")
  fi
  local want=$((4 + (i * 5) % 7))
  local k=0
  while ((${#fields[@]} < want)); do
    fields+=("${EXTRA_FIELDS[$(((i + k) % ${#EXTRA_FIELDS[@]}))]}")
    k=$((k + 1))
  done
  echo
  echo "/// Entity $i: $placeholders key placeholder(s), ${#fields[@]} fields$( ((i == 0)) && echo " and the edited one")."
  if [[ $kind == entity ]]; then
    echo "#[derive(Entity, Debug, Clone, PartialEq)]"
    printf '%s\n' "${attrs[@]}"
    echo "#[entity(rename_all = \"camelCase\", type_attr = \"Type\")]"
  else
    echo "#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]"
    echo "#[serde(rename_all = \"camelCase\")]"
  fi
  echo "pub struct Entity$i {"
  local f
  for f in "${fields[@]}"; do
    echo "    pub $f,"
  done
  # The line the incremental build changes (in entity 0 only).
  if ((i == 0)); then
    echo "    pub edited_0: String,"
  fi
  echo "}"
  if [[ $kind == serde-use ]]; then
    echo
    echo "impl Entity$i {"
    echo "    pub fn to_item(&self) -> Result<Item, serde_dynamo::Error> {"
    echo "        let mut item: Item = serde_dynamo::to_item(self)?;"
    printf '        %s\n' "${keys[@]}"
    echo "        item.insert(\"Type\".to_owned(), AttributeValue::S(\"Entity$i\".to_owned()));"
    echo "        Ok(item)"
    echo "    }"
    echo
    echo "    pub fn from_item(item: Item) -> Result<Self, serde_dynamo::Error> {"
    echo "        serde_dynamo::from_item(item)"
    echo "    }"
    echo "}"
  fi
}

gen_crate() {
  local kind=$1 name=$2
  local dir="$WORK/$name"
  mkdir -p "$dir/src"
  {
    cat <<EOF
[package]
name = "$name"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
EOF
    case $kind in
      entity) echo "dynamo-entity = { path = \"$ROOT\" }" ;;
      serde) echo 'serde = { version = "1", features = ["derive"] }' ;;
      serde-use)
        echo 'serde = { version = "1", features = ["derive"] }'
        echo 'serde_dynamo = { version = "4.3", features = ["aws-sdk-dynamodb+1"] }'
        echo 'aws-sdk-dynamodb = { version = "1", default-features = false }'
        ;;
    esac
  } >"$dir/Cargo.toml"
  local modules=5 per=$(((ENTITIES + 4) / 5)) m i
  {
    echo "//! Generated by scripts/compile-time.sh: $ENTITIES structs ($kind)."
    echo "#![allow(dead_code, missing_docs)]"
    for ((m = 0; m < modules; m++)); do echo "pub mod m$m;"; done
  } >"$dir/src/lib.rs"
  for ((m = 0; m < modules; m++)); do
    {
      case $kind in
        entity) echo "use dynamo_entity::Entity;" ;;
        serde) echo "use serde::{Deserialize, Serialize};" ;;
        serde-use)
          echo "use std::collections::HashMap;"
          echo
          echo "use aws_sdk_dynamodb::types::AttributeValue;"
          echo "use serde::{Deserialize, Serialize};"
          echo
          echo "pub type Item = HashMap<String, AttributeValue>;"
          ;;
      esac
      for ((i = m * per; i < (m + 1) * per && i < ENTITIES; i++)); do gen_struct "$kind" "$i"; done
    } >"$dir/src/m$m.rs"
  done
}

generate() {
  mkdir -p "$WORK"
  rm -rf "${CRATES[@]/#/$WORK/}"
  cat >"$WORK/Cargo.toml" <<EOF
[workspace]
members = ["ct-entity", "ct-serde", "ct-serde-use"]
resolver = "3"
EOF
  # Same dependency versions as the project.
  [[ -f "$WORK/Cargo.lock" ]] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"
  gen_crate entity ct-entity
  gen_crate serde ct-serde
  gen_crate serde-use ct-serde-use
  # `./edit-one-line.sh CRATE`: renames the field `edited_<n>` of Entity0 (a new name each time).
  cat >"$WORK/edit-one-line.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
sed -i -E "s/pub edited_[0-9]+: String,/pub edited_$(date +%s%N): String,/" "$(dirname "$0")/$1/src/m0.rs"
EOF
  chmod +x "$WORK/edit-one-line.sh"
}

# ----------------------------------------------------------------------------------------------
# Timing.
# ----------------------------------------------------------------------------------------------

use_hyperfine() {
  command -v hyperfine >/dev/null 2>&1 && [[ -z ${NO_HYPERFINE:-} ]]
}

# `measure NAME PREPARE COMMAND`: RUNS timings of COMMAND (in $WORK), PREPARE run before each
# and not timed. Prints "NAME median min max cpu-median cpu-min cpu-max" (seconds; CPU time is
# user + system, children included).
measure() {
  local name=$1 prepare=$2 command=$3
  if use_hyperfine; then
    local csv
    csv="$(mktemp)"
    (cd "$WORK" && hyperfine --style basic --runs "$RUNS" --prepare "$prepare" --export-csv "$csv" "$command" >&2)
    # command,mean,stddev,median,user,system,min,max (hyperfine gives mean CPU times only)
    tail -n 1 "$csv" | awk -F, -v n="$name" '{ c = $5 + $6; printf "%s %.3f %.3f %.3f %.3f %.3f %.3f\n", n, $4, $7, $8, c, c, c }'
    rm -f "$csv"
    return
  fi
  local times=() cpus=() r start end cpu
  for ((r = 0; r < RUNS; r++)); do
    (cd "$WORK" && bash -c "$prepare") >/dev/null 2>&1
    start=$(date +%s.%N)
    # bash's `time` of a subshell: user and system time of everything it ran.
    cpu=$( { TIMEFORMAT='%U %S'; time (cd "$WORK" && bash -c "$command" >/dev/null 2>&1); } 2>&1 | awk '{ printf "%.3f", $1 + $2 }')
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
    cpus+=("$cpu")
    echo "  $name run $((r + 1)): ${times[-1]} s, CPU ${cpu} s" >&2
  done
  local stats='
    { t[NR] = $1 }
    END {
      if (NR % 2) m = t[(NR + 1) / 2]; else m = (t[NR / 2] + t[NR / 2 + 1]) / 2
      printf "%.3f %.3f %.3f", m, t[1], t[NR]
    }'
  echo "$name $(printf '%s\n' "${times[@]}" | sort -g | awk "$stats") $(printf '%s\n' "${cpus[@]}" | sort -g | awk "$stats")"
}

main() {
  echo "== generating $ENTITIES structs per crate in $WORK" >&2
  generate
  local crate
  echo "== building the dependencies of each crate once (not timed)" >&2
  for crate in "${CRATES[@]}"; do
    # Per package, exactly as timed below (features are resolved per package).
    (cd "$WORK" && cargo build -p "$crate" >&2 && cargo check -p "$crate" >&2)
  done

  local results=()
  for crate in "${CRATES[@]}"; do
    echo "== $crate" >&2
    results+=("$(measure "$crate/clean-build" "cargo clean -p $crate" "cargo build -p $crate")")
    results+=("$(measure "$crate/clean-check" "cargo clean -p $crate" "cargo check -p $crate")")
    (cd "$WORK" && cargo build -p "$crate" >/dev/null 2>&1)
    results+=("$(measure "$crate/incremental-build" "./edit-one-line.sh $crate" "cargo build -p $crate")")
  done

  echo
  echo "ENTITIES=$ENTITIES RUNS=$RUNS; seconds, median [min-max]; timer: $(use_hyperfine && echo hyperfine || echo date + bash time); load: $(uptime | sed 's/.*load average/load average/')"
  local col what
  for col in wall cpu; do
    echo
    echo "$col time:"
    echo
    echo "| measure | derive(Entity) | serde derives only | serde derives + serde_dynamo to_item/from_item | Entity / serde only | Entity / serde + use |"
    echo "|---|---|---|---|---|---|"
    for what in clean-build clean-check incremental-build; do
      printf '%s\n' "${results[@]}" | awk -v w="$what" -v o="$([[ $col == wall ]] && echo 0 || echo 3)" '
        { split($1, k, "/"); if (k[2] == w) { m[k[1]] = $(2 + o); lo[k[1]] = $(3 + o); hi[k[1]] = $(4 + o) } }
        END {
          printf "| %s", w
          n = split("ct-entity ct-serde ct-serde-use", c, " ")
          for (i = 1; i <= n; i++) if (c[i] in m) printf " | %.2f [%.2f-%.2f]", m[c[i]], lo[c[i]], hi[c[i]]; else printf " | -"
          for (i = 2; i <= n; i++) if (m[c[i]] > 0 && m["ct-entity"] > 0) printf " | %.2fx", m["ct-entity"] / m[c[i]]; else printf " | -"
          printf " |\n"
        }'
    done
  done
  if [[ ${LINES:-1} != 0 ]]; then
    echo
    echo "Generated lines per chat entity (rustfmt'd expansion, non-blank lines; scripts/expand-lines.sh):"
    echo
    EXPAND_DIR="${EXPAND_DIR:-$WORK/expand-lines}" bash "$ROOT/scripts/expand-lines.sh"
  fi
}

main "$@"
