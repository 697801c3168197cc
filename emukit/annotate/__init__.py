"""The annotator's verification web UI (``emukit annotate TASK_ID``).

A local page shows the live device screen next to the task's instruction and its ordered milestone checklist;
the annotator performs the task with the mouse and keyboard, and the actions become the task's reference
trajectory when it is marked verified. :mod:`emukit.annotate.app` holds the state and the rules (what may be
saved when), :mod:`emukit.annotate.server` the HTTP front end and its JSON API.
"""

from emukit.annotate.app import AnnotateApp, ApiError, parse_action
from emukit.annotate.server import AnnotateServer, start_server

__all__ = ["AnnotateApp", "AnnotateServer", "ApiError", "parse_action", "start_server"]
