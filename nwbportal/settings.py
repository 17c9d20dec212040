"""nwbportal settings: one file, driven by the environment.

Two modes share this file. Embedded (the default, `make run`): SQLite, a Celery worker thread inside
the web process on an in-memory broker, Channels' in-memory layer. Production: `DATABASE_URL` and
`REDIS_URL` set; PostgreSQL, Redis as Celery broker and channel layer, separate worker processes.
Every variable is documented in docs/configuration.md.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
REDIS_URL = env.str("REDIS_URL", default="")
DATABASE_URL = env.str("DATABASE_URL", default="")
# Production is whatever runs on the real services; the embedded mode is for one machine.
EMBEDDED = not (REDIS_URL or DATABASE_URL)
if bool(REDIS_URL) != bool(DATABASE_URL):
    raise ImproperlyConfigured("Set both DATABASE_URL and REDIS_URL (production mode), or neither (embedded mode).")

if EMBEDDED:
    SECRET_KEY = env.str("SECRET_KEY", default="embedded-mode-only-not-secret")
else:
    try:
        SECRET_KEY = env.str("SECRET_KEY")
    except ImproperlyConfigured as exc:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DATABASE_URL/REDIS_URL are set (production mode)."
        ) from exc
    # A key that can be guessed signs sessions and CSRF tokens anyone can forge. The measure is
    # Django's own (`check --deploy`, security.W009), made a refusal rather than a warning.
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            "SECRET_KEY is too weak for the production mode: use at least 50 random characters, e.g. "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"] if EMBEDDED else [])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    # Serves the API docs' own scripts and styles (/api/docs), so no page loads anything from elsewhere.
    "ninja",
    "axes",
    "conversions",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # A domain error a page's view raises becomes its page (conversions/http_errors.py).
    "conversions.http_errors.PortalErrorPages",
    # A NUL or a lone surrogate in any field is answered with 400, never stored (nwbportal/middleware.py).
    "nwbportal.middleware.RefuseUnstorableText",
    # Last, as django-axes asks: turns a locked-out sign-in into its 429 (conversions.services.authentication).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "nwbportal.urls"
ASGI_APPLICATION = "nwbportal.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

if EMBEDDED:
    SQLITE_PATH = Path(env.str("SQLITE_PATH", default=str(BASE_DIR / "var" / "nwbportal.sqlite3")))
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES: dict[str, dict[str, Any]] = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": SQLITE_PATH,
            # The worker thread and the web server write concurrently: WAL and immediate
            # transactions keep SQLite from answering "database is locked".
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Tests run a worker thread beside the test: an in-memory database would lock whole
            # tables between threads, a file behaves like the real one.
            "TEST": {"NAME": str(SQLITE_PATH.with_name("test-" + SQLITE_PATH.name))},
        }
    }
else:
    DATABASES = {"default": env.db_url_config(DATABASE_URL)}
    # Opening a PostgreSQL connection costs a chat turn about a third of its time. Persistent
    # connections are per thread, which ASGI does not keep stable (Django's advice is to turn them
    # off), so each process keeps a pool of connections instead (psycopg_pool, Django's own pool
    # support); CONN_MAX_AGE must then stay 0.
    DATABASE_POOL_SIZE = env.int("DATABASE_POOL_SIZE", default=10)
    if DATABASE_POOL_SIZE > 0 and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": DATABASE_POOL_SIZE,
            # How long a request waits for a connection: past it, a busy or unreachable database is
            # a 503 that says so (nwbportal.views.server_error) rather than a request left hanging.
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
            # The pool's reconnection waits twice as long after each failure: giving an attempt up
            # after a few seconds lets the next request start afresh, so the portal answers again
            # within seconds of the database's return rather than after the last, longest wait.
            "reconnect_timeout": 5.0,
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    # With the pool, this makes it check each connection before handing it out: one the database
    # dropped (a restart, a failover) is replaced, not given to a request that would fail on it.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First, as django-axes asks: it refuses a locked-out account or address before anything else.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "conversions.services.authentication.TokenBackend",
]
# Failed sign-ins (passwords and API keys), counted per account and per address
# (conversions.services.authentication): this many within the cool-off lock the account or address out for it.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = "conversions.services.authentication.lockout_parameters"
AXES_LOCKOUT_CALLABLE = "conversions.services.authentication.lockout_response"
# A success does not wipe the failures: axes would wipe those of every account tried from the same
# address, so one's own sign-in would reset the count on someone else's.
AXES_RESET_ON_SUCCESS = False
# Every failure is kept for staff to read in the admin ("Access failures"), besides the log line.
AXES_ENABLE_ACCESS_FAILURE_LOG = True
# The log says whose sign-in failed and from where (axes hides both by default); never the password.
AXES_SENSITIVE_PARAMETERS: list[str] = []
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "var" / "static")
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = EMBEDDED or DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if EMBEDDED or DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Uploaded recordings and converted files. Workers must see the same directory (a shared volume).
DATA_ROOT = env.path("DATA_ROOT", default=BASE_DIR / "var" / "data")
# Uploads bigger than this go to a temporary file instead of memory, so a multi-GB recording
# never sits in the web process.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = env.int("UPLOAD_MAX_FILES", default=2000)
# Each file of a folder upload comes with its relative path as a form field.
DATA_UPLOAD_MAX_NUMBER_FIELDS = DATA_UPLOAD_MAX_NUMBER_FILES + 100
FILE_UPLOAD_TEMP_DIR = env.str("FILE_UPLOAD_TEMP_DIR", default=None)
# Uploads in pieces (resumable): the largest piece one request carries, and how many entries a
# folder of the lab's server storage lists at most.
UPLOAD_PIECE_BYTES = env.int("UPLOAD_PIECE_BYTES", default=8 * 1024 * 1024)
STORAGE_BROWSE_MAX_ENTRIES = env.int("STORAGE_BROWSE_MAX_ENTRIES", default=500)
# What one user can grow without bound otherwise: the files of one session (a recording folder of
# many small files fits well within it) and the subjects of one lab's registry.
SESSION_MAX_FILES = env.int("SESSION_MAX_FILES", default=20000)
LAB_MAX_SUBJECTS = env.int("LAB_MAX_SUBJECTS", default=20000)
# Sessions are never deleted: how many one user may start in 24 hours bounds them instead.
SESSIONS_PER_DAY = env.int("SESSIONS_PER_DAY", default=500)

# Celery. The database, not a result backend, is the source of truth for jobs.
CONVERSION_SOFT_TIME_LIMIT = env.int("CONVERSION_SOFT_TIME_LIMIT", default=6 * 3600)
CONVERSION_TIME_LIMIT = CONVERSION_SOFT_TIME_LIMIT + 300
VALIDATION_SOFT_TIME_LIMIT = env.int("VALIDATION_SOFT_TIME_LIMIT", default=1800)
VALIDATION_TIME_LIMIT = VALIDATION_SOFT_TIME_LIMIT + 60
# A running job marks itself alive every JOB_HEARTBEAT_SECONDS, from a thread of its own; one not
# marked for JOB_STALL_SECONDS is lost (worker killed, machine gone) and runs again at once, up to
# JOB_MAX_RUNS runs, then the session is flagged for review. The recovery that finds lost jobs, and
# sends the jobs the queue never took (conversions.services.outbox), runs every RECOVERY_INTERVAL_SECONDS: a
# lost job starts again within JOB_STALL_SECONDS + RECOVERY_INTERVAL_SECONDS.
JOB_HEARTBEAT_SECONDS = env.float("JOB_HEARTBEAT_SECONDS", default=5.0)
JOB_STALL_SECONDS = env.int("JOB_STALL_SECONDS", default=30)
RECOVERY_INTERVAL_SECONDS = env.float("RECOVERY_INTERVAL_SECONDS", default=10.0)
# How long a running job waits for a database that is out of reach (restarting, failing over) before
# it gives up a step such as recording that its file is done.
DATABASE_OUTAGE_SECONDS = env.int("DATABASE_OUTAGE_SECONDS", default=120)
# A running conversion stores and announces its percent at most this often (and at least every 2 s,
# its heartbeat): twice a second keeps a bar alive without a write and a notification per chunk.
PROGRESS_INTERVAL_SECONDS = env.float("PROGRESS_INTERVAL_SECONDS", default=0.5)
# A conversion that failed for a reason that is not the data's (its worker vanished, the time limit)
# runs again by itself, up to JOB_MAX_RUNS runs in all, waiting JOB_RETRY_BACKOFF_SECONDS before the
# second run and twice as long before each later one. Data errors never run again by themselves.
JOB_MAX_RUNS = env.int("JOB_MAX_RUNS", default=3)
JOB_RETRY_BACKOFF_SECONDS = env.int("JOB_RETRY_BACKOFF_SECONDS", default=30)
# Several portals (or test runs) can share one Redis by using different queues.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="nwbportal")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# When the broker connection drops, running jobs go on (a conversion is not thrown away for a Redis
# restart); the copies the broker hands out again find their attempt taken and do nothing.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BEAT_SCHEDULE = {
    "recover-stalled-jobs": {
        "task": "conversions.tasks.recover_stalled_jobs",
        "schedule": RECOVERY_INTERVAL_SECONDS,
        # A recovery that waited in the queue longer than its interval is overtaken by the next.
        "options": {"expires": RECOVERY_INTERVAL_SECONDS},
    },
    "close-idle-sessions": {"task": "conversions.tasks.close_idle_sessions", "schedule": 600.0},
    # Sessions that entered the admin review queue by themselves (failing, stuck): staff are emailed.
    "sweep-review-queue": {"task": "conversions.tasks.sweep_review_queue", "schedule": 300.0},
}
if EMBEDDED:
    CELERY_BROKER_URL = "memory://localhost/"
    # The default 1 s polling interval adds most of a second to every job.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"polling_interval": 0.05}
else:
    CELERY_BROKER_URL = REDIS_URL
    # Unacknowledged jobs are redelivered after this; it must exceed the longest time limit, or a
    # long conversion would be handed to a second worker while the first still runs it.
    # A broker that cannot be reached is given up on within seconds (the outbox sends the job later),
    # rather than holding a request until the operating system's connect timeout.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CONVERSION_TIME_LIMIT + 600, "socket_connect_timeout": 3}

if EMBEDDED:
    CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
        "default": {"BACKEND": "nwbportal.embedded.ThreadSafeInMemoryChannelLayer"}
    }
else:
    # redis-py 8 reads with a 5 s socket timeout by default, which cuts the layer's blocking 5 s
    # BZPOPMIN short: every idle websocket would be torn down every few seconds. A longer timeout
    # still notices a Redis that went away.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30, "socket_connect_timeout": 5}]},
        }
    }

# Email: staff are told when a session needs a human. The embedded mode prints mail to the console.
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default=f"django.core.mail.backends.{'console' if EMBEDDED else 'smtp'}.EmailBackend",
)
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="nwbportal@localhost")
# The portal's address as users reach it, for links in emails (e.g. https://nwb.example.org).
PORTAL_URL = env.str("PORTAL_URL", default="http://127.0.0.1:8000" if EMBEDDED else "")

# The admin review queue: when a session counts as failing, or its job as stuck (conversions/services/review_queue.py).
REVIEW_FAILED_ATTEMPTS = env.int("REVIEW_FAILED_ATTEMPTS", default=2)
REVIEW_QUEUED_SECONDS = env.int("REVIEW_QUEUED_SECONDS", default=1800)
REVIEW_STALE_HEARTBEAT_SECONDS = env.int("REVIEW_STALE_HEARTBEAT_SECONDS", default=3 * JOB_STALL_SECONDS)
REVIEW_RUNNING_GRACE_SECONDS = env.int("REVIEW_RUNNING_GRACE_SECONDS", default=3600)
REVIEW_RUNNING_FACTOR = env.float("REVIEW_RUNNING_FACTOR", default=3.0)
REVIEW_CONVERSION_BYTES_PER_SECOND = env.int("REVIEW_CONVERSION_BYTES_PER_SECOND", default=5_000_000)

# Live events go out from a background thread in the production mode, so a chat turn does not wait
# for Redis; the embedded in-memory layer is served by the server's own loop and is sent in line.
NOTIFY_IN_BACKGROUND = not EMBEDDED

# Whether the web process starts a Celery worker thread (embedded mode only; tests turn it off and
# run their own).
EMBEDDED_WORKER = EMBEDDED and env.bool("EMBEDDED_WORKER", default=True)
EMBEDDED_WORKER_CONCURRENCY = env.int("EMBEDDED_WORKER_CONCURRENCY", default=2)
# Jobs run at this nice value (0 to 19, higher is kinder), below the web processes, so the chat stays
# quick while conversions take the cores (conversions.workers.tasks.lower_priority).
WORKER_NICENESS = env.int("WORKER_NICENESS", default=10)

# Orchestrator limits (seed 000 §3, seeds 001/002).
ORCHESTRATOR_MAX_METADATA_REQUESTS = env.int("ORCHESTRATOR_MAX_METADATA_REQUESTS", default=2)
# Messages in a row the portal does not understand before it stops asking the same way.
ORCHESTRATOR_MAX_CLARIFICATIONS = env.int("ORCHESTRATOR_MAX_CLARIFICATIONS", default=3)
# Messages per session the portal reads; past it only the buttons work, and the admins are told.
ORCHESTRATOR_MAX_TURNS = env.int("ORCHESTRATOR_MAX_TURNS", default=200)
# A session waiting this long for an answer is closed (nothing is lost; "retry" resumes it).
SESSION_IDLE_HOURS = env.int("SESSION_IDLE_HOURS", default=72)

# Every page may run only the portal's own scripts and styles, and reach only the portal (the
# websocket included): no inline script, no other origin. The API docs' assets are served by the
# portal too ("ninja" above). A page that needs more (the self-contained report) sets its own.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# The production mode is served over HTTPS only (a TLS proxy in front, docs/deployment.md): plain
# HTTP is redirected, browsers are told to use HTTPS for a year (HSTS), and cookies go over HTTPS
# only. `manage.py check --deploy` finds nothing to warn about with these defaults.
_TLS_ONLY = not EMBEDDED and not DEBUG
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=_TLS_ONLY)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if _TLS_ONLY else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
# Only a registrable domain (example.org, not portal.example.org) can be submitted to the browsers'
# preload list, and only by its owner: the flag asks for nothing by itself.
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=_TLS_ONLY)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # django-axes narrates every sign-in at INFO; each failure and lockout is a WARNING with the
    # account and the address, and successes are kept in the admin (Access logs).
    "loggers": {"uvicorn.access": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# The optional language model (conversions.language.llm; docs/configuration.md, "Language model").
# Without a key the portal reads messages by rules only, which is the normal mode, not a degraded
# one. With a key, only sessions of labs that consented (Lab.llm_consent) send anything.
ANTHROPIC_API_KEY = env.str("ANTHROPIC_API_KEY", default="")
LLM_MODEL = env.str("LLM_MODEL", default="claude-haiku-5-5")
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=10.0)
LLM_CALLS_PER_SESSION = env.int("LLM_CALLS_PER_SESSION", default=20)
LLM_HISTORY_MESSAGES = env.int("LLM_HISTORY_MESSAGES", default=10)
