from typing import Any

from django.core.management.base import BaseCommand

from conversions.services.attempts import recover_stalled_jobs


class Command(BaseCommand):
    help = "Requeue conversions whose worker stopped reporting (or flag them for review after a second loss)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--stall-seconds", type=int, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        count = recover_stalled_jobs(stall_seconds=options["stall_seconds"])
        self.stdout.write(f"{count} job(s) requeued")
