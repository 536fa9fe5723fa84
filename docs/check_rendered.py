r"""Static check of the built HTML: what a browser would show broken, without a browser.

Run after the HTML build, on its output directory. It reads every page and fails on

* **broken maths**: a formula (``<span class="math">`` / ``<div class="math">``, typeset by
  MathJax in the browser) with a doubled backslash before a macro (``\\bar``, ``^\\top``: the
  TeX of a non-raw string written into a comment block, which MathJax shows as red errors such
  as "Missing open brace for superscript") or a TeX macro that lost its backslash
  (``mathsf\Phi``, ``barmathsfS``, ``^top``);
* **references to documents that are not in the project** above ``--max-missing-documents``:
  the design notes and research digests the code was written from (``DESIGN §3``,
  ``DESIGN.md``, ``anchors §1``, ``digest §1.1``, ``seed002.md``, ...). The docs' own pages
  (:doc:`conventions`, :doc:`papers`) are what to cite;
* **unresolved cross-references** above ``--max-unresolved``: a ``:func:``/``:class:``/... role
  that Sphinx could not link is rendered as ``<code class="xref ...">`` with no ``<a>`` around
  it (``sphinx -W`` does not report these unless ``nitpicky`` is on);
* **dangling "[docs]" links**: the back-links of the highlighted source pages (``_modules/``,
  sphinx.ext.viewcode) to the documentation of each object, when the page or its anchor does
  not exist.

It prints one line per page with a finding (counts per kind), the findings of the first two
kinds in full, and the totals; ``--list-unresolved`` also lists the unresolved targets with
their counts. Exit status: 0 clean, 1 a check failed, 2 bad usage.

Usage: ``python docs/check_rendered.py [--max-unresolved N] [--max-missing-documents N]
[--list-unresolved] BUILD_DIR``. The limits let CI ratchet a count down to zero.

Examples
--------
>>> page = Page("x.html")
>>> page.feed('<p><span class="math notranslate nohighlight">\\(\\\\bar H^\\\\top\\)</span>'
...           ' see DESIGN §3 and <code class="xref py py-func">f()</code>'
...           ' <a href="#"><code class="xref py py-func">g()</code></a></p>')
>>> page.close()
>>> [kind for kind, _ in page.findings]
['math', 'math', 'missing-document']
>>> page.unresolved
['f()']
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

#: Folders of the build that hold no pages of ours.
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", ".doctrees"}

# ---- maths ---------------------------------------------------------------------------------
#: A doubled backslash right before a letter or a TeX punctuation macro: ``\\bar``, ``\\,``.
#: (A line break ``\\`` inside a matrix is followed by a space, a newline or ``[``.)
DOUBLED = re.compile(r"\\\\(?=[A-Za-z,;:!{}|])")
#: Macro names that never appear in a formula without their backslash.
MACROS = (
    "mathsf|mathbf|mathrm|mathcal|mathbb|mathscr|mathfrak|mathit|operatorname|boldsymbol|"
    "tfrac|dfrac|frac|sqrt|begin|end|left|right|cdot|cdots|ldots|times|otimes|partial|nabla|"
    "langle|rangle|lfloor|rfloor|lceil|rceil|widehat|widetilde|overline|underline|text|"
    "alpha|beta|gamma|delta|epsilon|varepsilon|theta|lambda|sigma|omega|Gamma|Delta|Theta|"
    "Lambda|Sigma|Phi|Psi|Omega"
)
#: Short macro names that are also syllables: flagged only when glued to what they decorate.
ACCENTS = "bar|hat|dot|ddot|tilde|vec|check"
LOST = re.compile(
    rf"(?<![\\A-Za-z])(?:(?:{MACROS})(?=[A-Z{{\\_^]|(?:{MACROS}|{ACCENTS}))"
    rf"|(?:{ACCENTS})(?=[A-Z{{\\]|(?:{MACROS}|{ACCENTS}))"
    rf"|(?<=[\^_])(?:top|star|ast|prime|dagger)\b)"
)

# ---- documents that are not in the project ------------------------------------------------
#: (name, pattern) of each document the code was written from that the project does not ship.
MISSING_DOCUMENTS = [
    ("DESIGN", re.compile(r"\bDESIGN\b(?:\.md)?")),
    ("anchors", re.compile(r"\banchors(?:\.md)?\s*§|\banchors\.md\b")),
    ("aesthetics", re.compile(r"\baesthetics(?:\.md)?\s*§|\baesthetics\.md\b")),
    ("digest", re.compile(r"(?<![.\w])digest(?:'s)?\b(?!\s*\()|\bseed\s?00\d\.md\b")),
    # a path of the machine the page was built on (a warning's file name, a design note)
    ("absolute path", re.compile(r"(?<![\w.:/])/(?:work|home|tmp|root|Users)/[\w.+-]+/")),
]


def missing_documents(text: str) -> list[str]:
    """``"<document>: <context>"`` for each reference to a document not in the project.

    Examples
    --------
    >>> for line in missing_documents("angular first (DESIGN §3); see anchors §1.3, digest T7."):
    ...     print(line)
    DESIGN: angular first (DESIGN §3); see anchors §1.3,
    anchors: first (DESIGN §3); see anchors §1.3, digest T7.
    digest: §3); see anchors §1.3, digest T7.
    >>> missing_documents("h = hashlib.sha1(b).digest() or hexdigest(); see :doc:`conventions`")
    []
    """
    found = []
    for name, pattern in MISSING_DOCUMENTS:
        found += [f"{name}: {_context(text, m)}" for m in pattern.finditer(text)]
    return found


def math_errors(tex: str) -> list[str]:
    r"""What is wrong in one formula's TeX source (empty if nothing).

    Examples
    --------
    >>> math_errors(r"\bar H = G^\top H G")
    []
    >>> math_errors(r"\\bar H = G^\\top H G")
    ['doubled backslash: \\\\bar', 'doubled backslash: G^\\\\top']
    >>> math_errors(r"mathsf\Phi_k = barmathsfS_k")
    ['lost backslash: mathsf\\Phi_k', 'lost backslash: barmathsfS_k']
    >>> math_errors(r"\begin{bmatrix} a & b\\ c & d \end{bmatrix} + \text{bar}")
    []
    """
    found = [f"doubled backslash: {_around(tex, m)}" for m in DOUBLED.finditer(tex)]
    found += [f"lost backslash: {_around(tex, m)}" for m in LOST.finditer(tex)]
    return found


def _context(text: str, match: re.Match, width: int = 24) -> str:
    """``match`` with up to ``width`` characters of whole words each side."""
    left = text[max(0, match.start() - width) : match.start()]
    right = text[match.end() : match.end() + width]
    if match.start() > width and " " in left:
        left = left.split(" ", 1)[1]
    if match.end() + width < len(text) and " " in right:
        right = right.rsplit(" ", 1)[0]
    return f"{left}{match.group(0)}{right}".strip()


def _around(text: str, match: re.Match, width: int = 12) -> str:
    """The word around ``match`` (up to ``width`` characters each side, whitespace-bounded)."""
    start = text.rfind(" ", max(0, match.start() - width), match.start()) + 1
    if start == 0:
        start = max(0, match.start() - width)
    end = text.find(" ", match.end(), match.end() + width)
    end = min(len(text), match.end() + width) if end < 0 else end
    return text[start:end].strip()


class Page(HTMLParser):
    """One page's findings: ``findings`` [(kind, text)] and ``unresolved`` [target text]."""

    def __init__(self, name: str):
        super().__init__(convert_charrefs=True)
        self.name = name
        self.findings: list[tuple[str, str]] = []
        self.unresolved: list[str] = []
        self._a = 0
        self._skip = 0  # inside <script> / <style>
        self._math: list | None = None  # [tag, depth, text parts] of an open formula
        self._xref: list | None = None  # [tag, depth, text parts] of an unlinked xref
        self._text: list[str] = []
        self.ids: set[str] = set()
        self.backlinks: list[str] = []  # href of each viewcode "[docs]" link

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if dict(attrs).get("id"):
            self.ids.add(dict(attrs)["id"])
        if tag == "a" and "viewcode-back" in classes and dict(attrs).get("href"):
            self.backlinks.append(dict(attrs)["href"])
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "a":
            self._a += 1
        for open_ in (self._math, self._xref):
            if open_ is not None and tag == open_[0]:
                open_[1] += 1
        if self._math is None and tag in ("span", "div") and "math" in classes:
            self._math = [tag, 1, []]
        if self._xref is None and "xref" in classes and self._a == 0:
            self._xref = [tag, 1, []]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        if tag == "a":
            self._a = max(0, self._a - 1)
        if self._math is not None and tag == self._math[0]:
            self._math[1] -= 1
            if self._math[1] == 0:
                tex = _strip_delimiters("".join(self._math[2]))
                self.findings += [("math", e) for e in math_errors(tex)]
                self._math = None
        if self._xref is not None and tag == self._xref[0]:
            self._xref[1] -= 1
            if self._xref[1] == 0:
                self.unresolved.append(" ".join("".join(self._xref[2]).split()))
                self._xref = None

    def handle_data(self, data):
        if self._skip:
            return
        for open_ in (self._math, self._xref):
            if open_ is not None:
                open_[2].append(data)
        self._text.append(data)

    def close(self):
        super().close()
        text = " ".join("".join(self._text).split())
        self.findings += [("missing-document", f) for f in missing_documents(text)]


def _strip_delimiters(tex: str) -> str:
    tex = tex.strip()
    for left, right in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")):
        if tex.startswith(left) and tex.endswith(right):
            return tex[len(left) : -len(right)]
    return tex


def dangling_backlinks(pages: list[Page]) -> list[str]:
    """``"<page>: <href>"`` for each viewcode "[docs]" link whose target page or anchor is
    missing."""
    by_name = {p.name: p for p in pages}
    found = []
    for p in pages:
        for href in p.backlinks:
            path, _, anchor = href.partition("#")
            target = (Path(p.name).parent / path).as_posix() if path else p.name
            parts: list[str] = []
            for part in target.split("/"):
                if part == "..":
                    parts = parts[:-1]
                elif part not in ("", "."):
                    parts.append(part)
            page = by_name.get("/".join(parts))
            if page is None or (anchor and anchor not in page.ids):
                found.append(f"{p.name}: {href}")
    return found


def scan(build: Path) -> list[Page]:
    """Every page of the build, parsed."""
    pages = []
    for path in sorted(build.rglob("*.html")):
        rel = path.relative_to(build)
        if SKIP_DIRS.intersection(rel.parts[:-1]):
            continue
        page = Page(rel.as_posix())
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        page.close()
        pages.append(page)
    return pages


def main(argv: list[str] | None = None) -> int:
    """Run the check; return the exit status (0 clean, 1 failed, 2 bad usage)."""
    parser = argparse.ArgumentParser(
        prog="check_rendered.py", description=__doc__.split("\n\n")[0].replace("\n", " ")
    )
    parser.add_argument("build", type=Path, help="the HTML build directory")
    parser.add_argument(
        "--max-unresolved",
        type=int,
        default=0,
        metavar="N",
        help="fail when more than N cross-references are unresolved (default 0)",
    )
    parser.add_argument(
        "--max-missing-documents",
        type=int,
        default=0,
        metavar="N",
        help="fail when more than N references to documents not in the project remain (default 0)",
    )
    parser.add_argument(
        "--list-unresolved", action="store_true", help="list the unresolved targets with counts"
    )
    args = parser.parse_args(argv)
    if not (args.build / "index.html").is_file():
        print(f"check_rendered.py: error: no index.html in {args.build}", file=sys.stderr)
        return 2
    pages = scan(args.build)
    kinds = ("math", "missing-document")
    width = max([len(p.name) for p in pages] + [4])
    header = f"{'page':<{width}}  {'math':>5}  {'missing-doc':>11}  {'unresolved':>10}"
    rows = []
    for p in pages:
        counts = Counter(kind for kind, _ in p.findings)
        if counts or p.unresolved:
            rows.append(f"{p.name:<{width}}  {counts['math']:>5}  "
                        f"{counts['missing-document']:>11}  {len(p.unresolved):>10}")  # fmt: skip
    if rows:
        print(header)
        print("\n".join(rows))
    for kind in kinds:
        for p in pages:
            for k, text in p.findings:
                if k == kind:
                    print(f"{p.name}: {kind}: {text}")
    totals = {k: sum(1 for p in pages for kk, _ in p.findings if kk == k) for k in kinds}
    unresolved = Counter(t for p in pages for t in p.unresolved)
    n_unresolved = sum(unresolved.values())
    if args.list_unresolved:
        for target, count in unresolved.most_common():
            print(f"unresolved: {count:4d}  {target}")
    by_document = Counter(
        text.split(":", 1)[0] for p in pages for k, text in p.findings if k == "missing-document"
    )
    dangling = dangling_backlinks(pages)
    for line in dangling[:20]:
        print(f"dangling [docs] link: {line}")
    failed = totals["math"] > 0 or bool(dangling)
    failed |= totals["missing-document"] > args.max_missing_documents
    failed |= n_unresolved > args.max_unresolved
    documents = ", ".join(f"{name} {n}" for name, n in by_document.most_common()) or "none"
    print(
        f"{len(pages)} pages: {totals['math']} broken formulas; "
        f"{totals['missing-document']} references to documents not in the project ({documents}; "
        f"at most {args.max_missing_documents} allowed); {n_unresolved} unresolved "
        f"cross-references ({len(unresolved)} distinct; at most {args.max_unresolved} allowed); "
        f"{len(dangling)} dangling [docs] links"
        f" -- {'FAILED' if failed else 'ok'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
