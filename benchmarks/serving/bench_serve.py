"""`make bench-serve`: `mt serve` under load on loopback, next to `mt translate` in one process.

    python -m benchmarks.serving.bench_serve --corpus data/spa-eng.tsv [--model bench/model] \
        [--soak 300]

For greedy search and the default beam: 1,000 test sentences as single-sentence requests at
concurrency 1, 8 and 32 (sentences/s, p50/p95/p99 latency, failures), 200 requests of one short
sentence at concurrency 1 (--short-requests), and the same sentences translated in this process as
`mt translate` does. Then the soak: --soak seconds of mixed valid, oversized and malformed requests
against the default-beam server, with the server's memory (RSS) at the start and the end. Bounded:
every phase has a fixed number of requests or a deadline. Loopback only. The client is a small raw
HTTP/1.1 keep-alive client, so that on a 2-core machine it takes little CPU from the server.
Writes bench/serve/results.json (benchmarks/harness.py) and exits 1 when a search misses one of
its targets (`targets`): no failed request, every answer `mt translate`'s text, one short sentence
at p95 <= 50 ms, with 1 and 32 clients among --concurrency 32 clients >= 3x one client's speed and
>= 70% of `mt translate`'s, and with a soak every valid request answered 200, every bad one its
400 or 413, server memory grown <= 10%, and the server's exit status 0 after SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import psutil
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import read_train_config, resolve
from mt.config import DecodeConfig, parse_duration
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.serving.server import default_threads

HOST = "127.0.0.1"
MANY_CLIENTS = 32
"""The concurrency whose speed the targets compare with one client's and `mt translate`'s."""
SHORT = "Where is the train station?"
MAX_CHARS = 5000  # the server's default --max-chars, which the soak's oversized texts exceed


class Connection:
    """One keep-alive HTTP/1.1 connection; reopened when the server closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes, content_type: str = "application/json") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        head = (
            f"POST /translate HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        try:
            self.writer.write(head.encode() + body)
            await self.writer.drain()
            status = int((await self.reader.readuntil(b"\r\n")).split()[1])
            headers = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
            length = int(headers.split("content-length:")[1].split("\r\n")[0])
            answer = await self.reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            self.close()
            return 0, b""  # no answer: a failure
        if "connection: close" in headers:
            self.close()
        return status, answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def run_client(coroutine):
    """The client on uvloop when it is there: less of the machine's CPU goes to the client."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def load_run(port: int, sentences: list[str], concurrency: int) -> dict:
    """Every sentence once as its own request, `concurrency` clients at a time."""
    latencies: list[float] = []
    answers: dict[int, str] = {}
    failures = 0
    queue = iter(range(len(sentences)))

    async def client() -> None:
        nonlocal failures
        connection = Connection(port)
        for index in queue:
            body = json.dumps({"q": sentences[index], "source": "en", "target": "es"}).encode()
            started = time.perf_counter()
            status, answer = await connection.post(body)
            latencies.append(time.perf_counter() - started)
            text = json.loads(answer).get("translatedText") if status == 200 else None
            if not isinstance(text, str):
                failures += 1
            else:
                answers[index] = text
        connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    seconds = time.perf_counter() - started
    return {
        "concurrency": concurrency,
        "requests": len(sentences),
        "failures": failures,
        "sentences_per_second": len(sentences) / seconds,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p95_ms": percentile(latencies, 0.95) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "answers": [answers.get(i) for i in range(len(sentences))],
    }


def start_server(args, beam: int, port: int, log: Path) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "mt", "serve", str(args.model), "--host", HOST, "--port", str(port),
        "--beam-size", str(beam), "--rate-limit", "0", "--device", "cpu",
    ]  # fmt: skip
    command += ["--threads", str(args.threads)]
    if args.max_alternatives is not None:
        command += ["--max-alternatives", str(args.max_alternatives)]
    if args.return_wait_ms is not None:
        command += ["--return-wait-ms", str(args.return_wait_ms)]
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"mt serve exited with {process.returncode}; see {log}")
        if _health(port) == 200:
            return process
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"mt serve did not become healthy in 120 s; see {log}")


def _health(port: int) -> int:
    import http.client

    try:
        connection = http.client.HTTPConnection(HOST, port, timeout=2)
        connection.request("GET", "/health")
        return connection.getresponse().status
    except OSError:
        return 0


def stop_server(process: subprocess.Popen) -> int:
    process.terminate()  # SIGTERM: the graceful stop; its exit code is reported
    try:
        return process.wait(60)
    except subprocess.TimeoutExpired:
        process.kill()
        return -9


async def soak(port: int, pid: int, sentences: list[str], seconds: float, seed: int) -> dict:
    """Mixed traffic from 8 clients for `seconds`; every valid request must be answered 200."""
    rng = random.Random(seed)
    server = psutil.Process(pid)
    counts: dict[str, int] = {}
    wrong: dict[str, int] = {}
    expected = {"valid": 200, "oversized text": 413, "too many texts": 413,
                "oversized body": 413, "malformed JSON": 400, "wrong pair": 400}  # fmt: skip
    kinds, weights = list(expected), [70, 8, 5, 2, 10, 5]
    rss_start = server.memory_info().rss
    rss_peak = rss_start
    deadline = time.monotonic() + seconds

    def request() -> tuple[str, bytes]:
        kind = rng.choices(kinds, weights)[0]
        if kind == "valid":
            q = rng.sample(sentences, rng.randint(1, 4))
            return kind, json.dumps({"q": q if len(q) > 1 else q[0], "target": "es"}).encode()
        if kind == "oversized text":
            return kind, json.dumps({"q": "All work and no play. " * 300}).encode()
        if kind == "too many texts":
            return kind, json.dumps({"q": ["Hi."] * 150}).encode()
        if kind == "oversized body":
            return kind, json.dumps({"q": "Hi.", "pad": "x" * 300_000}).encode()
        if kind == "malformed JSON":
            return kind, b'{"q": "Hello' + rng.choice([b"", b",", b"}}", b"\xff"])
        return kind, json.dumps({"q": "Hello.", "source": "fr", "target": "de"}).encode()

    async def client() -> None:
        connection = Connection(port)
        while time.monotonic() < deadline:
            kind, body = request()
            status, _ = await connection.post(body)
            counts[kind] = counts.get(kind, 0) + 1
            if status != expected[kind]:
                wrong[f"{kind} -> {status}"] = wrong.get(f"{kind} -> {status}", 0) + 1
        connection.close()

    async def sample_memory() -> None:
        nonlocal rss_peak
        while time.monotonic() < deadline:
            rss_peak = max(rss_peak, server.memory_info().rss)
            await asyncio.sleep(5)

    await asyncio.gather(sample_memory(), *(client() for _ in range(8)))
    rss_end = server.memory_info().rss
    return {
        "seconds": seconds,
        "requests": counts,
        "bad_requests": sum(n for kind, n in counts.items() if kind != "valid"),
        "unexpected_statuses": wrong,
        "rss_start_mb": rss_start / 2**20,
        "rss_end_mb": rss_end / 2**20,
        "rss_peak_mb": rss_peak / 2**20,
        "rss_change": rss_end / rss_start - 1,
    }


def ensure_model(args, console: Console) -> Path:
    """The given model, or a default-recipe run trained for --train-budget when it is missing."""
    weights = ("best.safetensors", "ctranslate2/model.bin")  # a run, or an `mt export` directory
    if any((args.model / name).exists() for name in weights):
        return args.model
    from mt.cli.progress import RichReporter
    from mt.train.launch import start_training

    run, prepared = args.out / "run", args.out / "data"
    if (run / "best.safetensors").exists():
        return run
    console.print(f"{args.model} has no model: training one for {args.train_budget} into {run}")
    if not (prepared / "prepare.json").exists():
        prepare_corpus(args.corpus, out=prepared, force=True)
    start_training(
        prepared_dir=prepared,
        run_dir=run,
        changes={"time_budget": parse_duration(args.train_budget)},
        device_name="cpu",
        threads=args.threads,
        force=True,
        reporter=RichReporter(console),
    )
    return run


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, default=Path("data/spa-eng.tsv"))
    parser.add_argument(
        "--model", type=Path, default=Path("bench/model"), help="a run or an `mt export`"
    )
    harness.add_out(parser, Path("bench/serve"), help="server logs and results.json")
    parser.add_argument("--train-budget", default="10m")
    harness.add_limit(parser, 1000, flag="--sentences", help="test sentences sent")
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--short-requests", type=int, default=200, help="of one short sentence")
    parser.add_argument("--beams", default="1,5", help="1 = greedy; 5 = the default beam")
    parser.add_argument("--soak", type=float, default=300.0, help="seconds (0: no soak)")
    harness.add_threads(parser, 0, help="0: mt serve's default")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--max-alternatives", type=int, default=None, help="mt serve's; 0 speeds up exports"
    )
    parser.add_argument(
        "--return-wait-ms", type=float, default=None, help="mt serve's; 0 turns the wait off"
    )
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    args.out.mkdir(parents=True, exist_ok=True)
    args.model = ensure_model(args, console)
    args.threads = args.threads or default_threads()
    torch.set_num_threads(args.threads)  # mt translate here runs with the server's threads
    header = harness.describe(args.threads)
    console.print(harness.machine_line(args.threads), highlight=False)
    _, prepared = read_train_config(args.model)
    english = list(dict.fromkeys(e for e, _ in load_prepared(prepared).read_part("test")))
    sentences = english[: args.sentences]
    levels = [int(c) for c in args.concurrency.split(",")]
    start = harness.load_average()
    results: dict = {"machine": header, "load_average_start": start, "searches": []}

    for beam in (int(b) for b in args.beams.split(",")):
        name = "greedy" if beam == 1 else f"beam {beam}"
        alternatives = beam - 1 if args.max_alternatives is None else args.max_alternatives
        config = DecodeConfig(beam_size=beam, n_best=min(beam, alternatives + 1))  # as served
        translator = open_translator(
            resolve(args.model), TranslateOptions(decode=config), device="cpu", threads=args.threads
        )
        started = time.perf_counter()
        direct = [t.text for t in translator.translate(sentences)]
        in_process = len(sentences) / (time.perf_counter() - started)
        del translator
        process = start_server(args, beam, args.port, args.out / f"server-beam{beam}.log")
        try:
            run_client(load_run(args.port, sentences[:50], 8))  # warm-up
            runs = [run_client(load_run(args.port, sentences, c)) for c in levels]
            short = run_client(load_run(args.port, [SHORT] * args.short_requests, 1))
            soaked = None
            if beam == 5 and args.soak > 0:
                console.print(f"soak: {args.soak:.0f} s of mixed requests ({name})")
                soaked = run_client(soak(args.port, process.pid, english, args.soak, seed=0))
        finally:
            exit_code = stop_server(process)
        for run in runs:
            run["same_as_mt_translate"] = sum(
                a == b for a, b in zip(run.pop("answers"), direct, strict=True)
            )
        short.pop("answers")
        results["searches"].append(
            {"search": name, "mt_translate_sentences_per_second": in_process, "runs": runs,
             "short_sentence_c1": short, "soak": soaked, "server_exit_code": exit_code}
        )  # fmt: skip
    results["load_average_end"] = harness.load_average()
    print_tables(results, len(sentences), Console(width=140))
    return harness.report(
        args.out / "results.json", results, targets(results), threads=args.threads
    )


def targets(results: dict) -> list[harness.Target]:
    """Each search's stated targets (docs/performance.md, `make bench-serve`)."""
    checks = []
    for search in results["searches"]:
        name, runs = search["search"], {run["concurrency"]: run for run in search["runs"]}
        failed = sum(run["failures"] for run in runs.values())
        unlike = sum(run["requests"] - run["same_as_mt_translate"] for run in runs.values())
        short_p95 = search["short_sentence_c1"]["p95_ms"]
        checks += [
            harness.Target(f"{name}: failed requests", failed, "<=", 0),
            harness.Target(f"{name}: answers unlike mt translate's", unlike, "<=", 0),
            harness.Target(f"{name}: one short sentence, p95 ms", short_p95, "<=", 50),
            harness.Target(f"{name}: server exit status", search["server_exit_code"], "within", 0),
        ]
        if 1 in runs and MANY_CLIENTS in runs:
            many = runs[MANY_CLIENTS]["sentences_per_second"]
            checks += [
                harness.Target(
                    f"{name}: {MANY_CLIENTS} clients / 1 client, x",
                    many / runs[1]["sentences_per_second"], ">=", 3.0,
                ),
                harness.Target(
                    f"{name}: {MANY_CLIENTS} clients / mt translate",
                    many / search["mt_translate_sentences_per_second"], ">=", 0.70,
                ),
            ]  # fmt: skip
        if soaked := search["soak"]:
            wrong = sum(soaked["unexpected_statuses"].values())
            checks += [
                harness.Target(f"{name}: soak, unexpected statuses", wrong, "<=", 0),
                harness.Target(f"{name}: soak, memory growth", soaked["rss_change"], "<=", 0.10),
            ]
    return checks


def print_tables(results: dict, count: int, console: Console) -> None:
    table = Table(title=f"mt serve on loopback: {count:,} test sentences, one per request")
    for column in ("search", "clients", "sentences/s", "p50 ms", "p95 ms", "p99 ms", "failed",
                   "= mt translate", "vs mt translate"):  # fmt: skip
        table.add_column(column, justify="right")
    for search in results["searches"]:
        batch = search["mt_translate_sentences_per_second"]
        for run in search["runs"]:
            table.add_row(
                search["search"], str(run["concurrency"]), f"{run['sentences_per_second']:,.0f}",
                f"{run['p50_ms']:.1f}", f"{run['p95_ms']:.1f}", f"{run['p99_ms']:.1f}",
                str(run["failures"]), f"{run['same_as_mt_translate']:,}",
                f"{run['sentences_per_second'] / batch:.0%}",
            )  # fmt: skip
        table.add_row(search["search"], "mt translate", f"{batch:,.0f}", "", "", "", "", "", "")
    console.print(table)
    for search in results["searches"]:
        runs = {run["concurrency"]: run for run in search["runs"]}
        short = search["short_sentence_c1"]
        line = (
            f"{search['search']}: one short sentence at 1 client p50 {short['p50_ms']:.1f} ms, "
            f"p95 {short['p95_ms']:.1f} ms; server exit code after SIGTERM "
            f"{search['server_exit_code']}"
        )
        if 1 in runs and 32 in runs:
            line += (
                f"; 32 clients / 1 client = "
                f"{runs[32]['sentences_per_second'] / runs[1]['sentences_per_second']:.1f}×"
            )
        console.print(line, highlight=False)
        if search["soak"]:
            soak_result = search["soak"]
            console.print(
                f"soak ({search['search']}, {soak_result['seconds']:.0f} s): requests "
                f"{soak_result['requests']}, bad requests sent {soak_result['bad_requests']:,}, "
                f"unexpected statuses {soak_result['unexpected_statuses'] or 'none'}; server RSS "
                f"{soak_result['rss_start_mb']:.0f} MB at the start, "
                f"{soak_result['rss_end_mb']:.0f} MB at the end "
                f"({soak_result['rss_change']:+.1%}), peak {soak_result['rss_peak_mb']:.0f} MB",
                highlight=False,
            )
    console.print(
        f"{results['machine']}; load average start {results['load_average_start']}, "
        f"end {results['load_average_end']}",
        highlight=False,
    )


if __name__ == "__main__":
    sys.exit(main())
