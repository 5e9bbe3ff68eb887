#!/usr/bin/env python3
"""A NOTIFY_SOCKET stand-in for systemd: prints every datagram, one per line
(newlines inside a message become '|'), to the file given, until killed.
With --activate SOCK -- CMD...: also bind a listening Unix socket at SOCK
and exec CMD with it as fd 3 and LISTEN_FDS=1/LISTEN_PID set, the way
systemd socket activation does."""
import os, socket, sys

def listen(path, out):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    with open(out, "a", buffering=1) as f:
        print("listening", file=f)
        while True:
            msg = s.recv(4096).decode()
            print(msg.replace("\n", "|"), file=f)

def activate(sock, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(sock)
    os.chmod(sock, 0o660)
    s.listen(16)
    if s.fileno() != 3:
        os.dup2(s.fileno(), 3)
    os.set_inheritable(3, True)
    os.environ["LISTEN_FDS"] = "1"
    os.environ["LISTEN_PID"] = str(os.getpid())
    os.execvp(cmd[0], cmd)

if sys.argv[1] == "--activate":
    activate(sys.argv[2], sys.argv[4:])
else:
    listen(sys.argv[1], sys.argv[2])
