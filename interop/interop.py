#!/usr/bin/env python3
"""Linux Soft-RoCE (rdma_rxe) in QEMU as the judge of the simulated NIC.

Boots one guest (interop/build_initramfs.sh's kernel and initramfs, TCG),
its eth0 on QEMU's -netdev dgram to the simulated NIC's UDP socket, its eth1
on -netdev user for perftest's TCP exchange (hostfwd: we reach the guest's
server; guestfwd: the guest's client reaches ours). Then, for every case of
the matrix, a stock perftest in the guest against `rnic-perf --sim-link` on
this machine; a case passes when both exit 0 (perftest completed its run and
rnic-perf's checks held). Prints a pass/fail matrix and `N passed, N failed`,
exits 1 on any failure.

    interop.py [--quick] [--tests write_bw,...] [--mtus 1024,4096] [--loss 1] [--match TEXT]
               [--rping guest-server,guest-client|none] [--rping-count N] [--rping-size N]
               [--keep-logs DIR]

--rping: stock rping (rdmacm-utils) in the guest against rnic-rping, the
connection manager over QP1 on both sides; by default both roles with 300
pings (--quick: the guest as server, 10 pings); --tests '' runs only those.

--quick: the reduced matrix of `make test` (see docs/interop.md).
"""
import argparse
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, 'interop')

TESTS = ['write_bw', 'read_bw', 'send_bw', 'atomic_bw', 'write_lat', 'read_lat', 'send_lat']
GUEST_MAC = '52:54:00:00:00:0a'
GUEST_IP = '198.18.0.1'
NIC_MAC = '02:00:00:00:00:0b'
NIC_IP = '198.18.0.2'
OOB_NET = '198.18.1.0/24'
OOB_GUEST = '198.18.1.15'
OOB_HOST_ALIAS = '198.18.1.100'   # the guest's client reaches our server here (guestfwd)
PERFTEST_PORT = 18515
MCAST_GROUP = '239.1.2.3'
MCAST_MGID = '0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3'   # perftest's -M: ::ffff:239.1.2.3
MCAST_MGID_NEXT = '0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:4'   # send_lat -g: rnic-perf's group


def die(msg):
    print(f'interop: {msg}', file=sys.stderr)
    sys.exit(1)


def free_port(kind):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Guest:
    """One QEMU guest; sh() runs a command line on its serial console shell."""

    def __init__(self, kernel, initrd, udp_guest, udp_nic, tcp_fwd, tcp_nic, log):
        append = (f'console=ttyS0 loglevel=4 panic=-1 rxe_ip={GUEST_IP}/24 rxe_mtu=9000 '
                  f'rxe_neigh={NIC_IP}@{NIC_MAC} rxe_oob_ip={OOB_GUEST}/24')
        bridge = f'python3 {os.path.join(HERE, "tcp_bridge.py")} 127.0.0.1 {tcp_nic}'
        self.cmd = [
            'qemu-system-x86_64', '-nodefaults', '-display', 'none', '-no-reboot',
            '-machine', 'pc', '-cpu', 'max', '-smp', '1', '-m', '512', '-serial', 'stdio',
            '-kernel', kernel, '-initrd', initrd, '-append', append,
            '-netdev', f'dgram,id=roce,local.type=inet,local.host=127.0.0.1,local.port={udp_guest},'
                       f'remote.type=inet,remote.host=127.0.0.1,remote.port={udp_nic}',
            '-device', f'virtio-net-pci,netdev=roce,mac={GUEST_MAC},host_mtu=9000,romfile=',
            '-netdev', f'user,id=oob,restrict=on,net={OOB_NET},host=198.18.1.2,'
                       f'hostfwd=tcp:127.0.0.1:{tcp_fwd}-{OOB_GUEST}:{PERFTEST_PORT},'
                       f'guestfwd=tcp:{OOB_HOST_ALIAS}:{PERFTEST_PORT}-cmd:{bridge}',
            '-device', 'virtio-net-pci,netdev=oob,mac=52:54:00:ff:00:01,romfile=',
        ]
        self.log = open(log, 'wb')
        self.buf = b''
        self.cv = threading.Condition()
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT)
        self.n = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            data = self.p.stdout.read1(65536)
            if not data:
                break
            self.log.write(data)
            self.log.flush()
            with self.cv:
                self.buf += data
                self.cv.notify_all()
        with self.cv:
            self.cv.notify_all()

    def wait_for(self, pattern, timeout, start=0):
        rx = re.compile(pattern.encode())
        end = time.time() + timeout
        with self.cv:
            while True:
                m = rx.search(self.buf, start)
                if m:
                    return m
                left = end - time.time()
                if left <= 0 or self.p.poll() is not None:
                    return None
                self.cv.wait(min(left, 1.0))

    def boot(self, timeout=180):
        m = self.wait_for(r'RXE_READY|RXE_FAILED[^\n]*', timeout)
        if not m:
            die(f'the guest did not boot in {timeout} s (console: {self.log.name})')
        if m.group(0).startswith(b'RXE_FAILED'):
            die(f'the guest could not bring up rdma_rxe: {m.group(0).decode().strip()} '
                f'(console: {self.log.name})')

    def sh(self, cmd, timeout=120):
        """(exit status, output) of one command line; None on timeout. The
        console shell sometimes exits while perftest sets up its QP (init
        restarts it); a command whose start marker never shows is sent again."""
        self.n += 1
        tag = f'{self.n}x{os.getpid()}'
        line = f'echo "@@S{tag}@@"\n{cmd}\necho "@@E{tag} $?@@"\n'
        with self.cv:
            start = len(self.buf)
        for _ in range(4):
            self.p.stdin.write(line.encode())
            self.p.stdin.flush()
            m = self.wait_for(rf'@@S{tag}@@\r?\n', 5, start)
            if m:
                break
        else:
            return None
        e = self.wait_for(rf'@@E{tag} (\d+)@@', timeout, m.end())
        if not e:
            return None
        return int(e.group(1)), self.buf[m.end():e.start()].decode(errors='replace')

    def stop(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.write(b'poweroff -f\n')
                self.p.stdin.flush()
                self.p.wait(15)
            except (OSError, subprocess.TimeoutExpired):
                self.p.kill()
                self.p.wait()
        self.log.close()


def case_name(test, opts):
    """A case's name in the matrix: the test and its options (-M's group left out)."""
    return ' '.join((test,) + tuple(o for o in opts if o not in ('-M', MCAST_MGID)))


# rnic-perf's options that perftest has not (each with one value): --mw N,
# our buffer behind a memory window; the guest's perftest runs as ever
OURS_ONLY = ('--mw',)


def perftest_opts(opts):
    """opts without OURS_ONLY's options and their values."""
    out, skip = [], False
    for o in opts:
        if skip or o in OURS_ONLY:
            skip = not skip
            continue
        out.append(o)
    return out


def perftest_args(test, mtu, size, iters, opts=()):
    args = ['-d', 'rxe0', '-x', '1', '-F', '-m', str(mtu), '-n', str(iters)] + perftest_opts(opts)
    if test != 'atomic_bw' and '-a' not in opts:
        args += ['-s', str(size)]
    return ' '.join(args)


def roce_only(src, dst):
    """Copy the RoCEv2 frames (IPv4, UDP port 4791) of a pcap; their count.
    (The guest also sends IPv6 router solicitations and the like.)"""
    with open(src, 'rb') as f:
        data = f.read()
    out, n, off = [data[:24]], 0, 24
    while off + 16 <= len(data):
        incl = struct.unpack('<I', data[off + 8:off + 12])[0]
        fr = data[off + 16:off + 16 + incl]
        if (len(fr) > 42 and fr[12:14] == b'\x08\x00' and fr[23] == 17
                and struct.unpack('!H', fr[14 + (fr[14] & 15) * 4 + 2:14 + (fr[14] & 15) * 4 + 4])[0] == 4791):
            out.append(data[off:off + 16 + incl])
            n += 1
        off += 16 + incl
    with open(dst, 'wb') as f:
        f.write(b''.join(out))
    return n


# RC requests that carry an rkey: RDMA WRITE first, only, only with
# immediate (RETH), READ request (RETH), compare-and-swap, fetch-and-add
# (AtomicETH); the rkey is 8 bytes into either header
RKEY_OPCODES = (0x06, 0x0a, 0x0b, 0x0c, 0x13, 0x14)


def request_rkeys(path, src_ip):
    """The rkeys of the RC requests from src_ip in a pcap of RoCEv2 frames."""
    with open(path, 'rb') as f:
        data = f.read()
    keys, off, src = [], 24, socket.inet_aton(src_ip)
    while off + 16 <= len(data):
        incl = struct.unpack('<I', data[off + 8:off + 12])[0]
        fr = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip = fr[14:]
        if len(ip) < 20 or fr[12:14] != b'\x08\x00' or ip[9] != 17 or ip[12:16] != src:
            continue
        udp = ip[(ip[0] & 15) * 4:]
        if len(udp) < 8 or struct.unpack('!H', udp[2:4])[0] != 4791:
            continue
        bth = udp[8:]
        if len(bth) >= 24 and bth[0] in RKEY_OPCODES:
            keys.append(struct.unpack('!I', bth[20:24])[0])
    return keys


def netem_drops(g):
    """Frames netem has dropped on the guest's eth0 so far."""
    r = g.sh('/usr/sbin/tc -s qdisc show dev eth0')
    m = re.search(r'dropped (\d+)', r[1]) if r else None
    return int(m.group(1)) if m else 0


def listening(port):
    """Whether a TCP socket on this machine listens on port (any address)."""
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            if state == '0A' and int(local.rsplit(':', 1)[1], 16) == port:
                return True
    return False


def wait_listen(port, proc, timeout):
    """Wait until proc listens on port; False if it exits or time runs out."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if listening(port):
            return True
        time.sleep(0.05)
    return False


def wait_log_text(path, text, proc, timeout):
    """Wait until proc's log at path holds text (a program on our CM, which
    listens on the simulated link, not on a TCP port, says so there); False
    if it exits or time runs out."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        with open(path) as f:
            if text in f.read():
                return True
        time.sleep(0.05)
    return False


def run_case(g, ports, rnic_perf, test, role, mtu, loss, size, iters, logdir, nic_loss, seed, opts=()):
    """One case; opts: perftest's options on both sides (-q N, -a); returns (passed, note)."""
    udp_guest, udp_nic, tcp_fwd, tcp_nic = ports
    tag = f'{test}_{role}_mtu{mtu}' + ('_loss' if loss else '') + ''.join(o.replace('-', '_') for o in opts
                                                                          if o not in ('-M', MCAST_MGID))
    perf = ['-m', str(mtu), '-n', str(iters), '--sim-link', f'udp:127.0.0.1:{udp_nic},127.0.0.1:{udp_guest}',
            '--peer-mac', GUEST_MAC, '--mac', NIC_MAC, '--ip', NIC_IP, '--width', '64',
            '--pcap', os.path.join(logdir, tag + '.pcap'), '--time-limit', '90', '--seed', str(seed)]
    if loss and nic_loss > 0:
        perf += ['--drop', str(nic_loss / 100)]
    # send_lat -g: both sides join a group and send to the other's; a host
    # keeps its own datagrams to a group it joined, so ours is the next one
    # (as perftest's client without -M joins the next group)
    perf += [MCAST_MGID_NEXT if o == MCAST_MGID and test == 'send_lat' else o for o in opts]
    if test != 'atomic_bw' and '-a' not in opts:
        perf += ['-s', str(size)]
    guest_cmd = f'ib_{test} {perftest_args(test, mtu, size, iters, opts)}'
    out = open(os.path.join(logdir, tag + '.rnic-perf.log'), 'w')
    g.sh('rm -f /tmp/pt.log')
    rdma_cm = '-R' in opts
    if role == 'guest-server':
        # the guest's server first; rnic-perf connects through hostfwd once it
        # listens (-R: to the guest's address on the link, once its rdma_cm does)
        g.sh(f"setsid sh -c '{guest_cmd}; echo PERFTEST_RC=$?' </dev/null >/tmp/pt.log 2>&1 &")
        if rdma_cm:
            r = g.sh('i=0; while ! rdma res show cm_id | grep -q LISTEN && [ $i -lt 200 ]; '
                     'do sleep 0.1; i=$((i+1)); done; rdma res show cm_id | grep -q LISTEN', 60)
        else:
            r = g.sh(f'i=0; while ! netstat -ltn | grep -q ":{PERFTEST_PORT} " && [ $i -lt 200 ]; '
                     f'do sleep 0.1; i=$((i+1)); done; netstat -ltn | grep -q ":{PERFTEST_PORT} "', 60)
        if not r or r[0]:
            # keep what perftest said (an option it refused, a device error)
            r = g.sh('cat /tmp/pt.log', 10)
            with open(os.path.join(logdir, tag + '.perftest.log'), 'w') as f:
                f.write(r[1] if r else '(console timeout)')
            return False, 'guest server did not listen'
        target = ['-p', str(PERFTEST_PORT), GUEST_IP] if rdma_cm else ['-p', str(tcp_fwd), '127.0.0.1']
        ours = subprocess.Popen([rnic_perf, test] + perf + target, stdout=out, stderr=subprocess.STDOUT)
    elif rdma_cm:
        # our CM listens on the link; the guest's client connects to our address
        ours = subprocess.Popen([rnic_perf, test] + perf + ['-p', str(PERFTEST_PORT)],
                                stdout=out, stderr=subprocess.STDOUT)
        if not wait_log_text(out.name, 'listening on port', ours, 60):
            ours.kill()
            ours.wait()
            out.close()
            return False, 'rnic-perf -R did not listen within 60 s'
        g.sh(f"setsid sh -c '{guest_cmd} {NIC_IP}; echo PERFTEST_RC=$?' </dev/null >/tmp/pt.log 2>&1 &")
    else:
        ours = subprocess.Popen([rnic_perf, test] + perf + ['-p', str(tcp_nic)],
                                stdout=out, stderr=subprocess.STDOUT)
        # rnic-perf listens only once its simulated NIC is up, which takes a
        # while on a loaded machine; a guest client that connects earlier gets
        # a closed stream through guestfwd and fails perftest's version exchange
        if not wait_listen(tcp_nic, ours, 60):
            ours.kill()
            ours.wait()
            out.close()
            return False, f'rnic-perf did not listen on port {tcp_nic} within 60 s'
        g.sh(f"setsid sh -c '{guest_cmd} {OOB_HOST_ALIAS}; echo PERFTEST_RC=$?' </dev/null >/tmp/pt.log 2>&1 &")
    try:
        ours_rc = ours.wait(120)
    except subprocess.TimeoutExpired:
        ours.kill()
        ours_rc = ours.wait()
    out.close()
    r = g.sh('i=0; while ! grep -q PERFTEST_RC /tmp/pt.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; '
             'cat /tmp/pt.log', 60)
    guest_log = r[1] if r else '(console timeout)'
    with open(os.path.join(logdir, tag + '.perftest.log'), 'w') as f:
        f.write(guest_log)
    m = re.search(r'PERFTEST_RC=(\d+)', guest_log)
    guest_rc = int(m.group(1)) if m else None
    if guest_rc is None:
        g.sh(f'pkill -f ib_{test}; sleep 0.5')
    passed = ours_rc == 0 and guest_rc == 0
    note = '' if passed else f'rnic-perf rc {ours_rc}, perftest rc {guest_rc}'
    if passed and '--mw' in opts:
        # the guest's requests on the wire name our window's rkey, and so
        # does its perftest's remote address line where it prints one
        # (ib_atomic_bw prints none)
        # (-q: a window per QP, each used)
        with open(out.name) as f:
            ours = {int(k, 16) for k in re.findall(r'rkey ours (0x[0-9a-f]+)', f.read())}
        theirs = {int(k, 16) for k in re.findall(r'remote address: .*RKey (0x[0-9a-f]+)', guest_log)}
        wire = set(request_rkeys(os.path.join(logdir, tag + '.pcap'), GUEST_IP))
        if not ours or wire != ours or (theirs and theirs != ours):
            passed = False
            note = (f'the guest\'s requests named rkeys {sorted(hex(k) for k in wire)}, its perftest '
                    f'{sorted(hex(k) for k in theirs)}: not our windows\' {sorted(hex(k) for k in ours)}')
    if passed:
        # every RoCEv2 frame, ours and rxe's, through tshark and scapy's ICRC
        pcap = os.path.join(logdir, tag + '.pcap')
        roce = os.path.join(logdir, tag + '.roce.pcap')
        n = roce_only(pcap, roce)
        chk = subprocess.run(['python3', os.path.join(ROOT, 'tests', 'e2e', 'check_pcap.py'), roce],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if n == 0 or chk.returncode:
            passed = False
            note = f'capture check failed ({n} RoCE frames): {chk.stdout.strip()[-300:]}'
    return passed, note


RPING_PORT = 7174


def rping_text(k, size):
    """rping's ping k: "rdma-ping-K: " and letters from 'A' + k % 58 on,
    wrapping after 'z', NUL-terminated at size - 1."""
    head = f'rdma-ping-{k}: '
    c, tail = 65 + k % 58, []
    for _ in range(len(head), size - 1):
        tail.append(chr(c))
        c = 65 if c + 1 > 122 else c + 1
    return (head + ''.join(tail))[:size - 1]


def run_rping_case(g, ports, rnic_rping, role, loss, count, size, logdir, seed):
    """Stock rping (rdmacm-utils) in the guest against rnic-rping on the
    simulated NIC, the connection manager over QP1 on both: both exit 0, the
    client validates every ping (-V), both print every ping as rping makes
    it (-v), and the capture holds REQ, REP and RTU from the right sides,
    then DREQ and DREP, every frame good for tshark and scapy's ICRC."""
    udp_guest, udp_nic, _, _ = ports
    tag = f'rping_{role}' + ('_loss' if loss else '')
    pcap = os.path.join(logdir, tag + '.pcap')
    ours_cmd = [rnic_rping, '-p', str(RPING_PORT), '-S', str(size), '-v', '-d',
                '--mac', NIC_MAC, '--ip', NIC_IP, '--sim-link', f'udp:127.0.0.1:{udp_nic},127.0.0.1:{udp_guest}',
                '--pcap', pcap, '--timeout', str(60 + count // 2)]
    guest_opts = f'-p {RPING_PORT} -S {size} -C {count} -v -V'
    logf = os.path.join(logdir, tag + '.rnic-rping.log')
    out = open(logf, 'w')
    # rping's event messages (stderr) apart from its ping lines (stdout, buffered)
    g.sh('rm -f /tmp/rp.log /tmp/rp.err')
    if role == 'guest-server':
        g.sh(f"setsid sh -c 'rping -s -a {GUEST_IP} {guest_opts} 2>/tmp/rp.err; echo RPING_RC=$?' "
             "</dev/null >/tmp/rp.log 2>&1 &")
        # rping listens once its cm_id is bound: rdma's resource list shows it
        r = g.sh('i=0; while ! rdma res show cm_id | grep -q LISTEN && [ $i -lt 200 ]; '
                 'do sleep 0.1; i=$((i+1)); done; rdma res show cm_id | grep -q LISTEN', 60)
        if not r or r[0]:
            return False, 'guest rping -s did not listen'
        ours = subprocess.Popen(ours_cmd + ['-c', '-a', GUEST_IP, '-I', NIC_IP, '-C', str(count), '-V',
                                            '--peer-mac', GUEST_MAC],
                                stdout=out, stderr=subprocess.STDOUT)
    else:
        # no --peer-mac: our server answers through the REQ's source MAC
        ours = subprocess.Popen(ours_cmd + ['-s', '-a', NIC_IP],
                                stdout=out, stderr=subprocess.STDOUT)
        if not wait_log_text(logf, 'listening on', ours, 60):
            ours.kill()
            ours.wait()
            out.close()
            return False, 'rnic-rping -s did not listen within 60 s'
        g.sh(f"setsid sh -c 'rping -c -a {NIC_IP} -I {GUEST_IP} {guest_opts} 2>/tmp/rp.err; echo RPING_RC=$?' "
             "</dev/null >/tmp/rp.log 2>&1 &")
    try:
        ours_rc = ours.wait(90 + count // 2)
    except subprocess.TimeoutExpired:
        ours.kill()
        ours_rc = ours.wait()
    out.close()
    r = g.sh('i=0; while ! grep -q RPING_RC /tmp/rp.log && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; '
             'cat /tmp/rp.log', 60)
    guest_log = r[1] if r else '(console timeout)'
    e = g.sh('cat /tmp/rp.err', 30)
    with open(os.path.join(logdir, tag + '.rping.log'), 'w') as f:
        f.write(guest_log + '\n--- stderr\n' + (e[1] if e else '(console timeout)'))
    # the console's prompt may start the first line
    guest_log = re.sub(r'^(/ # )+', '', guest_log, flags=re.M)
    m = re.search(r'RPING_RC=(\d+)', guest_log)
    guest_rc = int(m.group(1)) if m else None
    if guest_rc is None:
        g.sh('pkill rping; sleep 0.5')
    if ours_rc != 0 or guest_rc != 0:
        return False, f'rnic-rping rc {ours_rc}, rping rc {guest_rc}'
    with open(logf) as f:
        ours_log = f.read()
    want = [rping_text(k, size) for k in range(count)]
    if role == 'guest-server':
        cli_lines = re.findall(r'^ping data: (.*)$', ours_log, re.M)
        srv_lines = re.findall(r'^server ping data: (.*?)\r?$', guest_log, re.M)
        client, server = NIC_IP, GUEST_IP
    else:
        cli_lines = re.findall(r'^ping data: (.*?)\r?$', guest_log, re.M)
        srv_lines = re.findall(r'^server ping data: (.*)$', ours_log, re.M)
        client, server = GUEST_IP, NIC_IP
    if cli_lines != want or srv_lines != want:
        return False, (f'ping data: client {len(cli_lines)} lines, server {len(srv_lines)}, '
                       f'want {count} as rping makes them')
    if role == 'guest-server' and not re.search(rf'client: {count} pings of {size} bytes, validated', ours_log):
        return False, 'rnic-rping did not validate every ping'
    roce = os.path.join(logdir, tag + '.roce.pcap')
    n = roce_only(pcap, roce)
    cm = f'REQ@{client},REP@{server},RTU@{client},DREQ@{client},DREP@{server}'
    chk = subprocess.run(['python3', os.path.join(ROOT, 'tests', 'e2e', 'check_pcap.py'), '--cm', cm, roce],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if n == 0 or chk.returncode:
        return False, f'capture check failed ({n} RoCE frames): {chk.stdout.strip()[-400:]}'
    return True, f'{count} pings validated, {n} RoCE frames'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true', help='the reduced matrix of make test')
    ap.add_argument('--tests', default=','.join(TESTS))
    ap.add_argument('--mtus', default='1024,4096')
    ap.add_argument('--roles', default='guest-server,guest-client')
    ap.add_argument('--loss', type=float, default=1.0, help='percent lost by the guest in the loss runs (0: none)')
    ap.add_argument('--nic-loss', type=float, default=0.0,
                    help='percent of its frames the simulated link loses in the loss runs too (0)')
    ap.add_argument('--iters', type=int, default=0)
    ap.add_argument('--out', default=os.path.join(ROOT, 'build', 'interop'))
    ap.add_argument('--rping', default=None,
                    help='rping cases (rdmacm-utils against rnic-rping): ROLE[,ROLE] of guest-server, '
                         'guest-client, or none (default: both; --quick: guest-server)')
    ap.add_argument('--rping-count', type=int, default=None, help='pings per rping case (300; --quick: 10)')
    ap.add_argument('--rping-size', type=int, default=64)
    ap.add_argument('--match', default=None,
                    help='run only the perftest cases whose name contains this (e.g. "-g")')
    a = ap.parse_args()

    for tool in ('qemu-system-x86_64', 'python3'):
        if not shutil.which(tool):
            die(f'{tool} is missing (make deps installs qemu-system-x86)')
    kernel, initrd = os.path.join(a.out, 'vmlinuz'), os.path.join(a.out, 'initrd.cpio.gz')
    rnic_perf = os.path.join(ROOT, 'build', 'bin', 'rnic-perf')
    for f in (kernel, initrd) + ((rnic_perf,) if a.tests else ()):
        if not os.path.exists(f):
            die(f'{f} is missing (make interop builds it)')
    logdir = os.path.join(a.out, 'logs')
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(logdir)

    rnic_rping = os.path.join(ROOT, 'build', 'bin', 'rnic-rping')
    if a.rping is None:
        a.rping = 'guest-server' if a.quick else 'guest-server,guest-client'
    if a.rping_count is None:
        a.rping_count = 10 if a.quick else 300
    rping_roles = [r for r in a.rping.split(',') if r and r != 'none']
    for r in rping_roles:
        if r not in ('guest-server', 'guest-client'):
            die(f'--rping: unknown role {r}')
    if rping_roles and not os.path.exists(rnic_rping):
        die(f'{rnic_rping} is missing (make rnic-rping)')
    tests = [t for t in a.tests.split(',') if t]
    mtus = [int(m) for m in a.mtus.split(',')]
    roles = a.roles.split(',')
    for t in tests:
        if t not in TESTS:
            die(f'unknown test {t} (one of {",".join(TESTS)})')
    cases = [(t, r, m, False, ()) for m in mtus for t in tests for r in roles]
    if a.loss > 0:
        cases += [(t, r, mtus[0], True, ()) for t in tests for r in roles]
    # perftest's -q (a key line per QP) and -a; -a only where rnic-perf drives
    # (the guest's server waits): its sizes stop at 1 MiB, perftest's at 8 MiB
    cases += [(t, r, mtus[0], False, ('-q', '4')) for t in ('write_bw', 'send_bw') if t in tests
              for r in roles]
    cases += [(t, 'guest-server', mtus[0], False, ('-a',)) for t in ('write_bw', 'read_bw') if t in tests
              and 'guest-server' in roles]
    # READs of up to 1 MiB with loss: much outstanding when a response is
    # lost (the requester's send window bounds what go-back-N asks again)
    if a.loss > 0:
        cases += [('read_bw', 'guest-server', mtus[0], True, ('-a',))] if 'read_bw' in tests \
            and 'guest-server' in roles else []
    # --use-srq: the receiving side's QPs share one SRQ (ours as server, the
    # guest's as server)
    cases += [('send_bw', r, mtus[0], False, ('-q', '4', '--use-srq')) for r in roles if 'send_bw' in tests]
    # unreliable datagram (perftest's -c UD): messages of one MTU
    cases += [(t, r, mtus[0], False, ('-c', 'UD')) for t in ('send_bw', 'send_lat') if t in tests
              for r in roles]
    # multicast (perftest's -g): the receiving side joins an IPv4 group
    # (-M: perftest's own group is interface-local, ff01::, which Linux
    # neither sends nor takes on a wire)
    cases += [(t, r, mtus[0], False, ('-c', 'UD', '-g', '-M', MCAST_MGID)) for t in ('send_bw', 'send_lat')
              if t in tests for r in roles]
    # rdma_cm (perftest's -R): no TCP; the exchange on a control QP and
    # every QP connected by the connection managers over QP1
    rdma_cm_tests = ('write_bw', 'read_bw', 'send_bw', 'atomic_bw', 'write_lat', 'read_lat', 'send_lat')
    cases += [(t, r, mtus[0], False, ('-R',)) for t in rdma_cm_tests if t in tests for r in roles]
    # and four QPs, each with its own CM connection
    cases += [('write_bw', r, mtus[0], False, ('-R', '-q', '4')) for r in roles if 'write_bw' in tests]
    # memory windows (rnic-perf's --mw; the guest's perftest as ever): the
    # guest's client WRITEs, READs and adds to our buffer through the
    # window's rkey (type 1: rnic_bind_mw; type 2: a BIND_MW WQE on the QP)
    cases += [(t, 'guest-client', mtus[0], False, ('--mw', w))
              for t in ('write_bw', 'read_bw', 'atomic_bw', 'write_lat', 'read_lat') if t in tests
              for w in ('1', '2') if 'guest-client' in roles]
    # and a window per QP of four (type 2: each reached on its own QP only),
    # and with the QPs the CM connects (bound before the keys are sent)
    cases += [('write_bw', 'guest-client', mtus[0], False, o) for o in (('--mw', '2', '-q', '4'), ('--mw', '1', '-R'))
              if 'write_bw' in tests and 'guest-client' in roles]
    rping_cases = [('rping', r, 0, False, ()) for r in rping_roles]
    if a.quick:
        # one of each kind of traffic in each role, both MTUs, a lossy one
        # and a UD one
        cases = [('write_bw', 'guest-server', 1024, False, ()), ('read_bw', 'guest-client', 1024, False, ()),
                 ('atomic_bw', 'guest-server', 1024, False, ()), ('send_bw', 'guest-client', 4096, False, ()),
                 ('write_lat', 'guest-server', 4096, False, ()), ('read_bw', 'guest-server', 1024, True, ()),
                 ('send_bw', 'guest-server', 1024, False, ('-c', 'UD'))]
        if a.loss <= 0:
            cases = [c for c in cases if not c[3]]
    if a.match is not None:
        cases = [c for c in cases if a.match in case_name(c[0], c[4])]
    cases += rping_cases

    ports = (free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_DGRAM),
             free_port(socket.SOCK_STREAM), free_port(socket.SOCK_STREAM))
    t0 = time.time()
    g = Guest(kernel, initrd, *ports, os.path.join(logdir, 'guest.console.log'))
    results = []
    try:
        g.boot()
        print(f'interop: guest up in {time.time() - t0:.1f} s (rdma_rxe, {a.out})', flush=True)
        netem = False
        drops = 0
        for test, role, mtu, loss, opts in cases:
            if loss != netem:
                r = g.sh(f'/usr/sbin/tc qdisc {"add" if loss else "del"} dev eth0 root'
                         + (f' netem loss {a.loss:g}%' if loss else ''))
                if not r or r[0]:
                    die(f'tc netem in the guest failed: {r}')
                netem = loss
            if test == 'rping':
                t1 = time.time()
                ok, note = run_rping_case(g, ports, rnic_rping, role, loss, a.rping_count, a.rping_size,
                                          logdir, len(results) + 1)
                results.append((test, role, 'cm', loss, ok, note, time.time() - t1))
                print(f'{"PASS" if ok else "FAIL"} {"rping":<10} {role:<13} {"rdma_cm":<9} {"no loss":<9} '
                      f'{time.time() - t1:5.1f} s  {a.rping_count} x {a.rping_size} B  {note}', flush=True)
                continue
            bw = test.endswith('_bw')
            # UD: one packet per message, as perftest caps it
            size = (mtu if 'UD' in opts else 4 * mtu) if bw else 64
            # with loss, enough frames that some are lost (about 1 in 100)
            iters = a.iters or ((64 if bw else 50) if loss else (16 if bw else 20))
            if '-a' in opts:
                iters = 5   # perftest's least; 2 B .. 1 MiB, about 10 MiB in all
            t1 = time.time()
            before = netem_drops(g) if loss else 0
            # -g, the guest receiving (send_bw's server, send_lat): its
            # rdma_rxe (Linux 6.1) attaches the QP to the group but joins no
            # IP group, and its IP layer drops datagrams to a group the host
            # has not joined: the guest joins it on eth0 (IGMP) for the case,
            # as a multicast receiver's host is set up. Only then: a member
            # host keeps its own datagrams to the group (they never reach the
            # wire), hence send_lat's second group for rnic-perf.
            join = '-g' in opts and (role == 'guest-server' or test == 'send_lat')
            if join:
                r = g.sh(f'/usr/sbin/ip address add {MCAST_GROUP}/32 dev eth0 autojoin')
                if not r or r[0]:
                    die(f'joining {MCAST_GROUP} in the guest failed: {r}')
            ok, note = run_case(g, ports, rnic_perf, test, role, mtu, loss, size, iters, logdir,
                                a.nic_loss, len(results) + 1, opts)
            if join:
                g.sh(f'/usr/sbin/ip address del {MCAST_GROUP}/32 dev eth0')
            lost = (netem_drops(g) - before) if loss else 0
            drops += lost
            name = case_name(test, opts)
            results.append((name, role, mtu, loss, ok, note, time.time() - t1))
            print(f'{"PASS" if ok else "FAIL"} {name:<10} {role:<13} mtu {mtu:<5} '
                  f'{"loss " + format(a.loss, "g") + "%" if loss else "no loss":<9} '
                  f'{time.time() - t1:5.1f} s  {iters} x '
                  f'{"2..1048576" if "-a" in opts else size if test != "atomic_bw" else 8} B'
                  f'{f", {lost} frames lost" if loss else ""}  {note}', flush=True)
    finally:
        g.stop()

    # the matrix: tests down, (role, mtu, loss) across
    cols = []
    for _, r, m, l, *_ in results:
        if (r, m, l) not in cols:
            cols.append((r, m, l))
    names = {c: f'{"srv" if c[0] == "guest-server" else "cli"}/{c[1]}{"/loss" if c[2] else ""}' for c in cols}
    print('\nguest perftest role / IB MTU / 1% loss in the guest (srv: guest is the server)')
    print(f'{"":<15} ' + ' '.join(f'{names[c]:>14}' for c in cols))
    for t in dict.fromkeys(x[0] for x in results):
        row = []
        for c in cols:
            hit = [x for x in results if x[0] == t and (x[1], x[2], x[3]) == c]
            row.append('-' if not hit else ('pass' if hit[0][4] else 'FAIL'))
        if any(x != '-' for x in row):
            print(f'{t:<15} ' + ' '.join(f'{x:>14}' for x in row))
    npass = sum(1 for x in results if x[4])
    nfail = len(results) - npass
    nloss = sum(1 for x in results if x[3])
    if nloss:
        print(f'\nthe guest dropped {drops} of its frames in the {nloss} lossy cases')
    if nloss >= 6 and drops == 0:
        # thousands of frames at 1%: none lost means netem did not work
        print('interop: no frame was lost in the lossy cases: the loss runs tested nothing')
        nfail += 1
    print(f'\nlogs and captures: {logdir}')
    print(f'{npass} passed, {nfail} failed')
    sys.exit(0 if nfail == 0 and npass > 0 else 1)


if __name__ == '__main__':
    main()
