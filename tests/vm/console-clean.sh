#!/bin/sh
# Exit 1 (and print the lines) if the console log shows a kernel oops,
# WARN, BUG or panic; 0 if it is clean.
# Usage: console-clean.sh CONSOLE_LOG
pat='Oops|WARNING:|BUG:|kernel BUG|general protection fault|Kernel panic|Call Trace:|KASAN|kmemleak:|UBSAN'
# Lines of famfs.trace ("+ UPTIME IDLE command", guest/lib.sh) echo the
# checks' own greps for these words; a kernel line never starts so.
if grep -a -n -v -E '^\+ [0-9]+\.[0-9]+ ' "$1" | grep -a -E "$pat"; then
	exit 1
fi
exit 0
