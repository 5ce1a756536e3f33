"""``huebench run known-colors``: colour naming, constancy, contrast and category boundaries of a
vision model, on rendered objects and flat patches whose colour is known exactly (docs/known-colors.md).

Four probes, each a set of samples (``--probes``):

- ``naming``: every distinct colour of the system on every shape (and a flat patch), neutral light;
- ``constancy``: the same albedos under D65, A, 10,000 K and a green tint, with and without the
  camera's white balance;
- ``contrast``: the same albedos on surrounds of three lightnesses and four hues;
- ``boundaries``: a sweep of 72 CIELAB hues (``--hues``) at three (L*, C*) levels, flat patches and objects;
- ``recolored``: naming images whose object is recoloured afterwards — its CIELCh hue turned by 90°,
  180° and 270° at constant L* and C* (:func:`huebench.color.recolor`) — named against the turned
  albedo: a robustness test of naming, with the edit's ΔE00 per image.

The model names each image's object among the system's names: contrastive models and ITM heads score
"a photo of a {colour} {object}" for every name; VLMs answer "Is the {object} in this image
{colour}?" for every name (a forced choice by P(yes)) and, separately, "What colour is the
{object}?" (an open answer, parsed to a system name by :mod:`.answers`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from huebench._suggest import suggestion_text
from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.gencolor.render import LIGHTINGS, OBJECTS
from huebench.benchmarks.known_colors import metrics as km
from huebench.benchmarks.known_colors.answers import parse_answer, spoken
from huebench.benchmarks.known_colors.stimuli import (
    LEVELS,
    LIGHTS,
    NOUNS,
    REFERENCE_LIGHT,
    REFERENCE_SURROUND,
    SURROUNDS,
    material,
    sweep_rgb,
)
from huebench.color import delta_e, lab_to_srgb, linear_to_srgb8, load_system, recolor, srgb8_to_linear, srgb_to_lab
from huebench.color.conversions import RGB_TO_XYZ
from huebench.color.recolor import rotate_hue_lch
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, Generation, ImageTextScores, MatchProbability, Request, YesProbability

__all__ = ["KnownColors"]

PROBES = ("naming", "constancy", "contrast", "boundaries", "recolored")
SYSTEMS = ("basic", "iscc-nbs-l2", "css3")
CAPTION = "a photo of {article} {color} {object}"
QUESTION = "Is the {object} in this image {color}? Answer yes or no."
OPEN_QUESTION = "What colour is the {object} in this image? Answer with a colour name."
#: --quick's shapes: five diffuse, five glossy
QUICK_OBJECTS = ("sphere", "glossy-sphere", "cube", "vase", "torus", "bottle", "cylinder", "bowl", "pawn", "cup")
#: shapes per colour in the probes after naming: (quick, full)
PROBE_SHAPES = {"constancy": (2, 4), "contrast": (1, 2), "boundaries": (1, 2), "recolored": (1, 2)}
#: the recolored probe's hue turns (degrees, CIELCh), as ColorBench's robustness variants turn HSV hue
RECOLOR_SHIFTS = (90.0, 180.0, 270.0)
#: at most this many albedos in the constancy and contrast probes (a seeded choice from larger systems)
MAX_PROBE_COLORS = 30
HUES = 72
CAPABILITIES = ("auto", "itm", "image-text-score", "vlm")


def _pick(*keys: Any) -> int:
    return int.from_bytes(hashlib.sha256("\x00".join(map(str, keys)).encode()).digest()[:8], "little")


def _choices(value: str, allowed: Sequence[str], what: str, option: str) -> list[str]:
    """A comma-separated option value as a list of allowed names, or a one-line error."""
    if str(value).strip().lower() == "all":
        return list(allowed)
    picked = [v.strip() for v in str(value).split(",") if v.strip()]
    for v in picked:
        if v not in allowed:
            raise UnknownNameError(
                f"known-colors: unknown {what} {v!r} in --{option.replace('_', '-')}; use all or a comma-separated "
                f"list of {', '.join(allowed)}." + suggestion_text(v, allowed)
            )
    if not picked:
        raise HuebenchError(
            f"known-colors: --{option.replace('_', '-')} is empty; use all or some of {', '.join(allowed)}"
        )
    return list(dict.fromkeys(picked))


@register_benchmark("known-colors")
class KnownColors(Benchmark):
    name = "known-colors"
    description = "Colour naming, constancy, contrast and category boundaries on renders of known colour"
    capabilities = (Capability.ITM, Capability.IMAGE_TEXT_SCORE, Capability.VLM)
    progress_phase = "rendering and naming"
    headline = (
        "choice/naming/accuracy",
        "choice/naming/delta_e",
        "choice/constancy/index/balanced",
        "choice/contrast/shift_rate",
        "choice/boundaries/distance",
        "choice/recolored/robust",
        "open/naming/accuracy",
    )
    option_help: ClassVar[dict[str, str]] = {
        "system": "The names the model chooses among: basic (11 terms), iscc-nbs-l2 (29) or css3 (147).",
        "quick": "Smaller renders (48 px, 16 spp), 10 shapes, fewer shapes per probe: 883 images with the basic "
        "system, about a minute of rendering on a 2-core CPU (docs/known-colors.md, Run time).",
        "probes": "all, or comma-separated naming, constancy, contrast, boundaries (docs/known-colors.md, The probes).",
        "objects": "Shapes: default (all 15; 10 with --quick), all, or comma-separated names of the renderer's objects.",
        "size": "Image size in pixels (default: 48 with --quick, else 64).",
        "spp": "Render samples per pixel (default: 16 with --quick, else 32).",
        "hues": "Hues of the boundary sweep around the CIELAB hue circle (default 72, 5° apart; 12 to 360).",
        "capability": "auto (itm, then image-text-score, then vlm: the first the model offers) or one of them.",
        "max_new_tokens": "Tokens a VLM may generate for its open answer.",
    }

    def __init__(
        self,
        seed: int = 0,
        system: str = "basic",
        quick: bool = False,
        probes: str = "all",
        objects: str = "default",
        size: int | None = None,
        spp: int | None = None,
        hues: int = HUES,
        capability: str = "auto",
        max_new_tokens: int = 12,
        **options: Any,
    ):
        if system not in SYSTEMS:
            raise UnknownNameError(
                f"known-colors: unknown --system {system!r}; use {', '.join(SYSTEMS)}."
                + suggestion_text(system, SYSTEMS)
            )
        if capability not in CAPABILITIES:
            raise UnknownNameError(
                f"known-colors: unknown --capability {capability!r}; use {', '.join(CAPABILITIES)}."
                + suggestion_text(capability, CAPABILITIES)
            )
        self.probes = _choices(probes, PROBES, "probe", "probes")
        self.objects = (
            list(QUICK_OBJECTS if quick else OBJECTS)
            if str(objects).strip().lower() == "default"
            else _choices(objects, list(OBJECTS), "object", "objects")
        )
        size = int(size or (48 if quick else 64))
        spp = int(spp or (16 if quick else 32))
        if not 16 <= size <= 512:
            raise HuebenchError(f"known-colors: --size must be 16 to 512 pixels, got {size}")
        if not 1 <= spp <= 4096:
            raise HuebenchError(f"known-colors: --spp must be 1 to 4096, got {spp}")
        if not 12 <= int(hues) <= 360:
            raise HuebenchError(f"known-colors: --hues must be 12 to 360, got {hues}")
        if int(max_new_tokens) < 1:
            raise HuebenchError(f"known-colors: --max-new-tokens must be at least 1, got {max_new_tokens}")
        super().__init__(
            seed=seed,
            system=system,
            quick=bool(quick),
            probes=probes,
            objects=objects,
            size=size,
            spp=spp,
            hues=int(hues),
            capability=capability,
            max_new_tokens=int(max_new_tokens),
            **options,
        )
        self.seed, self.system_name, self.quick, self.size, self.spp = seed, system, bool(quick), size, spp
        self.capability, self.max_new_tokens, self.hues = capability, int(max_new_tokens), int(hues)
        self.system = load_system(system)
        seen: dict[tuple[int, int, int], str] = {}
        for c in self.system:  # aliases of one colour (CSS gray/grey, aqua/cyan) are one name
            seen.setdefault(c.rgb, c.name)
        self.names = list(seen.values())
        self._canonical = {c.name: seen[c.rgb] for c in self.system}
        self._lab = np.stack([self.system.get(n).lab for n in self.names])

    # -- samples ---------------------------------------------------------------------------------
    def _probe_objects(self, probe: str) -> list[str]:
        """The probe's shapes: diffuse and glossy in turn, from the run's shapes."""
        n = PROBE_SHAPES[probe][0 if self.quick else 1]
        diffuse = [o for o in self.objects if material(o) == "diffuse"]
        glossy = [o for o in self.objects if material(o) == "glossy"]
        out = [o for pair in zip(diffuse, glossy, strict=False) for o in pair]
        out += [o for o in self.objects if o not in out]
        return out[:n]

    def _probe_colors(self) -> list[str]:
        if len(self.names) <= MAX_PROBE_COLORS:
            return list(self.names)
        rng = np.random.default_rng(self.seed)
        keep = set(rng.choice(len(self.names), size=MAX_PROBE_COLORS, replace=False).tolist())
        return [n for i, n in enumerate(self.names) if i in keep]

    def _inputs(self, probe: str, obj: str, rgb: Sequence[int], **extra: Any) -> dict[str, Any]:
        lighting = extra.pop("lighting", "studio")
        background = extra.pop("background", REFERENCE_SURROUND)
        inputs: dict[str, Any] = {
            "probe": probe,
            "kind": "flat" if obj == "patch" else "object",
            "object": obj,
            "material": material(obj),
            "noun": NOUNS[obj],
            "rgb": [int(v) for v in rgb],
            "lighting": lighting,
            "background": background,
            "light": REFERENCE_LIGHT,
            "white_balance": False,
            "size": self.size,
            "spp": self.spp,
            # the same object, albedo and set-up render with the same seed under every light
            "render_seed": _pick(self.seed, obj, list(rgb), lighting, background) % 100000,
        }
        inputs.update(extra)
        return inputs

    def samples(self) -> list[Sample]:
        out: list[Sample] = []
        if "naming" in self.probes:
            for name in self.names:
                rgb = self.system.get(name).rgb
                for obj in ["patch", *self.objects]:
                    lighting = list(LIGHTINGS)[_pick(self.seed, name, obj) % len(LIGHTINGS)]
                    out.append(
                        Sample(f"naming/{obj}/{name}", self._inputs("naming", obj, rgb, color=name, lighting=lighting))
                    )
        if "constancy" in self.probes:
            for name in self._probe_colors():
                rgb = self.system.get(name).rgb
                for obj in self._probe_objects("constancy"):
                    for light in LIGHTS:
                        for wb in (False, True):
                            out.append(
                                Sample(
                                    f"constancy/{obj}/{name}/{light}/{'balanced' if wb else 'unbalanced'}",
                                    self._inputs("constancy", obj, rgb, color=name, light=light, white_balance=wb),
                                )
                            )
        if "contrast" in self.probes:
            for name in self._probe_colors():
                rgb = self.system.get(name).rgb
                for obj in ["patch", *self._probe_objects("contrast")]:
                    for surround in SURROUNDS:
                        out.append(
                            Sample(
                                f"contrast/{obj}/{name}/{surround}",
                                self._inputs("contrast", obj, rgb, color=name, background=surround),
                            )
                        )
        if "boundaries" in self.probes:
            for lightness, chroma in LEVELS:
                for hue in np.round(np.arange(self.hues) * (360.0 / self.hues), 4):
                    rgb = sweep_rgb(lightness, chroma, float(hue))
                    lab = np.asarray(srgb_to_lab(np.asarray(rgb, dtype=np.uint8)), dtype=np.float64)
                    nearest = self._canonical[self.system.nearest_lab(lab)[0].color.name]
                    for obj in ["patch", *self._probe_objects("boundaries")]:
                        out.append(
                            Sample(
                                f"boundaries/{obj}/L{lightness:g}/h{hue:g}",
                                self._inputs(
                                    "boundaries",
                                    obj,
                                    rgb,
                                    color=None,
                                    lightness=lightness,
                                    chroma=chroma,
                                    hue=float(hue),
                                    system_name=nearest,
                                ),
                            )
                        )
        if "recolored" in self.probes:
            for name in self._probe_colors():
                rgb = self.system.get(name).rgb
                albedo = np.asarray(srgb_to_lab(np.asarray(rgb, dtype=np.uint8)), dtype=np.float64)
                for obj in ["patch", *self._probe_objects("recolored")]:
                    # the naming probe's render of this object and colour, recoloured afterwards
                    lighting = list(LIGHTINGS)[_pick(self.seed, name, obj) % len(LIGHTINGS)]
                    for shift in RECOLOR_SHIFTS:
                        turned, _ = rotate_hue_lch(albedo, shift)
                        turned_rgb = np.round(np.clip(lab_to_srgb(turned), 0.0, 1.0) * 255).astype(int)
                        out.append(
                            Sample(
                                f"recolored/{obj}/{name}/h{shift:g}",
                                self._inputs(
                                    "recolored",
                                    obj,
                                    rgb,
                                    color=self._nearest(turned),
                                    source_color=name,
                                    lighting=lighting,
                                    hue_shift=shift,
                                    turned_rgb=[int(v) for v in turned_rgb],
                                ),
                            )
                        )
        return out

    # -- evaluation ------------------------------------------------------------------------------
    def check_model(self, model: Model) -> Capability:
        from huebench.benchmarks.known_colors.cache import default_render_cache

        # called before the first sample: a render cache that cannot be made stops the run here, in
        # one line, instead of failing every sample
        default_render_cache()
        if self.capability != "auto":
            cap = Capability(self.capability)
            model.require(cap)
            return cap
        return self._first_capability(model)

    def _captions(self, noun: str) -> tuple[str, ...]:
        return tuple(
            CAPTION.format(article="an" if spoken(n)[0] in "aeiou" else "a", color=spoken(n), object=noun)
            for n in self.names
        )

    def _requests(self, cap: Capability, image: np.ndarray, noun: str) -> list[Request]:
        if cap is Capability.IMAGE_TEXT_SCORE:
            # consecutive images of one shape share the captions: one call for them (as colornames)
            return [ImageTextScores((image,), self._captions(noun), batch_images=True)]
        if cap is Capability.ITM:
            return [MatchProbability(image, c) for c in self._captions(noun)]
        return [
            *(YesProbability((image, QUESTION.format(object=noun, color=spoken(n)))) for n in self.names),
            Generation((image, OPEN_QUESTION.format(object=noun)), self.max_new_tokens),
        ]

    def _judged(self, named: str | None, truth_lab: np.ndarray, color: str | None) -> dict[str, Any]:
        if named is None:
            return {"named": None, "named_lab": None, "delta_e": None, "correct": False if color else None}
        lab = self.system.get(named).lab
        return {
            "named": named,
            "named_lab": [round(float(v), 4) for v in lab],
            "delta_e": round(float(delta_e(lab, truth_lab)), 4),
            "correct": (named == color) if color else None,
        }

    def _nearest(self, lab: np.ndarray) -> str:
        return self._canonical[self.system.nearest_lab(lab)[0].color.name]

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        from huebench.benchmarks.known_colors.cache import default_render_cache
        from huebench.benchmarks.known_colors.stimuli import make_picture
        from huebench.report.gallery import thumbnail_uri

        cap = self.check_model(model)
        cache = default_render_cache()
        pictures = [make_picture(s.inputs, cache) for s in samples]
        # the recolored probe's images: the object's hue turned in CIELCh, what the edit did kept
        edits = {
            k: recolor(p.image, s.inputs["hue_shift"], mask=p.mask, method="lch")
            for k, (s, p) in enumerate(zip(samples, pictures, strict=True))
            if s.inputs["probe"] == "recolored"
        }
        images = [edits[k].image if k in edits else p.image for k, p in enumerate(pictures)]
        per_sample = [self._requests(cap, im, s.inputs["noun"]) for s, im in zip(samples, images, strict=True)]
        requests = [r for rs in per_sample for r in rs]
        # one shape's images side by side, so that a contrastive model embeds its captions once for them
        order = sorted(range(len(requests)), key=lambda k: getattr(requests[k], "texts", ()))
        answered = ctx.answer([requests[k] for k in order])
        flat: list[dict[str, Any]] = [{}] * len(requests)
        for k, a in zip(order, answered, strict=True):
            flat[k] = a
        k = 0
        for index, (s, p, image, reqs) in enumerate(zip(samples, pictures, images, per_sample, strict=True)):
            outs = flat[k : k + len(reqs)]
            k += len(reqs)
            i = s.inputs
            truth = np.asarray(srgb_to_lab(np.asarray(i["rgb"], dtype=np.uint8)), dtype=np.float64)
            if index in edits:  # the truth is the albedo turned as the pixels were
                truth = rotate_hue_lch(truth, i["hue_shift"])[0]
            if cap is Capability.IMAGE_TEXT_SCORE:
                scores = [float(x) for x in outs[0]["output"][0]]
            else:
                scores = [float(o["output"]) for o in outs[: len(self.names)]]
            choice = {
                "scores": [round(v, 6) for v in scores],
                **self._judged(self.names[int(np.argmax(scores))], truth, i["color"]),
            }
            record: dict[str, Any] = {
                "id": s.id,
                "status": "ok",
                **i,
                "lab": [round(float(v), 4) for v in truth],
                "capability": cap.value,
                "choice": choice,
            }
            if cap is Capability.VLM:
                answer = str(outs[-1]["output"])
                parsed = parse_answer(answer, self.system, noun=i["noun"])
                named = None if parsed.name is None else self._canonical[parsed.name]
                record["open"] = {
                    "answer": answer,
                    "phrase": parsed.phrase,
                    "why": parsed.why,
                    **self._judged(named, truth, i["color"]),
                }
            if i["probe"] == "constancy":
                shown_lab = np.asarray(srgb_to_lab(np.asarray(p.shown, dtype=np.uint8)), dtype=np.float64)
                # the light's own colour: a neutral surface of the albedo's luminance in this image
                grey = float(srgb8_to_linear(np.asarray(i["rgb"], dtype=np.uint8)) @ RGB_TO_XYZ[1])
                light_rgb = linear_to_srgb8(grey * np.asarray(LIGHTS[i["light"]]) * np.asarray(p.gains))
                light_lab = np.asarray(srgb_to_lab(light_rgb), dtype=np.float64)
                record.update(
                    shown_rgb=list(p.shown),
                    shown_name=self._nearest(shown_lab),
                    light_rgb=[int(v) for v in light_rgb],
                    light_name=self._nearest(light_lab),
                    gains=[round(g, 5) for g in p.gains],
                )
            if index in edits:
                record["edit"] = edits[index].summary()
            if i["color"] is not None:
                record["correct"] = choice["correct"]
            record["prediction"] = choice["named"]
            if self._keeps_thumbnail(s):
                record["thumbnail"] = thumbnail_uri(image)
            record["reason"] = self._reason(record)
            record["batch_size"] = outs[0]["batch_size"] if outs else 1
            yield record

    def _keeps_thumbnail(self, s: Sample) -> bool:
        """Pictures for the report: one shape per colour in constancy and contrast, and a share of the
        naming images that keeps about 11 per shape whatever the system's size."""
        i = s.inputs
        if i["probe"] == "naming":
            return _pick(self.seed, "thumb", s.id) % max(1, len(self.names) // 11) == 0
        if i["probe"] == "constancy":
            return i["object"] == self._probe_objects("constancy")[0]
        if i["probe"] == "contrast":
            return i["object"] in ("patch", *self._probe_objects("contrast")[:1])
        if i["probe"] == "recolored":
            return i["object"] != "patch"
        return False

    def _reason(self, r: dict[str, Any]) -> str:
        c = r["choice"]
        target = r["color"] if r["color"] is not None else f"the system's nearest name {r['system_name']!r}"
        text = f"highest score for {c['named']!r} (ΔE00 {c['delta_e']:.1f} from the albedo); truth {target}"
        if "open" in r:
            o = r["open"]
            text += f"; open answer {o['answer']!r} → {o['named']!r} ({o['why']})"
        return text

    # -- metrics and report ----------------------------------------------------------------------
    def methods(self, records: Sequence[dict[str, Any]]) -> list[str]:
        return ["choice", "open"] if any("open" in r for r in records) else ["choice"]

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system_name, "names": len(self.names), "methods": self.methods(records)}
        for method in out["methods"]:
            out[method] = {
                "naming": km.naming_metrics(records, method, self.system, self.names, self.seed),
                "constancy": km.constancy_metrics(records, method, self.names, REFERENCE_LIGHT, self.seed),
                "contrast": km.contrast_metrics(
                    records, method, self.system, self.names, SURROUNDS, REFERENCE_SURROUND, self.seed
                ),
                "boundaries": km.boundaries_metrics(records, method, self.system, self.names, self.seed),
                "recolored": km.recolored_metrics(records, method, self.seed),
            }
        return out

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.benchmarks.known_colors.report import sections

        return sections(self, results, records)
