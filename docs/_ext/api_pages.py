"""The API reference: one page per public object, one page per public module (issue 29).

At ``builder-inited`` this extension walks the public modules of geomech (every module whose
dotted name has no component starting with ``_``), reads each module's ``__all__`` and writes
``docs/generated/``:

* one page per public module or package: its docstring, then tables of the names it defines
  and of the names it re-exports (each linked to the object's one page), then its submodules;
* one page per public object (function, class, exception, constant), under the module that
  defines it (its *home*: the module named by its ``__module__`` when that module is public and
  lists it, otherwise the nearest public package that lists it). The page names the other
  paths the object is available under and ends with sphinx-gallery's "Examples using ..."
  thumbnails of the tutorials that call it under any of those names.

The re-exported paths (``geomech.coriolis_matrix``, ``geomech.multibody.coriolis_matrix``)
are real public names, and docstrings cross-reference them: a ``missing-reference`` handler
resolves a Python-domain reference to any alias (or to a member of an aliased class) to the
one page. A file is written only when its content changes, so a warm build re-reads nothing.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

ROOT = "geomech"

KINDS = {  # kind -> (autodoc directive, table heading)
    "class": ("autoclass", "Classes"),
    "exception": ("autoexception", "Exceptions"),
    "function": ("autofunction", "Functions"),
    "data": ("autodata", "Constants"),
}


def public_modules(root: str = ROOT) -> list[str]:
    """Dotted names of the public modules under ``root`` (``root`` included), sorted."""
    package = importlib.import_module(root)
    names = [root]
    for info in pkgutil.walk_packages(package.__path__, root + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    return sorted(names)


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj):
        return "function"
    return "data"


def _exports(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, v in vars(module).items()
            if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
        ]
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]


class Catalogue:
    """Every public module, every public object, the home of each and its aliases."""

    def __init__(self, root: str = ROOT):
        self.modules = public_modules(root)
        self.exports: dict[str, list[tuple[str, object]]] = {}
        found: dict[tuple, dict] = {}  # key -> {"obj", "name", "exporters"}
        for modname in self.modules:
            module = importlib.import_module(modname)
            rows = []
            for name in _exports(module):
                obj = getattr(module, name)
                rows.append((name, obj))
                if inspect.ismodule(obj):
                    continue
                key = (id(obj), name)
                found.setdefault(key, {"obj": obj, "name": name, "exporters": []})
                found[key]["exporters"].append(modname)
            self.exports[modname] = rows
        #: canonical dotted name -> (kind, home module, short name, aliases)
        self.objects: dict[str, tuple[str, str, str, list[str]]] = {}
        #: any public dotted name of an object -> its canonical dotted name
        self.alias: dict[str, str] = {}
        self._home_of: dict[tuple, str] = {}
        for key, entry in found.items():
            home = _home(entry["obj"], entry["exporters"])
            canonical = f"{home}.{entry['name']}"
            aliases = [f"{m}.{entry['name']}" for m in entry["exporters"] if m != home]
            self.objects[canonical] = (_kind(entry["obj"]), home, entry["name"], aliases)
            self._home_of[key] = canonical
            self.alias[canonical] = canonical
            for a in aliases:
                self.alias[a] = canonical

    def by_short_name(self, short: str) -> str | None:
        """The canonical name of the one object called ``short`` (None if none or several)."""
        if not hasattr(self, "_short"):
            self._short: dict[str, set[str]] = {}
            for canonical, (_, _, name, _) in self.objects.items():
                self._short.setdefault(name, set()).add(canonical)
        found = self._short.get(short, set())
        return next(iter(found)) if len(found) == 1 else None

    def canonical(self, name: str, obj) -> str | None:
        """The canonical dotted name of the object exported as ``name``."""
        return self._home_of.get((id(obj), name))

    def resolve(self, target: str) -> str | None:
        """The documented name that ``target`` (a public path, maybe into a class) refers to."""
        if target in self.alias:
            return self.alias[target]
        head, _, tail = target.rpartition(".")
        while head:
            if head in self.alias:
                return f"{self.alias[head]}.{tail}"
            head, _, rest = head.rpartition(".")
            tail = f"{rest}.{tail}"
        return None


def _home(obj, exporters: list[str]) -> str:
    """The module whose page documents ``obj``: where it is defined, if that is public and
    lists it; else the exporter nearest to its definition; else the deepest exporter."""
    defined = getattr(obj, "__module__", None) if not _kind(obj) == "data" else None
    if defined in exporters:
        return defined
    if isinstance(defined, str):
        ancestors = [m for m in exporters if defined.startswith(m + ".")]
        if ancestors:
            return max(ancestors, key=len)
    return max(exporters, key=lambda m: (m.count("."), m))


def _title(text: str, char: str = "=") -> str:
    text = text.replace("_", r"\_")
    return f"{text}\n{char * len(text)}\n"


def _table(names: list[str]) -> list[str]:
    return ["", ".. autosummary::", ""] + [f"   ~{n}" for n in names] + [""]


def module_page(cat: Catalogue, modname: str) -> str:
    """The reST of one module's page."""
    own: dict[str, list[str]] = {k: [] for k in KINDS}
    reexported, submodules = [], []
    for name, obj in cat.exports[modname]:
        if inspect.ismodule(obj):
            if obj.__name__ in cat.modules:
                submodules.append(obj.__name__)
            continue
        canonical = cat.canonical(name, obj)
        kind, home, _, _ = cat.objects[canonical]
        if home == modname:
            own[kind].append(canonical)
        else:
            reexported.append(canonical)
    children = [m for m in cat.modules if m.rpartition(".")[0] == modname]
    submodules = sorted(set(submodules) | set(children))
    # the tables name objects by their full dotted names, not relative to this module
    lines = [_title(modname), f".. automodule:: {modname}", "   :no-members:", ""]
    lines += [".. currentmodule:: None", ""]
    for kind, (_, heading) in KINDS.items():
        if own[kind]:
            lines += [f".. rubric:: {heading}"] + _table(own[kind])
    if reexported:
        lines += [
            ".. rubric:: Re-exported names",
            "",
            "Defined in a submodule (or another package) and documented there; available here "
            f"as ``{modname}.<name>``.",
        ]
        lines += _table(sorted(reexported, key=lambda n: n.rpartition(".")[2].lower()))
    if submodules:
        lines += [".. rubric:: Modules"] + _table(submodules)
    pages = [n for kind in KINDS for n in own[kind]] + children
    if pages:
        lines += [".. toctree::", "   :hidden:", ""] + [f"   {n}" for n in pages] + [""]
    return "\n".join(lines)


def object_page(cat: Catalogue, canonical: str) -> str:
    """The reST of one object's page."""
    kind, home, name, aliases = cat.objects[canonical]
    directive = KINDS[kind][0]
    # the short name as the title (the signature below gives the module; a long dotted title
    # overflows the page), so that a search for the name finds this page first
    lines = [_title(name), f".. currentmodule:: {home}", "", f".. {directive}:: {name}"]
    if kind == "data":
        obj = getattr(importlib.import_module(home), name)
        if len(repr(obj)) > 60:
            lines.append("   :no-value:")
    lines.append("")
    if aliases:
        shown = ", ".join(f"``{a}``" for a in sorted(aliases, key=len))
        lines += [f"Also available as {shown}.", ""]
    everyone = " ".join([canonical, *aliases])
    lines += [f".. minigallery:: {everyone}", f"   :add-heading: Examples using ``{name}``", ""]
    return "\n".join(lines)


def write(cat: Catalogue, out: Path) -> int:
    """Write every page into ``out`` (only the changed ones); return how many changed."""
    out.mkdir(parents=True, exist_ok=True)
    pages = {m: module_page(cat, m) for m in cat.modules}
    pages.update({n: object_page(cat, n) for n in cat.objects})
    changed = 0
    for name, text in pages.items():
        path = out / f"{name}.rst"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed += 1
    for stale in set(out.glob("*.rst")) - {out / f"{n}.rst" for n in pages}:
        stale.unlink()
    return changed


_CATALOGUE: list[Catalogue] = []


def _generate(app) -> None:
    cat = Catalogue()
    _CATALOGUE[:] = [cat]
    write(cat, Path(app.srcdir) / "generated")


def _candidates(cat: Catalogue, node) -> list[str]:
    """Documented names a Python reference may mean, most specific first: the target as an
    alias, under the current class or module, then by its first component's short name (when
    one object has it), then the class whose attribute it names."""
    target = node.get("reftarget", "").lstrip(".~")
    pyclass, pymodule = node.get("py:class"), node.get("py:module")
    spelled = [target]
    if target.startswith(ROOT + "."):  # a full path: no context to add
        pyclass = pymodule = None
    if pyclass:
        spelled.append(f"{pyclass}.{target}")
    if pymodule:
        spelled += [f"{pymodule}.{pyclass}.{target}"] if pyclass else []
        spelled.append(f"{pymodule}.{target}")
    found = [c for c in (cat.resolve(s) for s in spelled) if c]
    for s in spelled[: 2 if pyclass else 1]:
        head, _, rest = s.partition(".")
        short = cat.by_short_name(head)
        if short:
            found.append(f"{short}.{rest}" if rest else short)
    return list(dict.fromkeys(found))


def _resolve_alias(app, env, node, contnode):
    """Resolve a Python reference that names a documented object by another public path
    (``geomech.rnea``, ``MultibodyModel`` from another module) to its one page; an attribute
    without an entry of its own links to its class."""
    if node.get("refdomain") != "py" or not _CATALOGUE:
        return None
    cat = _CATALOGUE[0]
    domain = env.get_domain("py")

    def resolve(name):
        new = node.deepcopy()
        new["reftarget"], new["refspecific"] = name, False
        args = (env, node["refdoc"], app.builder)
        found = domain.resolve_xref(*args, node["reftype"], name, new, contnode)
        if found is None:  # e.g. :func: on a class, :class: on a constant
            anyone = domain.resolve_any_xref(*args, name, new, contnode)
            found = anyone[0][1] if anyone else None
        return found

    for canonical in _candidates(cat, node):
        found = resolve(canonical)
        if found is not None:
            return found
        head, _, attr = canonical.rpartition(".")  # an attribute of a documented class
        if head in cat.objects and cat.objects[head][0] in ("class", "exception"):
            _, home, name, _ = cat.objects[head]
            cls = getattr(importlib.import_module(home), name)
            described = re.search(rf"\b{re.escape(attr)}\b", cls.__doc__ or "")
            if not (hasattr(cls, attr) or described):  # an instance attribute it describes
                continue
            found = resolve(head)
            if found is not None:
                return found
    return None


def setup(app):
    # before autosummary (priority 500) so its tables see the pages
    app.connect("builder-inited", _generate, priority=400)
    app.connect("missing-reference", _resolve_alias)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
