"""``huebench color``: show a colour in every space and system, or compare two colours."""

from __future__ import annotations

import json
from typing import Any, SupportsFloat

import typer
from rich.console import Console
from rich.table import Table

from huebench.errors import HuebenchError

app = typer.Typer(no_args_is_help=True)


def _r(x: SupportsFloat, nd: int = 4) -> float:
    return round(float(x), nd)


def describe(spec: str) -> dict[str, Any]:
    """Everything ``color show`` prints, as a JSON-ready dict."""
    from huebench.color import SYSTEM_NAMES, load_system, parse  # the colour core loads when a command runs

    c = parse(spec)
    lab, lch = c.lab, c.lch
    nearest = {}
    for sys_name in SYSTEM_NAMES:
        best = load_system(sys_name).nearest(c, 1)[0]
        nearest[sys_name] = {"name": best.color.name, "hex": best.color.hex, "delta_e00": _r(best.distance)}
    return {
        "input": spec,
        "name": c.name,
        "system": c.system,
        "hex": c.hex,
        "rgb": list(c.rgb),
        "srgb": [_r(v, 6) for v in c.srgb],
        "lab": [_r(v) for v in lab],
        "lch": [_r(v) for v in lch],
        "nearest": nearest,
    }


def compare(a: str, b: str) -> dict[str, Any]:
    """Everything ``color diff`` prints, as a JSON-ready dict."""
    import numpy as np

    from huebench.color import delta_chroma, delta_e, delta_hue, parse

    ca, cb = parse(a), parse(b)
    la, lb = ca.lab, cb.lab
    dh = float(delta_hue(la, lb, neutral=np.nan))
    return {
        "a": {"input": a, "hex": ca.hex, "lab": [_r(v) for v in la]},
        "b": {"input": b, "hex": cb.hex, "lab": [_r(v) for v in lb]},
        "delta_e76": _r(delta_e(la, lb, method="cie76")),
        "delta_e00": _r(delta_e(la, lb, method="ciede2000")),
        "delta_chroma": _r(delta_chroma(la, lb)),
        "delta_hue": None if np.isnan(dh) else _r(dh),
    }


@app.command("show")
def show(
    spec: str = typer.Argument(..., help="A colour: name, '#rrggbb', '#rgb', 'rgb(r, g, b)', or 'system:name'."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Show a colour as hex, 8-bit RGB, CIELAB and LCh, and its nearest name in every system."""
    info = describe(spec)
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    console = Console()
    title = f"{spec}" + (f" = {info['name']} ({info['system']})" if info["name"] else "")
    table = Table(title=title, show_header=False)
    table.add_row("hex", f"[on {info['hex']}]      [/] {info['hex']}")
    table.add_row("rgb", ", ".join(map(str, info["rgb"])))
    table.add_row("Lab", ", ".join(f"{v:.2f}" for v in info["lab"]))
    table.add_row("LCh", ", ".join(f"{v:.2f}" for v in info["lch"]))
    for sys_name, near in info["nearest"].items():
        table.add_row(
            f"nearest {sys_name}",
            f"[on {near['hex']}]  [/] {near['name']} {near['hex']} (ΔE00 {near['delta_e00']:.2f})",
        )
    console.print(table)


@app.command("diff")
def diff(
    a: str = typer.Argument(..., help="First colour."),
    b: str = typer.Argument(..., help="Second colour."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Compare two colours: ΔE*ab 1976, CIEDE2000, Δchroma and Δhue (gated by chroma)."""
    info = compare(a, b)
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    table = Table(title=f"{a} vs {b}", show_header=False)
    table.add_row("ΔE76", f"{info['delta_e76']:.4f}")
    table.add_row("ΔE00", f"{info['delta_e00']:.4f}")
    table.add_row("Δchroma", f"{info['delta_chroma']:.4f}")
    dh = info["delta_hue"]
    table.add_row("Δhue (°)", "n/a (a colour is near-achromatic)" if dh is None else f"{dh:.4f}")
    Console().print(table)


__all__ = ["HuebenchError", "app", "compare", "describe"]
