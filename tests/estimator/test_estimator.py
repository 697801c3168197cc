"""The learned predictive-state estimator: the objective against a hand computation, a real gradient through
both terms, a tiny configuration that overfits a handful of examples (specialists, teacher cache, Joint CE,
distilled student), checkpoints that round-trip and a killed run that resumes to the same weights, the
information-access rule, bad input, and the checkpoint behind ``emukit evaluate --estimator``.

The examples come from the hand-built export ``tests/fixtures/pairs`` (real virtual-device captures), turned
into a state-training export here. Nothing is mocked; everything runs on the CPU.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch

from emukit.errors import ConfigError
from emukit.estimator.config import EstimatorConfig, load_config
from emukit.estimator.data import action_text, load_examples, parse_state, row_example, screen_change, serialize
from emukit.estimator.losses import (
    IGNORE,
    ce_per_example,
    kd_per_example,
    objective,
    teacher_topk,
)
from emukit.estimator.train import Progress, train

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
# The tiny training (the module's ``trained`` fixture, set up by whichever of its tests runs first) is about 100
# CPU-seconds; at the start of CI it shares two cores with the template build, the quick start's pair build and
# the other workers, and it ran past 300 s there twice. A fixture that fails is set up again for every test that
# uses it, so one timeout became four, 1200 s of training that slowed everything else.
pytestmark = pytest.mark.timeout(600)
# copy_head False: the overfitting figures below were measured on the plain decoder, and the head makes the tiny
# training about 45% longer (109 s against 76 s on one thread); the default (with the head) is trained, killed,
# resumed and decoded by test_a_killed_run_resumes_to_the_same_weights, and tests/estimator/test_copyhead.py
# checks the head itself
TINY = {"model": {"hidden_size": 64, "layers": 2, "heads": 2, "intermediate_size": 128, "vocab_size": 400,
                  "max_length": 1024, "copy_head": False},
        "batch_size": 4, "specialist_epochs": {"persistent": 60, "clipboard": 60, "ordered": 60, "temporal": 60},
        "student_epochs": 80, "small_model_lr": 0.01, "max_new_tokens": 40, "checkpoint_every": 10}
# student_epochs 80: with torch 2.13.0 the student reproduced 4 of the 8 targets after 60 epochs, 6 after 80
LOSSES: dict[str, float] = {}


def state_export(out: Path, per_family: int = 2) -> Path:
    """The fixture pairs (``per_family`` of each family) as a state-training export: one row per branch,
    hierarchies copied beside."""
    rows = []
    taken: dict[str, int] = {}
    for line in (FIXTURE / "pairs.jsonl").read_text().splitlines():
        pair = json.loads(line)
        if taken.get(pair["family"], 0) >= per_family:
            continue
        taken[pair["family"]] = taken.get(pair["family"], 0) + 1
        for name, br in sorted(pair["branches"].items()):
            for obs in [*(s["observation"] for s in br["history"]), br["boundary_observation"]]:
                dest = out / obs["hierarchy"]
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(FIXTURE / obs["hierarchy"], dest)
            rows.append({"example_id": f"{pair['pair_id']}/{name}", "family": pair["family"],
                         "template": pair["template"], "pair_id": pair["pair_id"], "branch": name,
                         "seed": pair["seed"], "params": pair["params"], "history": br["history"],
                         "final_observation": br["boundary_observation"], "target": br["state"],
                         "keys": {}})
    (out / "state_train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    """One pair of each family: eight branches."""
    return state_export(tmp_path_factory.mktemp("state_export"), per_family=1)


@pytest.fixture(scope="module")
def trained(export, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ckpt") / "tiny"

    def step(name: str, n: int, loss: float) -> None:
        LOSSES[name] = loss

    train(export, out, EstimatorConfig.model_validate(TINY), progress=Progress(step=step))
    return out


# ------------------------------------------------------------------------------------------ the objective
def test_losses_match_a_hand_computation():
    logits = torch.tensor([[[2.0, 0.0, -1.0], [0.5, 1.5, 0.0], [0.0, 0.0, 0.0]]])  # [B=1, L=3, V=3]
    labels = torch.tensor([[0, 1, IGNORE]])  # positions 0 and 1 supervised
    t_ids = torch.tensor([[[0, 2], [1, 0], [0, 1]]])
    t_probs = torch.tensor([[[0.75, 0.25], [0.6, 0.4], [0.5, 0.5]]])
    tau, lam, w = 2.0, 0.25, 1.5

    def log_softmax(row, t=1.0):
        z = [v / t for v in row]
        m = max(z)
        lse = m + math.log(sum(math.exp(v - m) for v in z))
        return [v - lse for v in z]

    rows = logits[0].tolist()
    ce = -(log_softmax(rows[0])[0] + log_softmax(rows[1])[1]) / 2
    kd0 = -(0.75 * log_softmax(rows[0], tau)[0] + 0.25 * log_softmax(rows[0], tau)[2])
    kd1 = -(0.6 * log_softmax(rows[1], tau)[1] + 0.4 * log_softmax(rows[1], tau)[0])
    kd = tau ** 2 * (kd0 + kd1) / 2
    got_ce = ce_per_example(logits, labels)
    got_kd = kd_per_example(logits, labels, t_ids, t_probs, tau)
    assert got_ce.item() == pytest.approx(ce, rel=1e-6)
    assert got_kd.item() == pytest.approx(kd, rel=1e-6)
    loss = objective(got_ce, torch.tensor([w]), got_kd, lam)
    assert loss.item() == pytest.approx(w * ((1 - lam) * ce + lam * kd), rel=1e-6)
    assert objective(got_ce, torch.tensor([w])).item() == pytest.approx(w * ce, rel=1e-6)  # Joint CE

    # the teacher's top-K: temperature-scaled, renormalised over the K kept
    ids, probs = teacher_topk(torch.tensor([[3.0, 1.0, 0.0, -2.0]]), tau=2.0, k=2)
    p = [math.exp(v / 2) for v in (3.0, 1.0, 0.0, -2.0)]
    assert ids.tolist() == [[0, 1]]
    assert probs[0].tolist() == pytest.approx([p[0] / (p[0] + p[1]), p[1] / (p[0] + p[1])], rel=1e-6)


def test_gradients_flow_through_both_terms():
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 5, requires_grad=True)
    labels = torch.tensor([[1, 2, IGNORE, IGNORE], [IGNORE, 3, 4, 0]])
    ids, probs = teacher_topk(torch.randn(2, 4, 5), 2.0, 3)
    w = torch.tensor([1.0, 2.0])
    for lam in (0.0, 1.0):  # CE alone, KD alone: each moves the logits of the supervised positions only
        if logits.grad is not None:
            logits.grad = None
        ce = ce_per_example(logits, labels)
        kd = kd_per_example(logits, labels, ids, probs, 2.0)
        objective(ce, w, kd, lam).backward()
        g = logits.grad
        assert g[labels != IGNORE].abs().sum() > 0
        assert g[labels == IGNORE].abs().sum() == 0


# ------------------------------------------------------------------------------------------ training
def test_a_tiny_configuration_overfits_and_the_checkpoint_reloads(trained, export):
    """Every phase trained, the cross-entropy of the specialists and of Joint CE driven below 0.1, and each
    network then reproduces most of the eight training targets exactly when it generates (at least five)."""
    from emukit.estimator.infer import LearnedEstimator, load_learned

    manifest = json.loads((trained / "manifest.json").read_text())
    assert set(manifest["phases"]) == {"specialist_persistent", "specialist_clipboard", "specialist_ordered",
                                       "specialist_temporal", "teacher_cache", "joint", "student"}
    assert manifest["data"]["train"] == {"persistent": 2, "clipboard": 2, "ordered": 2, "temporal": 2}
    assert all(LOSSES[p] < 0.1 for p in LOSSES if p != "student"), LOSSES
    assert manifest["data"]["weights"] == {f: 1.0 for f in ("persistent", "clipboard", "ordered", "temporal")}
    cache = torch.load(trained / "teacher_cache.pt", weights_only=False)
    assert len(cache) == 8
    ids, probs = next(iter(cache.values()))
    assert ids.shape[-1] == 64 and torch.allclose(probs.sum(-1), torch.ones(probs.shape[0]))
    train_examples, _ = load_examples(export)
    for variant in ("student", "joint", "specialist"):
        est = load_learned(f"{trained}:{variant}") if variant != "student" else LearnedEstimator(trained)
        right = sum(parse_state(e.family, est.generate(e.family, e.input)) == json.loads(e.target)
                    for e in train_examples)
        assert right >= 5, (variant, right)


def test_a_killed_run_resumes_to_the_same_weights(export, tmp_path):
    """With the default copy head: a run killed in the student phase resumes to byte-identical weights, and the
    reloaded student is a copy-head network the estimator decodes with."""
    cfg = EstimatorConfig.model_validate({**TINY, "model": {**TINY["model"], "copy_head": True},
                                          "specialist_epochs": {"persistent": 2, "clipboard": 2, "ordered": 2,
                                                                "temporal": 2},
                                          "student_epochs": 3, "checkpoint_every": 2})
    straight = tmp_path / "straight"
    train(export, straight, cfg)

    class Killed(Exception):
        pass

    def kill(name: str, step: int, loss: float) -> None:
        if name == "student" and step == 5:
            raise Killed

    halted = tmp_path / "halted"
    with pytest.raises(Killed):
        train(export, halted, cfg, progress=Progress(step=kill))
    assert (halted / "partial" / "student.pt").is_file()
    assert json.loads((halted / "manifest.json").read_text())["phases"].get("student") is None
    with pytest.raises(ConfigError, match="--resume"):
        train(export, halted, cfg)
    train(export, halted, cfg, resume=True)
    from safetensors.torch import load_file

    a = load_file(str(straight / "student" / "model.safetensors"))
    b = load_file(str(halted / "student" / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert {"copy_query.weight", "copy_key.weight", "copy_gate.weight", "copy_gate.bias"} <= set(a)
    from emukit.estimator.copyhead import is_copy_head
    from emukit.estimator.infer import LearnedEstimator

    student = LearnedEstimator(halted)
    example = load_examples(export)[0][0]
    assert is_copy_head(student._model(example.family))
    assert isinstance(student.generate(example.family, example.input), str)
    other = cfg.model_copy(update={"seed": 1})
    with pytest.raises(ConfigError, match="another configuration"):
        train(export, halted, other, resume=True)


# ------------------------------------------------------------------------------------------ the input
def test_a_reordered_list_is_written_in_full_and_a_drag_names_its_rows():
    """What a screenshot shows and the text history once lost: the order of a visible list after it changes
    (written in full, in screen order, also when an item is inserted inside it), the item a list lost (named),
    and the rows at both ends of a drag."""
    queue = ["Playing queue", "Song A", "Song B", "Song C", "09:00"]
    assert screen_change(queue, ["Playing queue", "Song B", "Song A", "Song C", "09:00"]) == \
        "= Playing queue | Song B | Song A | Song C | 09:00"
    assert screen_change(queue, ["Playing queue", "Song A", "Song C", "09:00"]) == "-Song B"
    assert screen_change(queue, [*queue, "Song D"]) == "+Song D"
    clock = {"09:00"}  # the status bar's: System UI's text, not the app's
    inserted = ["Playing queue", "Song A", "Song D", "Song B", "Song C", "09:00"]  # added inside the list
    assert screen_change(queue, inserted, clock) == "= " + " | ".join(inserted)
    pushed = ["Playing queue", "Song D", "Song A", "Song B", "09:00"]  # and the last row scrolled out of view
    assert screen_change(queue, pushed, clock) == "= " + " | ".join(pushed)
    assert screen_change(queue, [*queue[:-1], "09:01"], {"09:01"}) == "+09:01"  # the clock ticked
    assert screen_change(queue, [*queue[:-1], "Song D", "09:00"], clock) == "+Song D"  # appended: a diff says it
    timer = ["Timer", "00h 00m 00s", "1", "2", "09:00"]  # a countdown set: its digits replaced in the middle
    assert screen_change(timer, ["Timer", "00h 00m 02s", "[Delete]", "1", "2", "[Start]", "09:00"], clock) == \
        "+00h 00m 02s | +[Delete] | +[Start]"
    assert screen_change(queue, queue) == "(same)"
    assert screen_change(queue, []) == "-Playing queue | -Song A | -Song B | -Song C | -09:00"
    rows = "".join(f"<node text='Song {c}' resource-id='' content-desc='' bounds='[100,{y}][900,{y + 150}]'/>"
                   for c, y in (("A", 300), ("B", 450), ("C", 600)))
    xml = f"<?xml version='1.0'?><hierarchy rotation='0'>{rows}</hierarchy>"
    drag = {"type": "drag", "x": 1000, "y": 370, "x2": 1000, "y2": 680, "duration_ms": 900}
    assert action_text(drag, xml) == 'drag 1000,370 -> 1000,680 900ms from="Song A" to="Song C"'
    assert action_text(drag) == "drag 1000,370 -> 1000,680 900ms"  # without the screen: nothing to name


def test_a_long_input_loses_its_oldest_steps_never_the_task_or_the_final_screen(export):
    """Cut to fit ``max_length``: the instruction, the task line, the final observation and the state prompt
    stay; the latest steps that fit stay; one line says how many steps were left out; an input that fits is
    tokenised as before (first line, then the rest); the token-length summary counts the cut inputs."""
    from emukit.estimator.model import Tokenizer, dropped_line, encode, length_summary

    examples, _ = load_examples(export)
    tok = Tokenizer.train([e.input for e in examples] + [e.target for e in examples], 400)
    e = next(x for x in examples if x.family == "persistent")
    steps = [(f"<?xml version='1.0'?><hierarchy><node text='Row {i} of a long listing' bounds='[0,{i}][9,{i + 9}]'/>"
              "</hierarchy>", {"type": "tap", "x": 5, "y": 5}) for i in range(40)]
    prompt = serialize("persistent", steps, "<hierarchy><node text='The end screen' bounds='[0,0][9,9]'/></hierarchy>",
                       {"artifact": "a.pdf", "source": "/sdcard/Documents/a.pdf"})
    whole = encode(tok, "long", "persistent", prompt, e.target, 100_000, 24)
    assert whole.dropped == 0 and whole.length == len(whole.prompt)
    head, _, rest = prompt.partition("\n")
    assert whole.prompt == tok.encode(head + "\n") + tok.encode(rest)  # unchanged when it fits
    cut = encode(tok, "long", "persistent", prompt, e.target, whole.length // 2, 24)
    text = tok.decode(cut.prompt)
    lines = text.split("\n")
    assert lines[0] == head and lines[1].startswith("TASK ") and lines[2] == dropped_line(cut.dropped)
    assert 0 < cut.dropped < 40 and cut.length == whole.length and len(cut.prompt) + 24 <= whole.length // 2
    assert lines[-2].startswith("F40: The end screen") and lines[-1] == "STATE:"
    kept = [line for line in lines if line.startswith("O")]
    assert kept[0].startswith(f"O{cut.dropped}: ") and kept[-1].startswith("O39: ")  # the latest steps, in order
    assert length_summary([whole, cut])["persistent"] == {
        "inputs": 2, "min": whole.length, "median": whole.length, "p95": whole.length, "max": whole.length,
        "truncated": 1, "steps_left_out": cut.dropped}
    with pytest.raises(ConfigError, match="no room for the instruction, task and final observation of long"):
        encode(tok, "long", "persistent", prompt, e.target, 64, 24)


def test_max_length_auto_is_sized_to_the_training_data_and_read_back_at_inference(export, tmp_path):
    """``model.max_length: auto`` (the default): the longest training input with its target, rounded up to 64,
    so no training input is cut; a limit below that caps it (and the inputs are cut to it); the size chosen is in
    the manifest, which inference reads; a manifest without it is named."""
    from emukit.estimator.infer import LearnedEstimator
    from emukit.estimator.train import TARGET_RESERVE, Trainer

    assert EstimatorConfig().model.max_length == "auto"
    cfg = EstimatorConfig.model_validate({**TINY, "model": {**TINY["model"], "max_length": "auto"}})
    trainer = Trainer(cfg, tmp_path / "auto")
    _, data = trainer.prepare(export, resume=False)
    need = max(e.length + max(TARGET_RESERVE, len(e.target)) for e in data.encoded)
    chosen = trainer.manifest["tokens"]["max_length"]
    assert chosen % 64 == 0 and need <= chosen < need + 64 and trainer.cfg.model.max_length == chosen
    assert trainer.manifest["config"]["model"]["max_length"] == "auto"  # the run's config as given (resume)
    assert all(e.dropped == 0 and len(e.prompt) == e.length for e in data.encoded)
    assert not any(v["truncated"] for v in trainer.manifest["tokens"]["inputs"].values())

    capped = Trainer(EstimatorConfig.model_validate({**TINY, "model": {**TINY["model"], "max_length": "auto",
                                                                       "max_length_limit": 512}}),
                     tmp_path / "capped")
    _, short = capped.prepare(export, resume=False)
    assert capped.manifest["tokens"]["max_length"] == 512 and capped.cfg.model.max_length == 512
    assert any(e.dropped for e in short.encoded) and all(len(e.prompt) + TARGET_RESERVE <= 512
                                                         for e in short.encoded)

    manifest = json.loads((tmp_path / "auto" / "manifest.json").read_text())
    del manifest["tokens"]["max_length"]
    (tmp_path / "auto" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="max_length is auto but tokens.max_length"):
        LearnedEstimator(tmp_path / "auto")


def test_no_excluded_field_reaches_the_input(export):
    """Sentinels in every field the seed excludes (identifiers, template, seed, parameters other than the
    tracked artifact, the target, split keys) never appear in the serialised input; the input does not change
    when the target does."""
    rows = [json.loads(x) for x in (export / "state_train.jsonl").read_text().splitlines()]
    for row in rows:
        planted = {**row, "example_id": "SENTINEL_ID", "pair_id": "SENTINEL_PAIR", "branch": "SENTINEL_BRANCH",
                   "seed": 987654321, "keys": {"record_id": "SENTINEL_KEY"},
                   "params": {**row["params"], "secret": "SENTINEL_PARAM", "code": "SENTINEL_CODE"},
                   "entity": {"state_probe": {**(row.get("entity") or {}).get("state_probe", {}),
                                              "timer_id": "SENTINEL_PROBE_ARG"},
                              "outcome_probe": {"kind": "SENTINEL_KIND", "target": "SENTINEL_OUTCOME"}}}
        ex = row_example(planted, export, "row")
        for word in ("SENTINEL", "987654321", row["template"], row["pair_id"]):
            assert word not in ex.input, (word, row["family"])
        assert ex.input.endswith("STATE:")
        flipped = {**planted, "target": {**planted["target"], **{k: "SENTINEL_TARGET" for k in ("clipboard_text",
                                                                                               "collection_type")
                                                                if k in planted["target"]}}}
        if flipped["target"] != planted["target"]:
            assert row_example(flipped, export, "row").input == ex.input
    # the serialiser takes only the allowed pieces: a task context is reduced to the tracked entity
    text = serialize("ordered", [], "<hierarchy/>", {"playlist": "Workout", "outcome": "SENTINEL_OUT",
                                                     "collection_type": "SENTINEL_KIND"})
    assert "Workout" in text and "SENTINEL" not in text


def test_bad_input_gives_clear_errors(tmp_path, export):
    with pytest.raises(ConfigError, match="does not exist"):
        load_examples(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no state_train.jsonl"):
        load_examples(tmp_path / "empty")
    (tmp_path / "empty" / "state_train.jsonl").write_text("")
    with pytest.raises(ConfigError, match="no training examples"):
        load_examples(tmp_path / "empty")
    with pytest.raises(ConfigError, match="unknown family 'weather'"):
        load_examples(export, families=["weather"])
    bad = tmp_path / "bad"
    shutil.copytree(export, bad)
    rows = (bad / "state_train.jsonl").read_text().splitlines()
    row = json.loads(rows[1])
    row["family"] = "weather"
    rows[1] = json.dumps(row)
    (bad / "state_train.jsonl").write_text("\n".join(rows) + "\n")
    with pytest.raises(ConfigError, match=r"state_train.jsonl:2: family: unknown family 'weather'"):
        load_examples(bad)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("kd_lambda: 0.25\ntemprature: 2\n")
    with pytest.raises(ConfigError, match=r"cfg.yaml:2: temprature"):
        load_config(cfg)
    cfg.write_text("specialist_epochs: {persistent: 4, clipboard: 4, ordered: 2, weather: 4}\n")
    with pytest.raises(ConfigError, match="unknown family 'weather'"):
        load_config(cfg)
    from emukit.estimator.infer import LearnedEstimator

    with pytest.raises(ConfigError, match="not an estimator checkpoint"):
        LearnedEstimator(tmp_path)


def test_the_split_audit_guards_the_held_out_pairs(trained, export):
    """Evaluating on the very pairs the estimator was trained on is refused by the split audit."""
    from emukit.estimator.evaluate import compare

    with pytest.raises(ConfigError, match="split audit .* fails on record_id"):
        compare(trained, FIXTURE, train_export=export)


def test_table5_scores_the_checkpoint_on_suite_rows_as_on_their_branches(trained, tmp_path):
    """``emukit estimator eval --ckpt CKPT --suites DATA`` (no held-out pairs: no Strict column, no split audit):
    the rule baseline, then specialists, Joint CE and student, each scored on suite rows made of the fixture
    pairs' branches; a row is the example its branch is, so each network's suite Exact per family is its state
    Exact on those branches."""
    from emukit.estimator.evaluate import compare, held_out, score
    from emukit.estimator.infer import LearnedEstimator
    from emukit.templates import load_templates
    from tests.estimator.test_table5 import write_suites

    families = ("persistent", "clipboard", "ordered", "temporal")
    templates = {t.name: t for t in load_templates(variants=True)}
    data = write_suites(tmp_path, {"d-stress": families}, templates)
    result = compare(trained, None, suites=data)
    assert [r["estimator"] for r in result["rows"]] == ["rule baseline", "family specialists", "Joint CE",
                                                        "distilled student (MTD)"]
    assert result["split_audit"] is None and result["held_out"] is None
    branches = held_out(FIXTURE)
    for row, variant in zip(result["rows"][1:], ("specialist", "joint", "student"), strict=True):
        direct = score(variant, LearnedEstimator(trained, variant), branches)
        for family in families:
            cells = row["table5"]["cells"][family]
            assert cells["d-stress"]["value"] == direct.exact[family], (variant, family)
            assert cells["d-stress"]["n"] == 4 and cells["strict"]["value"] is None
            assert cells["cross-app"]["value"] is cells["interference"]["value"] is None


@pytest.mark.usefixtures("chromium")  # emukit evaluate renders with a Chromium of its own
def test_emukit_evaluate_takes_the_checkpoint_as_its_estimator(trained, tmp_path):
    """``emukit evaluate --condition predictive-state --estimator CKPT`` on the pairs the checkpoint was trained
    on: each branch's recorded State Exact is what the student itself gives for that branch."""
    from emukit.cli import main
    from emukit.estimator.evaluate import held_out, score
    from emukit.estimator.infer import LearnedEstimator

    pairs = tmp_path / "pairs"
    shutil.copytree(FIXTURE / "artifacts", pairs / "artifacts")
    seen: set[str] = set()
    lines = []
    for line in (FIXTURE / "pairs.jsonl").read_text().splitlines():
        family = json.loads(line)["family"]
        if family not in seen:
            seen.add(family)
            lines.append(line)
    (pairs / "pairs.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "results"
    code = main(["evaluate", "--pairs", str(pairs), "--model", "ref:surface", "--condition", "predictive-state",
                 "--estimator", str(trained), "--format", "gworld", "--out", str(out)])
    assert code == 0
    result = json.loads((out / "results.json").read_text())
    assert result["config"]["estimator"] == "learned-student"
    direct = score("student", LearnedEstimator(trained), held_out(pairs))
    for family in ("persistent", "clipboard", "ordered", "temporal"):
        assert result["metrics"]["state_exact"][family] == direct.exact[family], (family, result["metrics"])
    assert direct.macro is not None and direct.macro >= 0.5


def test_a_pretrained_base_gets_lora_adapters_with_the_papers_ranks(export, tmp_path):
    """``base_model``: a local checkpoint folder (here a small network and tokenizer saved with
    ``save_pretrained``, standing in for a pretrained model this machine cannot download) stays frozen; each
    phase trains a fresh peft LoRA adapter, rank 16 / alpha 32 for specialists and 32 / 64 for the student,
    and the saved adapters reload behind the estimator interface."""
    import peft
    import transformers

    from emukit.estimator.infer import LearnedEstimator
    from emukit.estimator.model import Tokenizer, new_model

    examples, _ = load_examples(export)
    tok = Tokenizer.train([e.input for e in examples] + [e.target for e in examples], 400)
    base = tmp_path / "base"
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok.backend, eos_token="<eos>", pad_token="<pad>",
                                                unk_token="<unk>")
    fast.save_pretrained(str(base))
    small = EstimatorConfig.model_validate({"model": TINY["model"]})
    new_model(small, tok.vocab_size).save_pretrained(str(base))
    before = {k: v.clone() for k, v in transformers.LlamaForCausalLM.from_pretrained(str(base)).state_dict().items()}

    cfg = EstimatorConfig.model_validate({**TINY, "base_model": str(base), "specialist_epochs": {
        "persistent": 1, "clipboard": 1, "ordered": 1, "temporal": 1}, "student_epochs": 1})
    out = tmp_path / "lora"
    train(export, out, cfg)
    for phase, rank, alpha in (("specialist_clipboard", 16, 32), ("joint", 32, 64), ("student", 32, 64)):
        adapter = json.loads((out / phase / "adapter_config.json").read_text())
        assert (adapter["r"], adapter["lora_alpha"], adapter["lora_dropout"]) == (rank, alpha, 0.05)
        assert set(adapter["target_modules"]) == {"q_proj", "k_proj", "v_proj", "o_proj"}
        assert not (out / phase / "model.safetensors").exists()  # only the adapter is saved
    after = transformers.LlamaForCausalLM.from_pretrained(str(base)).state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # the base stays frozen
    est = LearnedEstimator(out)
    assert isinstance(est._model("clipboard"), peft.PeftModel)
    assert isinstance(est.generate("clipboard", examples[0].input), str)
