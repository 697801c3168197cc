"""The sh-subset parser and interpreter: quoting, expansion, lists, pipes, redirections, control flow.

Runs in-process against a fresh ``VirtualDevice`` and calls ``run_shell`` directly.
"""

from __future__ import annotations

import pytest

from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.shell.nodes import AndOr, Lit, Param, Pipeline, Seq, Simple
from emukit.vdevice.shell.parser import ShellSyntaxError, parse


@pytest.fixture()
def device(tmp_path):
    return VirtualDevice(tmp_path / "dev", wipe=True)


def sh(device, command: str, stdin: bytes = b"") -> tuple[int, str, str]:
    out: list[bytes] = []
    err: list[bytes] = []
    rc = run_shell(device, command, out.append, err.append, stdin)
    return rc, b"".join(out).decode(), b"".join(err).decode()


def events(device, command: str) -> list[tuple[str, bytes]]:
    log: list[tuple[str, bytes]] = []
    run_shell(device, command, lambda b: log.append(("out", b)), lambda b: log.append(("err", b)))
    return log


# ---------------------------------------------------------------------------------------------- AST
def test_parse_structure():
    tree = parse("a x | b && c; d")
    assert isinstance(tree, Seq) and len(tree.items) == 2
    andor = tree.items[0]
    assert isinstance(andor, AndOr) and andor.rest[0][0] == "&&"
    assert isinstance(andor.first, Pipeline) and len(andor.first.cmds) == 2
    assert isinstance(tree.items[1], Simple)


def test_parse_word_parts_keep_quoting():
    cmd = parse("echo 'a b'\"$X\"c").items[0]
    assert isinstance(cmd, Simple)
    parts = cmd.words[1].parts
    assert parts[0] == Lit("a b", True)
    assert isinstance(parts[1], Param) and parts[1].quoted
    assert parts[2] == Lit("c", False)


def test_parse_assignments_and_redirections():
    cmd = parse("A=1 B=\"x y\" cmd arg >out 2>&1 <in").items[0]
    assert [name for name, _ in cmd.assigns] == ["A", "B"]
    assert len(cmd.words) == 2
    assert [(r.fd, r.op) for r in cmd.redirs] == [(1, ">"), (2, ">&"), (0, "<")]


@pytest.mark.parametrize("bad", ["echo 'open", 'echo "open', "echo hi &&", "| cat", "if true; then echo",
                                 "echo $(echo", "for x in a b; echo $x; done", "( echo a"])
def test_syntax_errors(bad):
    with pytest.raises(ShellSyntaxError):
        parse(bad)


def test_syntax_error_reported(device):
    rc, out, err = sh(device, "echo 'unterminated")
    assert rc in (1, 2) and out == "" and "/system/bin/sh:" in err
    rc, _, err = sh(device, "echo hi &&")
    assert rc in (1, 2) and "syntax error" in err


# ---------------------------------------------------------------------------------------------- words
def test_quotes_and_escapes(device):
    rc, out, _ = sh(device, "X=val; echo 'a  $X' \"b  $X\" c\\ d \"q\\\"q\" 'e\\z'")
    assert rc == 0
    assert out == "a  $X b  val c d q\"q e\\z\n"


def test_empty_quoted_argument_is_kept(device):
    assert sh(device, "printf '[%s]' '' x \"\"")[1] == "[][x][]"


def test_field_splitting_of_unquoted_expansion(device):
    assert sh(device, "X='a  b'; for w in $X; do echo \"<$w>\"; done")[1] == "<a>\n<b>\n"
    assert sh(device, "X='a  b'; for w in \"$X\"; do echo \"<$w>\"; done")[1] == "<a  b>\n"


def test_parameter_forms(device):
    rc, out, _ = sh(device, "F=/sdcard/pic.png; echo ${F%.png} ${F##*/} ${#F} ${U:-def} ${F:+set} ${U-none}")
    assert out == "/sdcard/pic pic.png 15 def set none\n"


def test_special_parameters(device):
    assert sh(device, "false; echo $?; true; echo $?")[1] == "1\n0\n"
    rc, out, _ = sh(device, "echo $$")
    assert out.strip().isdigit()


def test_command_substitution_and_arithmetic(device):
    assert sh(device, "echo \"[$(echo hi; echo there)]\" `echo back`")[1] == "[hi\nthere] back\n"
    assert sh(device, "i=3; echo $((i * 2 + 1)) $(( (1+2) % 2 ))")[1] == "7 1\n"


def test_glob_expands_against_device_fs(device):
    sh(device, "touch /sdcard/Pictures/a.png /sdcard/Pictures/b.png /sdcard/Pictures/c.jpg")
    assert sh(device, "echo /sdcard/Pictures/*.png")[1] == "/sdcard/Pictures/a.png /sdcard/Pictures/b.png\n"
    assert sh(device, "echo '/sdcard/Pictures/*.png'")[1] == "/sdcard/Pictures/*.png\n"
    assert sh(device, "echo /sdcard/Pictures/*.gif")[1] == "/sdcard/Pictures/*.gif\n"
    assert sh(device, "cd /sdcard/Pictures && echo *.jpg")[1] == "c.jpg\n"


# ---------------------------------------------------------------------------------------------- lists
def test_and_or_lists(device):
    rc, out, _ = sh(device, "false && echo no; true || echo no; false || echo yes; true && echo yes2")
    assert out == "yes\nyes2\n" and rc == 0


def test_status_of_list_is_last_command(device):
    assert sh(device, "true; false")[0] == 1
    assert sh(device, "false; true")[0] == 0
    assert sh(device, "! false")[0] == 0


def test_assignments(device):
    assert sh(device, "X=1; echo $X")[1] == "1\n"
    assert sh(device, "X=1; X=2 true; echo $X")[1] == "1\n"
    assert "MYVAR=2" in sh(device, "MYVAR=2 env")[1]
    assert "MYVAR" not in sh(device, "MYVAR=2; env")[1]
    assert "MYVAR=3" in sh(device, "export MYVAR=3; env")[1]


def test_pipes(device):
    assert sh(device, "echo abc | cat | wc -c")[1].strip() == "4"
    assert sh(device, "printf 'b\\na\\nb\\n' | sort | uniq -c")[1] == "      1 a\n      2 b\n"
    assert sh(device, "echo x | false")[0] == 1


def test_redirections(device):
    rc, out, err = sh(device, "echo one > /sdcard/f.txt; echo two >> /sdcard/f.txt; cat < /sdcard/f.txt")
    assert out == "one\ntwo\n" and rc == 0
    rc, out, err = sh(device, "ls /nope 2>/dev/null; echo $?")
    assert out == "1\n" and err == ""
    rc, out, err = sh(device, "ls /nope 2>&1")
    assert "No such file or directory" in out and err == ""
    rc, out, err = sh(device, "echo hidden >/dev/null; echo shown 1>&2")
    assert out == "" and err == "shown\n"
    rc, _, err = sh(device, "echo x > /no/such/dir/f")
    assert rc == 1 and "can't create" in err


def test_redirect_order_matters(device):
    rc, out, err = sh(device, "ls /nope 2>&1 >/dev/null")
    assert "No such file" in out


def test_stdin_is_passed_to_first_reader(device):
    assert sh(device, "cat", stdin=b"data\n")[1] == "data\n"
    assert sh(device, "read a b; echo \"$b-$a\"", stdin=b"x y z\n")[1] == "y z-x\n"


def test_exit(device):
    rc, out, _ = sh(device, "echo a; exit 3; echo b")
    assert rc == 3 and out == "a\n"
    assert sh(device, "(exit 4); echo $?")[1] == "4\n"


def test_control_flow(device):
    script = "for i in 1 2 3; do if [ $i = 2 ]; then continue; fi; echo $i; done"
    assert sh(device, script)[1] == "1\n3\n"
    assert sh(device, "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i")[1] == "3\n"
    assert sh(device, "until true; do echo never; done; echo ok")[1] == "ok\n"
    assert sh(device, "if false; then echo a; elif true; then echo b; else echo c; fi")[1] == "b\n"
    assert sh(device, "{ echo a; echo b; } > /sdcard/g.txt; cat /sdcard/g.txt")[1] == "a\nb\n"
    assert sh(device, "for i in 1 2 3; do echo $i; break; done")[1] == "1\n"


def test_subshell_does_not_leak(device):
    assert sh(device, "X=1; (X=2; cd /sdcard); echo $X; pwd")[1] == "1\n/\n"


def test_comments_and_newlines(device):
    assert sh(device, "echo a # comment\n\necho b\\\nc")[1] == "a\nbc\n"


def test_adbutils_exit_marker_order(device):
    rc, out, err = sh(device, "echo hi; echo X4EXIT:$?")
    assert out == "hi\nX4EXIT:0\n"
    log = events(device, "echo a; ls /missing; echo b; echo X4EXIT:$?")
    kinds = [k for k, _ in log]
    assert kinds == ["out", "err", "out", "out"]
    assert log[-1] == ("out", b"X4EXIT:0\n")


def test_unknown_command(device):
    rc, out, err = sh(device, "frobnicate --now")
    assert rc == 127 and err == "/system/bin/sh: frobnicate: inaccessible or not found\n"
    assert sh(device, "frobnicate; echo $?")[1] == "127\n"


def test_path_forms_map_to_table(device):
    for form in ("/system/bin/echo hi", "toybox echo hi", "/system/bin/toybox echo hi", "busybox echo hi"):
        assert sh(device, form)[1] == "hi\n", form
    assert sh(device, "/data/local/tmp/nothing")[0] == 127


def test_device_script_execution(device):
    sh(device, "echo '#!/system/bin/sh' > /data/local/tmp/s.sh; echo 'echo arg=$1' >> /data/local/tmp/s.sh")
    assert sh(device, "sh /data/local/tmp/s.sh one")[1] == "arg=one\n"
    assert sh(device, "/data/local/tmp/s.sh two")[1] == "arg=two\n"
    assert sh(device, "sh -c 'echo $0 $1' zero one")[1] == "zero one\n"


def test_here_documents_and_strings(device):
    assert sh(device, "X=5; cat <<EOF\nx $X\n  y\nEOF\necho after")[1] == "x 5\n  y\nafter\n"
    assert sh(device, "cat <<'EOF'\n$X\nEOF")[1] == "$X\n"
    assert sh(device, "cat <<-EOF\n\ttabbed\n\tEOF")[1] == "tabbed\n"
    assert sh(device, "read a b <<< 'from here now'; echo $b")[1] == "here now\n"
    rc, _, err = sh(device, "cat <<EOF\nno end")
    assert rc == 1 and "here document" in err


def test_output_is_delivered_without_the_device_lock(device):
    """Host callbacks may block on a socket: they must never run while device.lock is held."""
    import threading

    free: list[bool] = []

    def try_lock() -> None:
        ok = device.lock.acquire(timeout=1)
        if ok:
            device.lock.release()
        free.append(ok)

    def probe(_data: bytes) -> None:
        t = threading.Thread(target=try_lock)
        t.start()
        t.join()

    run_shell(device, "echo a; ls /nope; getprop ro.build.version.sdk | cat", probe, probe)
    assert free and all(free)


def test_broken_host_stream_stops_the_script(device):
    calls: list[bytes] = []

    def boom(data: bytes) -> None:
        calls.append(data)
        raise BrokenPipeError()

    rc = run_shell(device, "echo a; echo b; touch /data/local/tmp/after", boom, boom)
    assert rc == 141 and calls == [b"a\n"]
    assert not device.fs.host("/data/local/tmp/after").exists()
