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

perftest's options, each on both sides: -R (rdma_cm: the exchange on a
control QP and every QP connected by the library's CM over QP1; the
client names the server's address on the link, and each side must say it
connected that way), -q 4 (four QPs, each with its own
key line; every QP -n messages, so four times the requests, and every QP's
QPN printed), -a (every size 2 B .. 1 MiB, -n 2: the requests of all
sizes), -I 64 (64-byte WRITEs and SENDs inline), --json (both files
parsed: a row per size, the client's with its timings, the server's
marked as driven by the peer, all verified), -g -M (multicast: the side
that receives names the group and the multicast QPN in its key, its
Multicast line says it joined the group, the sender's that it sent there)
and --mw 1|2 (memory windows: each side's Memory window line names the
type, the test's one right and the MR's rkey; the rkey in each side's key
is not the MR's, and is the one the other side's requests must name: the
peer's rkey of every QP line equals our own of the same line on the other
side, and the wire model refuses a request with any other rkey).

    rnic_perf_link_pair.py [CASE...]     (CASE: a test name, or one of CASES' names)
"""
import json
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


ALL_MAX = 1 << 20                      # -a with --sim-link: 2 B .. 1 MiB
MGID = '0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3'   # -g's group, ::ffff:239.1.2.3
GROUP = '0000:0000:0000:0000:0000:ffff:ef01:0203'

# name: (test, options of both sides, size (None: the test's own), iterations, QPs, sizes)
CASES = {
    'write_bw-q4': ('write_bw', ['-q', '4'], SIZE, ITERS, 4, None),
    'send_bw-q4': ('send_bw', ['-q', '4'], SIZE, ITERS, 4, None),
    'read_bw-a': ('read_bw', ['-a', '-n', '1', '-m', '4096', '--width', '512'], None, 1, 1, 'all'),
    'send_bw-a-q2': ('send_bw', ['-a', '-n', '1', '-q', '2', '-m', '4096', '--width', '512'], None, 1, 2, 'all'),
    'write_lat-a': ('write_lat', ['-a', '-n', '2', '-m', '4096', '--width', '512'], None, 2, 1, 'all'),
    'write_bw-a': ('write_bw', ['-a', '-n', '1', '-m', '4096', '--width', '512'], None, 1, 1, 'all'),
    'send_bw-I64': ('send_bw', ['-I', '64', '-s', '64'], 64, ITERS, 1, None),
    # one SRQ for 4 QPs, 2 receives each in flight: slots reused, WQEs taken
    # by the QPs in turn and completed out of the SRQ's order
    # UD (perftest's -c UD): 1 KiB messages at MTU 1024, GRH area checked
    'send_bw-ud-q2': ('send_bw', ['-c', 'UD', '-q', '2', '-s', '1024'], 1024, ITERS, 2, None),
    'send_lat-ud': ('send_lat', ['-c', 'UD'], 2, ITERS, 1, None),
    # multicast (perftest's -g, -M an IPv4 group): send_bw's server joins,
    # both sides of send_lat do; the GRH area must name the group
    'send_bw-g': ('send_bw', ['-g', '-M', MGID, '-s', '1024'], 1024, ITERS, 1, None),
    'send_lat-g': ('send_lat', ['-g', '-M', MGID], 2, ITERS, 1, None),
    'send_bw-q4-srq': ('send_bw', ['-q', '4', '--use-srq', '-t', '2'], SIZE, ITERS, 4, None),
    'write_lat-I64': ('write_lat', ['-I', '64', '-s', '64'], 64, ITERS, 1, None),
    'atomic_bw-q4-json': ('atomic_bw', ['-q', '4', '--json', '{json}'], 8, ITERS, 4, None),
    'write_bw-json': ('write_bw', ['--json', '{json}'], SIZE, ITERS, 1, None),
    # perftest's -R: no TCP; the exchange is SENDs on a control QP the CM
    # connects, and every data QP is connected by a CM connection of its own
    # (PSNs the CM's); the client names the server's address on the link
    'write_bw-R': ('write_bw', ['-R'], SIZE, ITERS, 1, None),
    'read_bw-R-q2': ('read_bw', ['-R', '-q', '2'], SIZE, ITERS, 2, None),
    'send_bw-R': ('send_bw', ['-R'], SIZE, ITERS, 1, None),
    'send_lat-R': ('send_lat', ['-R'], 2, ITERS, 1, None),
    'write_lat-R': ('write_lat', ['-R'], 2, ITERS, 1, None),
    'read_lat-R': ('read_lat', ['-R'], 2, ITERS, 1, None),
    'atomic_bw-R': ('atomic_bw', ['-R'], 8, ITERS, 1, None),
    # memory windows over each QP's buffer (the MR grants no remote access)
    'write_bw-mw1': ('write_bw', ['--mw', '1'], SIZE, ITERS, 1, None),
    'read_bw-mw2-q2': ('read_bw', ['--mw', '2', '-q', '2'], SIZE, ITERS, 2, None),
    'atomic_bw-mw2-q2': ('atomic_bw', ['--mw', '2', '-q', '2'], 8, ITERS, 2, None),
    'write_lat-mw1': ('write_lat', ['--mw', '1'], 2, ITERS, 1, None),
    'read_lat-mw2': ('read_lat', ['--mw', '2'], 2, ITERS, 1, None),
    'write_bw-mw2-R': ('write_bw', ['--mw', '2', '-R'], SIZE, ITERS, 1, None),
}

RIGHT = {'write_bw': 'REMOTE_WRITE', 'write_lat': 'REMOTE_WRITE', 'read_bw': 'REMOTE_READ',
         'read_lat': 'REMOTE_READ', 'atomic_bw': 'REMOTE_ATOMIC'}


def check_mw(test, mw, qps, outs):
    """--mw: both sides' window lines, and the rkeys each QP line shows."""
    keys = {}
    for side, out in outs.items():
        m = re.search(r'Memory window : type (\d) per QP over its \d+ bytes, VA-based, (\w+) only; '
                      r"the MR's rkey (0x[0-9a-f]+) grants no remote access", out)
        if not m or m.group(1) != mw or m.group(2) != RIGHT[test]:
            return f'{side}: Memory window line {m and m.group(0)}, want type {mw}, {RIGHT[test]}'
        keys[side] = re.findall(r"remote QPN (0x[0-9a-f]+) PSN 0x[0-9a-f]+  rkey ours (0x[0-9a-f]+) "
                                r"peer's (0x[0-9a-f]+)", out)
        if len(keys[side]) != qps or any(k[1] == m.group(3) for k in keys[side]):
            return f'{side}: rkeys {keys[side]}: want {qps}, none the MR\'s {m.group(3)}'
    for a, b in (('server', 'client'), ('client', 'server')):
        if [k[1] for k in keys[a]] != [k[2] for k in keys[b]]:
            return f'{a}\'s window rkeys {[k[1] for k in keys[a]]}, but {b} was given {[k[2] for k in keys[b]]}'
    return None


def sizes_of(size, sizes):
    if sizes == 'all':
        return [1 << i for i in range(1, ALL_MAX.bit_length())]
    return [size or SIZE]


def expected(test, drives, size=SIZE, iters=ITERS, qps=1, sizes=None, mtu=MTU):
    """Request packets the passive side's wire model must accept."""
    n = 0
    for s in sizes_of(size, sizes):
        pkts = -(-s // mtu)
        if test in ('write_lat', 'send_lat'):
            n += iters * pkts
        elif not drives:
            n += {'write_bw': iters * pkts, 'send_bw': iters * pkts, 'read_bw': iters,
                  'read_lat': iters, 'atomic_bw': iters}[test]
    return n * qps


def check_json(path, test, side, size, iters, qps, sizes, mtu=MTU):
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        return f'{path}: {e}'
    want = sizes_of(size, sizes)
    if [r.get('bytes') for r in rows] != want:
        return f'{path}: sizes {[r.get("bytes") for r in rows]}, want {want}'
    for r in rows:
        if (r.get('test') != test or r.get('iterations') != iters or r.get('qps') != qps
                or r.get('verified') is not True or r.get('role') != side or r.get('mtu') != mtu):
            return f'{path}: row {r}'
        if side == 'client':
            rate = r.get('bw_avg_mb_per_sec', r.get('t_avg_usec'))
            if not (isinstance(rate, float) and rate > 0 and r.get('cycles', 0) > 0):
                return f'{path}: no timing in {r}'
        elif r.get('peer_drove') is not True or 'cycles' in r:
            return f'{path}: the server has timings: {r}'
    return None


def run(name):
    test, extra, size, iters, qps, sizes = CASES.get(name, (name, [], SIZE, ITERS, 1, None))
    if test == 'atomic_bw':
        size = 8
    ua, ub = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM)
    tcp = free_port(socket.SOCK_STREAM)
    common = ['-m', str(MTU), '-n', str(ITERS), '-p', str(tcp), '--time-limit', '120', '--width', '64']
    if size == SIZE:
        common += ['-s', str(SIZE)]
    tmp = os.environ.get('TMPDIR', '/tmp')
    jpath = {side: os.path.join(tmp, f'rnic_perf_link_{os.getpid()}_{side}.json') for side in ('server', 'client')}
    opts = {side: [a.replace('{json}', jpath[side]) for a in extra] for side in jpath}
    srv = [PERF, test, '--sim-link', f'udp:127.0.0.1:{ua},127.0.0.1:{ub}', '--mac', '02:00:00:00:00:0a',
           '--ip', '198.18.0.1', '--peer-mac', '02:00:00:00:00:0b', '--seed', '7'] + common + opts['server']
    cli = [PERF, test, '--sim-link', f'udp:127.0.0.1:{ub},127.0.0.1:{ua}', '--mac', '02:00:00:00:00:0b',
           '--ip', '198.18.0.2', '--peer-mac', '02:00:00:00:00:0a', '--seed', '8'] + common + opts['client'] + \
        ['198.18.0.1' if '-R' in extra else '127.0.0.1']
    ps = subprocess.Popen(srv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    head = ''
    if '-R' in extra:
        # the CM's listener: the server says when it is there
        while 'listening on port' not in head:
            line = ps.stdout.readline()
            if not line:
                break
            head += line
    # the server listens once its NIC is up; the client retries until then
    for _ in range(100):
        pc = subprocess.run(cli, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=180)
        if 'Connection refused' not in pc.stdout:
            break
    out_s, _ = ps.communicate(timeout=180)
    out_s = head + out_s
    ok = True
    if '--mw' in extra:
        why = check_mw(test, extra[extra.index('--mw') + 1], qps, {'server': out_s, 'client': pc.stdout})
        if why:
            print(f'{name}: {why}\n{out_s}\n{pc.stdout}')
            ok = False
    for side, rc, out, drives in (('server', ps.returncode, out_s, False), ('client', pc.returncode, pc.stdout, True)):
        m = re.search(r'link: (\d+) frames sent, \d+ lost \(--drop\), (\d+) received, .*in PSN order: (\d+); verified: (\w+)', out)
        mtu = int(extra[extra.index('-m') + 1]) if '-m' in extra else MTU
        want = expected(test, drives, size, iters, qps, sizes, mtu)
        # UD: no ACKs, so the receiving side sends nothing and the
        # sending side receives nothing
        mcg = '-g' in extra
        ud = ('UD' in extra or mcg) and test == 'send_bw'   # send_lat: both sides send
        good = (rc == 0 and m is not None and m.group(4) == 'yes' and int(m.group(3)) == want
                and (int(m.group(1)) == 0 if ud and not drives else int(m.group(1)) > 0)
                and (int(m.group(2)) == 0 if ud and drives else int(m.group(2)) > 0))
        why = '' if good else f'want {want} requests in PSN order'
        # every QP's line, each with a QPN of its own
        qpns = re.findall(r'local QPN (0x[0-9a-f]+) PSN 0x[0-9a-f]+  remote QPN (0x[0-9a-f]+)', out)
        if good and (len(qpns) != qps or len({q[0] for q in qpns}) != qps or len({q[1] for q in qpns}) != qps):
            good, why = False, f'{len(qpns)} QP lines, want {qps} different ones'
        inl = re.search(r'Max inline data : (\d+)\[B\]', out)
        want_inl = extra[extra.index('-I') + 1] if '-I' in extra else '0'
        if good and (inl is None or inl.group(1) != want_inl):
            good, why = False, f'max inline data, want {want_inl}'
        srq = re.search(r'Using SRQ : (ON|OFF)', out)
        want_srq = 'ON' if '--use-srq' in extra else 'OFF'
        if good and (srq is None or srq.group(1) != want_srq):
            good, why = False, f'Using SRQ, want {want_srq}'
        conn = re.search(r'Connection type : (RC|UD)', out)
        want_conn = 'UD' if 'UD' in extra or mcg else 'RC'
        if good and (conn is None or conn.group(1) != want_conn):
            good, why = False, f'connection type, want {want_conn}'
        grp = re.search(r'Multicast : joined (\S+)  sent to (\S+)', out)
        joins = mcg and (test == 'send_lat' or not drives)
        sends = mcg and (test == 'send_lat' or drives)
        if good and mcg and (grp is None or grp.group(1) != (GROUP if joins else 'none')
                             or grp.group(2) != (GROUP if sends else 'none')):
            good, why = False, f'multicast line {grp and grp.group(0)}, want joined {joins}, sent {sends}'
        # every QP line: the peer that joined names the multicast QPN
        if good and mcg and sends and (not qpns or qpns[0][1] != '0xffffff'):
            good, why = False, f'remote QPN {qpns and qpns[0][1]}, want 0xffffff (the group)'
        lat_pingpong = test in ('write_lat', 'send_lat')   # both sides time it
        if good and drives and not lat_pingpong or good and lat_pingpong:
            rows = re.findall(r'^ (\d+) +(\d+) +\d+\.\d+', out, re.M)
            if [int(r[0]) for r in rows] != sizes_of(size, sizes) or any(int(r[1]) != iters for r in rows):
                good, why = False, f'result rows {rows}, want sizes {sizes_of(size, sizes)} x {iters}'
        if good and '--json' in extra:
            why = check_json(jpath[side], test, side, size, iters, qps, sizes, mtu)
            good = why is None
        # -R: no TCP at all; the QPs are the CM's
        if good and '-R' in extra and not re.search(r'Connected by : rdma_cm', out):
            good, why = False, 'no "Connected by : rdma_cm" line'
        if good and '-R' not in extra and not re.search(r'Connected by : the exchange', out):
            good, why = False, 'no "Connected by : the exchange" line'
        if not good:
            print(f'{name} {side}: exit {rc}, {why}\n{out}')
        ok &= good
    for p in jpath.values():
        if os.path.exists(p):
            os.unlink(p)
    print(f'{name:<18} {"ok" if ok else "FAILED"}')
    return ok


def main():
    names = sys.argv[1:] or ['write_bw', 'read_bw', 'send_bw', 'atomic_bw', 'write_lat', 'read_lat', 'send_lat']
    results = [run(t) for t in names]
    print(f'{sum(results)} passed, {len(results) - sum(results)} failed')
    sys.exit(0 if all(results) else 1)


if __name__ == '__main__':
    main()
