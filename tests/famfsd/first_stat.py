#!/usr/bin/env python3
"""first_stat.py PATH TIMEOUT: wait (inotify, IN_CREATE on PATH's
directory) until PATH is created, stat it at once and print its mode and
group: a socket must be born with its final permissions, not get them a
moment later. Exits 1 if PATH did not appear within TIMEOUT seconds."""
import ctypes, grp, os, select, stat, struct, sys

path, timeout = sys.argv[1], float(sys.argv[2])
d, name = os.path.split(path)
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
IN_CREATE, IN_MOVED_TO = 0x100, 0x80
if fd < 0 or libc.inotify_add_watch(fd, d.encode(), IN_CREATE | IN_MOVED_TO) < 0:
    sys.exit("inotify: %s" % os.strerror(ctypes.get_errno()))
print("watching", file=sys.stderr, flush=True)
while True:
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        sys.exit("timeout: %s did not appear" % path)
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf):
        _, _, _, n = struct.unpack_from("iIII", buf, off)
        ev = buf[off + 16:off + 16 + n].rstrip(b"\0").decode()
        off += 16 + n
        if ev == name:
            st = os.lstat(path)
            print("%o %s" % (stat.S_IMODE(st.st_mode),
                             grp.getgrgid(st.st_gid).gr_name))
            sys.exit(0)
