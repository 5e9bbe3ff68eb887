#!/bin/bash
# famfsd_tcp_token: over TCP+TLS a request without the bearer token (or
# with a wrong one) is refused with 401; the right token is served; TCP
# without a token file is refused at start.
source "$(dirname "$0")/lib.sh"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" \
	-days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 \
	|| fail "openssl could not make a test certificate"
echo "s3cret-token-for-famfsd-tests" >"$T/token"
chmod 600 "$T/token"

# no token file: refused at start
cat >"$T/notoken.yaml" <<EOC
tcp:
  listen: 127.0.0.1:$port
  tls_cert: $T/cert.pem
  tls_key: $T/key.pem
EOC
"$FAMFSD" --config "$T/notoken.yaml" --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >"$T/notoken.log" 2>&1 && fail "started without a token"
grep -q "needs token_file" "$T/notoken.log" || fail "message: $(cat "$T/notoken.log")"
pass "TCP without a token file refused at start"

cat >"$T/famfsd.yaml" <<EOC
token_file: $T/token
tcp:
  listen: 127.0.0.1:$port
  tls_cert: $T/cert.pem
  tls_key: $T/key.pem
EOC
"$FAMFSD" --config "$T/famfsd.yaml" --state-dir "$STATE" "${FAMFSD_TEST_PATHS[@]}" --socket "$SOCK" \
	--plugin-dir "$PLUGINS" >>"$LOG" 2>&1 &
FAMFSD_PID=$!
URL=https://127.0.0.1:$port
wait_for 60 "famfsd to answer on TLS" curl -s -o /dev/null --cacert "$T/cert.pem" $URL/healthz
code=$(curl -s --cacert "$T/cert.pem" -o "$T/out" -w '%{http_code}' $URL/v1/host)
[ "$code" = 401 ] || fail "no token: HTTP $code"
grep -q '"code":"unauthorized"' "$T/out" || fail "401 body: $(cat "$T/out")"
code=$(curl -s --cacert "$T/cert.pem" -H 'Authorization: Bearer wrong-token-wrong-token' -o /dev/null -w '%{http_code}' $URL/v1/host)
[ "$code" = 401 ] || fail "wrong token: HTTP $code"
code=$(curl -s --cacert "$T/cert.pem" -X POST -H 'Content-Type: application/json' -d '{"name":"x","path":"/tmp/nope","size":"8MiB"}' -o /dev/null -w '%{http_code}' $URL/v1/devices)
[ "$code" = 401 ] || fail "mutation without token: HTTP $code"
code=$(curl -s --cacert "$T/cert.pem" -H "Authorization: Bearer $(cat "$T/token")" -o "$T/out" -w '%{http_code}' $URL/v1/host)
[ "$code" = 200 ] || fail "right token: HTTP $code $(cat "$T/out")"
code=$(curl -s --cacert "$T/cert.pem" -o /dev/null -w '%{http_code}' $URL/healthz)
[ "$code" = 200 ] || fail "healthz without token: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/v1/host)
[ "$code" = 200 ] && fail "plain HTTP served on the TLS port"
pass "TLS: 401 without/with a wrong token, 200 with it"

if [ -x "${FAMFS_CLI:-}" ]; then
	FAMFS_CACERT=$T/cert.pem FAMFS_TOKEN_FILE=$T/token "$FAMFS_CLI" get devices --host $URL >/dev/null \
		|| fail "famfs-cli over https"
	FAMFS_CACERT=$T/cert.pem "$FAMFS_CLI" get devices --host $URL 2>"$T/err" && fail "famfs-cli without token"
	grep -q unauthorized "$T/err" || fail "famfs-cli 401 message: $(cat "$T/err")"
	pass "famfs-cli over https with and without the token"
fi
n=$(sqlite3 "$STATE/famfsd.db" "SELECT count(*) FROM audit WHERE status=401 AND who LIKE 'token@127.0.0.1'")
[ "$n" -ge 0 ] || fail "audit"
