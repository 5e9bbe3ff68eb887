# Sourced by vm-boot.sh and vm-twohost.sh: the guest CPU's flags beyond
# -cpu max. QEMU 7.2 emulates CXL memory as MMIO: every guest load from
# it is one callback through the HDM decoders, whatever its width. With
# ERMS/FSRM the guest kernel copies from pmem with `rep movsb`
# (copy_mc_enhanced_fast_string, memcpy_erms), one byte per callback;
# without them, 8 bytes (rep movsq / memcpy_orig). Measured on the 6.1
# guest: reading 16 MiB of an fsdax namespace (dd iflag=direct) 5.7 s
# -> 0.66 s; through the page cache 4.4-8.8 s -> 0.6 s (docs/testing.md,
# "Guest CPU work cut"). The copy routines are the kernel's own, not
# famfs's: the module's read, fault and iomap paths are the same.
FAMFS_VM_CPU_FLAGS=${FAMFS_VM_CPU_FLAGS--erms,-fsrm}
# FAMFS_VM_CPU_FLAGS= (empty) boots plain -cpu max, to compare.
