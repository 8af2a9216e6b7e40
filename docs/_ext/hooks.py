"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

Pages that would go stale if copied are generated at build time from their one source:

* the notebooks are the files in ``notebooks/`` (added to the site here, run by mkdocs-jupyter);
* ``<!-- gen:NAME ARG -->`` in a page is replaced by what :data:`GENERATORS` makes of it: the
  algorithm table from the registry, a README section (the Python example), the bundled example instances, a
  schedule written by ``schedrelax.run``, the API reference of a subpackage, ...

An unknown generator or a README section that no longer exists fails the build.

The notebook pages are made to read offline and as in Jupyter (:func:`on_page_content`): the CDN
MathJax that mkdocs-jupyter puts on them is taken out (assets/math.js typesets their maths with the
KaTeX shipped in assets/katex/), and each exercise's solution cell (tag ``solution``) is folded in a
``<details>``. The notebooks' kernels talk over IPC, not TCP (:func:`on_config`).
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import pkgutil
import re
import shutil
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
MARKER = re.compile(r"<!-- gen:(?P<name>[\w-]+)(?: (?P<arg>[^>]*?))? -->")
MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)
SOLUTION_CELL = re.compile(r'<div class="jp-Cell\b[^"]*\bcelltag_solution\b[^"]*"')
DIV_TAG = re.compile(r"<div\b|</div>")


def on_config(config):
    """Run the notebooks' kernels over IPC in a private folder, not over TCP (a kernel over
    unencrypted TCP warns once per notebook). mkdocs-jupyter's nbconvert reads
    jupyter_nbconvert_config.json from JUPYTER_CONFIG_PATH; the socket path is absolute because a
    relative one is resolved in two working directories (the build's and the kernel's)."""
    folder = Path(tempfile.mkdtemp(prefix="schedrelax-docs-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / "jupyter_nbconvert_config.json").write_text(
        json.dumps({"KernelManager": {"transport": "ipc", "ip": str(folder / "kernel")}}), encoding="utf-8")
    paths = [p for p in os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join([str(folder), *paths])
    return config


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns .ipynb files into pages
def on_files(files, config):
    """The notebooks of ``notebooks/`` as pages ``notebooks/NAME.ipynb`` (sources stay where they are)."""
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(File(f"notebooks/{path.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    """Replace each ``<!-- gen:NAME ARG -->`` marker with the text it stands for."""
    def expand(m: re.Match) -> str:
        name, arg = m.group("name"), (m.group("arg") or "").strip()
        if name not in GENERATORS:
            raise PluginError(f"{page.file.src_uri}: unknown generator {name!r} (known: {', '.join(GENERATORS)})")
        return GENERATORS[name](arg)

    return MARKER.sub(expand, markdown)


def on_page_content(html, page, config, files):
    """A notebook page without the CDN MathJax, its solution cells folded (see the module docstring)."""
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    html = MATHJAX.sub("", html)
    if "mathjax" in html.lower():
        raise PluginError(f"{page.file.src_uri}: a MathJax script is left on the page (mkdocs-jupyter's template changed?)")
    return fold_solutions(html)


def fold_solutions(html: str) -> str:
    """Each cell tagged ``solution`` (its input and output) inside ``<details class="nb-solution">``,
    closed, as Jupyter shows a hidden cell. nbconvert nests two such divs per cell: the outer one is
    wrapped, with all it holds."""
    out, pos = [], 0
    while (m := SOLUTION_CELL.search(html, pos)):
        depth, end = 0, None
        for tag in DIV_TAG.finditer(html, m.start()):
            depth += 1 if tag.group() != "</div>" else -1
            if depth == 0:
                end = tag.end()
                break
        if end is None:
            raise PluginError("a solution cell's <div> is not closed")
        out += [html[pos:m.start()], '<details class="nb-solution"><summary>Solution</summary>\n',
                html[m.start():end], "\n</details>"]
        pos = end
    out.append(html[pos:])
    return "".join(out)


def _algorithms(arg: str) -> str:
    from schedrelax.algorithms import markdown_table

    return markdown_table(arg or None)


def _readme(title: str) -> str:
    """The body of the README section headed *title* (up to the next heading of its level or above)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(#+) (.*)", line)
        if m and m.group(2).strip() == title:
            level = len(m.group(1))
            body = []
            for nxt in lines[i + 1:]:
                h = re.match(r"(#+) ", nxt)
                if h and len(h.group(1)) <= level:
                    break
                body.append(nxt)
            return "\n".join(body).strip("\n")
    raise PluginError(f"README.md has no section headed {title!r} (docs/ includes it)")


def _compact_json(obj, indent: int = 0) -> str:
    """JSON with one line per object member and lists of numbers kept on one line."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(obj, dict) and obj:
        items = [f"{inner}{json.dumps(k)}: {_compact_json(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) and v for v in obj):
        if all(isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v) for v in obj):
            return json.dumps(obj)  # a list of pairs (edges) on one line
        return "[\n" + ",\n".join(f"{inner}{_compact_json(v, indent + 1)}" for v in obj) + f"\n{pad}]"
    return json.dumps(obj)


def _example_instance(family: str) -> str:
    """The bundled example instance of *family*, as the file holds it (re-indented)."""
    path = ROOT / "schedrelax" / "instances" / "data" / f"{family}_small.json"
    if not path.exists():
        raise PluginError(f"no bundled example instance {path.relative_to(ROOT)}")
    data = json.loads(path.read_text(encoding="utf-8"))
    return f'```json title="schedrelax/instances/data/{path.name}"\n{_compact_json(data)}\n```'


def _example_schedule(arg: str) -> str:
    """The schedule ``schedrelax.run(ALGORITHM, bundled FAMILY example)`` returns, as JSON (verified)."""
    family, algorithm = arg.split()
    import schedrelax as sr

    inst = sr.load(ROOT / "schedrelax" / "instances" / "data" / f"{family}_small.json")
    result = sr.run(algorithm, inst)
    data = result.schedule.to_dict()
    lines = ["{"] + [f'  "{k}": {json.dumps(v)},' for k, v in data.items()]
    lines[-1] = lines[-1].rstrip(",")
    return "```json\n" + "\n".join(lines + ["}"]) + "\n```"


def _schema(name: str) -> str:
    """The bundled JSON Schema ``schedrelax/schemas/NAME.schema.json`` in a collapsed block, or a note
    if this checkout has none (the schemas came after the file formats)."""
    path = ROOT / "schedrelax" / "schemas" / f"{name}.schema.json"
    if not path.exists():
        return (f"This version ships no JSON Schema for `{name}` files; the loader's checks above are "
                "the definition.")
    text = json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=2, ensure_ascii=False)
    body = "\n".join(("    " + line).rstrip() for line in f"```json\n{text}\n```".splitlines())
    return (f'??? note "JSON Schema: `schedrelax schema {name}` (`schedrelax/schemas/{path.name}`)"\n\n'
            f"{body}\n")


def _root_file(arg: str) -> str:
    """A file at the repository's root (CHANGELOG.md, CITATION.cff): Markdown as it is, others fenced."""
    name, _, lang = arg.partition(" ")
    path = ROOT / name
    if not path.exists():
        return f"!!! warning\n    `{name}` is not in this checkout yet."
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return re.sub(r"\A# [^\n]*\n", "", text)  # the page has its own title
    return f'```{lang or "text"} title="{name}"\n{text.rstrip()}\n```'


def _api(arg: str) -> str:
    """mkdocstrings blocks for ``PACKAGE [MODULE ...]``: the package's docstring and the members it
    defines itself, then each of the named modules (default: every public module, not subpackages).
    A plain module is rendered whole."""
    package, *only = arg.split()
    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__path__"):
        return f"::: {package}\n    options:\n      show_root_heading: false"
    own = sorted(
        name for name, obj in vars(pkg).items()
        if not name.startswith("_") and callable(obj) and getattr(obj, "__module__", None) == package
    )
    members = "[" + ", ".join(own) + "]" if own else "false"
    blocks = [f"::: {package}\n    options:\n      members: {members}\n      show_root_heading: false"]
    modules = only or sorted(i.name for i in pkgutil.iter_modules(pkg.__path__)
                             if not i.ispkg and not i.name.startswith("_"))
    blocks += [f"::: {package}.{name}" for name in modules]
    return "\n\n".join(blocks)


GENERATORS = {
    "algorithms": _algorithms,
    "readme": _readme,
    "example-instance": _example_instance,
    "example-schedule": _example_schedule,
    "schema": _schema,
    "root-file": _root_file,
    "api": _api,
}
