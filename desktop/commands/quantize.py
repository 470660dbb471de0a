"""`llm-scout quantize SRC --type Q4_K_M [--out FILE]`: make a quant with llama.cpp's quantizer.

SRC is a GGUF file, catalog variant or demo key. The output defaults to the models folder's
``quantized/`` folder (where the library finds it), named after SRC and the type. A file that is
already quantized is quantized again (allowed, with a note: the result is worse than the same type
made from the F16/BF16 original). ``--pure`` gives every tensor the type itself instead of
llama.cpp's mix. The tensors written are counted by type. Progress goes to stderr; Ctrl-C stops
and leaves no file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.commands.common import add_json_argument, workspace
from desktop.commands.output import StatusLine, emit_json, human_bytes
from desktop.commands.quality import INTERRUPTED, StopFlag, ctrl_c_stops
from desktop.core.errors import Cancelled, UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "quantize",
        help="quantize a GGUF model with llama.cpp (Q8_0, Q4_K_M, Q2_K, ...)",
        description="Quantize a GGUF model with llama.cpp's own quantizer.",
    )
    parser.add_argument(
        "source", metavar="SRC", help="a GGUF file, catalog variant or demo key (smollm2, gemma3)"
    )
    parser.add_argument("--type", required=True, metavar="TYPE", help="Q8_0, Q6_K, Q4_K_M, ...")
    parser.add_argument(
        "--out", metavar="FILE", help="where to write it (default: <models folder>/quantized/)"
    )
    parser.add_argument(
        "--pure",
        action="store_true",
        help="every tensor in TYPE itself (llama.cpp's --pure), not llama.cpp's mix that gives "
        "some tensors more bits",
    )
    parser.add_argument(
        "--threads", type=int, default=None, metavar="N", help="CPU threads (physical cores)"
    )
    add_json_argument(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from desktop.core.quality import default_output, k_base_type, quant_type, quantize_model

    qtype = quant_type(args.type)
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1.")
    ws = workspace()
    source = ws.resolver.resolve(args.source).require_file()
    output = (
        Path(args.out).expanduser()
        if args.out
        else default_output(source, qtype, ws.models_dir / "quantized", pure=args.pure)
    )
    flag = StopFlag()
    status = StatusLine(sys.stderr.isatty(), every_s=5.0)

    def progress(fraction: float, tensor: str) -> None:
        status.show(f"quantizing to {qtype}: {fraction * 100:.0f}% {tensor}", force=fraction >= 1)

    with ctrl_c_stops(flag, status):
        try:
            result = quantize_model(
                source,
                qtype,
                output,
                n_threads=args.threads,
                pure=args.pure,
                on_progress=progress,
                should_stop=flag,
            )
        except Cancelled as exc:
            status.close()
            sys.stderr.write(f"llm-scout: {exc}\n")
            return INTERRUPTED
    status.close()
    document = {
        "source": str(result.source),
        "source_type": result.source_type,
        "output": str(result.output),
        "type": result.type,
        "pure": result.pure,
        "source_bytes": result.source_bytes,
        "output_bytes": result.output_bytes,
        "seconds": result.seconds,
        "requantized": result.requantized,
        "tensors": result.n_tensors,
        "fallback_tensors": result.fallback_tensors,
        "tensor_types": dict(result.tensor_types),
        "lacks_its_type": result.lacks_its_type,
    }
    if args.json:
        emit_json(document)
        return 0
    kind = f"{result.type}, pure" if result.pure else result.type
    sys.stdout.write(
        f"Wrote {result.output} ({kind}, {human_bytes(result.output_bytes)}) from "
        f"{result.source.name} ({result.source_type or 'unknown type'}, "
        f"{human_bytes(result.source_bytes)}) in {result.seconds:.1f} s.\n"
    )
    if result.requantized:
        sys.stdout.write(
            f"Note: {result.source.name} was already quantized ({result.source_type}); a "
            f"{result.type} made from it carries both quantizations' error and is worse than "
            f"one made from the F16/BF16 original.\n"
        )
    if result.fallback_tensors:
        sys.stdout.write(
            f"{result.fallback_tensors} of {result.n_tensors} tensors have rows {result.type} "
            "cannot hold (not a multiple of its block) and got llama.cpp's fallback type.\n"
        )
    if result.tensor_types:
        counts = ", ".join(f"{n} {name}" for name, n in result.tensor_types)
        sys.stdout.write(f"Tensors: {counts}.\n")
    if result.lacks_its_type:
        sys.stdout.write(
            f"None of them is {k_base_type(result.type)} (llama.cpp's {result.type} mix gives "
            "some tensors more bits, and rows that are not a multiple of 256 fall back), so this "
            "file can equal another mix; --pure writes the type itself wherever the rows allow.\n"
        )
    return 0
