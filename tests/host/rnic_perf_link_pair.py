#!/usr/bin/env python3
"""rnic-perf --sim-link without a virtual machine: two rnic-perf processes,
each with its own simulated NIC whose port is a UDP socket aimed at the
other's, meet through perftest's exchange on 127.0.0.1 and run one test
(write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat). Both must exit
0 and say `verified: yes`; the side whose peer drives the traffic must have
seen exactly the expected request packets in PSN order on the wire (WRITE
and SEND: messages x packets each; READ: one request per message; atomics:
one each; write_lat: both sides one per message), and both links must have
carried frames both ways. The docs/interop.md runs have Linux rdma_rxe as
the peer; this one needs neither QEMU nor root.

    rnic_perf_link_pair.py [TEST...]
"""
import os
import re
import socket
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PERF = os.path.join(ROOT, 'build', 'bin', 'rnic-perf')
MTU, SIZE, ITERS = 1024, 3000, 6      # 3 packets per WRITE/SEND message


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(('127.0.0.1', 0))
    p = s.getsockname()[1]
    s.close()
    return p


def expected(test, drives):
    """Request packets the passive side's wire model must accept."""
    pkts = -(-SIZE // MTU)
    if test == 'write_lat':
        return ITERS * pkts
    if drives:
        return 0
    return {'write_bw': ITERS * pkts, 'send_bw': ITERS * pkts, 'read_bw': ITERS,
            'read_lat': ITERS, 'atomic_bw': ITERS}[test]


def run(test):
    ua, ub = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM)
    tcp = free_port(socket.SOCK_STREAM)
    common = ['-m', str(MTU), '-n', str(ITERS), '-p', str(tcp), '--time-limit', '120', '--width', '64']
    if test != 'atomic_bw':
        common += ['-s', str(SIZE)]
    srv = [PERF, test, '--sim-link', f'udp:127.0.0.1:{ua},127.0.0.1:{ub}', '--mac', '02:00:00:00:00:0a',
           '--ip', '198.18.0.1', '--peer-mac', '02:00:00:00:00:0b', '--seed', '7'] + common
    cli = [PERF, test, '--sim-link', f'udp:127.0.0.1:{ub},127.0.0.1:{ua}', '--mac', '02:00:00:00:00:0b',
           '--ip', '198.18.0.2', '--peer-mac', '02:00:00:00:00:0a', '--seed', '8'] + common + ['127.0.0.1']
    ps = subprocess.Popen(srv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # the server listens once its NIC is up; the client retries until then
    for _ in range(100):
        pc = subprocess.run(cli, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
        if 'Connection refused' not in pc.stdout:
            break
    out_s, _ = ps.communicate(timeout=180)
    ok = True
    for side, rc, out, drives in (('server', ps.returncode, out_s, False), ('client', pc.returncode, pc.stdout, True)):
        m = re.search(r'link: (\d+) frames sent, \d+ lost \(--drop\), (\d+) received, .*in PSN order: (\d+); verified: (\w+)', out)
        want = expected(test, drives)
        good = (rc == 0 and m is not None and m.group(4) == 'yes' and int(m.group(1)) > 0
                and int(m.group(2)) > 0 and int(m.group(3)) == want)
        if not good:
            print(f'{test} {side}: exit {rc}, want {want} requests in PSN order\n{out}')
        ok &= good
    print(f'{test:<10} {"ok" if ok else "FAILED"}')
    return ok


def main():
    tests = sys.argv[1:] or ['write_bw', 'read_bw', 'send_bw', 'atomic_bw', 'write_lat', 'read_lat']
    results = [run(t) for t in tests]
    print(f'{sum(results)} passed, {len(results) - sum(results)} failed')
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    main()
