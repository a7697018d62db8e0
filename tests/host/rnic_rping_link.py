#!/usr/bin/env python3
"""rnic-rping without a virtual machine: two rnic-rping processes, each with
its own simulated NIC whose port is a UDP socket aimed at the other's (the
--sim-link of rnic-perf), a server (-s) and a client (-c -C N -V -v). The
connection manager runs over each NIC's QP1. Both must exit 0; the client
must print every ping's data as rping makes it ("rdma-ping-K: " and the
rotating run of A..z) and say validated, the server must print each ping it
read; the client's capture must hold exactly REQ, REP, RTU, DREQ and DREP
to QP1 from the right sides (tests/e2e/check_pcap.py --cm, tshark) and
carry good ICRCs. The docs/interop.md runs have Linux rping as the peer.

    rnic_rping_link.py [--count N] [--size N] [--width 64|512]
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RPING = os.path.join(ROOT, 'build', 'bin', 'rnic-rping')
SERVER_IP, CLIENT_IP = '10.0.0.2', '10.0.0.1'
SERVER_MAC, CLIENT_MAC = '02:00:00:00:00:0b', '02:00:00:00:00:0a'


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def ping_text(k, size):
    """rping's ping k of a client: the format, then letters from 'A' + k % 58,
    wrapping after 'z', the last byte a NUL."""
    head = f'rdma-ping-{k}: '
    c = 65 + k % 58
    tail = []
    for _ in range(len(head), size - 1):
        tail.append(chr(c))
        c = 65 if c + 1 > 122 else c + 1
    return (head + ''.join(tail))[:size - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--count', type=int, default=10)
    ap.add_argument('--size', type=int, default=64)
    ap.add_argument('--width', type=int, default=64)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix='rnic-rping-') as tmp:
        return run(args, os.path.join(tmp, 'client.pcap'))


def run(args, pcap):
    ps, pc = free_port(), free_port()
    common = ['-p', '7174', '-S', str(args.size), '-v', '-d', '--timeout', '120', '--width', str(args.width)]
    # the server has no --peer-mac: it answers through the REQ's source MAC
    # (the receive completion's smac), as the CM must for a real peer
    srv = subprocess.Popen([RPING, '-s', '-a', SERVER_IP,
                            '--mac', SERVER_MAC, '--sim-link', f'udp:127.0.0.1:{ps},127.0.0.1:{pc}'] + common,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # the client once the server listens: a REQ before that finds no QP1
    # in RTS and is sent again after the CM's timeout (two REQs on the wire)
    head = []
    for line in srv.stdout:
        head.append(line)
        if 'listening on' in line:
            break
    cli = subprocess.run([RPING, '-c', '-a', SERVER_IP, '-I', CLIENT_IP, '--peer-mac', SERVER_MAC,
                          '--mac', CLIENT_MAC, '--sim-link', f'udp:127.0.0.1:{pc},127.0.0.1:{ps}',
                          '-C', str(args.count), '-V', '--pcap', pcap] + common,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
    try:
        sout = srv.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        srv.kill()
        sout = srv.communicate()[0]
    sout = ''.join(head) + sout
    print(cli.stdout, end='')
    print(sout, end='')
    fails = []
    if cli.returncode != 0:
        fails.append(f'client exit {cli.returncode}')
    if srv.returncode != 0:
        fails.append(f'server exit {srv.returncode}')
    got = re.findall(r'^ping data: (.*)$', cli.stdout, re.M)
    want = [ping_text(k, args.size) for k in range(args.count)]
    if got != want:
        fails.append(f'client ping data: {len(got)} lines, want {len(want)} as rping makes them')
    sgot = re.findall(r'^server ping data: (.*)$', sout, re.M)
    if sgot != want:
        fails.append(f'server ping data: {len(sgot)} lines, want {len(want)}')
    if not re.search(rf'^rnic-rping: client: {args.count} pings of {args.size} bytes, validated', cli.stdout, re.M):
        fails.append('the client does not say validated')
    if not re.search(rf'^rnic-rping: server: {args.count} pings', sout, re.M):
        fails.append('the server does not count the pings')
    cm = f'REQ@{CLIENT_IP},REP@{SERVER_IP},RTU@{CLIENT_IP},DREQ@{CLIENT_IP},DREP@{SERVER_IP}'
    chk = subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'e2e', 'check_pcap.py'),
                          '--min-frames', str(5 + 6 * args.count), '--cm', cm, pcap],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(chk.stdout, end='')
    if chk.returncode != 0:
        fails.append('the capture')
    for f in fails:
        print('FAIL', f)
    print('rnic_rping_link:', 'FAIL' if fails else 'ok')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
