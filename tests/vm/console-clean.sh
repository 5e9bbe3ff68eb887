#!/bin/sh
# Exit 1 (and print the lines) if the console log shows a kernel oops,
# WARN, BUG or panic; 0 if it is clean.
# Usage: console-clean.sh CONSOLE_LOG
pat='Oops|WARNING:|BUG:|kernel BUG|general protection fault|Kernel panic|Call Trace:|KASAN|kmemleak:|UBSAN'
if grep -a -n -E "$pat" "$1"; then
	exit 1
fi
exit 0
