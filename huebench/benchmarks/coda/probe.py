"""``huebench coda probe``: representation probes with loss-data curves (seed 001 §4.2, Table 8, Fig. 4).

1. Frozen features per object, averaged over its templates: masked LMs at the ``[MASK]`` slot and
   causal LMs at the token before it (text-masked templates); CLIP's text tower and sentence
   encoders pooled over the CLIP-style templates.
2. A probe — MLP 512-512 with ReLU and dropout 0.1 — maps features to the 11-colour distribution,
   trained with the soft-label cross-entropy, Adam (lr 1e-4), a fixed number of full-batch steps
   (4000 as in the paper).
3. Train sizes: 10 log-spaced sizes from 1 to the number of training objects, nested within each
   seed (seed s permutes the training objects; size n takes the first n), × 5 seeds.
4. Each probe is evaluated on held-out objects: the **val** split (for choosing between models or
   settings) and the **test** split (for reporting) — upstream evaluated on test only.
5. With L(n) the held-out D_JS averaged over seeds (n_0 = 0):
   MDL = Σ (n_i − n_{i−1}) L(n_i), SDL_ε = Σ (n_i − n_{i−1}) max(L(n_i) − ε, 0),
   εSC = the smallest n_i with L(n_i) ≤ ε, else "> n_max" — reported cumulatively at every size.

Feature extraction is what touches the model (cached per object and template set). The probes
are trained once, after every object's features are recorded (``complete_records``), and each
probe's predicted distribution for every val and test object is stored in that object's record,
with a digest of what they were trained on; ``metrics`` — and with it ``huebench rescore`` and
``huebench report`` — computes the curves from those predictions and never trains. Records whose
predictions are missing or were trained on other features (a run made before they were stored, or
stopped before training) are refused in one line saying how long training takes; ``--resume`` on
the run trains and stores them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, ThreadPoolExecutor, as_completed
from typing import Any, ClassVar

import numpy as np

from huebench import progress
from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.coda.dataset import CodaObject, load_dataset, object_prompts
from huebench.benchmarks.coda.metrics import COLORS, avg_correlation, js_divergence
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, TextFeatures

__all__ = ["CodaProbe", "description_lengths", "train_probe"]

#: the probe's own settings (the paper's); part of what stored predictions were trained with
LR, HIDDEN, DROPOUT = 1e-4, 512, 0.1
#: the split the probes are trained on, and those their predictions are stored for
TRAIN, HELD_OUT = "train", ("val", "test")
#: epochs timed to say how long training would take, when a run's records lack the predictions
ESTIMATE_EPOCHS = 20


#: torch's global generator: seeded, then drawn from by one probe's initialisation at a time
_SEEDING = threading.Lock()


def _cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Inside: torch computes each operation on one thread. A probe's tensors are small (at most
    the training objects × the feature size): threads inside an operation mostly wait for each
    other, and on a machine with other work they wait for threads that are not running; probes
    train side by side in threads of their own instead (docs/coda.md has the measurement). So a
    probe's numbers are the same however many train at once and however many cores there are.

    OpenMP keeps the thread count per OS thread, and a thread Python starts begins with one per
    core whatever the main thread set: so each probe sets it on the thread that trains it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_probe(
    x: np.ndarray,
    y: np.ndarray,
    *,
    steps: int,
    seed: int,
    lr: float = LR,
    hidden: int = HIDDEN,
    dropout: float = DROPOUT,
    on_step: Callable[[], None] | None = None,
) -> Any:
    """Train the MLP probe on features ``x`` → distributions ``y``; returns the model (eval mode).

    Every step is full-batch (one epoch over ``x``); ``on_step()`` is called after each (progress).
    The weights start from torch's generator seeded with ``seed``, and the dropout masks continue
    that generator's stream in one of the probe's own, so probes train side by side in threads
    with the numbers each gets alone."""
    import torch

    with _SEEDING:
        torch.manual_seed(seed)
        net = torch.nn.Sequential(
            torch.nn.Linear(x.shape[1], hidden),
            torch.nn.ReLU(),
            torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(),
            torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden, y.shape[1]),
        )
        masks = torch.Generator()
        masks.set_state(torch.get_rng_state())
    first, second, last = net[0], net[3], net[6]
    keep = 1.0 - dropout

    def dropped(h: Any) -> Any:  # torch.nn.Dropout's arithmetic, with the probe's generator
        return h * torch.empty_like(h).bernoulli_(keep, generator=masks).div_(keep)

    # foreach: one call per step updates all the weights (the same numbers), less time holding the GIL
    opt = torch.optim.Adam(net.parameters(), lr=lr, foreach=True)
    xt, yt = torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32)
    net.train()
    with _one_thread():
        for _ in range(steps):
            h = dropped(torch.relu(second(dropped(torch.relu(first(xt))))))
            loss = -(yt * torch.log_softmax(last(h), dim=-1)).sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if on_step is not None:
                on_step()
    net.eval()
    return net


def _predict(net: Any, x: np.ndarray) -> np.ndarray:
    import torch

    with _one_thread(), torch.inference_mode():
        return torch.softmax(net(torch.tensor(x, dtype=torch.float32)), dim=-1).numpy().astype(np.float64)


def description_lengths(sizes: Sequence[int], losses: Sequence[float], epsilon: float) -> list[dict[str, Any]]:
    """Cumulative MDL, SDL_ε and εSC at each size of the loss-data curve."""
    out, mdl, sdl, prev, sc = [], 0.0, 0.0, 0, None
    for n, loss in zip(sizes, losses, strict=True):
        mdl += (n - prev) * loss
        sdl += (n - prev) * max(loss - epsilon, 0.0)
        prev = n
        if sc is None and loss <= epsilon:
            sc = n
        out.append(
            {"n": n, "loss": loss, "mdl": mdl, "sdl": sdl, "sample_complexity": sc if sc is not None else f"> {n}"}
        )
    return out


@register_benchmark("coda-probe")
class CodaProbe(Benchmark):
    name = "coda-probe"
    description = "CoDa representation probes: MLP on frozen features, loss-data curves, MDL / SDL / εSC"
    capabilities = (Capability.TEXT_FEATURES,)
    path_options = ("dataset",)
    option_help: ClassVar[dict[str, str]] = {
        "dataset": "Folder from `coda build` (objects.jsonl; docs/coda.md, The dataset folder) or hf:corypaik/coda.",
    }
    progress_phase = "feature extraction"

    def __init__(
        self,
        seed: int = 0,
        dataset: str | None = None,
        steps: int = 4000,
        seeds: int = 5,
        points: int = 10,
        epsilon: float = 0.1,
        **options: Any,
    ):
        super().__init__(
            seed=seed, dataset=dataset, steps=steps, seeds=seeds, points=points, epsilon=epsilon, **options
        )
        if dataset is None:
            raise HuebenchError(
                "coda-probe needs its dataset: -o dataset=DIR (from `huebench coda build`) or hf:corypaik/coda"
            )
        self.seed, self.dataset, self.steps, self.n_seeds, self.points, self.epsilon = (
            seed,
            dataset,
            int(steps),
            int(seeds),
            int(points),
            float(epsilon),
        )
        self._objects: dict[str, CodaObject] | None = None

    def objects(self) -> dict[str, CodaObject]:
        if self._objects is None:
            self._objects = {o.class_id: o for o in load_dataset(self.dataset)}
        return self._objects

    def samples(self) -> list[Sample]:
        return [Sample(o.class_id, {"name": o.display_name}) for o in self.objects().values()]

    def _feature_plan(self, model: Model) -> tuple[str, str]:
        if model.supports(Capability.MASKED_LM):
            return "text-masked", "mask"
        if model.supports(Capability.CAUSAL_LM):
            return "text-masked", "pre-mask"
        return "clip-imagenet", "pooled"

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        self.check_model(model)
        kind, position = self._feature_plan(model)
        objs = [self.objects()[s.id] for s in samples]
        prompts = [object_prompts(o, kind) for o in objs]
        outs = ctx.answer([TextFeatures(t, position) for ps in prompts for _, t in ps])
        k = 0
        for o, ps in zip(objs, prompts, strict=True):
            feats = np.mean([np.asarray(outs[k + j]["output"], dtype=np.float64) for j in range(len(ps))], axis=0)
            k += len(ps)
            yield {
                **o.record_base(),
                "features": [float(v) for v in feats],
                "feature_source": f"{kind} templates, position {position}, mean of {len(ps)}",
                "reason": f"{len(ps)} templates → {len(feats)}-d feature",
                "batch_size": outs[k - 1]["batch_size"],
            }

    def _splits(self, records: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """The scored records by split; each split must have objects."""
        by_split = {s: [r for r in records if r.get("status") == "ok" and r["split"] == s] for s in (TRAIN, *HELD_OUT)}
        if not all(by_split.values()):
            raise HuebenchError("coda-probe needs objects in the train, val and test splits")
        return by_split

    def _sizes(self, n_max: int) -> list[int]:
        """The training sizes: ``points`` log-spaced from 1 to ``n_max`` (rounded, distinct)."""
        return sorted({round(float(v)) for v in np.logspace(0, math.log10(n_max), self.points)})

    def _trained_on(self, by_split: dict[str, list[dict[str, Any]]]) -> str:
        """A digest of everything the probes' predictions depend on: the settings, and each
        object's id, features and truth by split (records read back from JSON give the same)."""
        settings = {"seed": self.seed, "steps": self.steps, "seeds": self.n_seeds, "points": self.points, "lr": LR}
        settings |= {"hidden": HIDDEN, "dropout": DROPOUT}
        h = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
        for split, recs in by_split.items():
            h.update(json.dumps([split, [r["id"] for r in recs]]).encode())
            h.update(np.asarray([r["features"] for r in recs], dtype=np.float64).tobytes())
            h.update(np.asarray([r["truth"] for r in recs], dtype=np.float64).tobytes())
        return h.hexdigest()[:16]

    def _standardised(self, by_split: dict[str, list[dict[str, Any]]]) -> dict[str, np.ndarray]:
        """Features by split, standardised with the training objects' statistics, so that one
        learning rate suits every encoder."""
        x = {s: np.array([r["features"] for r in recs], dtype=np.float64) for s, recs in by_split.items()}
        mu, sd = x[TRAIN].mean(axis=0), x[TRAIN].std(axis=0) + 1e-6
        return {s: (v - mu) / sd for s, v in x.items()}

    def _probes(self, n_max: int) -> list[tuple[int, int, int]]:
        """(seed index, size index, size) of every probe, in training order."""
        return [(s, i, n) for s in range(self.n_seeds) for i, n in enumerate(self._sizes(n_max))]

    def complete_records(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Train the probes on the training objects' features and store each probe's predicted
        distribution in every val and test record (``"probe"``); records that already hold
        predictions trained on these features are kept as they are (a finished run resumed)."""
        by_split = self._splits(records)
        key = self._trained_on(by_split)
        held = [r for s in HELD_OUT for r in by_split[s]]
        if all((r.get("probe") or {}).get("trained_on") == key for r in held):
            return records
        x = self._standardised(by_split)
        y_train = np.array([r["truth"] for r in by_split[TRAIN]], dtype=np.float64)
        n_max = len(by_split[TRAIN])
        probes = self._probes(n_max)
        stop = threading.Event()  # set when this thread stops waiting: the probes in training stop too
        shown = threading.Lock()  # one thread at a time updates the progress
        running: dict[int, str] = {}  # the probes in training, for the progress: which ones
        workers = min(len(probes), _cores())

        def train(k: int, s: int, n: int) -> dict[str, np.ndarray]:
            def step() -> None:
                if stop.is_set():
                    raise CancelledError  # this run stopped waiting for it (an error, Ctrl-C)
                with shown:
                    bar.advance()

            def show() -> None:  # holding `shown`
                bar.update(detail="; ".join(running[i] for i in sorted(running)))

            with shown:
                objects = f"{n} training object{'s' if n != 1 else ''}"
                running[k] = f"probe {k + 1}/{len(probes)}: seed {s + 1}/{self.n_seeds}, {objects}"
                show()
            try:
                idx = np.random.default_rng(self.seed * 1000 + s).permutation(n_max)[:n]
                net = train_probe(
                    x[TRAIN][idx], y_train[idx], steps=self.steps, seed=self.seed * 1000 + s, on_step=step
                )
                return {split: _predict(net, x[split]) for split in HELD_OUT}
            finally:
                with shown:
                    del running[k]
                    show()

        with (
            progress.task(
                f"{self.name}: training {len(probes)} probes, {self.steps:,} full-batch epochs each",
                total=len(probes) * self.steps,
                unit="epochs",
            ) as bar,
            _one_thread(),
            ThreadPoolExecutor(workers) as pool,
        ):
            futures = {}
            # the largest first: no core waits at the end while one large probe trains alone
            for k in sorted(range(len(probes)), key=lambda k: -probes[k][2]):
                s, _, n = probes[k]
                futures[k] = pool.submit(train, k, s, n)
            try:
                for done in as_completed(futures.values()):
                    done.result()  # the first probe that fails stops the others (below)
                outputs = [futures[k].result() for k in range(len(probes))]
                bar.update(detail=f"{len(probes)} probes trained, {workers} at a time")
            finally:
                stop.set()
                for f in futures.values():
                    f.cancel()
        # per record id, per seed: the predicted distribution of each size's probe
        predictions: dict[str, list[list[list[float]]]] = {r["id"]: [[] for _ in range(self.n_seeds)] for r in held}
        for (s, _, _), out in zip(probes, outputs, strict=True):
            for split in HELD_OUT:
                for r, p in zip(by_split[split], out[split], strict=True):
                    predictions[r["id"]][s].append([float(v) for v in p])
        sizes = self._sizes(n_max)
        return [
            dict(r, probe={"trained_on": key, "sizes": sizes, "predictions": predictions[r["id"]]})
            if r.get("status") == "ok" and r["id"] in predictions
            else r
            for r in records
        ]

    def _untrained(self, by_split: dict[str, list[dict[str, Any]]]) -> HuebenchError:
        """The error for records without (current) predictions, with how long training would take
        here: a few epochs of the largest probe timed, times every probe's epochs, shared by the
        probes trained side by side (an upper bound: the smaller probes are quicker)."""
        x = self._standardised(by_split)[TRAIN]
        y = np.array([r["truth"] for r in by_split[TRAIN]], dtype=np.float64)
        with _one_thread():
            started = time.perf_counter()
            train_probe(x, y, steps=ESTIMATE_EPOCHS, seed=self.seed)
            per_epoch = (time.perf_counter() - started) / ESTIMATE_EPOCHS
        n_probes = len(self._probes(len(x)))
        seconds = n_probes * self.steps * per_epoch / min(n_probes, _cores())
        return HuebenchError(
            "coda-probe: the records hold no trained probes for these features (the run was made before huebench "
            "stored them, or stopped before training them), and rescore and report do not train: training takes up "
            f"to about {progress.format_duration(seconds)} here ({n_probes} probes × {self.steps:,} full-batch "
            "epochs); to train and store them, run the same `huebench coda probe` (or `huebench run coda-probe`) "
            "command again with --resume"
        )

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        by_split = self._splits(records)
        key = self._trained_on(by_split)
        stored = {s: [r.get("probe") or {} for r in by_split[s]] for s in HELD_OUT}
        if any(p.get("trained_on") != key for ps in stored.values() for p in ps):
            raise self._untrained(by_split)
        n_max = len(by_split[TRAIN])
        sizes = self._sizes(n_max)
        curve: dict[str, dict[int, list[dict[str, float]]]] = {s: {n: [] for n in sizes} for s in HELD_OUT}
        for split in HELD_OUT:
            truth = [r["truth"] for r in by_split[split]]
            for s, i, n in self._probes(n_max):
                pred = [p["predictions"][s][i] for p in stored[split]]
                curve[split][n].append(
                    {
                        "js": float(np.mean([js_divergence(p, t) for p, t in zip(pred, truth, strict=True)])),
                        "avg_correlation": float(
                            np.nanmean([100.0 * avg_correlation(p, t) for p, t in zip(pred, truth, strict=True)])
                        ),
                    }
                )
        out: dict[str, Any] = {
            "sizes": sizes,
            "seeds": self.n_seeds,
            "steps": self.steps,
            "epsilon": self.epsilon,
            "n_train": n_max,
            "colors": list(COLORS),
        }
        for split in HELD_OUT:
            js = [float(np.mean([c["js"] for c in curve[split][n]])) for n in sizes]
            corr = [float(np.mean([c["avg_correlation"] for c in curve[split][n]])) for n in sizes]
            js_sd = [
                float(np.std([c["js"] for c in curve[split][n]], ddof=1)) if self.n_seeds > 1 else 0.0 for n in sizes
            ]
            out[split] = {
                "js": js,
                "js_std": js_sd,
                "avg_correlation": corr,
                "description_lengths": description_lengths(sizes, js, self.epsilon),
            }
        final = out["test"]["description_lengths"][-1]
        out["summary"] = {
            "mdl": final["mdl"],
            "sdl": final["sdl"],
            "sample_complexity": final["sample_complexity"],
            "final_js": out["test"]["js"][-1],
            "final_avg_correlation": out["test"]["avg_correlation"][-1],
        }
        return out

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, fmt_num
        from huebench.report.svg import line_chart_svg

        m = results["metrics"]
        sizes = m["sizes"]
        sections = []
        for split in ("test", "val"):
            rows = [
                [
                    d["n"],
                    fmt_num(js, 3),
                    fmt_num(d["mdl"], 2),
                    ("" if d["sdl"] > 0 or not isinstance(d["sample_complexity"], str) else "> ")
                    + fmt_num(d["sdl"], 2),
                    str(d["sample_complexity"]),
                    fmt_num(corr, 1),
                ]
                for d, js, corr in zip(
                    m[split]["description_lengths"], m[split]["js"], m[split]["avg_correlation"], strict=True
                )
            ]
            sections.append(
                Section(
                    f"Table 8 shape ({split} objects; ε = {m['epsilon']})",
                    table={
                        "columns": [
                            "n train objects",
                            "D_JS",
                            "MDL",
                            f"SDL ε={m['epsilon']}",
                            f"εSC ε={m['epsilon']}",
                            "Avg. corr.",
                        ],
                        "rows": rows,
                    },
                    note="Cumulative up to each n: MDL = Σ Δn·L(n), SDL = Σ Δn·max(L(n) − ε, 0), L = held-out D_JS averaged over seeds.",
                )
            )
        sections.append(
            Section(
                "Loss-data curve: held-out D_JS",
                svg=line_chart_svg(
                    {
                        "test": list(zip(sizes, m["test"]["js"], strict=True)),
                        "val": list(zip(sizes, m["val"]["js"], strict=True)),
                    },
                    xlabel="training objects (log)",
                    ylabel="D_JS",
                    log_x=True,
                ),
            )
        )
        sections.append(
            Section(
                "Loss-data curve: Avg. correlation (ρ+τ)/2",
                svg=line_chart_svg(
                    {
                        "test": list(zip(sizes, m["test"]["avg_correlation"], strict=True)),
                        "val": list(zip(sizes, m["val"]["avg_correlation"], strict=True)),
                    },
                    xlabel="training objects (log)",
                    ylabel="Avg. corr. (×100)",
                    log_x=True,
                ),
            )
        )
        return sections
