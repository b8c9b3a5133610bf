#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""page_check.py PAGE [--code CODE] [--text TEXT]... [--png OUT] [--size WxH]:
opens a page of `hangtrace report --html` in headless Chromium and fails
(exit 1, the reason on stderr) unless: the static page loads nothing from
anywhere (no src/href/action attribute, no <link>/<img>/<iframe>/<object>/
<embed>, exactly its two scripts) under a Content-Security-Policy of
default-src 'none' with no 'unsafe-inline'; its script ran to the end (the
#ht-ready marker it adds last is in the rendered DOM); the console stayed
silent (a script error, or any blocked fetch, which the CSP reports there);
the title is the page's own; the first verdict's code is CODE and lies on the first screen; each TEXT is
in the rendered text; and a screenshot is not blank (over 5% of its pixels
differ from the background, with several colours). Prints one line of
numbers: the page's size, Chromium's wall time, the script's own time."""
import argparse
import html.parser
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM = os.environ.get("CHROMIUM", "chromium")


def die(msg):
    print("page_check: " + msg, file=sys.stderr)
    sys.exit(1)


class Static(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.bad, self.scripts, self.csp = [], 0, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
            if "src" in a:
                self.bad.append("script src")
        if tag in ("link", "img", "iframe", "object", "embed", "base", "form", "audio", "video"):
            self.bad.append("<%s>" % tag)
        for k, v in attrs:
            if k in ("src", "href", "action", "formaction", "srcset", "poster", "data"):
                self.bad.append("%s=%r on <%s>" % (k, v, tag))
            if k.startswith("on"):
                self.bad.append("%s on <%s>" % (k, tag))
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")


class Rendered(html.parser.HTMLParser):
    """The rendered DOM: the marker's attributes, the text, injected tags."""

    def __init__(self):
        super().__init__()
        self.ready, self.text, self.tags, self.skip = None, [], [], 0
        self.in_title, self.title = False, ""

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("script", "style"):
            self.skip += 1
        self.in_title = tag == "title"
        if dict(attrs).get("id") == "ht-ready":
            self.ready = dict(attrs)
        if any(k.startswith("on") for k, v in attrs):
            self.tags.append("on-handler")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data
            return
        if self.skip == 0:
            self.text.append(data)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        die("%s: not a PNG" % path)
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                die("PNG of depth %d colour type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride, rows, prev, i = w * bpp, [], bytearray(w * bpp), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--code")
    ap.add_argument("--text", action="append", default=[])
    ap.add_argument("--png")
    ap.add_argument("--size", default="1280,900")
    ap.add_argument("--no-static", action="store_true",
                    help="skip the static checks (to test that Chromium's own catch a fetch)")
    a = ap.parse_args()
    width, height = (int(v) for v in a.size.split(","))
    page = open(a.page, encoding="utf-8").read()

    s = Static()
    s.feed(page)
    if a.no_static:
        s.bad, s.scripts, s.csp, page_urls = [], 2, "default-src 'none'", False
    else:
        page_urls = re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    if s.bad:
        die("the page could fetch: " + ", ".join(s.bad[:5]))
    if s.scripts != 2:
        die("%d script elements, not the page's 2" % s.scripts)
    if page_urls:
        die("a URL other than the SVG namespace in the page")
    if not s.csp or "default-src 'none'" not in s.csp or "unsafe-inline" in s.csp:
        die("no strict Content-Security-Policy: %r" % s.csp)

    url = "file://" + os.path.abspath(a.page)
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
              "--virtual-time-budget=10000", "--window-size=%d,%d" % (width, height)]
    with tempfile.TemporaryDirectory() as prof:
        t0 = time.monotonic()
        r = subprocess.run(common + ["--user-data-dir=" + prof, "--dump-dom", url],
                           capture_output=True, text=True, timeout=120)
        wall = time.monotonic() - t0
    console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    if console:
        die("the console was not silent: " + console[0][:400])
    d = Rendered()
    d.feed(r.stdout)
    if d.ready is None:
        die("the page's script did not finish (no #ht-ready); chromium said: " +
            " | ".join(r.stderr.splitlines()[-3:])[:400])
    for bad in ("img", "iframe", "object", "embed", "on-handler"):
        if bad in d.tags and not a.no_static:
            die("the rendered page holds <%s>: markup from a trace got in" % bad)
    if d.tags.count("script") != 2 and not a.no_static:
        die("the rendered page holds %d scripts" % d.tags.count("script"))
    if not d.title.startswith("hangtrace report"):
        die("the page's title is %r: a script other than the page's ran" % d.title[:80])
    text = " ".join(d.text)
    if a.code is not None:
        got = d.ready.get("data-first-verdict")
        top = int(d.ready.get("data-first-verdict-top", "-1"))
        if got != a.code:
            die("first verdict on the page is %r, not %r" % (got, a.code))
        if not 0 <= top < height - 20:
            die("the first verdict's code is at y=%d, off the first screen (%d)" % (top, height))
    for t in a.text:
        if t not in text:
            die("%r is not in the rendered text" % t)

    if a.png:
        with tempfile.TemporaryDirectory() as prof:
            r = subprocess.run(common + ["--user-data-dir=" + prof, "--screenshot=" + a.png, url],
                               capture_output=True, text=True, timeout=120)
        if not os.path.exists(a.png):
            die("no screenshot: " + r.stderr[-300:])
        w, h, bpp, rows = png_pixels(a.png)
        bg = rows[h - 1][-bpp:][:3]
        other, colours = 0, set()
        for y in range(0, h, 2):
            row = rows[y]
            for x in range(0, w * bpp, bpp * 2):
                px = row[x:x + 3]
                colours.add(px)
                if px != bg:
                    other += 1
        frac = other / ((h // 2) * (w // 2))
        if frac < 0.05 or len(colours) < 8:
            die("the screenshot looks blank: %.1f%% non-background, %d colours" %
                (frac * 100, len(colours)))
    print("page %d bytes, chromium %.2f s, script %s ms, %s rows" %
          (len(page.encode()), wall, d.ready.get("data-ms"), d.ready.get("data-rows")))


main()
