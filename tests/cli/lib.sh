# shellcheck shell=sh
# Shared by the cli test scripts (POSIX sh, sourced): a private work dir
# and the tally of checks. cli_workdir NAME [DIR] makes $W under $TMPDIR
# (else DIR, else /dev/shm), removed at exit; ok/bad count a check;
# cli_tally prints the tally and exits 1 if any check failed.
fails=0
checks=0
cli_workdir() {
	W=$(mktemp -d "${TMPDIR:-${2:-/dev/shm}}/famfs-$1.XXXXXX") || exit 1
	trap 'rm -rf "$W"' EXIT
}
ok()  { checks=$((checks + 1)); printf 'ok   %s\n' "$1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); printf 'FAIL %s\n' "$1"; }
cli_tally() {
	[ "$fails" -eq 0 ] && { echo "all $checks passed"; return 0; }
	echo "$fails of $checks failed"
	exit 1
}
