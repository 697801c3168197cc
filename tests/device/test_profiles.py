"""App profiles drive the virtual apps like a person would; outcomes checked on the device through adb.
Real adb server, real virtual device process, nothing mocked."""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver

SD = "/storage/emulated/0"


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    d.shell("adb_root_is_done_by_the_test=1; true")
    yield d
    d.close()


def exists(driver: Driver, path: str) -> bool:
    return driver.shell(f"[ -e '{path}' ]").exit_code == 0


def test_profiles_are_chosen_by_installed_build(driver):
    files = profile_for(driver, "files")
    assert files.version.endswith("-emukit-virtual") and files.verified
    with pytest.raises(KeyError):
        profile_for(driver, "no-such-app")


def test_files_copy_move_delete(driver):
    driver.shell(f"rm -rf {SD}/Download/* {SD}/Documents/*; echo q3 > {SD}/Download/report_q3.pdf; "
                 f"echo b > {SD}/Download/budget.xlsx; mkdir -p {SD}/Documents/Archive", check=True)
    files = profile_for(driver, "files")
    files.launch(fresh=True)
    cancelled = files.copy_to(f"{SD}/Download/report_q3.pdf", f"{SD}/Documents", confirm=False)
    assert not exists(driver, f"{SD}/Documents/report_q3.pdf")
    assert [a.type for a in cancelled][:2] == ["tap", "tap"]  # roots drawer, Downloads
    actions = files.copy_to(f"{SD}/Download/report_q3.pdf", f"{SD}/Documents", confirm=True)
    assert exists(driver, f"{SD}/Documents/report_q3.pdf") and exists(driver, f"{SD}/Download/report_q3.pdf")
    assert any(a.type == "long_press" and a.element and a.element.text == "report_q3.pdf" for a in actions)
    assert actions[-1].element is not None and actions[-1].element.text == "Copy"
    files.move_to(f"{SD}/Download/budget.xlsx", f"{SD}/Documents/Archive")
    assert exists(driver, f"{SD}/Documents/Archive/budget.xlsx") and not exists(driver, f"{SD}/Download/budget.xlsx")
    files.delete(f"{SD}/Documents/report_q3.pdf", confirm=False)
    assert exists(driver, f"{SD}/Documents/report_q3.pdf")
    files.delete(f"{SD}/Documents/report_q3.pdf", confirm=True)
    assert not exists(driver, f"{SD}/Documents/report_q3.pdf")
    files.open_search()
    assert "com.android.inputmethod.latin" in driver.hierarchy()
    files.type_query("budget")
    assert driver.exists(text="No matches in Downloads")


def test_notes_copy_and_paste(driver):
    notebook = f"{SD}/Documents/Markor"
    driver.shell(f"rm -rf {notebook}; mkdir -p {notebook}; printf 'Alpha line one\\nKestrel7 flies\\n' > "
                 f"{notebook}/source.md", check=True)
    notes = profile_for(driver, "notes")
    notes.launch(fresh=True)
    notes.open_document("source.md")
    notes.view_mode()
    notes.copy_line("Kestrel7 flies")
    notes.select_then_cancel("Alpha line one")
    notes.up()
    notes.create_note("scratch")
    notes.paste()
    assert driver.shell(f"cat {notebook}/scratch.md").text == "Kestrel7 flies"


def test_clock_timer_controls(driver):
    driver.shell("pm clear com.google.android.deskclock", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(300)
    assert driver.element(resourceId="com.google.android.deskclock:id/timer_time_text").text == "5:00"
    clock.pause()
    assert driver.exists(description="Resume")
    clock.resume()
    clock.reset()
    clock.restart()
    clock.delete()
    settings = profile_for(driver, "settings")
    settings.launch(fresh=True)
    settings.open_date_time()


def test_music_queue_and_playlist(driver):
    from emukit.probes import probe
    from emukit.media import make_mp3

    titles = ["Amber", "Birch", "Cedar", "Dune"]
    driver.shell("pm clear code.name.monkey.retromusic; rm -rf /sdcard/Music/*", check=True)
    sync = driver.adbutils().sync
    for t in titles:
        sync.push(make_mp3(t, "Band"), f"/sdcard/Music/{t.lower()}.mp3")
    music = profile_for(driver, "music")
    music.launch(fresh=True)
    for t in ["Cedar", "Amber", "Dune"]:
        music.add_to_queue(t)
    assert probe(driver, "ordered").canonical == {"collection_type": "playing_queue",
                                                  "ordered_items": ["Cedar", "Amber", "Dune"]}
    music.open_now_playing()
    music.open_queue()
    assert music.visible_titles() == ["Cedar", "Amber", "Dune"]
    music.move(2, 0)
    assert music.visible_titles() == ["Dune", "Cedar", "Amber"]
    assert probe(driver, "ordered").canonical["ordered_items"] == ["Dune", "Cedar", "Amber"]
    music.back()
    music.back()
    music.create_playlist("Mix")
    music.tab("Songs")
    for t in ["Birch", "Amber"]:
        music.add_to_playlist(t, "Mix")
    assert probe(driver, "ordered", playlist="Mix").canonical == {"collection_type": "playlist",
                                                                  "ordered_items": ["Birch", "Amber"]}
