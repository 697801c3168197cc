"""Clipboard: the primary clip through the emulator's gRPC ``getClipboard`` (touches no UI)."""

from __future__ import annotations

from typing import Any

from emukit.device.driver import Driver
from emukit.probes.base import FamilyProbe, ProbeResult, register_probe


def probe_clipboard(driver: Driver) -> ProbeResult:
    """``{"clipboard_type": "text"|"empty", "clipboard_text": str}``, read over the driver's kept gRPC channel
    (:meth:`emukit.device.driver.Driver.emulator_controller`)."""
    text = driver.emulator_controller().get_clipboard()
    return ProbeResult(
        family="clipboard",
        canonical={"clipboard_type": "text" if text else "empty", "clipboard_text": text},
        evidence={"source": "grpc:EmulatorController.getClipboard"},  # the port is the device's, not evidence
    )


@register_probe
class ClipboardProbe(FamilyProbe):
    """:func:`probe_clipboard`: no parameters, no ``emukit probe`` options."""

    family = "clipboard"

    def read(self, driver: Driver, **params: Any) -> ProbeResult:
        return probe_clipboard(driver)
