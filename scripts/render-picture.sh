#!/usr/bin/env bash
# Renders the chat example's drawing of its table (target/chat.html, written by
# `cargo run --example chat`) in a real browser: headless Chromium, Debian's package (installed
# if missing). Fails if the page logged a console message of any kind (it has no script, so any
# is an error) or if the picture is blank (one colour).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
html="$target/chat.html"
test -s "$html" || { echo "$html is missing: run cargo run --example chat first"; exit 1; }
if ! command -v chromium >/dev/null; then
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
png="$target/chat.png"
rm -f "$png"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
  --enable-logging=stderr --v=0 --window-size=1500,1100 --screenshot="$png" "file://$(realpath "$html")" \
  2> "$target/chromium.log" || { cat "$target/chromium.log"; exit 1; }
if grep -q "CONSOLE" "$target/chromium.log"; then
  echo "the page logged to the console:"; grep "CONSOLE" "$target/chromium.log"; exit 1
fi
python3 - "$png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        width, height = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw))
print(f"chat.png: {width}x{height}, {len(data)} bytes, {distinct} distinct byte values")
assert width >= 1000 and height >= 800, "too small"
assert distinct > 32, "blank: the page drew nothing"
PY
echo "rendered $png"
