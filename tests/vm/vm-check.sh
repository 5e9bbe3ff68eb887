#!/bin/sh
# ctest vm.kmod.NAME: the outcome of one in-guest check, read from the
# console log that vm.boot kept.
# Usage: vm-check.sh CONSOLE_LOG NAME
# Exit: 0 PASS, 77 when vm.boot skipped (no QEMU or kernel), 1 otherwise.
log=$1 name=$2
if [ ! -f "$log" ]; then
	echo "no console log $log: vm.boot did not run"
	exit 1
fi
if grep -a -q '^vm.boot: SKIP' "$log"; then
	grep -a '^vm.boot: SKIP' "$log"
	exit 77
fi
# Show what the guest printed for this check.
sed -n "/^FAMFS-VM-RUN $name\$/,/^FAMFS-VM-TEST $name /p" "$log"
if grep -a -q "^FAMFS-VM-TEST $name PASS" "$log"; then
	exit 0
fi
grep -a -q "^FAMFS-VM-TEST $name " "$log" || echo "check $name never ran"
exit 1
