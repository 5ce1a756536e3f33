"""Known-colour renders for the scorer diagnostic (seed 004 Appendix E), with Mitsuba 3.

Fifteen procedural objects (spheres, boxes, surfaces of revolution such as vases, bottles, cups
and pawns, tori) with a diffuse or glossy (rough plastic) material of an exact sRGB colour, on a
neutral floor and backdrop of three lightnesses, under four neutral lighting set-ups (path
tracing, soft shadows, specular highlights on glossy objects). A second render with Mitsuba's AOV
integrator gives the exact object mask.

Exposure is set as a photographer sets it with a grey card: the same object with a neutral 50 %
albedo is rendered in the same set-up, and the exposure maps the 90th percentile of its luminance to
0.5. Lit parts of the coloured object then carry its albedo — the target colour — and shaded parts
are darker versions of it; highlights on glossy objects clip, as in photographs.
"""

from __future__ import annotations

import functools
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench.color import srgb_to_linear
from huebench.color.conversions import RGB_TO_XYZ
from huebench.errors import HuebenchError

__all__ = ["BACKGROUNDS", "LIGHTINGS", "OBJECTS", "RenderSpec", "render", "render_radiance"]


def _lathe(profile: list[tuple[float, float]], n: int = 48) -> tuple[NDArray[np.float32], NDArray[np.uint32]]:
    r, y = np.asarray(profile, dtype=np.float64).T
    th = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    verts = np.stack(
        [np.outer(r, np.cos(th)), np.repeat(y[:, None], n, axis=1), np.outer(r, np.sin(th))], axis=-1
    ).reshape(-1, 3)
    faces = []
    for i in range(len(r) - 1):
        for j in range(n):
            a, b, c, d = i * n + j, i * n + (j + 1) % n, (i + 1) * n + j, (i + 1) * n + (j + 1) % n
            faces += [(a, c, b), (b, c, d)]
    tri = np.asarray(faces, dtype=np.int64)
    # drop the zero-area triangles of rings on the axis (r = 0: apex, disk centres); they give
    # undefined vertex normals, which rendered the cone black
    area = np.linalg.norm(np.cross(verts[tri[:, 1]] - verts[tri[:, 0]], verts[tri[:, 2]] - verts[tri[:, 0]]), axis=1)
    return verts.astype(np.float32), tri[area > 1e-9].astype(np.uint32)


def _torus(
    R: float = 0.65, r: float = 0.28, n: int = 48, m: int = 24
) -> tuple[NDArray[np.float32], NDArray[np.uint32]]:
    u, v = np.meshgrid(
        np.linspace(0, 2 * np.pi, n, endpoint=False), np.linspace(0, 2 * np.pi, m, endpoint=False), indexing="ij"
    )
    verts = np.stack(
        [(R + r * np.cos(v)) * np.cos(u), r * np.sin(v), (R + r * np.cos(v)) * np.sin(u)], axis=-1
    ).reshape(-1, 3)
    faces = []
    for i in range(n):
        for j in range(m):
            a, b, c, d = i * m + j, i * m + (j + 1) % m, ((i + 1) % n) * m + j, ((i + 1) % n) * m + (j + 1) % m
            faces += [(a, b, c), (b, d, c)]
    return verts.astype(np.float32), np.asarray(faces, dtype=np.uint32)


_PROFILES: dict[str, list[tuple[float, float]]] = {
    "vase": [(0.0, -1.0), (0.55, -1.0), (0.7, -0.4), (0.32, 0.45), (0.42, 1.0), (0.0, 1.0)],
    "bottle": [(0.0, -1.0), (0.45, -1.0), (0.45, 0.2), (0.15, 0.6), (0.15, 1.0), (0.0, 1.0)],
    "bowl": [(0.0, -0.5), (0.4, -0.5), (0.85, 0.0), (0.95, 0.3), (0.85, 0.3), (0.75, 0.0), (0.0, -0.35)],
    "cylinder": [(0.0, -0.8), (0.6, -0.8), (0.6, 0.8), (0.0, 0.8)],
    "cone": [(0.0, -0.8), (0.75, -0.8), (0.0, 0.9)],
    "capsule": [
        (0.0, -1.0),
        *[(0.45 * np.sin(t), -0.55 - 0.45 * np.cos(t)) for t in np.linspace(0.2, np.pi / 2, 6)],
        *[(0.45 * np.cos(t), 0.55 + 0.45 * np.sin(t)) for t in np.linspace(0, np.pi / 2 - 0.2, 6)],
        (0.0, 1.0),
    ],
    "egg": [
        (0.0, -0.9),
        *[(0.62 * np.sin(t) * (1 - 0.18 * np.cos(t)), -0.9 * np.cos(t)) for t in np.linspace(0.15, np.pi - 0.15, 14)],
        (0.0, 0.9),
    ],
    "pear": [
        (0.0, -0.9),
        (0.55, -0.8),
        (0.7, -0.45),
        (0.6, -0.05),
        (0.32, 0.35),
        (0.25, 0.7),
        (0.08, 0.9),
        (0.0, 0.92),
    ],
    "pawn": [
        (0.0, -1.0),
        (0.6, -1.0),
        (0.6, -0.85),
        (0.3, -0.6),
        (0.22, 0.1),
        (0.4, 0.2),
        (0.2, 0.35),
        (0.38, 0.6),
        (0.3, 0.9),
        (0.0, 0.95),
    ],
    "bell": [(0.0, 0.9), (0.2, 0.85), (0.4, 0.5), (0.5, -0.3), (0.8, -0.8), (0.0, -0.8)],
    "cup": [(0.0, -0.7), (0.45, -0.7), (0.55, 0.6), (0.5, 0.6), (0.42, -0.55), (0.0, -0.55)],
}


@dataclass(frozen=True)
class _Obj:
    kind: str  # "sphere", "cube", "mesh"
    material: str  # "diffuse" or "plastic"


OBJECTS: dict[str, _Obj] = {
    "sphere": _Obj("sphere", "diffuse"),
    "cube": _Obj("cube", "diffuse"),
    "glossy-sphere": _Obj("sphere", "plastic"),
    "torus": _Obj("mesh", "diffuse"),
    **{name: _Obj("mesh", "plastic" if name in ("vase", "bottle", "bowl", "cup") else "diffuse") for name in _PROFILES},
}

#: (environment radiance, sun irradiance, sun direction)
LIGHTINGS: dict[str, tuple[float, float, tuple[float, float, float]]] = {
    "studio": (0.45, 1.8, (-0.5, -0.8, -0.6)),
    "overhead": (0.35, 2.2, (0.0, -1.0, -0.15)),
    "soft": (1.0, 0.0, (0.0, -1.0, 0.0)),
    "side": (0.3, 2.4, (-1.0, -0.3, -0.2)),
}
#: neutral floor/backdrop albedos
BACKGROUNDS: dict[str, float] = {"white": 0.8, "gray": 0.3, "dark": 0.05}


@dataclass(frozen=True)
class RenderSpec:
    object: str
    rgb: tuple[int, int, int]
    lighting: str = "studio"
    background: str = "gray"
    size: int = 64
    spp: int = 32
    seed: int = 0


@functools.cache
def _mitsuba() -> Any:
    try:
        import mitsuba as mi
    except ImportError as exc:
        raise HuebenchError("renders need Mitsuba 3: bash scripts/install.sh render (pip install mitsuba)") from exc
    mi.set_variant("scalar_rgb")
    _route_log(mi)
    return mi


#: Mitsuba's own log, as Python log records (``_route_log``)
log = logging.getLogger(__name__)
#: what Mitsuba logs when Ctrl-C stops a render (KeyboardInterrupt follows, and huebench says itself
#: what was kept)
_INTERRUPT = "Received interrupt signal"
_LEVELS = {"Trace": logging.DEBUG, "Debug": logging.DEBUG, "Info": logging.INFO, "Warn": logging.WARNING}


def _route_log(mi: Any) -> None:
    """Send Mitsuba's log to Python logging (this module's logger) instead of Mitsuba's own lines on
    stderr, which carry colour codes and a timestamp into piped logs. Its interrupt notice is a debug
    record; its other warnings and errors stay visible as warnings and errors. Rendering is untouched."""

    class ToLogging(mi.Appender):
        def append(self, level: Any, text: str) -> None:
            severity = _LEVELS.get(level.name, logging.ERROR)
            log.log(logging.DEBUG if _INTERRUPT in text else severity, "mitsuba: %s", text.strip())

        def log_progress(self, *args: Any) -> None:
            pass  # Mitsuba's own progress bars: huebench shows its own progress

    logger = mi.logger()
    formatter = logger.formatter()  # the record has its own time and level
    formatter.set_has_date(False)
    formatter.set_has_log_level(False)
    formatter.set_has_thread(False)
    logger.clear_appenders()
    _APPENDERS.append(ToLogging())  # kept here: Mitsuba holds it by reference only
    logger.add_appender(_APPENDERS[-1])


_APPENDERS: list[Any] = []


@functools.cache
def _mesh_file(name: str) -> str:
    verts, faces = _torus() if name == "torus" else _lathe(_PROFILES[name])
    folder = Path(tempfile.gettempdir()) / "huebench-meshes"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.ply"
    lines = [
        "ply",
        "format ascii 1.0",
        f"element vertex {len(verts)}",
        "property float x",
        "property float y",
        "property float z",
        f"element face {len(faces)}",
        "property list uchar int vertex_indices",
        "end_header",
        *(f"{x:.6f} {y:.6f} {z:.6f}" for x, y, z in verts),
        *(f"3 {a} {b} {c}" for a, b, c in faces),
    ]
    from huebench.io import atomic_write_text

    atomic_write_text(path, "\n".join(lines) + "\n")  # several workers may write it at once
    return str(path)


def _shape(name: str, bsdf: dict[str, Any], mi: Any) -> dict[str, Any]:
    obj = OBJECTS[name]
    if obj.kind == "sphere":
        return {"type": "sphere", "radius": 0.85, "bsdf": bsdf}
    if obj.kind == "cube":
        return {
            "type": "cube",
            "to_world": mi.ScalarTransform4f().rotate([0, 1, 0], 35).rotate([1, 0, 0], 15).scale(0.62),
            "bsdf": bsdf,
        }
    # two-sided: the lathe profiles do not all wind their faces outwards
    return {
        "type": "ply",
        "filename": _mesh_file(name),
        "face_normals": False,
        "bsdf": {"type": "twosided", "bsdf": bsdf},
    }


def _scene(
    spec: RenderSpec, albedo: list[float], mi: Any, material: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    obj = OBJECTS[spec.object]
    rgb = {"type": "rgb", "value": albedo}
    bsdf = (
        {"type": "diffuse", "reflectance": rgb}
        if (material or obj.material) == "diffuse"
        else {"type": "roughplastic", "diffuse_reflectance": rgb, "alpha": 0.25}
    )
    env, sun, direction = LIGHTINGS[spec.lighting]
    bg = BACKGROUNDS[spec.background]
    sensor = {
        "type": "perspective",
        "fov": 38,
        "to_world": mi.ScalarTransform4f().look_at(origin=[0, 1.3, 4.4], target=[0, -0.1, 0], up=[0, 1, 0]),
        "film": {
            "type": "hdrfilm",
            "width": spec.size,
            "height": spec.size,
            "rfilter": {"type": "gaussian"},
            "pixel_format": "rgb",
        },
        "sampler": {"type": "independent", "sample_count": spec.spp, "seed": spec.seed},
    }
    grey = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [bg, bg, bg]}}
    scene: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 5},
        "sensor": sensor,
        "env": {"type": "constant", "radiance": {"type": "rgb", "value": [env, env, env]}},
        "object": _shape(spec.object, bsdf, mi),
        "floor": {
            "type": "rectangle",
            "to_world": mi.ScalarTransform4f().translate([0, -1.0, 0]).rotate([1, 0, 0], -90).scale(8),
            "bsdf": grey,
        },
        "backdrop": {
            "type": "rectangle",
            "to_world": mi.ScalarTransform4f().translate([0, 0, -3.0]).scale(8),
            "bsdf": grey,
        },
    }
    if sun > 0:
        scene["sun"] = {
            "type": "directional",
            "direction": list(direction),
            "irradiance": {"type": "rgb", "value": [sun, sun, sun]},
        }
    mask_scene = {
        "type": "scene",
        "integrator": {"type": "aov", "aovs": "d:depth"},
        "sensor": {
            **sensor,
            "film": {**sensor["film"], "rfilter": {"type": "box"}},
            "sampler": {"type": "independent", "sample_count": 1},
        },
        "object": _shape(spec.object, bsdf, mi),
    }
    return scene, mask_scene


@functools.cache
def _mask(obj: str, size: int) -> NDArray[np.bool_]:
    mi = _mitsuba()
    _, mask_scene = _scene(RenderSpec(obj, (128, 128, 128), size=size), [0.5, 0.5, 0.5], mi)
    return np.asarray(mi.render(mi.load_dict(mask_scene)))[..., 0] > 0


@functools.cache
def _exposure(obj: str, lighting: str, background: str, size: int, spp: int) -> float:
    """Grey-card exposure: the 90th percentile of a 50 %-grey object's luminance maps to 0.5."""
    mi = _mitsuba()
    spec = RenderSpec(obj, (128, 128, 128), lighting, background, size, spp)
    scene, _ = _scene(spec, [0.5, 0.5, 0.5], mi)
    radiance = np.asarray(mi.render(mi.load_dict(scene)), dtype=np.float64)
    lum = radiance[_mask(obj, size)] @ RGB_TO_XYZ[1]  # luminance Y
    return 0.5 / max(float(np.quantile(lum, 0.9)), 1e-6)


def render_radiance(
    spec: RenderSpec,
    *,
    light: tuple[float, float, float] = (1.0, 1.0, 1.0),
    backdrop: tuple[float, float, float] | None = None,
    material: str | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Render one object in one exact colour; returns (linear-sRGB radiance after the grey-card
    exposure, unclipped, exact object mask): lit parts of a diffuse object carry its albedo.

    ``light``: the linear-RGB colour of every emitter (environment and sun). With luminance 1 the
    neutral grey-card exposure stays right, as for a camera that exposes for luminance.
    ``backdrop``: a linear-RGB albedo for the floor and backdrop instead of the neutral
    ``spec.background``, whose grey-card exposure is kept (the photographer exposes once).
    ``material``: "diffuse" or "plastic" instead of the object's own (the exposure stays the
    object's)."""
    if spec.object not in OBJECTS:
        raise HuebenchError(f"unknown diagnostic object {spec.object!r}; available: {', '.join(OBJECTS)}")
    mi = _mitsuba()
    albedo = [float(v) for v in srgb_to_linear(np.asarray(spec.rgb, dtype=np.float64) / 255.0)]
    scene, _ = _scene(spec, albedo, mi, material)
    if tuple(light) != (1.0, 1.0, 1.0):  # the neutral scene is left exactly as render() has always built it
        env = scene["env"]["radiance"]["value"]
        scene["env"]["radiance"] = {"type": "rgb", "value": [e * c for e, c in zip(env, light, strict=True)]}
        if "sun" in scene:
            sun = scene["sun"]["irradiance"]["value"]
            scene["sun"]["irradiance"] = {"type": "rgb", "value": [e * c for e, c in zip(sun, light, strict=True)]}
    if backdrop is not None:
        coloured = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [float(v) for v in backdrop]}}
        scene["floor"] = {**scene["floor"], "bsdf": coloured}
        scene["backdrop"] = {**scene["backdrop"], "bsdf": coloured}
    radiance = np.asarray(mi.render(mi.load_dict(scene)), dtype=np.float64)
    exposure = _exposure(spec.object, spec.lighting, spec.background, spec.size, spec.spp)
    return radiance * exposure, _mask(spec.object, spec.size).copy()


def render(spec: RenderSpec) -> tuple[NDArray[np.uint8], NDArray[np.bool_]]:
    """Render one object in one exact colour; returns (8-bit sRGB image, exact object mask)."""
    radiance, mask = render_radiance(spec)
    from huebench.color import linear_to_srgb

    image = np.clip(linear_to_srgb(np.clip(radiance, 0.0, None)), 0.0, 1.0)
    return np.round(image * 255.0).astype(np.uint8), mask
