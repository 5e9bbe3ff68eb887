#!/bin/bash
# killmatrix_famfsd: SIGKILL famfsd at each kill point of its API and job
# steps (and at lib/ingest points reached through famfsd), and famfs-cli
# apply between its API calls; restart or re-run, and
# check: fsck clean, nothing reported committed lost, no partial file, the
# interrupted request converges when repeated, jobs resume and succeed.
# Every FAMFS_KILL_POINT under famfsd/ must be hit.
# Needs FAMFSD (famfsd-kp), FAMFS_CLI_KP, PLUGINS, FAMFS_CLI, SOURCE_DIR,
# FAMFS_FUSED (and FAMFS_FUSED_KP for ingest through a mount).
source "$(dirname "$0")/../famfsd/lib.sh"
CLI=$FAMFS_CLI
cases=0 covered=""
DEVS="-d $T/dev0 -d $T/dev1"

reset() {
	[ -n "$FAMFSD_PID" ] && stop_famfsd
	rm -rf "$STATE" "$T"/dev*
}
setup_fs() {
	make_devices 2 16MiB
	api POST /v1/interleave-sets '{"name":"set0","devices":["emul0","emul1"]}'; expect 201
}
# famfsd_dies POINT: famfsd (started with FAMFS_KILL_AT) died of SIGKILL there
famfsd_dies() {
	local rc
	for _ in $(seq 1 200); do
		kill -0 "$FAMFSD_PID" 2>/dev/null || break
		sleep 0.05
	done
	wait "$FAMFSD_PID"; rc=$?
	FAMFSD_PID=
	[ "$rc" = 137 ] || fail "$1: famfsd ended with $rc, not SIGKILL at the point"
	grep -q "famfs kill point ${1%%:*}:" "$LOG" || fail "$1: the point was not reached"
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
}
start_killable() { FAMFSD_WRAP="env FAMFS_KILL_AT=$1" start_famfsd; }
fsck_clean() { $CLI fsck -q $T/dev0 $T/dev1 > "$T/fsck" 2>&1 || fail "$1: fsck: $(cat "$T/fsck")"; }

# ---- POST /v1/filesystems: mkfs done, the row not yet stored
fs_case() {
	reset; start_famfsd; setup_fs; stop_famfsd
	start_killable "$1"
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'
	famfsd_dies "$1"
	start_famfsd
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'
	[ "$STATUS" = 201 ] || fail "$1: repeating the mkfs request does not converge: $STATUS $BODY"
	fsck_clean "$1"
	api POST /v1/files '{"filesystem":"fs0","path":"/x","size":1000}'; expect 201
	pass "$1: restarted famfsd, the repeated request made the filesystem"
}
fs_case famfsd.fs_mkfs_done
fs_case mkfs.log_written

# ---- POST /v1/files with famfsd as the master: /a (created before) stays;
# /b is absent before its CRC, present from then on; repeating converges.
file_case() {
	reset; start_famfsd; setup_fs
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'; expect 201
	api POST /v1/files '{"filesystem":"fs0","path":"/a","size":5000}'; expect 201
	stop_famfsd
	start_killable "$1"
	api POST /v1/files '{"filesystem":"fs0","path":"/b","size":300000}'
	famfsd_dies "$1"
	fsck_clean "$1"
	$CLI cat $DEVS /a | cmp -s - <(head -c 5000 /dev/zero) || fail "$1: /a lost"
	if $CLI cat $DEVS /b > "$T/b" 2>/dev/null; then
		[ "$2" = present ] || fail "$1: /b visible though killed before its CRC"
		cmp -s "$T/b" <(head -c 300000 /dev/zero) || fail "$1: /b visible but not whole"
	else
		[ "$2" = absent ] || fail "$1: /b lost though its CRC was stored"
	fi
	start_famfsd
	api POST /v1/files '{"filesystem":"fs0","path":"/b","size":300000}'
	case "$STATUS" in 201) ;; 409) [ "$2" = present ] || fail "$1: 409 for an absent /b" ;;
		*) fail "$1: repeating the create: $STATUS $BODY" ;; esac
	api GET /v1/files/fs0/b; expect 200
	fsck_clean "$1"
	pass "$1: file create killed, /a kept, /b $2, repeated create converges"
}
file_case create.allocated absent
file_case log.crc_stored present

# ---- ingest job: killed mid-job, it resumes by itself after the restart
S=$T/src
mkdir -p "$S/d"
head -c 3000 /dev/urandom > "$S/one"
head -c 900000 /dev/urandom > "$S/two"
head -c 2100000 /dev/urandom > "$S/d/three"
head -c 77 /dev/urandom > "$S/d/four"
files="one two d/three d/four"
job_case() {
	reset; start_famfsd; setup_fs
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'; expect 201
	stop_famfsd
	start_killable "$1"
	api POST /v1/jobs '{"kind":"ingest","params":{"source":"'"$S"'","dest":"/in","threads":1}}'
	# the job may reach the point before famfsd answers: then the job
	# was stored (its row commits before it starts) but not reported
	local id=
	[ "$STATUS" = 201 ] && id=$(jq_get "$BODY" .id)
	famfsd_dies "$1"
	local stored
	stored=$(sqlite3 "$STATE/famfsd.db" "SELECT max(id) FROM jobs WHERE kind='ingest'")
	[ -n "$stored" ] || fail "$1: the job was killed at a point inside it but is not stored"
	[ -z "$id" ] || [ "$id" = "$stored" ] || fail "$1: reported job $id, stored $stored"
	id=$stored
	fsck_clean "$1"
	for f in $files; do
		if $CLI cat $DEVS "/in/$f" > "$T/got" 2>/dev/null; then
			cmp -s "$T/got" "$S/$f" || fail "$1: /in/$f visible but not whole"
		fi
	done
	start_famfsd
	for _ in $(seq 1 300); do
		api GET "/v1/jobs/$id"
		st=$(jq_get "$BODY" .state)
		case "$st" in succeeded|failed|cancelled) break ;; esac
		sleep 0.1
	done
	[ "$st" = succeeded ] || fail "$1: job $id did not resume to success: $st $BODY"
	fsck_clean "$1"
	for f in $files; do
		$CLI cat $DEVS "/in/$f" | cmp -s - "$S/$f" || fail "$1: after resume /in/$f not whole"
	done
	pass "$1: famfsd killed mid-job, job resumed and succeeded, all files whole"
}
for p in job.running_recorded ingest.copied:2 batch.header_built ingest.committed:3 \
	 ingest.manifest_put:2 job.run_returned; do
	job_case $p
done

# ---- famfsd killed right after it spawned a FUSE server for a mount: at
# the first start (:1, inside POST /v1/mounts, which is then repeated) or
# at the restart after the server died (:2). The next famfsd converges: the mount is up, served by exactly one famfs-fused
# and in mountinfo once (the orphan adopted or cleaned, never a second),
# /a reads back, a file created through it lands in the log, the mount
# goes away on DELETE, fsck clean.
mounts_at() { awk -v p="$T/mnt" '$5 == p' /proc/self/mountinfo | wc -l; }
servers() { pgrep -f "famfs-fused.* $T/mnt\$" | wc -l; }
mount_state() { api GET /v1/mounts/m; [ "$(jq_get "$BODY" .state)" = "$1" ]; }
mount_case() {
	reset; start_famfsd --fused "$FAMFS_FUSED"; setup_fs
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'; expect 201
	api POST /v1/files '{"filesystem":"fs0","path":"/a","size":5000}'; expect 201
	stop_famfsd
	FAMFSD_WRAP="env FAMFS_KILL_AT=$1" start_famfsd --fused "$FAMFS_FUSED"
	api POST /v1/mounts '{"name":"m","filesystem":"fs0","path":"'"$T/mnt"'","role":"master"}'
	if [ "${1##*:}" = 2 ]; then
		expect 201
		wait_for 20 "$1: the first server to mount" mount_state mounted
		kill -KILL "$(jq_get "$BODY" .pid)"   # famfsd restarts it, and dies there
	fi
	famfsd_dies "$1"
	start_famfsd --fused "$FAMFS_FUSED"
	# killed inside POST /v1/mounts (:1) the client got no answer, but
	# the mount's row (its intent) was committed before the spawn: the
	# restarted famfsd reconciles it by itself, replacing the server it
	# does not know; repeating the request finds the mount
	wait_for 30 "$1: the mount to come back" mount_state mounted
	if [ "${1##*:}" = 1 ]; then
		api POST /v1/mounts '{"name":"m","filesystem":"fs0","path":"'"$T/mnt"'","role":"master"}'
		expect 409 already_exists
		wait_for 30 "$1: the mount to stay" mount_state mounted
	fi
	local pid
	pid=$(jq_get "$BODY" .pid)
	[ "$(mounts_at)" = 1 ] || fail "$1: $T/mnt is mounted $(mounts_at) times"
	[ "$(servers)" = 1 ] || fail "$1: $(servers) famfs-fused serve $T/mnt: $(pgrep -af famfs-fused)"
	[ "$(pgrep -f "famfs-fused.* $T/mnt\$")" = "$pid" ] || fail "$1: the server is not pid $pid"
	[ "$(stat -c %s "$T/mnt/a")" = 5000 ] || fail "$1: /a through the mount"
	api POST /v1/files '{"filesystem":"fs0","path":"/b","size":300000}'; expect 201
	[ "$(stat -c %s "$T/mnt/b")" = 300000 ] || fail "$1: /b through the mount"
	api DELETE /v1/mounts/m; expect 204
	wait_for 10 "$1: the unmount" test "$(mounts_at)" = 0
	fsck_clean "$1"
	$CLI cat $DEVS /b | cmp -s - <(head -c 300000 /dev/zero) || fail "$1: /b not in the log"
	pass "$1: famfsd killed after spawning a server, the restart converged to one mount"
}
# ---- an ingest job through the master mount, its famfs-fused-kp killed
# at a point of its commit (fused/ points: covered here through famfsd as
# well as by killmatrix_fused.sh): famfsd restarts the server; the job
# ends; no file it shows is partial; fsck clean; the same ingest again
# (FAMFS_KILL_AT gone) succeeds with every file whole through the mount.
job_done() {
	api GET "/v1/jobs/$1"
	case "$(jq_get "$BODY" .state)" in succeeded|failed|cancelled) return 0 ;; esac
	return 1
}
fused_ingest_case() {
	reset; start_famfsd; setup_fs
	api POST /v1/filesystems '{"name":"fs0","set":"set0","log_size":"2MiB"}'; expect 201
	stop_famfsd
	# famfsd-kp has no fused.* point: FAMFS_KILL_AT is for the server
	FAMFSD_WRAP="env FAMFS_KILL_AT=$1" start_famfsd --fused "$FAMFS_FUSED_KP"
	api POST /v1/mounts '{"name":"m","filesystem":"fs0","path":"'"$T/mnt"'","role":"master"}'
	expect 201
	wait_for 20 "$1: the master mount" mount_state mounted
	local pid0 id
	pid0=$(jq_get "$BODY" .pid)
	api POST /v1/jobs '{"kind":"ingest","params":{"source":"'"$S"'","dest":"/in","threads":1}}'
	expect 201
	id=$(jq_get "$BODY" .id)
	wait_for 60 "$1: ingest job $id to end" job_done "$id"
	grep -q "famfs kill point ${1%%:*}:" "$STATE/mounts/m.log" ||
		fail "$1: the server was not killed at the point: $(tail -5 "$STATE/mounts/m.log")"
	api GET /v1/events
	grep -q "famfs-fused.* killed by signal 9" <<<"$BODY" ||
		fail "$1: famfsd did not see its server die of SIGKILL: $BODY"
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
	# famfsd restarted the server (a new pid, mounted)
	wait_for 20 "$1: the restarted master mount" mount_state mounted
	[ "$(jq_get "$BODY" .pid)" != "$pid0" ] || fail "$1: the server was not restarted"
	for f in $files; do
		if [ -e "$T/mnt/in/$f" ]; then
			cmp -s "$T/mnt/in/$f" "$S/$f" || fail "$1: /in/$f visible but not whole"
		fi
	done
	$CLI fsck -q "$T/mnt" > "$T/fsck" 2>&1 || fail "$1: fsck after the kill: $(cat "$T/fsck")"
	# a famfsd and a server without FAMFS_KILL_AT (the restarted server
	# inherited it, and a new famfsd would adopt it)
	stop_famfsd
	start_famfsd --fused "$FAMFS_FUSED_KP"
	api DELETE /v1/mounts/m; expect 204
	api POST /v1/mounts '{"name":"m","filesystem":"fs0","path":"'"$T/mnt"'","role":"master"}'
	expect 201
	wait_for 20 "$1: the mount again" mount_state mounted
	FAMFS_HOST=$SOCK $CLI ingest --wait "$S" /in > "$T/ingest.out" 2>&1 ||
		fail "$1: the ingest again: $(cat "$T/ingest.out")"
	for f in $files; do
		cmp -s "$T/mnt/in/$f" "$S/$f" || fail "$1: after the re-run /in/$f is not whole"
	done
	api DELETE /v1/mounts/m; expect 204
	wait_for 10 "$1: the unmount" test "$(mounts_at)" = 0
	fsck_clean "$1"
	pass "$1: famfs-fused killed under an ingest job, restarted by famfsd, the re-run converged"
}

have_fuse() { [ -x "${FAMFS_FUSED:-}" ] && [ -x "${FAMFS_FUSED_KP:-}" ] && [ -e /dev/fuse ]; }
if have_fuse; then
	mount_case mounts.server_spawned:1
	mount_case mounts.server_spawned:2
	fused_ingest_case fused.commit_ready:2
	fused_ingest_case fused.committed:3
else
	echo "no famfs-fused or /dev/fuse: the mount points are not covered"
	covered="$covered mounts.server_spawned"
fi

# kill_cluster FILE [SET_OPTIONS]: the cases' cluster file (one host, two
# 16 MiB emul devices in set0, filesystem fs0), then what stdin adds.
kill_cluster() {
	{ cat <<EOT
apiVersion: famfs.io/v1alpha1
kind: Cluster
metadata: {name: kill}
hosts:
  - {name: testhost, endpoint: $SOCK, role: master}
devices:
  - {name: emul0, emul: {path: $T/dev0, size: 16MiB}}
  - {name: emul1, emul: {path: $T/dev1, size: 16MiB}}
sets:
  - {name: set0, devices: [emul0, emul1]${2:+, $2}}
filesystems:
  - {name: fs0, set: set0, master: testhost, logSize: 2MiB}
EOT
	cat; } > "$1"
}

# ---- famfs-cli apply killed after its n-th API call: apply again
# converges, a third apply has nothing to do, the filesystem is clean.
apply_case() {
	reset; start_famfsd
	kill_cluster "$T/cluster.yaml" "chunk: 2MiB, strips: 2" </dev/null
	FAMFS_KILL_AT=$1 "$FAMFS_CLI_KP" apply "$T/cluster.yaml" > "$T/apply.out" 2>&1
	local rc=$?
	[ "$rc" = 137 ] && grep -q "famfs kill point ${1%%:*}:" "$T/apply.out" ||
		fail "$1: apply ended with $rc, not SIGKILL at the point: $(cat "$T/apply.out")"
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
	$CLI apply "$T/cluster.yaml" > "$T/apply.out" 2>&1 ||
		fail "$1: apply again does not converge: $(cat "$T/apply.out")"
	$CLI diff "$T/cluster.yaml" > "$T/apply.out" 2>&1 ||
		fail "$1: after the re-run diff still has changes: $(cat "$T/apply.out")"
	fsck_clean "$1"
	pass "$1: famfs-cli apply killed, re-run converged, diff empty, fsck clean"
}
for n in 1 2 3 4; do
	apply_case apply.call_returned:$n
done

# ---- a dataset's refresh (famfsd the master, keep 0): famfsd killed with
# the staging directory made, after the ingest before the switch, between
# the exchange and the rename of the old tree (the staging path then
# holds generation 1: the switch record, not the paths, tells), right
# after the switch before the store records it, and while it removes the
# expired generation. Offline, /ds is generation 1 or 2 whole, never
# neither; the restarted famfsd resumes the job (the staging tree resumed,
# the switch recorded, the removal done) to generation 2 serving with no
# staging or retired tree left, and apply again is "No changes.".
R=$T/rsrc
# gen_at: which generation /ds holds whole (g1, g2, or nothing)
gen_at() {
	local g f ok
	for g in g1 g2; do
		ok=1
		for f in a d/b c big; do
			if [ -e "$T/$g/$f" ]; then
				$CLI cat $DEVS "/ds/$f" 2>/dev/null | cmp -s - "$T/$g/$f" || ok=0
			elif $CLI cat $DEVS "/ds/$f" >/dev/null 2>&1; then
				ok=0
			fi
		done
		[ $ok = 1 ] && { echo $g; return; }
	done
}
jobs_idle() {
	api GET /v1/jobs
	python3 -c 'import json, sys
sys.exit(any(j["state"] in ("queued", "running") for j in json.loads(sys.argv[1])["items"]))' "$BODY"
}
# refresh_setup_killed POINT: generation 1 applied, the source changed to
# generation 2, and famfsd killed at POINT of the refresh apply started
refresh_setup_killed() {
	reset; rm -rf "$R" "$T/g1" "$T/g2"; mkdir -p "$R/d"
	echo one-a > "$R/a"; echo one-b > "$R/d/b"; head -c 300000 /dev/urandom > "$R/big"
	start_famfsd
	kill_cluster "$T/cluster.yaml" <<EOT
datasets:
  - {name: ds, source: $R, filesystem: fs0, keep: 0}
EOT
	$CLI apply "$T/cluster.yaml" > "$T/apply.out" 2>&1 || fail "$1: first apply: $(cat "$T/apply.out")"
	cp -a "$R" "$T/g1"
	echo two-a > "$R/a"; rm "$R/d/b"; echo two-c > "$R/c"; head -c 300000 /dev/urandom > "$R/big"
	cp -a "$R" "$T/g2"
	stop_famfsd
	start_killable "$1"
	$CLI apply --no-wait "$T/cluster.yaml" > "$T/apply.out" 2>&1
	famfsd_dies "$1"
	fsck_clean "$1"
}
refresh_case() {
	refresh_setup_killed "$1"
	local g
	g=$(gen_at)
	[ -n "$g" ] || fail "$1: /ds is neither generation whole"
	start_famfsd
	wait_for 60 "$1: the resumed refresh to end" jobs_idle
	api GET /v1/datasets/ds
	[ "$(jq_get "$BODY" .generation)" = 2 ] && [ "$(jq_get "$BODY" .state)" = ready ] ||
		fail "$1: after the restart: $BODY"
	stop_famfsd
	[ "$(gen_at)" = g2 ] || fail "$1: /ds is not generation 2 whole after the resume"
	for p in /.famfs-staging/ds.2 /.famfs-retired/ds.1; do
		$CLI cat $DEVS "$p/a" >/dev/null 2>&1 && fail "$1: $p left"
	done
	fsck_clean "$1"
	start_famfsd
	$CLI apply "$T/cluster.yaml" > "$T/apply.out" 2>&1 &&
		grep -q "^No changes" "$T/apply.out" || fail "$1: apply after the resume: $(cat "$T/apply.out")"
	pass "$1: refresh killed, /ds showed $g whole, the resumed job made generation 2, apply: No changes."
}
for p in dataset.staging_made dataset.ingested dataset.exchanged dataset.switched \
	 dataset.expired_removed; do
	refresh_case $p
done

# ---- an undo (keep 1, generation 2 serving, 1 kept) killed between its
# exchange and the rename: /ds is generation 1 or 2 whole; the resumed
# undo finishes once (generation 1 serves, 2 kept at its retired path,
# never switched back) and apply again is "No changes.".
undo_case() {
	reset; rm -rf "$R" "$T/g1" "$T/g2"; mkdir -p "$R/d"
	echo one-a > "$R/a"; echo one-b > "$R/d/b"; head -c 300000 /dev/urandom > "$R/big"
	start_famfsd
	sed 's/keep: 0/keep: 1/' "$T/cluster.yaml" > "$T/undo.yaml"
	$CLI apply "$T/undo.yaml" > "$T/apply.out" 2>&1 || fail "$1: first apply: $(cat "$T/apply.out")"
	cp -a "$R" "$T/g1"
	echo two-a > "$R/a"; rm "$R/d/b"; echo two-c > "$R/c"; head -c 300000 /dev/urandom > "$R/big"
	cp -a "$R" "$T/g2"
	$CLI apply "$T/undo.yaml" > "$T/apply.out" 2>&1 || fail "$1: refresh: $(cat "$T/apply.out")"
	stop_famfsd
	start_killable "$1"
	api POST /v1/jobs '{"kind":"dataset_undo","params":{"dataset":"ds"}}'
	famfsd_dies "$1"
	fsck_clean "$1"
	local g
	g=$(gen_at)
	[ -n "$g" ] || fail "$1: /ds is neither generation whole"
	start_famfsd
	wait_for 60 "$1: the resumed undo to end" jobs_idle
	api GET /v1/datasets/ds
	[ "$(jq_get "$BODY" .generation)" = 1 ] && [ "$(jq_get "$BODY" .state)" = ready ] ||
		fail "$1: after the restart: $BODY"
	api GET /v1/jobs
	python3 -c 'import json, sys
sys.exit(not any(j["kind"] == "dataset_undo" and j["state"] == "succeeded"
	for j in json.loads(sys.argv[1])["items"]))' "$BODY" ||
		fail "$1: the undo did not succeed: $BODY"
	stop_famfsd
	[ "$(gen_at)" = g1 ] || fail "$1: /ds is not generation 1 whole after the resume"
	$CLI cat $DEVS /.famfs-retired/ds.2/a | cmp -s - "$T/g2/a" ||
		fail "$1: generation 2 is not kept at /.famfs-retired/ds.2"
	$CLI cat $DEVS /.famfs-retired/ds.1/a >/dev/null 2>&1 && fail "$1: /.famfs-retired/ds.1 left"
	fsck_clean "$1"
	start_famfsd
	$CLI apply "$T/undo.yaml" > "$T/apply.out" 2>&1 &&
		grep -q "^No changes" "$T/apply.out" || fail "$1: apply after the resume: $(cat "$T/apply.out")"
	pass "$1: undo killed, /ds showed $g whole, the resumed undo made generation 1 serve once"
}
undo_case dataset.exchanged

# ---- a switch made and never recorded by a job that ended (what a
# famfs-fused dying under the exchange leaves: the job saw an error):
# famfsd killed at dataset.exchanged, the job then marked failed in the
# store before the restart (as a failed job records itself), so that it
# does not resume. /ds serves
# generation 2 while the store says 1; the next apply's job switches it
# back (logged), resumes the staging tree and makes generation 2 itself.
unrecorded_case() {
	refresh_setup_killed "$1"
	# as the job records its own failure (dataset_failed())
	sqlite3 "$STATE/famfsd.db" "UPDATE jobs SET state='failed', error='test: ended' \
		WHERE state='running'; UPDATE datasets SET state='ready', failures=failures+1"
	[ "$(gen_at)" = g2 ] || fail "$1: /ds is not the unrecorded generation 2"
	start_famfsd
	api GET /v1/datasets/ds
	[ "$(jq_get "$BODY" .generation)" = 1 ] || fail "$1: the store should still say 1: $BODY"
	$CLI apply "$T/cluster.yaml" > "$T/apply.out" 2>&1 || fail "$1: apply: $(cat "$T/apply.out")"
	grep -q "switched back" "$LOG" || fail "$1: the unrecorded switch was not undone"
	api GET /v1/datasets/ds
	[ "$(jq_get "$BODY" .generation)" = 2 ] && [ "$(jq_get "$BODY" .state)" = ready ] ||
		fail "$1: after apply: $BODY"
	$CLI apply "$T/cluster.yaml" > "$T/apply.out" 2>&1 &&
		grep -q "^No changes" "$T/apply.out" || fail "$1: apply again: $(cat "$T/apply.out")"
	stop_famfsd
	[ "$(gen_at)" = g2 ] || fail "$1: /ds is not generation 2 whole"
	for p in /.famfs-staging/ds.2 /.famfs-retired/ds.1 /.famfs-staging/ds.3; do
		$CLI cat $DEVS "$p/a" >/dev/null 2>&1 && fail "$1: $p left"
	done
	fsck_clean "$1"
	pass "$1: a switch its ended job never recorded is switched back by the next job, which converges"
}
unrecorded_case dataset.exchanged

# ---- the same refresh through the FUSE master mount, its famfs-fused
# SIGKILLed at each step: famfsd stops itself at the point
# (FAMFS_KILL_SIGNAL=STOP), the test kills the server and lets famfsd go
# on. Points: the staging directory made (the copy then meets the dead
# mount), the second file copied (the ingest), the exchange made (its
# rename meets it: the switch record tells once the mount is back, and
# the rename is finished), the switch done (the expired generation's
# removal meets it). famfsd restarts
# the mount; the job succeeds or fails with its reason; /ds through the
# mount is generation 1 or 2 whole; apply again converges to generation
# 2 (a refresh that failed is redone) and a third apply is "No changes.";
# a tree left under /.famfs-retired is listed as a kept generation.
stopped() { [ "$(awk '{print $3}' "/proc/$FAMFSD_PID/stat" 2>/dev/null)" = T ]; }
gen_at_mnt() {
	local g f ok
	for g in g1 g2; do
		ok=1
		for f in a d/b c big; do
			if [ -e "$T/$g/$f" ]; then
				cmp -s "$T/mnt/ds/$f" "$T/$g/$f" || ok=0
			elif [ -e "$T/mnt/ds/$f" ]; then
				ok=0
			fi
		done
		[ $ok = 1 ] && { echo $g; return; }
	done
}
fused_refresh_case() {
	reset; rm -rf "$R" "$T/g1" "$T/g2"; mkdir -p "$R/d"
	echo one-a > "$R/a"; echo one-b > "$R/d/b"; head -c 300000 /dev/urandom > "$R/big"
	start_famfsd --fused "$FAMFS_FUSED"
	kill_cluster "$T/mnt.yaml" <<EOT
mounts:
  - {name: m, filesystem: fs0, host: testhost, path: $T/mnt, role: master, backend: fuse}
datasets:
  - {name: ds, source: $R, filesystem: fs0, keep: 0}
EOT
	$CLI apply "$T/mnt.yaml" > "$T/apply.out" 2>&1 || fail "$1: first apply: $(cat "$T/apply.out")"
	cp -a "$R" "$T/g1"
	echo two-a > "$R/a"; rm "$R/d/b"; echo two-c > "$R/c"; head -c 300000 /dev/urandom > "$R/big"
	cp -a "$R" "$T/g2"
	stop_famfsd
	FAMFSD_WRAP="env FAMFS_KILL_AT=$1 FAMFS_KILL_SIGNAL=STOP" start_famfsd --fused "$FAMFS_FUSED"
	wait_for 20 "$1: the adopted master mount" mount_state mounted
	$CLI apply --no-wait "$T/mnt.yaml" > "$T/apply.out" 2>&1 &
	local apid=$! spid g st
	wait_for 60 "$1: famfsd to stop at the point" stopped
	# (a failure here continues famfsd first, so that cleanup stops it)
	grep -q "famfs kill point ${1%%:*}:[0-9]* (stopped)" "$LOG" ||
		{ kill -CONT "$FAMFSD_PID"; fail "$1: famfsd stopped elsewhere"; }
	spid=$(pgrep -f "famfs-fused.* $T/mnt\$")
	[ -n "$spid" ] || { kill -CONT "$FAMFSD_PID"; fail "$1: no famfs-fused serves $T/mnt"; }
	kill -KILL $spid
	wait_for 10 "$1: famfs-fused to die" eval "! kill -0 $spid 2>/dev/null"
	kill -CONT "$FAMFSD_PID"
	wait $apid
	covered="$covered ${1%%:*}"
	cases=$((cases + 1))
	wait_for 90 "$1: the refresh job to end" jobs_idle
	api GET /v1/jobs
	st=$(python3 -c 'import json, sys
j = [j for j in json.loads(sys.argv[1])["items"] if j["kind"] == "ingest"][-1]
print(j["state"], j["error"])' "$BODY")
	wait_for 30 "$1: the restarted master mount" mount_state mounted
	g=$(gen_at_mnt)
	[ -n "$g" ] || fail "$1: /ds through the mount is neither generation whole (job: $st)"
	$CLI apply "$T/mnt.yaml" > "$T/apply.out" 2>&1 || fail "$1: apply again: $(cat "$T/apply.out")"
	$CLI apply "$T/mnt.yaml" > "$T/apply.out" 2>&1 && grep -q "^No changes" "$T/apply.out" ||
		fail "$1: the third apply: $(cat "$T/apply.out")"
	api GET /v1/datasets/ds
	[ "$(jq_get "$BODY" .generation)" = 2 ] && [ "$(jq_get "$BODY" .state)" = ready ] ||
		fail "$1: after apply again: $BODY"
	[ "$(gen_at_mnt)" = g2 ] || fail "$1: /ds is not generation 2 whole after apply again"
	[ -e "$T/mnt/.famfs-staging/ds.2" ] && fail "$1: the staging tree is left"
	if [ -e "$T/mnt/.famfs-retired/ds.1" ]; then
		grep -q '"path": *"/.famfs-retired/ds.1", *"state": *"kept"' <<<"$BODY" ||
			fail "$1: /.famfs-retired/ds.1 is left but not listed: $BODY"
		cmp -s "$T/mnt/.famfs-retired/ds.1/big" "$T/g1/big" || fail "$1: kept generation 1 not whole"
	fi
	$CLI fsck -q "$T/mnt" > "$T/fsck" 2>&1 || fail "$1: fsck: $(cat "$T/fsck")"
	api DELETE /v1/mounts/m; expect 204
	wait_for 10 "$1: the unmount" test "$(mounts_at)" = 0
	fsck_clean "$1"
	pass "$1: famfs-fused killed under a refresh, /ds showed $g whole, the job ended ($st), apply again converged"
}
if have_fuse; then
	for p in dataset.staging_made ingest.copied:2 dataset.exchanged dataset.switched; do
		fused_refresh_case $p
	done
fi

missing=""
for p in $(grep -rhoE --include='*.c' 'FAMFS_KILL_POINT\("[a-z_.]+"\)' "$SOURCE_DIR/famfsd" \
	   "$SOURCE_DIR/famfs-cli" |
	   sed -E 's/.*\("(.*)"\)/\1/' | sort -u); do
	case " $covered " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] || fail "famfsd points never killed at:$missing"
n=$(echo $covered | tr ' ' '\n' | sort -u | wc -l)
echo "kill matrix (famfsd): $n points, $cases cases, $cases passed"
