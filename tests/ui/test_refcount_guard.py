"""PySide6 6.12 on CPython 3.11 drops references to None, True and False: the guard keeps the
app from aborting ("bool_dealloc") when it has run a while or quits."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from desktop.ui.widgets.refcount_guard import guard_refcounts

PROGRAM = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QObject, Signal
    from desktop.ui.app import make_application

    class Probe(QObject):
        fired = Signal()

    app = make_application()
    probe = Probe()
    for _ in range(200_000):  # unguarded, True's count reaches zero long before this
        probe.fired.emit()
        probe.setObjectName("p")
    print("alive")
    """
)


def test_the_app_survives_many_emits_and_quits_cleanly() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        timeout=120,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "alive"


def test_where_true_is_lossy_false_is_protected_too(qapp: object) -> None:
    applied = guard_refcounts()
    if applied["True"]:
        assert applied["False"] is True
        assert sys.getrefcount(False) > 1 << 39
    else:  # a fixed PySide6 or an immortal-singleton Python: nothing changed
        assert "False" not in applied
