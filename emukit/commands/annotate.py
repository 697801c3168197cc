"""``emukit annotate TASK_ID`` / ``emukit annotate --queue [FILTER]``: the annotator's verification web UI for
one task, or for the tasks of a queue one after another."""

from __future__ import annotations

import argparse
import getpass
import signal
import webbrowser
from pathlib import Path

from emukit.commands.output import make_console, print_error
from emukit.errors import ConfigError, EmukitError


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _serve(args: argparse.Namespace) -> None:
    from emukit import resources
    from emukit.annotate import AnnotateApp, AnnotateServer
    from emukit.annotate.queue import TaskQueue
    from emukit.tasks.files import load_tasks
    from emukit.commands.options import device_request
    from emukit.workers import one_device

    console = make_console()
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port {args.port} is out of range (0-65535; 0 picks a free port)")
    annotator = (args.annotator or getpass.getuser()).strip()
    if not annotator:
        raise ConfigError("--annotator must not be empty")
    queue = None
    if args.queue is not None:
        if args.task_id:
            raise ConfigError("give a TASK_ID or --queue [FILTER], not both")
        queue = TaskQueue.load(annotator, args.queue or None, dirs=args.tasks_dir,
                               include_verified=args.include_verified)
        first = queue.next_task()
        if first is None:
            raise ConfigError(f"nothing to annotate: {queue.summary()}")
        task = first
    elif args.task_id:
        task = load_tasks(ids=[args.task_id], dirs=args.tasks_dir)[0]
    else:
        raise ConfigError("give the TASK_ID to annotate, or --queue [FILTER] for the next unverified tasks")
    folder = Path(task.source_path).parent  # annotations are saved beside the task file
    resources.check_writable("tasks", Path(task.source_path))
    with one_device(device_request(args), args.data_dir) as device:
        console.print(f"resetting {task.id} to its initial state on {device.serial}...", highlight=False)
        app = AnnotateApp(device, task, tasks_folder=folder, annotator=annotator, queue=queue)
        app.start()
        try:
            server = AnnotateServer(app, args.port)
        except OSError as exc:
            raise ConfigError(f"cannot listen on 127.0.0.1:{args.port}: {exc}") from None
        try:
            console.print(f"annotating {task.id} on {device.serial}: open {server.url}  (Ctrl-C to stop)",
                          highlight=False, soft_wrap=True)
            if queue is not None:
                console.print(f"queue: {queue.summary()}", highlight=False)
            if not args.no_browser:
                webbrowser.open(server.url)
            server.serve_forever()
        finally:
            server.server_close()


def _cmd_annotate(args: argparse.Namespace) -> int:
    previous = signal.signal(signal.SIGTERM, _stop)  # SIGTERM stops like Ctrl-C: the embedded device is stopped
    try:
        _serve(args)
    except KeyboardInterrupt:
        make_console().print("stopped", highlight=False)
    except EmukitError as exc:
        print_error(make_console(stderr=True), "emukit annotate", exc)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.build import default_data_dir
    from emukit.commands.options import add_device_options

    p = sub.add_parser("annotate", help="perform a task in a local web page and save your verdict as an annotation "
                                        "(emukit tasks accept makes one canonical)")
    p.add_argument("task_id", metavar="TASK_ID", nargs="?", help="the task (<task folder>/<TASK_ID>.yaml)")
    p.add_argument("--queue", nargs="?", const="", default=None, metavar="FILTER",
                   help="annotate the tasks that wait for you one after another: not verified and not annotated "
                        "by you, optionally only ids or templates matching FILTER (shell pattern, e.g. 'timer_*')")
    p.add_argument("--include-verified", action="store_true",
                   help="with --queue: verified tasks you have not annotated wait too (a second opinion)")
    p.add_argument("--device", help="device serial (default: the one attached, else an embedded virtual device)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    p.add_argument("--tasks-dir", "--tasks", dest="tasks_dir", type=Path, action="append", default=None,
                   metavar="DIR", help="a task folder of your own, merged with the shipped tasks (repeatable; "
                                       "also $EMUKIT_TASKS)")
    p.add_argument("--data-dir", type=Path, default=default_data_dir(),
                   help="where a base snapshot's fingerprint goes when it has to be built")
    p.add_argument("--annotator", default=None, help="name recorded in your annotations (default: the user)")
    p.add_argument("--no-browser", action="store_true", help="only print the URL")
    add_device_options(p)
    p.set_defaults(func=_cmd_annotate)
