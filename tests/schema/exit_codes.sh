#!/bin/sh
# famfs-cli validate: exit 0 valid, 1 invalid or unreadable, 2 usage;
# --help exits 0; a valid and an invalid file together exit 1.
set -u
cli=$1 corpus=$2
fail=0
expect() { # rc description command...
	want=$1; shift; what=$1; shift
	"$@" >/dev/null 2>&1; got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: $what: exit $got, expected $want"; fail=1
	else
		echo "ok: $what"
	fi
}
expect 0 "valid file" "$cli" validate "$corpus/valid/base.yaml"
expect 1 "invalid file" "$cli" validate "$corpus/invalid/bad-role.yaml"
expect 1 "semantic error" "$cli" validate "$corpus/semantic/dangling-mount-host.yaml"
expect 1 "missing file" "$cli" validate "$corpus/does-not-exist.yaml"
expect 1 "valid + invalid" "$cli" validate "$corpus/valid/base.yaml" "$corpus/invalid/bad-role.yaml"
expect 2 "no file" "$cli" validate
expect 2 "unknown option" "$cli" validate --bogus "$corpus/valid/base.yaml"
expect 0 "--help" "$cli" validate --help
out=$("$cli" validate "$corpus/does-not-exist.yaml" 2>&1)
case "$out" in
*"does-not-exist.yaml:0:0: cannot open: No such file or directory"*) echo "ok: missing file message";;
*) echo "FAIL: missing file message: $out"; fail=1;;
esac
exit $fail
