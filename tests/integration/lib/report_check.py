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
  report_check.py png FILE
      FILE (chromium's --screenshot) is not blank: more than one colour,
      and at least 1% of its pixels differ from the most common one.

Each prints what it found; the exit status is 0 when it holds, 1 when
not.
"""
import html.parser
import os
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
        elif self.svg is not None:
            self.count[self.svg][tag] += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg = None

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None


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


def main(argv):
    if len(argv) >= 3 and argv[1] == "wellformed":
        return wellformed(argv[2])
    if len(argv) >= 3 and argv[1] == "html-parser":
        return html_parser(argv[2])
    if len(argv) >= 4 and argv[1] == "dom":
        return dom(argv[2], argv[3], argv[4:])
    if len(argv) >= 3 and argv[1] == "png":
        return png(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
