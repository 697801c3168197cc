"""The fixed command table of the virtual device's shell.

Importing this package registers every command (``COMMANDS`` maps a name to its :class:`CommandSpec`).
Modules are grouped by concern: files, listing, find, text, grep/sed, builtins, system, date, activity and
package managers, dumpsys, screen/input, sqlite3.
"""

from emukit.vdevice.shell.commands import (  # noqa: F401  (imported for their registrations)
    activity,
    appops,
    builtins,
    content,
    copymove,
    datecmd,
    dumpsys,
    files,
    find,
    grep,
    listing,
    logcat,
    packages,
    procs,
    runners,
    screen,
    sed,
    sqlite,
    system,
    testcmd,
    text,
    textproc,
)
from emukit.vdevice.shell.commands.base import (
    COMMANDS,
    CommandSpec,
    Ctx,
    UsageError,
    command,
    getopt,
)

__all__ = ["COMMANDS", "CommandSpec", "Ctx", "UsageError", "command", "getopt"]
