#!/bin/bash
# bench/api/run.sh BUILD_DIR [RATE] [SECONDS]: famfsd API latency at a
# bounded load over the Unix socket, and famfsd's idle RSS. Prints a
# Markdown block for bench/results/api.md.
set -eu
B=$(realpath "${1:-build}")
RATE=${2:-1000}
SECS=${3:-30}
T=$(mktemp -d /tmp/famfsd-bench.XXXXXX)
SOCK=$T/famfsd.sock
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T" /dev/shm/famfsd-bench-$$-*' EXIT
"$B/famfsd/famfsd" --config /dev/null --state-dir "$T/state" --socket "$SOCK" \
	--plugin-dir "$B/plugins" --log-level warning >"$T/log" 2>&1 &
PID=$!
for _ in $(seq 1 200); do curl -s --unix-socket "$SOCK" http://x/healthz >/dev/null && break; sleep 0.05; done
sleep 1
fresh=$(awk '/VmRSS/ {print $2}' /proc/$PID/status)
post() { curl -sf --unix-socket "$SOCK" -H 'Content-Type: application/json' -d "$2" "http://x$1" >/dev/null; }
for i in 0 1 2 3; do
	post /v1/devices "{\"name\":\"emul$i\",\"path\":\"/dev/shm/famfsd-bench-$$-$i\",\"size\":\"256MiB\"}"
done
post /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1","emul2","emul3"]}'
post /v1/filesystems '{"name":"fs0","set":"set0","log_size":"16MiB"}'
for i in $(seq 1 50); do post /v1/files "{\"filesystem\":\"fs0\",\"path\":\"/d/f$i\",\"size\":\"1MiB\"}"; done
sleep 2
rss() { awk '/VmRSS/ {print $2}' /proc/$PID/status; }
anon() { awk '/RssAnon/ {print $2}' /proc/$PID/status; }
idle=$(rss)
echo "### famfsd API, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, rate $RATE/s for $SECS s"
echo
echo "idle RSS right after start (empty state, cxl+emul loaded): $((fresh / 1024)) MiB ($fresh KiB)"
echo
echo "idle RSS after setup (4 devices, 1 fs, 50 files): $((idle / 1024)) MiB ($idle KiB; anonymous $(anon) KiB, the rest is mapped device pages)"
echo
for mix in "reads:/v1/host,/v1/devices,/v1/interleave-sets,/v1/filesystems/fs0,/v1/mounts,/v1/jobs" \
	   "files-list:/v1/files/fs0" "metrics:/metrics" \
	   "writes:POST:/v1/files"; do
	name=${mix%%:*}; paths=${mix#*:}
	echo "- $name ($paths):"
	echo '  ```'
	"$B/bench/api/api-bench" "$SOCK" "$RATE" "$SECS" 4 "$paths" | sed 's/^/  /' || echo "  (errors above)"
	echo '  ```'
done
echo
echo "RSS after the load: $(( $(rss) / 1024 )) MiB (anonymous $(( $(anon) / 1024 )) MiB; file creates zero-fill their space through famfsd's mapping of the devices, and those shared device pages count in RSS)"
