"""Open the built documentation site in headless Chromium and check what a reader sees.

    python .ci/check_site.py SITE_DIR [--screenshots DIR]

Each notebook page is loaded from disk (file://, no server, no network) and its DOM dumped after the
page's scripts ran (``chromium --dump-dom``). Checked there:

* maths rendered: no ``$`` left in the page's text outside code (``<pre>``, ``<code>``) and the
  rendered formulas, at least one KaTeX formula where the built file had ``$...$``, no KaTeX error;
* solutions collapsed: every cell tagged ``solution`` sits inside a ``<details>`` that is not open;

and on every built page: no script or stylesheet is loaded from the network.
``--screenshots DIR`` also writes a PNG of each notebook page (1280 px wide), to look at.
Exit code 0 when every check holds, 1 otherwise (each failure printed), 2 without Chromium.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=10000", "--window-size=1280,2400"]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SKIP_TAGS = {"pre", "code", "script", "style", "textarea", "noscript", "svg", "math"}
SKIP_CLASSES = {"katex", "katex-display", "clipboard-copy-txt"}


class Page(HTMLParser):
    """What a page shows: its text outside code and rendered maths, its KaTeX formulas and errors,
    its solution cells (and whether each is inside a closed ``<details>``), its remote resources."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, bool]] = []  # (tag, skipped, a closed <details>)
        self.text: list[str] = []
        self.katex = self.katex_errors = 0
        self.solutions: list[bool] = []  # per solution cell: inside a closed <details>?
        self.remote: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if tag == "script" and (a.get("src") or "").startswith(("http:", "https:", "//")):
            self.remote.append(a["src"])
        if tag == "link" and "stylesheet" in (a.get("rel") or "") and (a.get("href") or "").startswith(("http:", "https:", "//")):
            self.remote.append(a["href"])
        self.katex += "katex" in classes
        self.katex_errors += "katex-error" in classes
        in_closed = any(closed for _, _, closed in self.stack)
        if "celltag_solution" in classes and not (self.stack and "celltag_solution" in self.stack[-1][0]):
            self.solutions.append(in_closed)
        if tag in VOID:
            return
        skipped = tag in SKIP_TAGS or bool(classes & SKIP_CLASSES) or "katex-error" in classes
        closed = tag == "details" and "open" not in a
        # The tag name carries the solution mark so that nbconvert's nested pair counts once.
        name = tag + (" celltag_solution" if "celltag_solution" in classes else "")
        self.stack.append((name, skipped, closed))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0].split()[0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if not any(skipped for _, skipped, _ in self.stack):
            self.text.append(data)

    def dollars(self) -> list[str]:
        """Each ``$`` of the shown text, with some text around it."""
        text = " ".join("".join(self.text).split())
        return [text[max(0, i - 40):i + 40] for i, c in enumerate(text) if c == "$"]


def find_chromium() -> str | None:
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def render(chromium: str, page: Path, screenshot: Path | None = None) -> str:
    """The page's DOM after its scripts ran, from a fresh profile (and a PNG of it, if asked)."""
    with tempfile.TemporaryDirectory() as profile:
        args = [chromium, *FLAGS, f"--user-data-dir={profile}"]
        dom = subprocess.run([*args, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                             timeout=120, check=True).stdout
        if screenshot:
            subprocess.run([*args, f"--screenshot={screenshot}", page.as_uri()], capture_output=True,
                           timeout=120, check=True)
    return dom


def check(site: Path, screenshots: Path | None) -> list[str]:
    chromium = find_chromium()
    if chromium is None:
        print("check_site: no chromium found", file=sys.stderr)
        sys.exit(2)
    failures = []
    for path in sorted(site.rglob("*.html")):
        for url in Page(path.read_text(encoding="utf-8")).remote:
            failures.append(f"{path.relative_to(site)}: loads {url} from the network")
    notebooks = sorted(p for p in (site / "notebooks").glob("*.html") if p.name != "index.html")
    if not notebooks:
        return failures + [f"no notebook pages in {site / 'notebooks'}"]
    solutions = 0
    for path in notebooks:
        name = path.relative_to(site)
        built = Page(path.read_text(encoding="utf-8"))
        shown = Page(render(chromium, path, screenshots / f"{path.stem}.png" if screenshots else None))
        raw = shown.dollars()
        failures += [f"{name}: raw TeX left on the page: ...{context}..." for context in raw[:3]]
        if len(raw) > 3:
            failures.append(f"{name}: ... {len(raw)} raw $ in all")
        if built.dollars() and not shown.katex:
            failures.append(f"{name}: the file has $...$ but no KaTeX formula was rendered")
        if shown.katex_errors:
            failures.append(f"{name}: {shown.katex_errors} formula(s) KaTeX could not parse")
        if len(shown.solutions) != len(built.solutions):
            failures.append(f"{name}: {len(built.solutions)} solution cells built, {len(shown.solutions)} shown")
        open_ones = shown.solutions.count(False)
        if open_ones:
            failures.append(f"{name}: {open_ones} of {len(shown.solutions)} solution cells are not folded")
        solutions += len(shown.solutions)
        print(f"  {name}: {shown.katex} formulas, {len(raw)} raw $, "
              f"{len(shown.solutions) - open_ones}/{len(shown.solutions)} solutions folded")
    if not solutions:
        failures.append("no solution cell on any notebook page (tag 'solution'): nothing was checked")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site (mkdocs build --site-dir)")
    parser.add_argument("--screenshots", type=Path, help="also write a PNG of each notebook page here")
    args = parser.parse_args()
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    failures = check(args.site, args.screenshots)
    for failure in failures:
        print(f"FAIL {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
