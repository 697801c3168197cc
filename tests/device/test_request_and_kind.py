"""The device request built once from a command's options, the device kind read from a device's properties,
and the virtual-device modes defined in one place. No device: properties are given as ``getprop`` prints them."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import emukit
from emukit.commands.options import device_request
from emukit.device.emulator import parse_getprop
from emukit.device.facts import device_kind
from emukit.errors import ConfigError
from emukit.nightly.config import Devices
from emukit.provenance import VIRTUAL_MODES
from emukit.workers import DeviceRequest, EmbeddedDevices


def props(**values: str) -> dict[str, str]:
    text = "".join(f"[{k.replace('_', '.')}]: [{v}]\n" for k, v in values.items())
    return parse_getprop(text)


def test_the_kind_comes_from_the_device_properties():
    assert device_kind(props(ro_emukit_virtual="1", ro_emukit_virtual_mode="hardware",
                             ro_boot_qemu="1")) == "virtual-hardware"
    assert device_kind(props(ro_emukit_virtual="1", ro_emukit_virtual_mode="deterministic")) == \
        "virtual-deterministic"
    assert device_kind(props(ro_emukit_virtual="1")) == "unknown"  # a virtual device that does not say its mode
    assert device_kind(props(ro_boot_qemu="1", ro_build_fingerprint="google/sdk_gphone64_x86_64/x")) == "emulator"
    assert device_kind(props(ro_kernel_qemu="1")) == "emulator"  # images before API 31 set only this one
    assert device_kind(props(ro_build_fingerprint="google/husky/husky:14/x")) == "physical"


def _args(**given) -> argparse.Namespace:
    return argparse.Namespace(**given)


def test_one_request_from_the_options_a_command_has():
    req = device_request(_args(device=["emulator-5554", "emulator-5556"], devices=None, vdevice_mode="hardware",
                               vdevice_screen=(720, 1280, 320), wait=30.0))
    assert req == DeviceRequest(serials=("emulator-5554", "emulator-5556"), wait_s=30.0,
                                embedded=EmbeddedDevices(mode="hardware", screen=(720, 1280, 320)))
    assert device_request(_args(device="emulator-5554")).one() == "emulator-5554"  # a single --device
    assert device_request(_args(embedded=True), embedded_count=3).count == 3
    assert device_request(_args()) == DeviceRequest()
    with pytest.raises(ConfigError, match="this command uses one device"):
        req.one()


@pytest.mark.parametrize(("given", "message"), [
    ({"devices": 0}, "--devices: Input should be greater than or equal to 1"),
    ({"wait": -1.0}, "--wait: Input should be greater than or equal to 0"),
    ({"vdevice_screen": (100, 100, 320)}, "--vdevice-screen: "),
    ({"vdevice_mode": "fast"}, "--vdevice-mode: "),
])
def test_bad_device_options_name_the_option(given, message):
    with pytest.raises(ConfigError, match=message):
        device_request(_args(**given))


def test_the_nightly_nests_the_same_embedded_settings_and_reads_the_older_key():
    assert Devices(virtual=2, embedded={"mode": "hardware"}).embedded.mode == "hardware"
    assert Devices(virtual=2, vdevice_mode="hardware").embedded == EmbeddedDevices(mode="hardware")
    with pytest.raises(ValueError, match="give the mode once"):
        Devices(virtual=2, vdevice_mode="hardware", embedded={"mode": "deterministic"})


#: where a virtual-device mode may be named: where the modes are defined, device selection (the request and
#: the devices it starts), the CLI options that build the request, the virtual device itself and its template
MODE_HOMES = ("provenance.py", "workers/devices.py", "commands/options.py", "device/", "vdevice/", "cli.py",
              "nightly/config.py")


def test_no_pipeline_module_names_a_virtual_device_mode():
    root = Path(emukit.__file__).parent
    offenders = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(MODE_HOMES):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            named = (isinstance(node, ast.Constant) and node.value in VIRTUAL_MODES) or \
                (isinstance(node, ast.Name | ast.Attribute) and "vdevice_mode" in ast.unparse(node))
            if named:
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == [], offenders


class _Listing:
    """What `pm list packages providers.media.module` prints on an image: AOSP-signed images (which this
    machine cannot run; the virtual device lists the Google-signed module of the pinned image) are given here."""

    serial = "emulator-5554"

    def __init__(self, *packages: str) -> None:
        self.out = "".join(f"package:{p}\n" for p in packages)
        self.commands: list[str] = []

    def shell(self, command: str):
        self.commands.append(command)
        return argparse.Namespace(text=self.out)


@pytest.mark.parametrize(("listed", "index"), [
    (("com.google.android.providers.media.module",),
     "/data/data/com.google.android.providers.media.module/databases/external.db"),
    (("com.android.providers.media.module",), "/data/data/com.android.providers.media.module/databases/external.db"),
])
def test_the_media_index_is_where_the_listed_module_keeps_it(listed, index):
    from emukit.device.facts import media_index

    device = _Listing(*listed)
    assert media_index(device) == index  # type: ignore[arg-type]
    assert device.commands == ["pm list packages providers.media.module"]


def test_no_media_provider_is_an_error_naming_what_was_looked_for():
    from emukit.device.facts import media_index
    from emukit.errors import DeviceError

    with pytest.raises(DeviceError, match="emulator-5554: no MediaProvider module.*com.google.android.providers"
                                          ".media.module, com.android.providers.media.module"):
        media_index(_Listing("com.android.providers.downloads"))  # type: ignore[arg-type]


def test_fingerprints_leave_out_the_index_of_either_module():
    from emukit.snapshots import MEDIA_PROVIDER_DATA

    for package in ("com.google.android.providers.media.module", "com.android.providers.media.module"):
        assert f"/data/data/{package}/databases/external.db".startswith(MEDIA_PROVIDER_DATA)
    assert not "/data/data/code.name.monkey.retromusic/databases/playlist.db".startswith(MEDIA_PROVIDER_DATA)
