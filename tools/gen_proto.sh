#!/usr/bin/env bash
# Regenerate emukit/proto/emulator_controller_pb2{,_grpc}.py and tf_example_pb2.py (and the .pyi stubs) from
# the .proto files next to them. Needs grpcio-tools (pip install -e '.[dev]').
#
# The proto is compiled relative to the repository root, so the generated modules import each other as
# `emukit.proto.…`. After a grpcio-tools upgrade, check the `grpcio` / `protobuf` pins in pyproject.toml:
# the generated code requires runtimes at least as new as the generator.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python}"
wkt="$("$python" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')"

"$python" -m grpc_tools.protoc \
    -I . -I "$wkt" \
    --python_out=. --pyi_out=. --grpc_python_out=. \
    emukit/proto/emulator_controller.proto
"$python" -m grpc_tools.protoc -I . --python_out=. --pyi_out=. emukit/proto/tf_example.proto

echo "generated with $("$python" -m grpc_tools.protoc --version) (grpcio-tools $("$python" -c 'import importlib.metadata as m; print(m.version("grpcio-tools"))'))"
