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


def test_files_reads_the_device_name_and_scrolls_to_rows(driver):
    driver.shell(f"rm -rf {SD}/Download/* {SD}/Documents/*; mkdir -p {SD}/Documents/Deep/Inner", check=True)
    for i in range(14):  # more rows than one screen holds: the walk scrolls the list by its bounds
        driver.shell(f"mkdir -p {SD}/Documents/f{i:02d}", check=True)
    driver.shell(f"echo z > {SD}/Documents/zz_last.txt", check=True)
    files = profile_for(driver, "files")
    assert files.device_name() == driver.shell("settings get global device_name").text.strip() == "sdk_gphone64_x86_64"
    files.launch(fresh=True)
    actions = files.copy_to(f"{SD}/Documents/zz_last.txt", f"{SD}/Documents/Deep/Inner")
    assert exists(driver, f"{SD}/Documents/Deep/Inner/zz_last.txt")
    assert any(a.type == "swipe" for a in actions)  # zz_last.txt was below the fold
    assert not any(a.element and a.element.content_desc == "Navigate up" for a in actions)
    shown = files.sel("root_storage", device=files.device_name())
    assert shown == {"text": "sdk_gphone64_x86_64"}


def test_settings_and_launcher_reach_date_time(driver):
    launcher = profile_for(driver, "launcher")
    settings = profile_for(driver, "settings")
    driver.shell("am force-stop com.android.settings", check=True)
    actions = launcher.open_app("Settings")
    assert driver.current_app()[0] == "com.android.settings"
    swipe = next(a for a in actions if a.type == "swipe")  # the drawer opens with a swipe from the hotseat
    width, height, _ = driver.screen()
    assert swipe.y2 == height // 4 and swipe.x == swipe.x2 and 0 < swipe.x < width
    assert any(a.element and a.element.text == "Settings" and a.element.resource_id.endswith(":id/icon")
               for a in actions)
    steps = settings.open_date_time()
    tapped = [a.element.text for a in steps if a.type == "tap" and a.element]
    assert tapped == ["System", "Date & time"]
    assert driver.exists(text="Set time automatically")
    assert settings.open_date_time() == []  # already there
    driver.home()
    settings.open_from_launcher()  # Settings resumes on Date & time
    assert driver.exists(text="Set time automatically")
    driver.back()
    driver.back()
    assert driver.exists(resourceId="com.android.settings:id/search_action_bar")
    settings.open_from_launcher()
    assert driver.exists(text="Set time automatically")


def test_notes_copy_and_paste(driver):
    notebook = f"{SD}/Documents/Markor"
    # one payload per paragraph: Markor's view mode joins soft-wrapped lines into one paragraph
    driver.shell(f"rm -rf {notebook}; mkdir -p {notebook}; printf 'Alpha line one\\n\\nKestrel7 flies\\n' > "
                 f"{notebook}/source.md", check=True)
    notes = profile_for(driver, "notes")
    notes.launch(fresh=True)
    notes.open_document("source.md")
    notes.view_mode()
    notes.copy("Kestrel7")
    notes.select_then_cancel("Alpha")
    notes.up()
    notes.create_note("scratch")
    notes.paste()
    notes.up()  # Markor writes the document when it is left (onPause)
    assert driver.shell(f"cat {notebook}/scratch.md").text == "Kestrel7"


def test_clock_timer_controls(driver):
    driver.shell("pm clear com.google.android.deskclock", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(300)
    assert driver.element(**clock.sel("timer_text")).text == "5:00"
    clock.pause()
    assert driver.exists(**clock.sel("card_start"))  # a paused timer's button says Start (there is no Resume)
    clock.resume()
    clock.reset()
    clock.restart()
    clock.delete()
    settings = profile_for(driver, "settings")
    settings.launch(fresh=True)
    settings.open_date_time()


def test_music_queue_and_playlist(driver):
    from emukit.media import make_mp3
    from emukit.probes import probe

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
