#!/usr/bin/env bash
# POST /verify end to end over HTTP on the running gateway: starts `sqlgate serve` on a free port, creates a
# key, runs bench/verify/run.ts against it with the server's pid for its peak RSS. Usage: http.sh [--rows N]
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE=node_modules/.bin/node
DIR=$(mktemp -d)
export SQLGATE_DATA_DIR="$DIR" SQLGATE_PORT=0 SQLGATE_DEMO_SCALE=0.01 SQLGATE_LOG_LEVEL=warn SQLGATE_MAX_BODY_BYTES=2147483648
KEY=$($NODE bin/sqlgate.js keys create --account bench@example.com)
$NODE bin/sqlgate.js serve > "$DIR/serve.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 300); do grep -q "Try: curl" "$DIR/serve.log" && break; sleep 0.2; done
URL=$(grep -o 'listening on http://[^ ]*' "$DIR/serve.log" | cut -d' ' -f3)
$NODE --expose-gc --max-old-space-size=8192 bench/verify/run.ts --url "$URL" --key "$KEY" --pid "$PID" "$@"
