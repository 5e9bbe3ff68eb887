#!/bin/bash
# pkg.boot DEBDIR WORK: the install test no unit test can fake.
#  1. mmdebstrap a clean Debian 12 root; `apt-get install ./famfs*.deb` in
#     it, the dependencies coming from the archive;
#  2. an ext4 disk image of it with mkfs.ext4 -d (no loop device), the
#     guest kernel's modules it needs, a busybox initramfs that mounts it
#     and hands over to systemd as PID 1;
#  3. boot it in QEMU (TCG) with the host's /boot/vmlinuz of
#     linux-image-amd64; guest-pkgtest.sh runs there (socket activation,
#     famfs-cli get devices, examples/cluster.yaml, clean stop, purge) and
#     its results are read back from the serial console.
# The downloaded archive .debs are kept in WORK/apt-cache (in the build
# dir) so a rerun downloads nothing new; a clean tree recreates it.
set -eu
DEBS=$(cd "$1" && pwd)
W=$(mkdir -p "$2" && cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
for t in mmdebstrap qemu-system-x86_64 mkfs.ext4 busybox; do
	command -v $t >/dev/null || { echo "skip: no $t"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skip: mmdebstrap root mode needs root"; exit 77; }
KVER=$(ls /lib/modules | grep -- '-amd64$' | sort -V | tail -1)
KIMG=/boot/vmlinuz-$KVER
[ -r "$KIMG" ] || { echo "skip: no $KIMG"; exit 77; }
pkgs=()
for p in libfamfs0 famfs famfsd; do
	f=$(ls "$DEBS"/${p}_*_amd64.deb)
	pkgs+=("$f")
done
names=$(for f in "${pkgs[@]}"; do printf './%s ' "$(basename "$f")"; done)
start=$(date +%s)
rm -rf "$W/root" "$W/initrd" "$W/disk.img" "$W/console.log"
mkdir -p "$W/apt-cache"

mods=$(for m in virtio_pci virtio_blk ext4 fuse; do
	modprobe -S "$KVER" --show-depends $m; done | awk '$1 == "insmod" { print $2 }' | awk '!s[$0]++')
# No udev: nothing here needs it (the disk is mounted by the initramfs,
# famfsd's emul devices are files in /dev/shm, /dev/fuse is devtmpfs's);
# its install compiles the hwdb and its coldplug takes ~8 s of the guest.
mmdebstrap --variant=apt --include=systemd,systemd-sysv,kmod,procps \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
	--setup-hook="sync-in $W/apt-cache /var/cache/apt/archives/" \
	--customize-hook="copy-in ${pkgs[*]} /root" \
	--customize-hook="chroot \"\$1\" sh -c 'cd /root && apt-get install -y $names'" \
	--customize-hook="sync-out /var/cache/apt/archives $W/apt-cache" \
	--customize-hook="upload $HERE/guest-pkgtest.sh /usr/local/sbin/famfs-pkgtest" \
	--customize-hook='chmod 755 "$1"/usr/local/sbin/famfs-pkgtest' \
	--customize-hook='echo node0 >"$1"/etc/hostname' \
	--customize-hook='printf "%s\n" "[Unit]" "Description=famfs package install test" \
		"After=multi-user.target" "[Service]" "Type=oneshot" \
		"ExecStart=/usr/local/sbin/famfs-pkgtest" "StandardOutput=tty" \
		"StandardError=tty" "TTYPath=/dev/ttyS0" "[Install]" \
		"WantedBy=multi-user.target" >"$1"/etc/systemd/system/famfs-pkgtest.service' \
	--customize-hook='ln -s ../famfs-pkgtest.service "$1"/etc/systemd/system/multi-user.target.wants/' \
	--customize-hook='ln -s /dev/null "$1"/etc/systemd/system/serial-getty@ttyS0.service' \
	--customize-hook='ln -s /dev/null "$1"/etc/systemd/system/getty@tty1.service' \
	--customize-hook='ln -s /dev/null "$1"/etc/systemd/system/getty-static.service' \
	--skip=download/empty bookworm "$W/root" >"$W/mmdebstrap.log" 2>&1 ||
	{ tail -30 "$W/mmdebstrap.log"; echo "FAIL: mmdebstrap (log $W/mmdebstrap.log)"; exit 1; }
grep -q "Setting up famfsd (0.1.0)" "$W/mmdebstrap.log" || { echo "FAIL: famfsd not installed by apt"; exit 1; }
# the guest kernel's modules the root needs (fuse; the initramfs loads
# the rest), at their paths, with their index
for m in $mods; do install -D -m644 "$m" "$W/root$m"; done
cp /lib/modules/"$KVER"/modules.{order,builtin,builtin.modinfo} "$W/root/lib/modules/$KVER/"
depmod -b "$W/root" "$KVER"
t_root=$(($(date +%s) - start))

# initramfs: busybox, the block and ext4 modules, an /init that mounts
# /dev/vda and switches to systemd
I=$W/initrd
mkdir -p "$I"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$(command -v busybox)" "$I/bin/busybox"
for a in sh mount insmod switch_root sleep cat; do ln -s busybox "$I/bin/$a"; done
for m in $mods; do case $m in */fuse.ko*) ;; *) cp "$m" "$I/lib/modules/" ;; esac; done
{
	echo '#!/bin/sh'
	echo 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev'
	for m in $mods; do case $m in */fuse.ko*) ;; *) echo "insmod /lib/modules/$(basename "$m") 2>/dev/null";; esac; done
	echo 'for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done'
	echo 'mount -t ext4 -o rw /dev/vda /newroot || { echo "PKGTEST FAIL initramfs: cannot mount /dev/vda"; exec sh; }'
	echo 'umount /proc /sys; mount --move /dev /newroot/dev 2>/dev/null || umount /dev'
	echo 'exec switch_root /newroot /lib/systemd/systemd'
} >"$I/init"
chmod 755 "$I/init"
(cd "$I" && find . | cpio -o -H newc --quiet | gzip -1) >"$W/initrd.gz"
truncate -s 1G "$W/disk.img"
mkfs.ext4 -q -F -d "$W/root" -L famfsroot "$W/disk.img"

t0=$(date +%s)
timeout 900 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 1536 \
	-nographic -no-reboot -kernel "$KIMG" -initrd "$W/initrd.gz" \
	-append "console=ttyS0 root=/dev/vda rw panic=-1 quiet systemd.show_status=0" \
	-drive "file=$W/disk.img,format=raw,if=virtio" -nic none \
	</dev/null >"$W/console.log" 2>&1 || true
t_boot=$(($(date +%s) - t0))
tr -d '\r' <"$W/console.log" | grep '^PKGTEST' || true
echo "times: root+apt ${t_root}s, image+boot+test ${t_boot}s, total $(($(date +%s) - start))s"
tr -d '\r' <"$W/console.log" | grep -qx 'PKGTEST result=PASS' || {
	echo "FAIL: the guest did not report PKGTEST result=PASS (console: $W/console.log)"
	tr -d '\r' <"$W/console.log" | tail -40
	exit 1
}
n=$(tr -d '\r' <"$W/console.log" | grep -c '^PKGTEST ok ')
[ "$n" -ge 6 ] || { echo "FAIL: only $n checks passed"; exit 1; }
echo "ok: installed root booted with systemd, $n guest checks passed"
