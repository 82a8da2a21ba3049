#!/usr/bin/env python3
"""Checks of a kbisect report for tests/integration/report-browser.sh.

Standard library only (no pip):

  report_check.py wellformed FILE
      FILE parses as XML (strict nesting, every element closed, every
      entity defined): what the report writes is XHTML-shaped HTML5.
  report_check.py html-parser FILE
      FILE passes Python's HTML parser with a strict check of nesting:
      every start tag but the void ones is closed, in order.
  report_check.py dom DOM REPORT_DIR [files:N] ID:CIRCLES:LINES ...
      DOM (chromium's --dump-dom) has, for each ID, an <svg id="ID">
      with exactly CIRCLES <circle> and at least LINES <line> elements;
      no <script>; no src or href that leaves the folder (http:, //) or
      names a file that is not in REPORT_DIR, and at least N links to
      files in it; every "#x" link has an element with id x; and the
      Content-Security-Policy forbidding scripts and fetches is there.
      Beside them, labels:ID (the row labels of <svg id="ID"> are all
      different, none cut with an ellipsis) and ratio-axis:ID (its x axis
      is a log-ratio one: ticks labelled "-90% (10x)", placed at
      log(1 + change)).
  report_check.py layout CHROMIUM PROFILE FILE LOG CHECK ...
      FILE laid out by CHROMIUM (headless, driven over the DevTools
      protocol on a pipe, its messages in LOG) in a 1400x900 window, and
      checked: verdicts-above:PX, answer-above:SECTION:PX,
      height-below:PX, folded (see layout()).  Prints the page's height.
  report_check.py png FILE
      FILE (chromium's --screenshot) is not blank: more than one colour,
      and at least 1% of its pixels differ from the most common one.

Each prints what it found; the exit status is 0 when it holds, 1 when
not.
"""
import html.parser
import json
import math
import os
import re
import select
import subprocess
import time
import struct
import sys
import xml.dom.minidom
import zlib
from collections import Counter

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}


def wellformed(path):
    try:
        xml.dom.minidom.parse(path)
    except Exception as e:  # the parser's message says where
        print(f"{path}: not well-formed: {e}")
        return 1
    print(f"{path}: well-formed")
    return 0


class Nesting(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes nothing")
            return
        top, pos = self.stack.pop()
        if top != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes <{top}> of line {pos[0]}")


def html_parser(path):
    p = Nesting()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    for tag, pos in p.stack:
        p.errors.append(f"line {pos[0]}: <{tag}> is never closed")
    for e in p.errors[:20]:
        print(f"{path}: {e}")
    if p.errors:
        return 1
    print(f"{path}: nesting checked by html.parser")
    return 0


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []
        self.scripts = 0
        self.csp = None
        self.svg = None      # the id of the <svg> we are in
        self.count = {}      # id -> Counter of element names inside
        self.classes = {}    # id -> Counter of the <g> classes inside
        self.texts = {}      # id -> [(class, attrs, text)] of its <text>s
        self.text = None     # the <text> we are in: [class, attrs, text]
        self.in_title = 0    # inside a <title> in it (a tooltip)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script":
            self.scripts += 1
        if tag == "meta" and (a.get("http-equiv") or "").lower() == \
                "content-security-policy":
            self.csp = a.get("content", "")
        for k in ("href", "src"):
            if a.get(k) is not None:
                self.links.append(a[k])
        if tag == "svg":
            self.svg = a.get("id")
            self.count[self.svg] = Counter()
            self.classes[self.svg] = Counter()
            self.texts[self.svg] = []
        elif self.svg is not None:
            self.count[self.svg][tag] += 1
            if tag == "g":
                for cls in (a.get("class") or "").split():
                    self.classes[self.svg][cls] += 1
            if tag == "text":
                self.text = [a.get("class") or "", a, ""]
            elif tag == "title" and self.text is not None:
                self.in_title += 1

    def handle_data(self, data):
        if self.text is not None and not self.in_title:
            self.text[2] += data

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg = None

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None
        elif tag == "title" and self.in_title:
            self.in_title -= 1
        elif tag == "text" and self.text is not None:
            self.texts[self.svg].append(tuple(self.text))
            self.text = None


# A tick of a log-ratio axis: the change in percent, and from 2x on the
# factor it is: "-90% (10x)", "+5%", "0".
RATIO_TICK = re.compile(r"^(0|[+-]\d+(?:\.\d+)?%)(?: ?\((\d+(?:\.\d+)?)x\))?$")


def row_labels(d, sid):
    """The row labels of chart @sid: their text without the tooltip."""
    return [t for cls, a, t in d.texts.get(sid, []) if cls == "label"]


def check_labels(d, sid, bad):
    """@sid's row labels tell the rows apart, none cut with an
    ellipsis."""
    labels = row_labels(d, sid)
    print(f"  svg#{sid}: {len(labels)} row labels, e.g. {labels[:2]}")
    if not labels:
        bad.append(f"svg#{sid} has no row labels")
    # "#N " alone does not say which variant a row is
    seen = Counter(re.sub(r"^#\d+ ", "", label) for label in labels)
    for label, n in seen.items():
        if n > 1:
            bad.append(f"svg#{sid}: {n} rows labelled \"{label}\": they cannot be told apart")
    for label in labels:
        if "..." in label or "\u2026" in label:
            bad.append(f"svg#{sid}: the label \"{label}\" is cut with an ellipsis")


def check_ratio_axis(d, sid, bad):
    """@sid's x axis is a log-ratio one: every tick labelled as a change
    in percent (the factor beside it from 2x on, and right), at least
    one of them a factor, each placed at log(1 + change) -- a linear
    axis would place them evenly in percent -- and the axis says so."""
    ticks = []
    for cls, a, t in d.texts.get(sid, []):
        if cls != "tick" or a.get("text-anchor") != "middle":
            continue
        m = RATIO_TICK.match(t.strip())
        if not m:
            bad.append(f"svg#{sid}: tick \"{t}\" is not a change in percent")
            continue
        pct = 0.0 if m.group(1) == "0" else float(m.group(1)[:-1])
        ticks.append((float(a["x"]), pct, m.group(2), t.strip()))
    print(f"  svg#{sid}: ticks {[t for _, _, _, t in ticks]}")
    if len(ticks) < 3:
        bad.append(f"svg#{sid}: {len(ticks)} ticks on its x axis, expected 3 or more")
        return
    if not any(f for _, _, f, _ in ticks):
        bad.append(f"svg#{sid}: no tick says its factor (\"-90% (10x)\")")
    for x, pct, fold, t in ticks:
        r = 1 + pct / 100
        want = r if r >= 1 else 1 / r
        if fold and abs(float(fold) - want) > 0.051 * want:
            bad.append(f"svg#{sid}: tick \"{t}\": {pct:+g}% is {want:.3g}x")
    # x = a + b log(1 + pct/100), from the outer two, for every tick
    (x0, p0, _, _), (x1, p1, _, _) = ticks[0], ticks[-1]
    l0, l1 = math.log1p(p0 / 100), math.log1p(p1 / 100)
    for x, pct, _, t in ticks:
        at = x0 + (x1 - x0) * (math.log1p(pct / 100) - l0) / (l1 - l0)
        if abs(at - x) > 1.0:
            bad.append(f"svg#{sid}: tick \"{t}\" at x {x:.1f}, not at "
                       f"{at:.1f} where a log-ratio axis puts it")
    if not any("log-ratio scale" in t for cls, a, t in d.texts[sid]
               if "axis-label" in cls):
        bad.append(f"svg#{sid}: its axis does not say it is a log-ratio scale")


def dom(path, folder, specs):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    d.close()
    bad = []
    want_files = 0
    for spec in specs:
        if spec.startswith("files:"):
            want_files = int(spec[6:])
            continue
        if spec.startswith("flame:"):
            # flame:ID:FRAMES: a difference flame graph of FRAMES frames
            # or more, some red (grew) and some blue (shrank), each with
            # its tooltip
            _, sid, frames = spec.split(":")
            c = d.classes.get(sid)
            if c is None:
                bad.append(f"no <svg id=\"{sid}\"> in the DOM")
                continue
            print(f"  svg#{sid}: {c['frame']} frames, {c['grew']} grew, "
                  f"{c['shrank']} shrank, {d.count[sid]['title']} titles")
            if c["frame"] < int(frames):
                bad.append(f"svg#{sid} has {c['frame']} frames, expected {frames} or more")
            if not c["grew"] or not c["shrank"]:
                bad.append(f"svg#{sid}: no frame that grew or none that shrank")
            if d.count[sid]["title"] < c["frame"]:
                bad.append(f"svg#{sid}: a frame without its tooltip")
            continue
        if spec.startswith("labels:") or spec.startswith("ratio-axis:"):
            kind, sid = spec.split(":", 1)
            if sid not in d.texts:
                bad.append(f"no <svg id=\"{sid}\"> in the DOM")
            elif kind == "labels":
                check_labels(d, sid, bad)
            else:
                check_ratio_axis(d, sid, bad)
            continue
        sid, circles, lines = spec.rsplit(":", 2)
        c = d.count.get(sid)
        if c is None:
            bad.append(f"no <svg id=\"{sid}\"> in the DOM")
            continue
        print(f"  svg#{sid}: {c['circle']} circles, {c['line']} lines, "
              f"{c['text']} texts")
        if c["circle"] != int(circles):
            bad.append(f"svg#{sid} has {c['circle']} circles, expected {circles}")
        if c["line"] < int(lines):
            bad.append(f"svg#{sid} has {c['line']} lines, expected {lines} or more")
        if c["text"] == 0:
            bad.append(f"svg#{sid} has no text: no axis, no labels")
    if d.scripts:
        bad.append(f"{d.scripts} <script> elements")
    if d.csp is None or "default-src 'none'" not in d.csp:
        bad.append(f"no Content-Security-Policy default-src 'none' ({d.csp!r})")
    files = 0
    for link in d.links:
        if link.startswith("#"):
            if link[1:] not in d.ids:
                bad.append(f"a link to {link}, which no element has as id")
        elif "://" in link or link.startswith("//") or \
                link.startswith("data:") or link.startswith("/"):
            bad.append(f"a link that leaves the report's folder: {link}")
        elif not os.path.isfile(os.path.join(folder, link)):
            bad.append(f"a link to '{link}', which is not in {folder}")
        else:
            files += 1
    if files < want_files:
        bad.append(f"{files} links to files in the folder, expected {want_files} or more")
    print(f"  {len(d.links)} links ({files} to files in the folder), "
          f"{len(d.ids)} ids, no script: {d.scripts == 0}")
    for b in bad:
        print(f"{path}: {b}")
    return 1 if bad else 0


def read_png(path):
    """The rows of an 8-bit RGB(A) non-interlaced PNG, as bytes."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"a PNG of depth {depth}, colour type {ctype}, "
                         f"interlace {interlace}: not what chromium writes")
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride, rows, prev, i = w * bpp, [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (a + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc
                                      else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def png(path):
    try:
        w, h, bpp, rows = read_png(path)
    except Exception as e:
        print(f"{path}: cannot read: {e}")
        return 1
    colours = Counter()
    for row in rows:
        for x in range(0, len(row), bpp):
            colours[row[x:x + 3]] += 1
    common, n = colours.most_common(1)[0]
    other = w * h - n
    print(f"{path}: {w}x{h}, {len(colours)} colours, "
          f"{100 * other / (w * h):.1f}% not the background #{common.hex()}")
    if len(colours) < 2 or other < w * h / 100:
        print(f"{path}: blank: nothing was drawn")
        return 1
    return 0


class Cdp:
    """Chromium, headless, driven over --remote-debugging-pipe: the
    DevTools protocol as NUL-terminated JSON on its fds 3 (commands in)
    and 4 (answers and events out).  No websocket, no package."""

    def __init__(self, chromium, profile, err):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():
            # to 3 and 4 in the child, by way of numbers above both
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            preexec_fn=fds, close_fds=False)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.from_r, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)


# What the layout check reads off the page as chromium laid it out: the
# page's height, and the bottom edge (px from the page's top) of what
# must be seen on the first screen.
LAYOUT_JS = r"""(() => {
const bottom = e => e.getBoundingClientRect().bottom + window.scrollY;
const all = s => Array.from(document.querySelectorAll(s));
return JSON.stringify({
  height: document.documentElement.scrollHeight,
  width: window.innerWidth, viewport: window.innerHeight,
  verdicts: all("#verdicts td.verdict").map(bottom),
  answers: all("#bisection p.answer, #why p.answer").map(
    e => [e.closest("section").id, bottom(e)]),
  variant_tables: all("table.runs").length,
  folded_tables: all("details > table.runs").length,
});
})()"""


def layout_of(chromium, profile, path, width, height, log):
    """The page @path laid out in a @width x @height window."""
    with open(log, "ab") as err:
        c = Cdp(chromium, profile, err)
        try:
            t = c.call("Target.createTarget", {"url": "about:blank"},
                       session=False)
            c.session = c.call("Target.attachToTarget",
                               {"targetId": t["targetId"], "flatten": True},
                               session=False)["sessionId"]
            c.call("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height,
                    "deviceScaleFactor": 1, "mobile": False})
            c.call("Page.enable")
            c.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
            c.wait_event("Page.loadEventFired")
            r = c.call("Runtime.evaluate",
                       {"expression": LAYOUT_JS, "returnByValue": True})
            if "exceptionDetails" in r:
                raise RuntimeError(f"the layout probe failed: {r['exceptionDetails']}")
            return json.loads(r["result"]["value"])
        finally:
            c.close()


def layout(chromium, profile, path, log, specs):
    """Lay @path out at 1400x900 and check @specs:
    verdicts-above:PX  every verdict of #verdicts ends above PX (and
                       there is at least one);
    answer-above:ID:PX the p.answer of section #ID ends above PX;
    height-below:PX    the page is less than PX tall;
    folded             every per-run table is inside a <details>."""
    try:
        lay = layout_of(chromium, profile, path, 1400, 900, log)
    except Exception as e:
        print(f"{path}: cannot lay it out in chromium: {e}")
        return 1
    print(f"{path}: laid out at {lay['width']}x{lay['viewport']}: "
          f"{lay['height']} px tall; verdicts end at "
          f"{max(lay['verdicts'], default=0):.0f} px; answers "
          f"{[(i, round(b)) for i, b in lay['answers']]}; "
          f"{lay['folded_tables']} of {lay['variant_tables']} per-run "
          f"tables folded")
    bad = []
    for spec in specs:
        kind, _, arg = spec.partition(":")
        if kind == "verdicts-above":
            if not lay["verdicts"]:
                bad.append("no verdict in #verdicts")
            elif max(lay["verdicts"]) > float(arg):
                bad.append(f"the verdicts end at {max(lay['verdicts']):.0f} px, "
                           f"below the first screen's {arg} px")
        elif kind == "answer-above":
            sid, px = arg.split(":")
            got = [b for i, b in lay["answers"] if i == sid]
            if not got:
                bad.append(f"no p.answer in section #{sid}")
            elif got[0] > float(px):
                bad.append(f"#{sid}'s answer ends at {got[0]:.0f} px, "
                           f"below the first screen's {px} px")
        elif kind == "height-below":
            if lay["height"] >= float(arg):
                bad.append(f"the page is {lay['height']} px tall, "
                           f"{arg} px or more")
        elif kind == "folded":
            if lay["folded_tables"] != lay["variant_tables"]:
                bad.append(f"{lay['variant_tables'] - lay['folded_tables']} "
                           f"per-run tables are not in a <details>")
        else:
            bad.append(f"unknown layout check {spec}")
    for b in bad:
        print(f"{path}: {b}")
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "wellformed":
        return wellformed(argv[2])
    if len(argv) >= 3 and argv[1] == "html-parser":
        return html_parser(argv[2])
    if len(argv) >= 4 and argv[1] == "dom":
        return dom(argv[2], argv[3], argv[4:])
    if len(argv) >= 6 and argv[1] == "layout":
        return layout(argv[2], argv[3], argv[4], argv[5], argv[6:])
    if len(argv) >= 3 and argv[1] == "png":
        return png(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
