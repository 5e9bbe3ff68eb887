#!/bin/bash
# famfs-cli create --from - reads stdin into a buffer it grows (slurp() in
# famfs-cli/cmd_create.c): a file larger than the first 1 MiB comes back
# byte for byte, and when growing the buffer fails the command says so
# and frees what it had read. The second half needs the ASan build
# (FAMFS_ASAN=1): its allocator can be told to refuse allocations
# over 1 MiB (max_allocation_size_mb), so the first buffer is had and its
# growth refused, and LeakSanitizer sees a leak at exit; elsewhere it is
# skipped.
# Usage: create_stdin.sh FAMFS_CLI
set -u
CLI=$1
. "$(dirname "$0")/lib.sh"
cli_workdir create-stdin

"$CLI" mkemul --size 64MiB "$W/d0" >/dev/null || { bad "mkemul"; cli_tally; }
"$CLI" mkfs --log-size 4MiB "$W/d0" >/dev/null || { bad "mkfs"; cli_tally; }
# 1.5 MiB: one growth of the 1 MiB buffer
head -c 1572864 /dev/urandom >"$W/src"
if "$CLI" create -d "$W/d0" --from - /big <"$W/src" 2>"$W/err"; then
	ok "create --from - of 1.5 MiB"
else
	bad "create --from - of 1.5 MiB: $(cat "$W/err")"
fi
if "$CLI" cat -d "$W/d0" /big 2>"$W/err" | cmp -s - "$W/src"; then
	ok "the file holds the bytes of stdin"
else
	bad "the file differs from stdin: $(cat "$W/err")"
fi

if [ "${FAMFS_ASAN:-}" = 1 ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=1" \
		"$CLI" create -d "$W/d0" --from - /nomem <"$W/src" >"$W/out" 2>"$W/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'cannot read stdin' "$W/err"; then
		ok "a buffer that cannot grow: 'cannot read stdin', exit 1"
	else
		bad "a buffer that cannot grow: rc $rc: $(head -c 2000 "$W/err")"
	fi
	if grep -q 'LeakSanitizer' "$W/err"; then
		bad "a buffer that cannot grow is leaked: $(grep -A6 'Direct leak' "$W/err" | head -8)"
	else
		ok "a buffer that cannot grow is freed"
	fi
else
	echo "skip: refusing an allocation needs the ASan build (FAMFS_ASAN=1)"
fi
cli_tally
