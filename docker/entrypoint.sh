#!/bin/sh
# Entry point of the nwbportal image. The first argument picks the process; the rest is passed on.
#   web     apply migrations, then serve HTTP and websockets with uvicorn on port 8000 (the default)
#   worker  a Celery worker (conversions, validations, format detection)
#   beat    the Celery scheduler (the `recover-stalled-jobs` schedule); run exactly one
#   manage  a Django management command, e.g. `manage labuser jane --lab "Smith Lab"`
# Anything else is run as given.
set -eu

# Django spools large uploads into these directories, which may sit on the data volume.
for dir in "${FILE_UPLOAD_TEMP_DIR:-}" "${TMPDIR:-}"; do
  if [ -n "$dir" ]; then
    mkdir -p "$dir"
  fi
done

# Workers start beside `web`, which applies the migrations: wait for it, so that no job runs on an
# old schema.
wait_for_schema() {
  until output=$(python manage.py migrate --check 2>&1); do
    reason=$(printf '%s\n' "$output" | tail -n 1)
    echo "nwbportal: waiting for the database schema (migrations are applied by web)${reason:+: $reason}" >&2
    sleep 5
  done
}

command=${1:-web}
if [ "$#" -gt 0 ]; then
  shift
fi

case "$command" in
  web)
    python manage.py migrate --noinput
    exec uvicorn nwbportal.asgi:application --host 0.0.0.0 --port 8000 --proxy-headers \
      --timeout-graceful-shutdown 20 --workers "${WEB_CONCURRENCY:-$(nproc)}" "$@"
    ;;
  worker)
    wait_for_schema
    # Gossip and mingle (workers talking to each other) are not used, and only add a failure when
    # the broker connection comes back. Compose restarts a worker that stops (restart: unless-stopped).
    exec celery -A nwbportal worker --loglevel INFO --without-gossip --without-mingle "$@"
    ;;
  beat)
    # The schedule file goes to /tmp: the application directory is not writable, and the one
    # schedule (the recovery, every few seconds) needs no memory across restarts.
    exec celery -A nwbportal beat --loglevel INFO --schedule /tmp/celerybeat-schedule "$@"
    ;;
  manage)
    exec python manage.py "$@"
    ;;
  *)
    exec "$command" "$@"
    ;;
esac
