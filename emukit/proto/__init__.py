"""emukit's subset of the Android emulator's gRPC interface (``android.emulation.control``).

``emulator_controller.proto`` is ours; the ``*_pb2*.py`` modules are generated from it by
``tools/gen_proto.sh`` and committed.
"""
