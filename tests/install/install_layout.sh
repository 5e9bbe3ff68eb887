#!/bin/bash
# install_layout BUILD_DIR: `cmake --install` of BUILD_DIR into a DESTDIR,
# then, in a private mount namespace where the DESTDIR's prefix and /etc
# are overlaid on the real ones (nothing outside the namespace changes):
# every file lands under the prefix, /etc/famfs or systemd's dirs; the
# unit's ExecStart is the installed famfsd and passes systemd-analyze
# verify; the shipped famfsd.yaml names the installed plugin dir and
# famfs-fused; and the installed famfsd, started with no flags at all,
# loads both providers and runs examples/cluster.yaml (moved to a temporary
# directory) through the installed famfs-cli, its mounts served by the
# installed famfs-fused. Needs root (unshare, overlayfs, FUSE).
set -u
B=$(cd "$1" && pwd)
if [ -z "${FAMFS_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
	[ -e /dev/fuse ] || { echo "skip: no /dev/fuse"; exit 77; }
	exec unshare --mount --propagation private env FAMFS_IN_NS=1 bash "$0" "$@"
fi
T=$(mktemp -d /tmp/famfs-install-test.XXXXXX)
D=$T/root
trap cleanup EXIT
FAMFSD_PID=
cleanup() {
	local rc=$?
	[ -n "$FAMFSD_PID" ] && kill -TERM "$FAMFSD_PID" 2>/dev/null && wait "$FAMFSD_PID"
	for m in $(awk -v t="$T" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
		fusermount3 -u -z "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	pkill -TERM -f "^$PREFIX/bin/famfs-fused .*$T" 2>/dev/null
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- famfsd log ----"; tail -40 "$T/famfsd.log" 2>/dev/null
	fi
	rm -rf "$T"
	exit $rc
}
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

PREFIX=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$B/CMakeCache.txt")
UNITDIR=$(sed -n 's/^FAMFS_SYSTEMD_UNITDIR:PATH=//p' "$B/CMakeCache.txt")
[ -n "$PREFIX" ] && [ -n "$UNITDIR" ] || fail "$B: no install prefix / unit dir in CMakeCache.txt"
DESTDIR=$D cmake --install "$B" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }

# Every installed file under the prefix, /etc/famfs, systemd's dirs or (the
# Slurm plugin's snippet) /etc/slurm/plugstack.conf.d.
n=0
while read -r f; do
	n=$((n + 1))
	case "$f" in
	"$PREFIX"/*|/etc/famfs/*|"$UNITDIR"/*|/etc/slurm/plugstack.conf.d/famfs-slurm.conf) ;;
	/lib/sysusers.d/*|/lib/tmpfiles.d/*) [ "$PREFIX" = /usr ] || fail "$f outside $PREFIX" ;;
	*) fail "installed outside the layout: $f" ;;
	esac
done < <(cd "$D" && find . -type f -o -type l | sed 's/^\.//')
[ "$n" -ge 20 ] || fail "only $n files installed"
for f in "$PREFIX/sbin/famfsd" "$PREFIX/bin/famfs-cli" "$PREFIX/bin/famfs-fused" \
	 /etc/famfs/famfsd.yaml "$UNITDIR/famfsd.service" "$UNITDIR/famfsd.socket" \
	 "$PREFIX/share/doc/famfs/api.md" "$PREFIX/share/doc/famfs/examples/cluster.yaml" \
	 "$PREFIX/share/famfs/schemas/cluster.schema.json" \
	 "$PREFIX/share/famfs/monitoring/famfs-dashboard.json" \
	 "$PREFIX/share/famfs/monitoring/famfs-alerts.yml"; do
	[ -e "$D$f" ] || fail "not installed: $f"
done
[ ! -e "$D$PREFIX/etc" ] || fail "a $PREFIX/etc was made"
pass "prefix $PREFIX: $n files, all under $PREFIX, /etc/famfs or $UNITDIR"

# The Slurm plugin, when built: its snippet names the installed plugin.
snippet=$D/etc/slurm/plugstack.conf.d/famfs-slurm.conf
if [ -e "$B/plugins/slurm/famfs_slurm.so" ]; then
	plugin=$(awk '$1 == "required" { print $2 }' "$snippet")
	case $plugin in "$PREFIX"/*/famfs/slurm/famfs_slurm.so) ;; *) fail "the snippet names '$plugin'" ;; esac
	[ -f "$D$plugin" ] || fail "the snippet's plugin $plugin is not installed"
	[ -x "$D$PREFIX/libexec/famfs/famfs-slurm-job-alive" ] || fail "famfs-slurm-job-alive not installed"
	pass "the plugstack.conf.d snippet names the installed famfs_slurm.so"
fi

exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$D$UNITDIR/famfsd.service")
[ "$exec_start" = "$PREFIX/sbin/famfsd" ] || fail "ExecStart=$exec_start, installed $PREFIX/sbin/famfsd"
plugin_dir=$(sed -n 's/^plugin_dir: *\([^ ]*\).*/\1/p' "$D/etc/famfs/famfsd.yaml")
fused=$(sed -n 's/^fused_path: *\([^ ]*\).*/\1/p' "$D/etc/famfs/famfsd.yaml")
[ -f "$D$plugin_dir/emul.so" ] && [ -f "$D$plugin_dir/cxl.so" ] \
	|| fail "famfsd.yaml plugin_dir $plugin_dir has no emul.so/cxl.so in the install"
[ "$fused" = "$PREFIX/bin/famfs-fused" ] || fail "famfsd.yaml fused_path $fused"
pass "ExecStart=$exec_start; famfsd.yaml: plugin_dir $plugin_dir, fused_path $fused"

# The installed tree over the real one, in this namespace only; ldconfig
# as an operator would after installing a library under /usr/local.
mkdir -p "$T/etc-up" "$T/etc-work" "$T/pre-up" "$T/pre-work"
mount -t overlay overlay -o "lowerdir=$D$PREFIX:$PREFIX,upperdir=$T/pre-up,workdir=$T/pre-work" "$PREFIX" \
	|| fail "overlay on $PREFIX"
mount -t overlay overlay -o "lowerdir=$D/etc:/etc,upperdir=$T/etc-up,workdir=$T/etc-work" /etc \
	|| fail "overlay on /etc"
mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || fail "tmpfs on /run, /var/lib"
ldconfig
out=$(systemd-analyze verify "$D$UNITDIR/famfsd.service" "$D$UNITDIR/famfsd.socket" 2>&1)
[ -z "$out" ] || fail "systemd-analyze verify of the installed units: $out"
pass "installed units verify"

# The example's devices, mounts and dataset move into $T below: allow
# them in the installed famfsd.yaml (in the overlay), as an operator would
sed -i -e "s|^  # devices: .*|  devices: [$T]|" -e "s|^  mounts: .*|  mounts: [$T/mnt]|" \
    -e "s|^  sources: .*|  sources: [$T/dataset]|" /etc/famfs/famfsd.yaml
grep -q "^  devices: \[$T\]" /etc/famfs/famfsd.yaml || fail "the installed famfsd.yaml has no paths section"
cd /
"$PREFIX/sbin/famfsd" >"$T/famfsd.log" 2>&1 &
FAMFSD_PID=$!
SOCK=/run/famfsd/famfsd.sock
for i in $(seq 1 200); do
	curl -s --unix-socket $SOCK http://famfsd/healthz >/dev/null 2>&1 && break
	kill -0 $FAMFSD_PID 2>/dev/null || fail "famfsd exited at start"
	[ "$i" = 200 ] && fail "famfsd started with no flags does not answer on $SOCK"
	sleep 0.05
done
names=$(curl -s --unix-socket $SOCK http://famfsd/v1/host | python3 -c \
	'import json,sys; print(",".join(p["name"] for p in json.load(sys.stdin)["providers"]))')
[ "$names" = "cxl,emul" ] || fail "providers loaded from $plugin_dir: '$names'"
pass "famfsd with no flags: socket $SOCK, providers $names"

F=$T/cluster.yaml
# famfsd answers as this host's hostname (no host_name in its config)
sed -e "s#/dev/shm/famfs-demo-#$T/#" -e "s#/mnt/famfs#$T/mnt/famfs#" -e "s#node0#$(hostname)#g" \
    -e "s#/srv/famfs-demo/dataset#$T/dataset#" \
    "$PREFIX/share/doc/famfs/examples/cluster.yaml" >"$F"
mkdir -p "$T/dataset"
head -c 3000000 /dev/urandom >"$T/dataset/blob.bin"
"$PREFIX/bin/famfs-cli" apply "$F" >"$T/apply.out" 2>&1 || { cat "$T/apply.out"; fail "apply of the installed example"; }
for i in $(seq 1 300); do
	cmp -s "$T/dataset/blob.bin" "$T/mnt/famfs-client/demo/blob.bin" && break
	[ "$i" = 300 ] && fail "the dataset is not on the client mount"
	sleep 0.1
done
pids=$(pgrep -f "^$PREFIX/bin/famfs-fused .*$T/mnt")
[ "$(echo "$pids" | wc -w)" = 2 ] || fail "famfs-fused servers: '$pids'"
for p in $pids; do
	[ "$(readlink /proc/$p/exe)" = "$PREFIX/bin/famfs-fused" ] || fail "pid $p runs $(readlink /proc/$p/exe)"
done
pass "installed famfs-cli applied the example; both mounts served by $PREFIX/bin/famfs-fused"
