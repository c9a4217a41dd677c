"""`mt serve` and `mt export`: serving a model and exporting it for CTranslate2."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mt.cli.common import Opt, fields_as_options, run_or_exit, say, takes
from mt.cli.decode_options import Checkpoint, DecodeFlags, ModelArgument, takes_decode_flags
from mt.errors import MtError
from mt.serving.limits import Limits

LIMIT_HELP = {  # each option's help, by the Limits field it fills
    "max_chars": "Characters per request (413 above).",
    "max_items": "Texts per q array (413 above).",
    "max_body_bytes": "Request body bytes (413 above).",
    "timeout": "Seconds one request may take (503 after).",
    "per_minute": Opt(
        "--rate-limit", help="Requests per minute per key or client address (429 above; 0: off)."
    ),
}


@takes_decode_flags(
    "beam_size", "length_penalty", "max_len_a", "max_len_b", "batch_size", "precision",
    "checkpoint", "device", "keep", "dictionary", "cognates", "first_words", "titles",
)  # fmt: skip
@takes(fields_as_options(Limits, LIMIT_HELP), into="limits")
def serve(
    *,
    model: ModelArgument = None,
    host: Annotated[str, Opt(help="Address to listen on (loopback unless you give a key).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, Opt(help="Port to listen on.")] = 8000,
    threads: Annotated[
        int | None, Opt(help="CPU threads for torch (default: all cores but one).")
    ] = None,
    limits: dict,
    batch_wait_ms: Annotated[
        float, Opt(help="Milliseconds the decoder waits for requests still being read.")
    ] = 5.0,
    return_wait_ms: Annotated[
        float,
        Opt(help="Milliseconds the decoder waits for the clients it just answered to send again."),
    ] = 20.0,
    api_key: Annotated[
        str | None, Opt(envvar="MT_API_KEY", help="Key clients must send as api_key.")
    ] = None,
    cors_origin: Annotated[
        list[str] | None, Opt("--cors-origin", help="Origin allowed to call from a browser.")
    ] = None,
    log_text: Annotated[bool, Opt("--log-text", help="Also log the texts translated.")] = False,
    max_alternatives: Annotated[
        int | None,
        Opt(help="Alternatives a request may get (default beam size - 1; 0 is faster on exports)."),
    ] = None,
    glossary: Annotated[
        list[str] | None,
        Opt(
            "--glossary",
            help="NAME=FILE: a TSV glossary requests name in their glossary field; a FILE "
            "without NAME applies to every request that names none. Repeat for more.",
        ),
    ] = None,
    decoding: DecodeFlags = DecodeFlags(),
) -> None:
    """Serve a model over HTTP: a LibreTranslate-compatible API and a web page at /.

    Example: mt serve
    Example: mt serve runs/base --port 8000
    """

    def action() -> None:
        from mt.catalog.modelinfo import resolve
        from mt.serving.server import serve as run_server

        if max_alternatives is not None and max_alternatives < 0:
            raise MtError(f"--max-alternatives must be >= 0, got {max_alternatives}")
        beam = decoding.beam_size
        n_best = beam if max_alternatives is None else min(beam, max_alternatives + 1)
        # --keep and --dictionary read at start: a bad file stops here, before listening
        options = decoding.options(decoding.search(n_best))
        bounds = Limits(**limits)
        if batch_wait_ms < 0:
            raise MtError(f"--batch-wait-ms must be >= 0, got {batch_wait_ms}")
        if return_wait_ms < 0:
            raise MtError(f"--return-wait-ms must be >= 0, got {return_wait_ms}")
        glossaries = _named_glossaries(glossary or [])
        info = resolve(model)  # a bad reference is refused before the copy is made
        ct2_model = decoding.engine(info)
        run_server(
            info,
            ct2_model=ct2_model,
            host=host,
            port=port,
            options=options,
            limits=bounds,
            device=decoding.device,
            checkpoint=decoding.checkpoint,
            threads=threads,
            api_key=api_key,
            cors_origins=cors_origin or (),
            batch_wait=batch_wait_ms / 1000,
            return_wait=return_wait_ms / 1000,
            log_text=log_text,
            glossaries=glossaries,
            say=say,
            warn=lambda message: say(f"[yellow]warning:[/] {message}"),
        )

    run_or_exit(action)


def _named_glossaries(specs: list[str]) -> dict:
    """--glossary NAME=FILE (or FILE, named ""), each file read and checked before serving."""
    from mt.decode.glossary import read_glossary

    glossaries = {}
    for spec in specs:
        name, _, path = spec.rpartition("=") if "=" in spec else ("", "", spec)
        if name in glossaries:
            raise MtError(f"--glossary {spec}: the name {name!r} is given twice")
        glossaries[name] = read_glossary(Path(path), name or None)
    return glossaries


def export(
    out: Annotated[Path, Opt("--out", "-o", help="Export directory to create.")],
    model: ModelArgument = None,
    quantization: Annotated[
        str, Opt(help="Weights: int8, int8_float32, int16, float16 or float32.")
    ] = "int8",
    checkpoint: Checkpoint = "best",
    force: Annotated[bool, Opt("--force", help="Replace an existing export in --out.")] = False,
) -> None:
    """Convert a run to CTranslate2 for fast inference; translate, evaluate and serve read it.

    MODEL defaults to the shipped model.

    Example: mt export --out en-es-int8
    Example: mt export runs/base --out runs/base-ct2
    """

    def action() -> None:
        from mt.catalog.modelinfo import resolve
        from mt.export.writer import export_run

        result = export_run(
            resolve(model), out, quantization=quantization, checkpoint=checkpoint, force=force
        )
        say(
            f"exported {result.model} to {result.out}: {result.quantization} weights, "
            f"{result.model_bytes / 1e6:.2f} MB ({result.model_bytes / result.weights_bytes:.0%} "
            f"of the {result.weights_bytes / 1e6:.2f} MB safetensors) in {result.seconds:.1f} s"
        )

    run_or_exit(action)
