#!/usr/bin/env python3
"""Checks a page `tfprof-analyze report` (or `--format html`) wrote: it
parses, every element it opens is closed in order, and nothing in it makes
a browser fetch anything (no <link>, <img>, <iframe>, <object>, <embed>,
<script src>, no src/href/... naming another document, no CSS url() or
@import). Guide links in the analyses' text stay text.

Usage: check_html.py PAGE.html...   (exit 1 with one line per problem)
"""
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FETCHING = {"link", "img", "iframe", "object", "embed", "audio", "video", "source", "base"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "data", "srcset", "background"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.in_style = [], [], False

    def handle_starttag(self, tag, attrs):
        where = "line %d" % self.getpos()[0]
        if tag in FETCHING:
            self.problems.append(f"{where}: <{tag}> fetches or embeds")
        for name, value in attrs:
            if name in URL_ATTRS and value is not None and not value.startswith("#"):
                self.problems.append(f"{where}: <{tag} {name}={value!r}> names another document")
        if tag == "script" and any(n == "src" for n, _ in attrs):
            self.problems.append(f"{where}: <script src>")
        if tag not in VOID:
            self.stack.append(tag)
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("line %d: </%s> closes <%s>" % (self.getpos()[0], tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        self.in_style = False

    def handle_data(self, data):
        if self.in_style and re.search(r"url\(|@import", data):
            self.problems.append("line %d: CSS fetches (url() or @import)" % self.getpos()[0])


def main():
    bad = 0
    for path in sys.argv[1:]:
        text = open(path, encoding="utf-8").read()
        c = Checker()
        c.feed(text)
        c.close()
        if not text.startswith("<!DOCTYPE html>"):
            c.problems.append("no <!DOCTYPE html> first")
        if c.stack:
            c.problems.append("unclosed at the end: " + " ".join(c.stack))
        for p in c.problems:
            print(f"{path}: {p}")
        bad += len(c.problems)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
