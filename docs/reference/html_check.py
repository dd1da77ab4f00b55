#!/usr/bin/env python3
"""The rendered manual as a reader's browser shows it: fails on text that
markdown took for an HTML tag (`<x, y, width, height>` outside a code span:
the browser hides it) and on typographic quotes inside code, or right after
an `=` (crop=”<...>”): a command pasted from the page would then fail.

    html_check.py MANUAL_DIR     (build/docs/reference/gstef-1.0)"""
import html.parser
import pathlib
import sys

# HTML's elements (and the SVG ones gi-docgen's pages use): any other start
# tag is text the browser swallows.
KNOWN_TAGS = set("""
a abbr address area article aside audio b base bdi bdo blockquote body br button
canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl
dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hr
html i iframe img input ins kbd label legend li link main map mark menu meta meter nav
noscript object ol optgroup option output p param picture pre progress q rp rt ruby s
samp script search section select small source span strong style sub summary sup
table tbody td template textarea tfoot th thead time title tr track u ul var video wbr
svg path g use symbol defs circle rect line polyline polygon title desc
""".split())
TYPOGRAPHIC = "\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb"


class Page(html.parser.HTMLParser):
    def __init__(self, name):
        super().__init__(convert_charrefs=True)
        self.name, self.problems, self.code_depth, self.last = name, [], 0, ""

    def handle_starttag(self, tag, attrs):
        if tag not in KNOWN_TAGS:
            text = self.get_starttag_text()
            self.problems.append(f"line {self.getpos()[0]}: {text!r} is read as an HTML tag "
                                 "(the browser hides it): put it in a code span")
        if tag in ("code", "pre"):
            self.code_depth += 1

    def handle_endtag(self, tag):
        if tag in ("code", "pre") and self.code_depth:
            self.code_depth -= 1

    def handle_data(self, data):
        for i, ch in enumerate(data):
            if ch not in TYPOGRAPHIC:
                continue
            before = (self.last + data[:i]).rstrip(" ")[-1:]
            if self.code_depth or before == "=":
                where = "inside code" if self.code_depth else "after '='"
                context = (self.last + data)[max(0, len(self.last) + i - 30):len(self.last) + i + 30]
                self.problems.append(f"line {self.getpos()[0]}: a typographic quote {where}: "
                                     f"{context!r} (a pasted command would fail)")
        self.last = (self.last + data)[-40:]


def main():
    manual = pathlib.Path(sys.argv[1])
    pages = sorted(manual.glob("*.html"))
    if not pages:
        sys.exit(f"html_check.py: no pages in {manual}")
    problems = 0
    for path in pages:
        page = Page(path.name)
        page.feed(path.read_text(encoding="utf-8"))
        for problem in page.problems:
            print(f"{path.name}: {problem}")
        problems += len(page.problems)
    if problems:
        print(f"FAIL: {problems} problems in {len(pages)} pages")
        return 1
    print(f"{len(pages)} pages: no text taken for HTML tags, no typographic quotes in code")
    return 0


sys.exit(main())
