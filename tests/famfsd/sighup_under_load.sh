#!/bin/bash
# famfsd_sighup_under_load: SIGHUP swaps the configuration (here the TCP
# token and max_body) 40 times while requests run on both listeners and
# two clients scrape /metrics.
# Every request sees one whole configuration: a token is accepted or
# refused (200/401), a body is judged by one max_body, nothing else; and
# the ThreadSanitizer build checks that no request reads a half-swapped
# one.
source "$(dirname "$0")/lib.sh"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
config() {   # config TOKEN MAX_BODY: written whole, then renamed in place
	echo "$1" >"$T/token.new" && mv "$T/token.new" "$T/token"
	printf 'token_file: %s\nmax_body: %s\ntcp:\n  listen: 127.0.0.1:%s\n  insecure: true\n' \
		"$T/token" "$2" "$port" >"$T/famfsd.yaml.new"
	mv "$T/famfsd.yaml.new" "$T/famfsd.yaml"
}
config token-aaaaaaaaaaaaaaaa 64KiB
start_famfsd --config "$T/famfsd.yaml"
U=http://127.0.0.1:$port/v1/host

tcp_load() {    # GET over TCP with token A until told to stop
	while [ ! -e "$T/stop" ]; do
		curl -s -o /dev/null -w '%{http_code}\n' \
			-H "Authorization: Bearer token-aaaaaaaaaaaaaaaa" $U
	done >"$T/tcp.codes"
}
unix_load() {   # a 80 KiB body: over one max_body (413), under the other
	head -c 81920 /dev/zero | tr '\0' ' ' >"$T/body"
	while [ ! -e "$T/stop" ]; do
		curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}\n' \
			-X POST -H 'Content-Type: application/json' \
			--data-binary @"$T/body" http://famfsd/v1/interleave-sets
		curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}\n' \
			http://famfsd/healthz
		curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}\n' \
			http://famfsd/metrics
	done >"$T/unix.codes"
}
scrape_load() { # a second scraper: /metrics readers run side by side
	while [ ! -e "$T/stop" ]; do
		curl -s --unix-socket "$SOCK" -o /dev/null -w '%{http_code}\n' \
			http://famfsd/metrics
	done >"$T/scrape.codes"
}
make_devices 1   # something for /metrics to read from the store
tcp_load & l1=$!
unix_load & l2=$!
scrape_load & l3=$!
for n in $(seq 1 40); do
	if [ $((n % 2)) = 1 ]; then config token-bbbbbbbbbbbbbbbb 128KiB
	else config token-aaaaaaaaaaaaaaaa 64KiB; fi
	kill -HUP "$FAMFSD_PID"
	sleep 0.1
done
touch "$T/stop"
wait $l1 $l2 $l3
kill -0 "$FAMFSD_PID" 2>/dev/null || fail "famfsd died under SIGHUP and load"
bad=$(grep -cv '^\(200\|401\)$' "$T/tcp.codes")
[ "$bad" = 0 ] || fail "TCP answers other than 200/401: $(sort "$T/tcp.codes" | uniq -c)"
[ "$(grep -c '^200$' "$T/tcp.codes")" -gt 0 ] || fail "no TCP request was accepted: $(sort "$T/tcp.codes" | uniq -c)"
# 400: the body is no JSON object, once a max_body of 128 KiB lets it in
bad=$(grep -cv '^\(200\|400\|413\)$' "$T/unix.codes")
[ "$bad" = 0 ] || fail "Unix answers other than 200/400/413: $(sort "$T/unix.codes" | uniq -c)"
[ "$(grep -c '^200$' "$T/unix.codes")" -gt 0 ] || fail "no /healthz or /metrics answered"
[ -s "$T/scrape.codes" ] && ! grep -qv '^200$' "$T/scrape.codes" ||
	fail "/metrics scrapes: $(sort "$T/scrape.codes" | uniq -c)"
pass "40 reloads under load: $(wc -l <"$T/tcp.codes") TCP and $(wc -l <"$T/unix.codes") Unix requests, each saw one whole configuration"
config token-bbbbbbbbbbbbbbbb 128KiB
kill -HUP "$FAMFSD_PID"
code() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" $U; }
wait_for 10 "the last reload's token" test "$(code token-bbbbbbbbbbbbbbbb)" = 200
[ "$(code token-aaaaaaaaaaaaaaaa)" = 401 ] || fail "the old token is still accepted"
pass "after the last reload exactly its token is accepted"
