#!/usr/bin/env bash
# Redis CPU per acquire call of the lease manager's acquire script, before and after a change to it:
# 2,000 calls of 200 free keys limited to 100 grants, each call a fresh set of keys, against a
# redis-server of its own (port 16399, no persistence); Redis's own INFO commandstats gives the
# server time per EVALSHA. Usage: measure.sh OLD.lua NEW.lua [pairs]
set -euo pipefail
old=$1; new=$2; pairs=${3:-4}
redis-server --port 16399 --save '' --appendonly no --daemonize yes >/dev/null
trap 'redis-cli -p 16399 shutdown nosave >/dev/null 2>&1 || true' EXIT
until redis-cli -p 16399 ping >/dev/null 2>&1; do :; done # the daemon answers once it serves
for _ in $(seq "$pairs"); do
  for script in "$old" "$new"; do
    redis-cli -p 16399 flushall >/dev/null
    redis-cli -p 16399 config resetstat >/dev/null
    sha=$(redis-cli -p 16399 script load "$(cat "$script")")
    python3 - "$sha" <<'PY' | redis-cli -p 16399 --pipe >/dev/null
import sys
sha = sys.argv[1]
for i in range(2000):
    parts = ['EVALSHA', sha, '201', 'ns:fence'] + [f'ns:lease:row-{i}-{k}' for k in range(200)] + ['w1', '60000', '100']
    sys.stdout.write('*%d\r\n' % len(parts) + ''.join('$%d\r\n%s\r\n' % (len(p), p) for p in parts))
PY
    echo "$(basename "$script") $(redis-cli -p 16399 info commandstats | tr -d '\r' | grep '^cmdstat_evalsha' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/') usec/call"
  done
done
