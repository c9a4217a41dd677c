"""How fast a training step could be at all on this CPU: its matrix products alone (issue 43).

    OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python -m benchmarks.speed.bench_step_floor \
        --data runs/peer-data --precision fp32 --peer bench/peer/results.json

Records every matrix product (`mm`, `addmm`, `bmm`, ...) that `Trainer.train_step` dispatches on
--steps batches spread evenly over the default recipe's first epoch, forward and backward, with
its shapes, strides and dtype; then times each one alone, on fresh tensors of the same layout,
best of several tries. Their sum is the floor: a step that did nothing but its matrix products,
each as fast as this torch's kernels run it here. Printed beside the whole step's measured time
and, with --peer, beside eole's step from `make bench-peer`: the largest "x eole" that any change
leaving the products alone could reach. No target of its own: it exits 0 when it runs, and
writes its figures with the machine, commit and command (benchmarks/harness.py).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from benchmarks import harness
from benchmarks.harness import report
from benchmarks.speed.bench_step import build, run_steps

MATRIX_OPS = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "_addmm_activation"}


class MatrixRecorder(TorchDispatchMode):
    """Counts each matrix product by (op, shapes, strides, dtype) as the step dispatches it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ in MATRIX_OPS:
            layout = tuple(
                (tuple(a.shape), tuple(a.stride()), a.dtype) if isinstance(a, torch.Tensor) else a
                for a in args
            )
            self.calls[(func, layout)] += 1
        return func(*args, **(kwargs or {}))


def is_tensor_spec(spec) -> bool:
    return isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[2], torch.dtype)


def fresh(spec):
    if not is_tensor_spec(spec):
        return spec
    shape, stride, dtype = spec
    tensor = torch.empty_strided(shape, stride, dtype=dtype)
    return tensor.normal_() if tensor.numel() else tensor


def recorded_dtype(recorder: MatrixRecorder) -> torch.dtype:
    """The dtype most of the step's products ran in (bf16 under autocast)."""
    dtypes: Counter = Counter()
    for (_, layout), count in recorder.calls.items():
        dtypes.update({spec[2]: count for spec in layout if is_tensor_spec(spec)})
    return dtypes.most_common(1)[0][0]


def best_seconds(func, layout, tries: int) -> float:
    args = [fresh(spec) for spec in layout]
    func(*args)
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        func(*args)
        best = min(best, time.perf_counter() - started)
    return best


def square_gflops(dtype: torch.dtype, size: int = 1024, tries: int = 5) -> float:
    """This CPU's best case: one large square product, the figure the floor is read against."""
    square = ((size, size), (size, 1), dtype)
    seconds = best_seconds(torch.ops.aten.mm.default, (square, square), tries)
    return 2 * size**3 / seconds / 1e9


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_data(parser, default=Path("runs/peer-data"), help="a prepared directory")
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--tries", type=int, default=7)
    parser.add_argument("--peer", type=Path, help="make bench-peer's results.json (eole's step)")
    harness.add_out(parser, None, flag="--json", help="default: bench/step-floor/PRECISION.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = build(args.data, {"precision": args.precision}, Path(run_dir))
        epoch = trainer._epoch_steps()
        run_steps(trainer, epoch, 0, args.warmup)
        # batches spread over the whole epoch: its pools run from short sentences to long ones
        spread = np.linspace(args.warmup, len(epoch) - 1, args.steps).round().astype(int)
        steps = [epoch[index] for index in spread]
        run_steps(trainer, steps, 0, args.steps)  # each new shape's kernels are set up once
        walls, _ = run_steps(trainer, steps, 0, args.steps)
        recorder, flops = MatrixRecorder(), FlopCounterMode(display=False)
        with flops, recorder:
            run_steps(trainer, steps, 0, args.steps)
    floor = sum(
        count * best_seconds(func, layout, args.tries)
        for (func, layout), count in recorder.calls.items()
    )
    step_ms = 1000 * sum(walls) / len(walls)
    floor_ms = 1000 * floor / args.steps
    gflop = flops.get_total_flops() / args.steps / 1e9
    result = {
        "machine": harness.describe(1),
        "load": harness.load_average(),
        "precision": args.precision,
        "steps": args.steps,
        "target_tokens_per_step": sum(step.target_tokens for step in steps) / args.steps,
        "gflop_per_step": round(gflop, 3),
        "matrix_products_per_step": sum(recorder.calls.values()) / args.steps,
        "step_ms_mean": round(step_ms, 1),
        "matrix_floor_ms": round(floor_ms, 1),
        "matrix_gflops": round(gflop / floor_ms * 1000, 1),
        "floor_share_of_step": round(floor_ms / step_ms, 3),
        "square_1024_gflops": round(square_gflops(recorded_dtype(recorder)), 1),
    }
    if args.peer:
        eole = json.loads(args.peer.read_text())["figures"]["eole"]
        eole_ms = 1000 / eole["steps_per_second"]
        tokens = eole["tokens_per_second"] / eole["steps_per_second"]
        result["eole_step_ms"] = round(eole_ms, 1)
        result["eole_target_tokens_per_step"] = round(tokens, 1)
        result["most_x_eole"] = round(eole_ms / floor_ms, 2)
        # Per target token, since mt's first batches and eole's average batch differ in size.
        mt_tokens = result["target_tokens_per_step"]
        result["most_x_eole_per_token"] = round((eole_ms / tokens) / (floor_ms / mt_tokens), 2)
    print(json.dumps(result, indent=1))
    out = args.json or Path("bench/step-floor") / f"{args.precision}.json"
    return report(out, result, [], threads=1)


if __name__ == "__main__":
    sys.exit(main())
