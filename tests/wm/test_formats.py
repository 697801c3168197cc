"""World-model request formats: determinism, A/B equality, overlays, action serialization, conditions."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image, ImageDraw

from emukit.actions import Action, Element
from emukit.errors import ConfigError
from emukit.wm import (
    CONTRACTS,
    FAMILIES,
    FORMATS,
    FormatError,
    canonical_json,
    encode_png,
    get_format,
    render_state,
    request_hash,
)
from emukit.wm.formats.code2world import Code2WorldFormat

SCREEN = (1080, 2400)
WHITE = (255, 255, 255)
RED = (255, 0, 0)
TAP = Action(type="tap", x=540, y=1200)
SWIPE = Action(type="swipe", x=540, y=1800, x2=540, y2=600, duration_ms=300)
TYPE = Action(type="type", text="hello")
KEY = Action(type="key", key=4)


def png_of(image: Image.Image, **save: object) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", **save)
    return buf.getvalue()


def screen(color: tuple[int, int, int] = WHITE, size: tuple[int, int] = SCREEN) -> Image.Image:
    """A deterministic fake screen: a flat background with a toolbar and two list rows."""
    img = Image.new("RGB", size, color)
    d = ImageDraw.Draw(img)
    w, h = size
    d.rectangle((0, 0, w, h // 20), fill=(30, 60, 120))
    for i in range(2):
        top = h // 5 + i * h // 10
        d.rectangle((w // 20, top, w - w // 20, top + h // 14), fill=(200, 200, 210))
    return img


@pytest.fixture(scope="module")
def png() -> bytes:
    return png_of(screen())


def decode(png_bytes: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png_bytes)).convert("RGB")


def images_in(request: dict) -> list[bytes]:
    out = []
    for message in request["messages"]:
        for part in message["content"]:
            if part["type"] == "image_url":
                prefix, _, data = part["image_url"]["url"].partition(",")
                assert prefix == "data:image/png;base64"
                out.append(base64.b64decode(data))
    return out


def texts_in(request: dict) -> str:
    return "\n".join(p["text"] for m in request["messages"] for p in m["content"] if p["type"] == "text")


# -- registry ---------------------------------------------------------------------------------------------

def test_registry_and_viewports():
    assert set(FORMATS) == {"code2world", "gworld"}
    c2w, gw = get_format("code2world"), get_format("gworld")
    assert (c2w.viewport.width, c2w.viewport.height, c2w.viewport.device_scale_factor) == (1080, 2400, 1.0)
    assert (gw.viewport.width, gw.viewport.height, gw.viewport.device_scale_factor) == (360, 800, 3.0)
    assert gw.viewport.pixel_size == (1080, 2400) == c2w.viewport.pixel_size
    assert get_format("gworld", model="my-gworld").model == "my-gworld"
    with pytest.raises(ConfigError, match="unknown world-model format 'nope'"):
        get_format("nope")


def test_one_contract_per_family():
    assert set(CONTRACTS) == set(FAMILIES) == {"persistent", "clipboard", "ordered", "temporal"}
    assert "notification shade" in CONTRACTS["temporal"] and "wait" in CONTRACTS["temporal"]


# -- determinism and A/B equality ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("family", ["persistent", "clipboard", "ordered", "temporal"])
def test_same_inputs_same_bytes(name, family, png):
    fmt = get_format(name)
    a = fmt.build_request(png, TAP, family=family, entity_context="Downloads/report.pdf")
    b = get_format(name).build_request(png, TAP, family=family, entity_context="Downloads/report.pdf")
    assert canonical_json(a) == canonical_json(b)
    assert request_hash(a) == request_hash(b)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_ab_identical_screens_hash_equal_despite_encoding_and_bookkeeping(name):
    """Branches A and B: same pixels (encoded differently, RGBA vs RGB) and the same action that differs only
    in timing and element bounds -> identical request hash."""
    pixels = screen()
    png_a = png_of(pixels, compress_level=1)
    png_b = png_of(pixels.convert("RGBA"), compress_level=9)
    assert png_a != png_b
    act_a = TAP.model_copy(update={"elapsed_ms": 12.5, "element": Element(text="Paste", bounds=(0, 0, 10, 10))})
    act_b = TAP.model_copy(update={"elapsed_ms": 99.0, "element": Element(text="Paste", bounds=(5, 5, 20, 20))})
    fmt = get_format(name)
    assert request_hash(fmt.build_request(png_a, act_a, family="clipboard")) == \
        request_hash(fmt.build_request(png_b, act_b, family="clipboard"))


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_different_screen_or_action_changes_hash(name, png):
    fmt = get_format(name)
    base = request_hash(fmt.build_request(png, TAP, family="ordered"))
    changed = screen()
    changed.putpixel((10, 2000), (0, 0, 0))
    assert request_hash(fmt.build_request(png_of(changed), TAP, family="ordered")) != base
    assert request_hash(fmt.build_request(png, TAP.model_copy(update={"x": 541}), family="ordered")) != base
    assert request_hash(fmt.build_request(png, SWIPE, family="ordered")) != base
    assert request_hash(fmt.build_request(png, TAP, family="clipboard")) != base  # the contract differs


def test_request_shape(png):
    c2w = get_format("code2world").build_request(png, TAP, family="clipboard")
    assert [m["role"] for m in c2w["messages"]] == ["system", "user"]
    assert [p["type"] for p in c2w["messages"][1]["content"]] == ["image_url", "text"]
    assert "#render-target" in c2w["messages"][0]["content"][0]["text"]
    assert "1080px" in c2w["messages"][0]["content"][0]["text"]
    gw = get_format("gworld").build_request(png, TAP, family="clipboard")
    assert [m["role"] for m in gw["messages"]] == ["user"]
    assert [p["type"] for p in gw["messages"][0]["content"]] == ["image_url", "text"]
    text = texts_in(gw)
    assert "# Next State Reasoning:" in text and "# HTML:" in text and "360px by 800px" in text
    for body, model in ((c2w, "Code2World"), (gw, "gWorld-8B")):
        assert body["model"] == model
        assert (body["max_tokens"], body["temperature"], body["seed"]) == (8192, 0.0, 20260912)
        assert CONTRACTS["clipboard"] in texts_in(body)
        assert "elapsed" not in canonical_json(body).decode()


def test_embedded_image_is_the_transform_output_without_metadata(png):
    for name in FORMATS:
        fmt = get_format(name)
        (embedded,) = images_in(fmt.build_request(png, TAP, family="clipboard"))
        assert embedded == fmt.transform_screenshot(png, TAP, SCREEN)
        chunks = []
        pos = 8
        while pos < len(embedded):
            length = int.from_bytes(embedded[pos:pos + 4], "big")
            chunks.append(embedded[pos + 4:pos + 8])
            pos += 12 + length
        assert set(chunks) <= {b"IHDR", b"IDAT", b"IEND"}


# -- overlays ------------------------------------------------------------------------------------------------

def test_code2world_draws_disc_at_tap():
    fmt = get_format("code2world")
    blank = png_of(Image.new("RGB", SCREEN, WHITE))
    out = decode(fmt.transform_screenshot(blank, TAP, SCREEN))
    assert out.size == SCREEN
    assert out.getpixel((540, 1200)) == (255, 155, 155)  # translucent red fill over white
    assert out.getpixel((540 + 38, 1200)) == RED  # opaque rim
    assert out.getpixel((540 + 60, 1200)) == WHITE
    assert out.getpixel((100, 100)) == WHITE
    long_press = decode(fmt.transform_screenshot(blank, Action(type="long_press", x=100, y=300), SCREEN))
    assert long_press.getpixel((100, 300)) == (255, 155, 155) and long_press.getpixel((540, 1200)) == WHITE


def test_code2world_draws_arrow_for_swipe_and_drag():
    fmt = get_format("code2world")
    blank = png_of(Image.new("RGB", SCREEN, WHITE))
    out = decode(fmt.transform_screenshot(blank, SWIPE, SCREEN))
    for y in (1700, 1200, 700):
        assert out.getpixel((540, y)) == RED
    assert out.getpixel((540 + 12, 1200)) == WHITE  # the shaft is 15 px wide
    assert out.getpixel((540 + 12, 630)) == RED  # the head (wider) sits at the end point: the finger moves up
    assert out.getpixel((540 + 12, 1770)) == WHITE  # no head at the start
    drag = decode(fmt.transform_screenshot(blank, Action(type="drag", x=100, y=500, x2=900, y2=500), SCREEN))
    assert drag.getpixel((500, 500)) == RED and drag.getpixel((500, 530)) == WHITE


@pytest.mark.parametrize("action", [TYPE, KEY, Action(type="wait", duration_ms=1000),
                                    Action(type="type", text="x", x=540, y=1200)])
def test_code2world_leaves_type_key_wait_untouched(action):
    src = screen()
    out = decode(get_format("code2world").transform_screenshot(png_of(src), action, SCREEN))
    assert out.tobytes() == src.tobytes()


def test_gworld_never_draws(png):
    src = screen()
    for action in (TAP, SWIPE, TYPE):
        out = decode(get_format("gworld").transform_screenshot(png, action, SCREEN))
        assert out.tobytes() == src.tobytes()


def test_code2world_scales_other_screens_to_its_canvas():
    fmt = get_format("code2world")
    small = png_of(Image.new("RGB", (720, 1600), WHITE))
    tap = Action(type="tap", x=360, y=800)
    out = decode(fmt.transform_screenshot(small, tap, (720, 1600)))
    assert out.size == (1080, 2400) and out.getpixel((540, 1200)) == (255, 155, 155)
    assert fmt.action_payload(tap, (720, 1600))["action_data"] == {"action_type": "click", "x": 540, "y": 1200}
    assert decode(get_format("gworld").transform_screenshot(small, tap, (720, 1600))).size == (720, 1600)


def test_crop_shifts_overlay_and_coordinates():
    fmt = Code2WorldFormat(crop=(0, 100, 1080, 2300))
    out = decode(fmt.transform_screenshot(png_of(Image.new("RGB", SCREEN, WHITE)), TAP, SCREEN))
    assert out.size == (1080, 2400)
    _, cy = fmt._point(540, 1200, SCREEN)
    assert out.getpixel((540, cy)) == (255, 155, 155)
    gw = get_format("gworld", crop=(0, 100, 1080, 2300))
    assert gw.action_payload(Action(type="tap", x=540, y=100), SCREEN)["coordinates"] == [500, 0]
    with pytest.raises(FormatError, match="does not fit"):
        get_format("gworld", crop=(0, 0, 2000, 100)).build_request(png_of(screen()), TAP, family="ordered")


# -- action serialization ---------------------------------------------------------------------------------------

def test_gworld_normalises_coordinates_to_1000():
    gw = get_format("gworld")
    assert gw.action_payload(TAP, SCREEN) == {"action": "TAP", "coordinates": [500, 500]}
    assert gw.action_payload(Action(type="long_press", x=0, y=2400), SCREEN)["coordinates"] == [0, 1000]
    assert gw.action_payload(Action(type="tap", x=1500, y=-5), SCREEN)["coordinates"] == [1000, 0]
    assert gw.action_payload(Action(type="tap", x=720, y=1560), (1440, 3120))["coordinates"] == [500, 500]
    assert gw.action_payload(SWIPE, SCREEN) == {"action": "SWIPE", "coordinates": [500, 750],
                                                "end_coordinates": [500, 250], "direction": "up"}
    assert gw.action_payload(TYPE, SCREEN) == {"action": "SET_TEXT", "text": "hello"}
    assert gw.action_payload(KEY, SCREEN) == {"action": "NAVIGATE_BACK"}
    assert gw.action_payload(Action(type="key", key=67), SCREEN) == {"action": "KEY", "key": "DEL"}
    wait = Action(type="wait", duration_ms=360000)
    assert gw.action_payload(wait, SCREEN) == {"action": "WAIT", "duration_seconds": 360}
    assert gw.action_payload(wait, SCREEN, family="temporal") == {
        "action": "WAIT_THEN_OPEN_NOTIFICATION_SHADE", "duration_seconds": 360}
    assert 'Action:\n{"action": "TAP", "coordinates": [500, 500]}' in texts_in(
        gw.build_request(png_of(screen()), TAP, family="ordered"))


def test_code2world_action_description():
    c2w = get_format("code2world")
    tap = TAP.model_copy(update={"element": Element(text="Paste", cls="android.widget.Button")})
    payload = c2w.action_payload(tap, SCREEN)
    assert payload == {"description": 'Tap on Button "Paste" at (540, 1200).',
                       "action_data": {"action_type": "click", "x": 540, "y": 1200}}
    assert c2w.action_payload(SWIPE, SCREEN)["action_data"] == {
        "action_type": "swipe", "direction": "up", "x": 540, "y": 1800, "x2": 540, "y2": 600}
    assert c2w.action_payload(TYPE, SCREEN)["action_data"] == {"action_type": "input_text", "text": "hello"}
    assert c2w.action_payload(KEY, SCREEN)["description"] == "Press Back."
    wait = c2w.action_payload(Action(type="wait", duration_ms=360000), SCREEN, family="temporal")
    assert wait == {"description": "Wait 360 seconds, then open the notification shade.",
                    "action_data": {"action_type": "wait_then_open_notification_shade", "duration_seconds": 360}}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_bad_inputs_name_the_field(name, png):
    fmt = get_format(name)
    with pytest.raises(FormatError, match=r"action\.y is required"):
        fmt.build_request(png, Action(type="tap", x=1), family="clipboard")
    with pytest.raises(FormatError, match=r"action\.x2 is required"):
        fmt.build_request(png, Action(type="swipe", x=1, y=2), family="clipboard")
    with pytest.raises(ConfigError, match="unknown family 'music'"):
        fmt.build_request(png, TAP, family="music")
    with pytest.raises(FormatError, match="screen_size"):
        fmt.build_request(png, TAP, family="clipboard", screen_size=(0, 10))
    with pytest.raises(FormatError, match="not a readable image"):
        fmt.build_request(b"not a png", TAP, family="clipboard")


# -- conditions -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FORMATS))
def test_history_adds_images_and_actions(name, png):
    fmt = get_format(name)
    obs = fmt.build_request(png, TAP, family="clipboard")
    assert fmt.build_request(png, TAP, family="clipboard", history=[]) == obs
    earlier = png_of(screen((240, 240, 240)))
    history = [(earlier, Action(type="tap", x=100, y=200)), (earlier, Action(type="type", text="abc"))]
    hist = fmt.build_request(png, TAP, family="clipboard", history=history)
    assert len(images_in(hist)) == 3 and len(images_in(obs)) == 1
    assert images_in(hist)[-1] == images_in(obs)[0]  # the current screen comes last
    text = texts_in(hist)
    assert "Step 1" in text and "Step 2" in text and "abc" in text
    assert request_hash(hist) != request_hash(obs)
    reordered = fmt.build_request(png, TAP, family="clipboard", history=history[::-1])
    assert request_hash(reordered) != request_hash(hist)
    if name == "code2world":  # earlier screens carry their own action's red mark
        r, g, b = decode(images_in(hist)[0]).getpixel((100, 200))
        assert r > g + 80 and g == b  # red disc blended over the grey background
        assert decode(images_in(hist)[1]).tobytes() == decode(earlier).tobytes()


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_state_condition_adds_the_block(name, png):
    fmt = get_format(name)
    obs = fmt.build_request(png, TAP, family="clipboard")
    block_a = render_state("clipboard", {"clipboard_type": "text", "clipboard_text": "alpha"}, action=TAP)
    block_b = render_state("clipboard", {"clipboard_type": "text", "clipboard_text": "beta"}, action=TAP)
    a = fmt.build_request(png, TAP, family="clipboard", condition_text=block_a)
    b = fmt.build_request(png, TAP, family="clipboard", condition_text=block_b)
    assert block_a in texts_in(a) and block_a not in texts_in(obs)
    assert len({request_hash(obs), request_hash(a), request_hash(b)}) == 3
    user = a["messages"][-1]["content"]
    assert [p["type"] for p in user] == ["image_url", "text", "text"] and user[1]["text"] == block_a
    assert fmt.build_request(png, TAP, family="clipboard", condition_text="") == obs


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_contract_override_and_entity_context(name, png):
    fmt = get_format(name)
    custom = fmt.build_request(png, TAP, family="ordered", contract="Custom contract.",
                               entity_context='{"playlist": "Road trip"}')
    text = texts_in(custom)
    assert "Custom contract." in text and CONTRACTS["ordered"] not in text
    assert '{"playlist": "Road trip"}' in text


def test_canonical_json_rules():
    assert canonical_json({"b": 1, "a": [1.0, 0.1, -0.0, (2, 3)], "é": "ü"}) == \
        '{"a":[1.0,0.1,0.0,[2,3]],"b":1,"é":"ü"}'.encode()
    assert canonical_json({"x": 1}) != canonical_json({"x": 1.0})
    with pytest.raises(ConfigError, match=r"\$\.x is nan"):
        canonical_json({"x": float("nan")})
    with pytest.raises(ConfigError, match="non-string key"):
        canonical_json({1: 2})
    with pytest.raises(ConfigError, match=r"\$\.b is a bytes"):
        canonical_json({"b": b"raw"})
    assert json.loads(canonical_json({"k": [True, None]})) == {"k": [True, None]}
    img = screen()
    assert encode_png(img) == encode_png(img.convert("RGBA")) == encode_png(img.copy())
