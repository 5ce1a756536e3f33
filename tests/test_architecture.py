"""The package's shape, checked by reading its imports: the run layer sits above the benchmarks,
the benchmarks above the models; no module imports another module's private names."""

import ast
from pathlib import Path

import huebench

ROOT = Path(huebench.__file__).parent
#: the layers that may not import upward (the run layer uses benchmarks and models; benchmarks use models)
ORDER = {"runs": 2, "benchmarks": 1, "models": 0}
#: modules that compose layers on purpose: command lines, and ColorSwap's fine-tune-then-evaluate workflow
COMPOSERS = {"huebench.benchmarks.colorswap.finetune"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.Module, module: str, is_package: bool) -> list[tuple[str, list[str], bool]]:
    """(imported module, imported names, at module level?) for every import, TYPE_CHECKING blocks excluded."""
    out = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # annotations only: never imported at run time
            if isinstance(child, ast.Import):
                out.extend((a.name, [], top) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative import
                    pkg = module.split(".") if is_package else module.split(".")[:-1]
                    pkg = pkg[: len(pkg) - child.level + 1]
                    base = ".".join([*pkg, base] if base else pkg)
                out.append((base, [a.name for a in child.names], top))
            else:
                inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                visit(child, inner)

    visit(tree, True)
    return out


def _all_imports() -> dict[str, list[tuple[str, list[str], bool]]]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found[module] = _imports(tree, module, path.name == "__init__.py")
    return found


def _is_module(name: str) -> bool:
    """A submodule (``from huebench.color import _kernels``) rather than a name inside a module."""
    path = ROOT.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "huebench" and parts[1] in ORDER else None


def _composer(module: str) -> bool:
    return module.split(".")[-1] == "cli" or module in COMPOSERS


def test_layers_import_only_downward():
    upward = []
    for module, imports in _all_imports().items():
        here = _layer(module)
        if here is None or _composer(module):
            continue
        for target, _, top in imports:
            there = _layer(target)
            if there is not None and ORDER[there] > ORDER[here]:
                upward.append(f"{module} imports {target}{'' if top else ' (inside a function)'}")
    assert not upward, "imports from a lower layer up into a higher one:\n" + "\n".join(upward)


def test_no_module_level_import_cycles_between_layers():
    graph: dict[str, set[str]] = {}
    for module, imports in _all_imports().items():
        here = _layer(module)
        if here is None:
            continue
        graph.setdefault(here, set()).update(
            t for target, _, top in imports if top and (t := _layer(target)) not in (None, here)
        )
    seen: list[str] = []

    def cycle_from(node: str, path: list[str]) -> list[str] | None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                return [*path, nxt]
            found = cycle_from(nxt, [*path, nxt])
            if found:
                return found
        return None

    for start in sorted(graph):
        cycle = cycle_from(start, [start])
        if cycle:
            seen.append(" → ".join(cycle))
    assert not seen, seen


def test_no_private_names_imported_across_modules():
    private = []
    for module, imports in _all_imports().items():
        for target, names, _ in imports:
            if not target.startswith("huebench") or target == module:
                continue
            private += [
                f"{module}: from {target} import {n}"
                for n in names
                if n.startswith("_") and n != "__version__" and not _is_module(f"{target}.{n}")
            ]
    assert not private, "\n".join(private)


def test_the_walk_sees_known_imports():
    """The checks above only mean something if the walk finds imports: a known one must be seen."""
    imports = _all_imports()
    assert ("huebench.benchmarks.base", ["Benchmark", "Sample"], True) in [
        (t, n[:2], top) for t, n, top in imports["huebench.runs.context"]
    ]
    inner = [t for t, _, top in imports["huebench.runs.runner"] if not top]
    assert "huebench.models.registry" in inner
