#!/bin/bash
# famfs-cli loads libcurl only for the commands that talk to a famfsd
# (famfs-cli/client/curl_dl.c): an offline command does not load it, a
# famfsd command does, and one that cannot load it says which library.
# Usage: curl_lazy.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir curl-lazy
# loads WHAT CMD...: the shared objects ld.so loaded for CMD (LD_DEBUG=libs)
loads() {
	LD_DEBUG=libs LD_DEBUG_OUTPUT="$W/ld" "$@" >"$W/out" 2>"$W/err"
	echo $? >"$W/rc"
	cat "$W"/ld.* 2>/dev/null; rm -f "$W"/ld.*
}

# offline: mkemul, mkfs, fsck, validate load no libcurl
"$CLI" mkemul --size 64MiB "$W/d0" "$W/d1" >/dev/null || bad "mkemul"
for cmd in "mkfs --log-size 4MiB $W/d0 $W/d1" "fsck $W/d0 $W/d1" "log $W/d0 $W/d1"; do
	l=$(loads "$CLI" $cmd)
	[ "$(cat "$W/rc")" = 0 ] || bad "$cmd: rc $(cat "$W/rc"): $(cat "$W/err")"
	grep -q 'calling init' <<<"$l" ||
		{ bad "$cmd: LD_DEBUG=libs shows no library at all"; continue; }
	if grep -q 'libcurl' <<<"$l"; then bad "$cmd loads libcurl"; else ok "$cmd does not load libcurl"; fi
done

# a famfsd command loads it (and fails here only because nothing listens)
l=$(loads "$CLI" get devices --host "$W/no.sock")
grep -q 'calling init:.*libcurl\.so\.4' <<<"$l" && ok "get devices loads libcurl" ||
	bad "get devices did not load libcurl"
rc=$(cat "$W/rc")
[ "$rc" = 1 ] && grep -q "cannot reach famfsd at $W/no.sock" "$W/err" &&
	ok "get devices without famfsd: rc 1, cannot reach famfsd" ||
	bad "get devices without famfsd: rc $rc: $(cat "$W/err")"

# libcurl that cannot be loaded: an empty file over it in a private mount
# namespace (the host's library is untouched)
so=$(ldconfig -p | awk '$1 == "libcurl.so.4" && /x86-64/ { print $NF; exit }')
if [ -z "$so" ] || ! unshare -m true 2>/dev/null; then
	cli_tally
	echo "skip: no libcurl.so.4 in ldconfig -p, or no unshare -m (not root)"
	exit 77
fi
: >"$W/empty"
unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$W/empty" "$so" \
	"$CLI" get devices --host "$W/no.sock" >"$W/out" 2>"$W/err"
rc=$?
grep -q 'cannot load libcurl.so.4 (libcurl, needed to talk to famfsd)' "$W/err" && [ "$rc" = 1 ] &&
	ok "without a loadable libcurl: rc 1, the error names libcurl.so.4" ||
	bad "without a loadable libcurl: rc $rc: $(cat "$W/err")"
unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$W/empty" "$so" \
	"$CLI" fsck "$W/d0" "$W/d1" >"$W/out" 2>"$W/err" &&
	ok "without a loadable libcurl: fsck still works" ||
	bad "without a loadable libcurl: fsck failed: $(cat "$W/err")"
cli_tally
