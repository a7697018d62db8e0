#!/usr/bin/env python3
"""stdin/stdout <-> TCP, for QEMU's `guestfwd=tcp:IP:PORT-cmd:tcp_bridge.py HOST PORT`:
QEMU starts it for each guest connection to IP:PORT; it connects to
HOST:PORT on this machine (rnic-perf's server) and copies both ways."""
import os
import select
import socket
import sys

sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
fin, fout = sys.stdin.fileno(), sys.stdout.fileno()
watch = [fin, sock]
while watch:
    ready, _, _ = select.select(watch, [], [])
    if fin in ready:
        data = os.read(fin, 65536)
        if data:
            sock.sendall(data)
        else:
            sock.shutdown(socket.SHUT_WR)
            watch.remove(fin)
    if sock in ready:
        data = sock.recv(65536)
        if not data:
            break
        os.write(fout, data)
