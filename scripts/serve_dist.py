#!/usr/bin/env python3
"""Serves a built site folder (dist/) on 127.0.0.1, with its precompressed files.

Contract: `serve_dist.py DIR PORT` answers GET and HEAD for the files under DIR like
`python3 -m http.server` does, except that for a file F it sends F.br (brotli) or F.gz
(gzip), written beside it by scripts/build-site.sh, when the request's Accept-Encoding
allows that coding (br preferred, q=0 honoured) — with `Content-Encoding`, F's own
Content-Type (`application/wasm` for the module, so streaming compilation works) and
`Vary: Accept-Encoding`. A request for F.br or F.gz itself is served as that file, not
decoded. Without a precompressed sibling, or without an acceptable coding, F goes out
as it is. Nothing is compressed at request time, and nothing outside DIR is served.
"""

import http.server
import os
import sys

# Codings in order of preference, with the suffix build-site.sh gives the file.
CODINGS = (("br", ".br"), ("gzip", ".gz"))


def accepted(header):
    """The content codings an Accept-Encoding header allows (q > 0), lower-cased."""
    allowed = set()
    for part in (header or "").split(","):
        fields = part.strip().split(";")
        coding = fields[0].strip().lower()
        if not coding:
            continue
        q = 1.0
        for param in fields[1:]:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            allowed.add(coding)
    return allowed


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".br": "application/octet-stream",
        ".gz": "application/gzip",
    }

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not self.path.split("?", 1)[0].endswith("/") or not os.path.isfile(index):
                return super().send_head()
            path = index
        if os.path.isfile(path):
            allowed = accepted(self.headers.get("Accept-Encoding"))
            for coding, suffix in CODINGS:
                packed = path + suffix
                if coding in allowed and os.path.isfile(packed):
                    return self.send_packed(path, packed, coding)
        return super().send_head()

    def send_packed(self, path, packed, coding):
        try:
            f = open(packed, "rb")
        except OSError:
            return super().send_head()
        stat = os.fstat(f.fileno())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Last-Modified", self.date_time_string(stat.st_mtime))
        self.end_headers()
        return f

    def end_headers(self):
        # The site is rebuilt in place: make browsers revalidate instead of mixing builds.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: serve_dist.py DIR PORT")
    directory, port = sys.argv[1], int(sys.argv[2])
    if not os.path.isdir(directory):
        sys.exit(f"serve_dist.py: {directory} is not a folder (run scripts/build-site.sh)")

    def handler(*args, **kwargs):
        return Handler(*args, directory=directory, **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    print(f"serving {directory} on http://127.0.0.1:{port}/ (precompressed .br/.gz)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
