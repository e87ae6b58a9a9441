#!/usr/bin/env bash
# Reads the Parquet files the crate writes (`TableExport::write_parquet`, feature `analytics`)
# with DuckDB, and checks them against the export they were written from, read here
# independently (Python's gzip and json over the data files): each entity's row count, each
# column's type, and every value.
#
# The export and the files are those of `cargo run --example analytics` (chat design, 5000
# items). Installs DuckDB with pip into a venv under target/ (VENV to override), once; skipped,
# with a message, only when pip is unavailable.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${VENV:-target/analytics-venv}"
if ! "$VENV/bin/python" -c "import duckdb" 2>/dev/null; then
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -m pip --version >/dev/null 2>&1; then
    echo "python3 with pip is not available: the DuckDB check of the Parquet files is SKIPPED"
    exit 0
  fi
  echo "== installing duckdb into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "duckdb>=1,<2"
fi

OUT="${OUT:-target/analytics-ci}"
echo "== cargo run --example analytics --features analytics -- --items 5000 --out $OUT"
PYTHON="$VENV/bin/python" cargo run --quiet --example analytics --features analytics -- --items 5000 --out "$OUT"

echo "== DuckDB reads $OUT/parquet/*.parquet"
"$VENV/bin/python" - "$OUT" <<'PY'
import datetime, glob, gzip, json, sys
import duckdb

out = sys.argv[1]
[export] = glob.glob(f"{out}/exports/AWSDynamoDB/*/manifest-summary.json")
data = glob.glob(export.rsplit("/", 1)[0] + "/data/*.json.gz")
assert len(data) >= 2, data

def plain(av):
    (tag, v), = av.items()
    if tag == "S": return v
    if tag == "N": return int(v) if v.lstrip("-").isdigit() else float(v)
    if tag == "BOOL": return v
    if tag == "NULL": return None
    if tag in ("SS", "NS"): return [plain({tag[0]: e}) for e in v]
    if tag == "L": return [plain(e) for e in v]
    if tag == "M": return {k: plain(e) for k, e in v.items()}
    raise ValueError(tag)

by_type = {}
for path in data:
    with gzip.open(path, "rt") as f:
        for line in f:
            item = json.loads(line)["Item"]
            by_type.setdefault(item["Type"]["S"], []).append({k: plain(v) for k, v in item.items()})

def ms(iso):
    return int(datetime.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)

TZ = "TIMESTAMP WITH TIME ZONE"
# Entity: (key column, {column: (DuckDB type, how the source value compares)}).
same = lambda v: v
text_json = ("json", None)
expected = {
    "Message": ("messageId", {
        "chatRoomId": ("VARCHAR", same), "timestamp": ("BIGINT", same), "messageId": ("VARCHAR", same),
        "senderId": ("VARCHAR", same), "content": ("VARCHAR", same), "messageType": ("VARCHAR", same),
        "readBy": ("VARCHAR", "json"), "createdAt": (TZ, ms),
    }),
    "ChatRoom": ("chatRoomId", {
        "chatRoomId": ("VARCHAR", same), "name": ("VARCHAR", same), "participantIds": ("VARCHAR", "json"),
        "type": ("VARCHAR", same), "activityId": ("VARCHAR", same), "lastMessageAt": (TZ, ms), "createdAt": (TZ, ms),
    }),
    "Connection": ("connectionId", {
        "connectionId": ("VARCHAR", same), "userId": ("VARCHAR", same), "connectedAt": (TZ, ms),
        "ttl": (TZ, lambda secs: secs * 1000),
    }),
}
con = duckdb.connect()
for entity, (key, columns) in expected.items():
    path = f"{out}/parquet/{entity}.parquet"
    source = by_type[entity]
    rows = con.execute(f"SELECT count(*) FROM '{path}'").fetchone()[0]
    assert rows == len(source), (entity, rows, len(source))
    types = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{path}')").fetchall())
    want = {c: t for c, (t, _) in columns.items()}
    assert types == want, (entity, types, want)
    select = ", ".join(f'epoch_ms("{c}")' if t == TZ else f'"{c}"' for c, (t, _) in columns.items())
    got = {}
    for row in con.execute(f"SELECT {select} FROM '{path}'").fetchall():
        row = dict(zip(columns, row))
        got[row[key]] = row
    assert len(got) == rows, (entity, "duplicate keys")
    for item in source:
        row = got[item[key]]
        for c, (_, conv) in columns.items():
            if c not in item:
                assert row[c] is None, (entity, item[key], c, row[c])
            elif conv == "json":
                assert json.loads(row[c]) == item[c], (entity, item[key], c, row[c], item[c])
            else:
                assert row[c] == conv(item[c]), (entity, item[key], c, row[c], item[c])
    nulls = sum(1 for r in got.values() for v in r.values() if v is None)
    print(f"{entity}: {rows} rows, {len(columns)} columns ({nulls} nulls), types and values as exported")
print("DuckDB read every Parquet file checked exactly")
PY
