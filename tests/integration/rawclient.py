#!/usr/bin/env python3
"""Raw clients of kbisectd's socket (docs/protocol.md), careless and
hostile ones, for tests/integration/daemon-hostile.sh and
tests/bench/daemon-stress.sh.  Each subcommand prints one result line
"key=value ..." that the shell scripts check.

  flood SOCK N SECONDS        N connections, each a half-sent HELLO or
                              a HELLO and then nothing, held until the
                              daemon drops them
  noread SOCK SECONDS         pipeline STATUS requests, never read
  bigline SOCK MIB            a line of MIB MiB without its newline
  pipeline SOCK N [empty]     N HELLO requests (or empty lines) at once,
                              then the answers
  watchers SOCK N ID SECONDS  N connections each WATCHing experiment ID,
                              held SECONDS: how many watch, how many
                              were refused (and why)
  send SOCK LINE...            HELLO, then each LINE as it is: one
                              "msg=N code=C message=M" line per answer
  halfway SOCK PAUSE          half a HELLO, PAUSE seconds, the rest: is
                              it answered?
  listen PATH OUT SECONDS     a socket someone else put there: what
                              clients send it goes to OUT
  watch SOCK ID SECONDS       WATCH, and the gaps between PROGRESS lines
  timesubmit SOCK MATRIX MODEL
                              how long one SUBMIT takes, and the longest
                              another client waits for STATUS meanwhile
  storm SOCK N MATRIX MODEL ACKS SECONDS ROUNDS
                              N clients at once, each ROUNDS times within
                              SECONDS: submit, poll, disconnect abruptly,
                              riding out daemon restarts; the ids of the
                              acknowledged submissions go to ACKS
  burst SOCK N MATRIX MODEL DB CLIENTS
                              N submissions as fast as CLIENTS connections
                              take them, each one's latency, a STATUS
                              every 10 ms meanwhile, and the time until
                              all N have ended (read from DB)
"""
import json
import os
import random
import select
import socket
import sys
import threading
import time

HELLO = b'{"msg":1,"version":1}\n'
STATUS = b'{"msg":11}\n'


def connect(path, timeout=10.0):
    """A connection to path; a full backlog is waited out (a unix
    socket's connect fails with EAGAIN when it has a timeout)."""
    t0 = time.monotonic()
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(path)
            return s
        except BlockingIOError:
            s.close()
            if time.monotonic() - t0 > timeout:
                raise
            time.sleep(0.01)


def read_line(s, buf):
    """One line from s, parsed, or None at EOF.  buf is [bytes read,
    offset of the next line in them], from new_buf()."""
    while True:
        i = buf[0].find(b"\n", buf[1])
        if i >= 0:
            line, buf[1] = buf[0][buf[1]:i], i + 1
            return json.loads(line)
        try:
            got = s.recv(1 << 20)
        except (ConnectionResetError, BrokenPipeError):
            got = b""
        if not got:
            return None
        buf[0], buf[1] = buf[0][buf[1]:] + got, 0


def new_buf():
    return [b"", 0]


def hello(s, buf):
    s.sendall(HELLO)
    m = read_line(s, buf)
    if not m or m.get("msg") != 1:
        raise ConnectionError("no HELLO back: %r" % (m,))


def closed(s):
    """Whether the daemon closed s (EOF or reset), without blocking."""
    s.setblocking(False)
    try:
        return s.recv(65536) == b""
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True


def hung_up(s):
    """Whether the daemon closed s, found without reading from it."""
    p = select.poll()
    p.register(s, select.POLLHUP | select.POLLRDHUP)
    return any(ev & (select.POLLHUP | select.POLLRDHUP) for _, ev in p.poll(0))


def flood(path, n, seconds):
    socks = []
    for i in range(int(n)):
        s = connect(path)
        s.sendall(b'{"msg":1,"vers' if i % 2 == 0 else HELLO)
        socks.append(s)
    print("opened=%d" % len(socks), flush=True)
    t0 = time.monotonic()
    open_ = dict(enumerate(socks))
    last = 0.0
    while open_ and time.monotonic() - t0 < float(seconds):
        for i, s in list(open_.items()):
            if closed(s):
                del open_[i]
                last = time.monotonic() - t0
        time.sleep(0.1)
    print("closed=%d of=%d last=%.1f" % (len(socks) - len(open_), len(socks), last))


def noread(path, seconds):
    s = connect(path)
    s.sendall(HELLO)
    s.setblocking(False)
    sent = 0
    chunk = STATUS * 4096
    t0 = time.monotonic()
    dropped = None
    while time.monotonic() - t0 < float(seconds):
        try:
            sent += s.send(chunk)
        except BlockingIOError:
            time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            dropped = time.monotonic() - t0
            break
        if hung_up(s):  # without reading a byte
            dropped = time.monotonic() - t0
            break
    print("sent=%d dropped=%s" % (sent, "%.1f" % dropped if dropped is not None else "no"))


def bigline(path, mib):
    s = connect(path)
    buf = new_buf()
    hello(s, buf)
    s.settimeout(5)
    sent = 0
    block = b"x" * 65536
    try:
        while sent < int(mib) << 20:
            sent += s.send(block)
    except (BrokenPipeError, ConnectionResetError, socket.timeout):
        pass
    m = None
    try:
        m = read_line(s, buf)
    except socket.timeout:
        pass
    eof = False
    try:
        eof = s.recv(65536) == b""
    except (ConnectionResetError, BrokenPipeError):
        eof = True
    except socket.timeout:
        pass
    msg = (m or {}).get("message", "none").replace(" ", "_")
    print("sent=%d error=%s eof=%s" % (sent, msg, "yes" if eof else "no"))


def pipeline(path, n, kind="hello"):
    s = connect(path, 60)
    buf = new_buf()
    hello(s, buf)
    n = int(n)
    t0 = time.monotonic()
    # HELLO again and again, or empty lines (each an ERROR back): the
    # shortest lines, the most of them in each read
    line, answer = (HELLO, 1) if kind == "hello" else (b"\n", 30)
    w = threading.Thread(target=s.sendall, args=(line * n,))
    w.start()
    got = 0
    while got < n:
        m = read_line(s, buf)
        if m is None or m.get("msg") != answer:
            break
        got += 1
    w.join()
    print("replies=%d of=%d seconds=%.2f" % (got, n, time.monotonic() - t0))


def watch(path, exp, seconds):
    s = connect(path, float(seconds) + 5)
    buf = new_buf()
    hello(s, buf)
    s.sendall(b'{"msg":13,"id":%d}\n' % int(exp))
    times = []
    t0 = time.monotonic()
    s.settimeout(1)
    while time.monotonic() - t0 < float(seconds):
        try:
            m = read_line(s, buf)
        except socket.timeout:
            continue
        if m is None:
            break
        times.append(time.monotonic() - t0)
    gaps = [b - a for a, b in zip([0.0] + times, times + [time.monotonic() - t0])]
    print("lines=%d maxgap=%.1f" % (len(times), max(gaps)))


def watchers(path, n, exp, seconds):
    socks, watching, refused, why = [], 0, 0, ""
    for _ in range(int(n)):
        s = connect(path, 30)
        buf = new_buf()
        hello(s, buf)
        s.sendall(b'{"msg":13,"id":%d}\n' % int(exp))
        m = read_line(s, buf) or {}
        if m.get("msg") == 21:
            watching += 1
            socks.append(s)
        else:
            refused += 1
            why = m.get("message", "none")
            s.close()
    print("watching=%d refused=%d" % (watching, refused), flush=True)
    print("why=%s" % why.replace(" ", "_"), flush=True)
    time.sleep(float(seconds))
    for s in socks:
        s.close()


def send(path, *lines):
    s = connect(path, 30)
    buf = new_buf()
    hello(s, buf)
    for line in lines:
        s.sendall(line.encode() + b"\n")
        m = read_line(s, buf) or {}
        print("msg=%s code=%s message=%s" % (m.get("msg"), m.get("code"),
                                             m.get("message", "")), flush=True)


def halfway(path, pause):
    s = connect(path)
    s.sendall(HELLO[:8])
    print("sent-half", flush=True)
    time.sleep(float(pause))
    m = None
    try:
        s.sendall(HELLO[8:])
        m = read_line(s, new_buf())
    except OSError:
        pass
    print("answered=%s" % ("yes" if m and m.get("msg") == 1 else "no"))


def listen(path, out, seconds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(8)
    s.settimeout(0.2)
    print("listening", flush=True)
    t0 = time.monotonic()
    with open(out, "ab") as f:
        while time.monotonic() - t0 < float(seconds):
            try:
                c, _ = s.accept()
            except socket.timeout:
                continue
            c.settimeout(0.5)
            try:
                f.write(c.recv(65536))
                f.flush()
            except socket.timeout:
                pass
            c.close()


def timesubmit(path, matrix, model):
    line = json.dumps({"msg": 10, "matrix": open(matrix).read(),
                       "matrix_path": os.path.abspath(matrix),
                       "model": open(model).read()}).encode() + b"\n"
    stop, waits = [False], [0.0]

    def other():
        c = connect(path, 300)
        cb = new_buf()
        hello(c, cb)
        while not stop[0]:
            t = time.monotonic()
            c.sendall(STATUS)
            read_line(c, cb)
            waits.append(time.monotonic() - t)
            time.sleep(0.01)

    s = connect(path, 300)
    buf = new_buf()
    hello(s, buf)
    th = threading.Thread(target=other)
    th.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    s.sendall(line)
    m = read_line(s, buf) or {}
    took = time.monotonic() - t0
    stop[0] = True
    th.join()
    answer = "submitted" if m.get("msg") == 20 else "refused" if m.get("msg") == 30 else "none"
    print("bytes=%d answer=%s seconds=%.2f others_waited=%.2f"
          % (len(line), answer, took, max(waits)))


def percentile(v, p):
    """The p-th percentile of v (nearest rank), 0 for none."""
    if not v:
        return 0.0
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(len(v) * p / 100.0 + 0.999999) - 1))]


def burst(path, n, matrix, model, db, clients):
    import sqlite3
    n, clients = int(n), int(clients)
    sub = json.dumps({"msg": 10, "matrix": open(matrix).read(),
                      "matrix_path": os.path.abspath(matrix),
                      "model": open(model).read()}).encode() + b"\n"
    lock = threading.Lock()
    left, ids, lat, errors = [n], [], [], [0]
    stop, status_lat = [False], []

    def submitter():
        s = connect(path, 60)
        buf = new_buf()
        hello(s, buf)
        while True:
            with lock:
                if not left[0]:
                    break
                left[0] -= 1
            t = time.monotonic()
            s.sendall(sub)
            m = read_line(s, buf) or {}
            took = time.monotonic() - t
            with lock:
                if m.get("msg") == 20:
                    ids.append(m["id"])
                    lat.append(took)
                else:
                    errors[0] += 1

    def prober():
        s = connect(path, 60)
        buf = new_buf()
        hello(s, buf)
        while not stop[0]:
            with lock:
                last = ids[-1] if ids else 0
            t = time.monotonic()
            s.sendall(b'{"msg":11,"id":%d}\n' % last if last else STATUS)
            if read_line(s, buf) is None:
                break
            status_lat.append(time.monotonic() - t)
            time.sleep(0.01)

    pr = threading.Thread(target=prober)
    pr.start()
    time.sleep(0.2)
    t0 = time.monotonic()
    th = [threading.Thread(target=submitter) for _ in range(clients)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    t_sub = time.monotonic() - t0
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    live = len(ids)
    while live and time.monotonic() - t0 < 1800:
        time.sleep(0.01)
        try:
            live = con.execute("SELECT count(*) FROM experiments WHERE"
                               " state IN ('queued', 'running')").fetchone()[0]
        except sqlite3.OperationalError:
            pass
    took = time.monotonic() - t0
    done = con.execute("SELECT count(*) FROM experiments WHERE"
                       " state = 'done'").fetchone()[0]
    con.close()
    stop[0] = True
    pr.join()
    ms = lambda v: "%.1f" % (v * 1000)
    print("n=%d done=%d errors=%d seconds=%.2f rate=%.1f submitting=%.2f"
          " submit_p50_ms=%s submit_p99_ms=%s submit_max_ms=%s"
          " status_p99_ms=%s status_max_ms=%s"
          % (n, done, errors[0], took, len(ids) / took if took else 0, t_sub,
             ms(percentile(lat, 50)), ms(percentile(lat, 99)),
             ms(max(lat or [0])), ms(percentile(status_lat, 99)),
             ms(max(status_lat or [0]))))


class Storm:
    def __init__(self, path, matrix, model, acks, seconds, rounds):
        self.path = path
        self.sub = json.dumps({"msg": 10, "matrix": open(matrix).read(),
                               "matrix_path": os.path.abspath(matrix),
                               "model": open(model).read()}).encode() + b"\n"
        self.acks = open(acks, "a")
        self.lock = threading.Lock()
        self.seconds = float(seconds)
        self.rounds = int(rounds)
        self.counts = {"acked": 0, "abandoned": 0, "polls": 0,
                       "refused": 0, "broken": 0, "errors": 0}

    def count(self, key):
        with self.lock:
            self.counts[key] += 1

    def one(self, rng):
        """One round; False when the daemon was down (try again)."""
        try:
            s = connect(self.path, 30)
        except OSError:
            self.count("refused")  # the daemon is down: it restarts
            time.sleep(0.05)
            return False
        buf = new_buf()
        try:
            hello(s, buf)
            way = rng.random()
            if way < 0.15:
                # half a submission, then gone
                s.sendall(self.sub[: rng.randrange(1, len(self.sub))])
                self.count("abandoned")
                return True
            s.sendall(self.sub)
            if way < 0.3:
                self.count("abandoned")  # gone before the answer
                return True
            m = read_line(s, buf)
            if m is None:
                self.count("broken")  # killed before it answered
                return False
            if m.get("msg") != 20:
                print("SUBMIT answered %r" % (m,), file=sys.stderr)
                self.count("errors")
                return True
            with self.lock:
                self.acks.write("%d\n" % m["id"])
                self.acks.flush()
                self.counts["acked"] += 1
            for _ in range(rng.randrange(1, 4)):
                s.sendall(b'{"msg":11,"id":%d}\n' % m["id"])
                if read_line(s, buf) is None:
                    break
                self.count("polls")
            if rng.random() < 0.5:
                s.sendall(STATUS[:5])  # and gone mid-request
            return True
        except OSError:
            self.count("broken")  # killed under it
            return False
        finally:
            s.close()

    def client(self, k):
        """ROUNDS rounds at random moments within SECONDS, each tried
        until the daemon took it (or the time is up)."""
        rng = random.Random(k)
        t0 = time.monotonic()
        at = sorted(rng.uniform(0, self.seconds) for _ in range(self.rounds))
        for when in at:
            time.sleep(max(0.0, t0 + when - time.monotonic()))
            while not self.one(rng) and time.monotonic() - t0 < self.seconds + 30:
                pass

    def run(self, n):
        threads = [threading.Thread(target=self.client, args=(k,))
                   for k in range(int(n))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(" ".join("%s=%d" % kv for kv in self.counts.items()))


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "storm":
        Storm(args[0], args[2], args[3], args[4], args[5], args[6]).run(args[1])
    else:
        {"flood": flood, "noread": noread, "bigline": bigline,
         "pipeline": pipeline, "watch": watch, "watchers": watchers, "send": send,
         "halfway": halfway,
         "listen": listen, "timesubmit": timesubmit,
         "burst": burst}[cmd](*args)


if __name__ == "__main__":
    main(sys.argv)
