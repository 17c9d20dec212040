"""Jobs run at a lower CPU priority than the web processes, so the chat stays quick while conversions
take every core; in the embedded mode that holds per thread, the web server's own threads untouched."""

from __future__ import annotations

import os
import threading

from django.conf import settings

from conversions.workers.tasks import lower_priority


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_a_job_thread_steps_back_and_the_others_do_not() -> None:
    before = _niceness()
    seen: dict[str, int] = {}

    def job() -> None:
        lower_priority()
        seen["job"] = _niceness()
        lower_priority()  # a second job on the same thread: unchanged, and no error
        seen["again"] = _niceness()

    thread = threading.Thread(target=job)
    thread.start()
    thread.join()
    assert seen == {"job": settings.WORKER_NICENESS, "again": settings.WORKER_NICENESS}
    assert _niceness() == before, "the calling thread (the web server's, in the embedded mode) is untouched"


def test_a_task_applied_in_the_callers_thread_leaves_it_as_it_was() -> None:
    from conversions.workers.tasks import recover_stalled_jobs

    seen: dict[str, int] = {}

    def caller() -> None:
        before = _niceness()
        # Eagerly, in this thread, as a script or a test would; without a database here it fails,
        # which apply() keeps in its result: only the thread's priority is looked at.
        recover_stalled_jobs.apply()
        seen["before"], seen["after"] = before, _niceness()

    thread = threading.Thread(target=caller)
    thread.start()
    thread.join()
    assert seen["after"] == seen["before"]
