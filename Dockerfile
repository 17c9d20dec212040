# nwbportal: one image for every process. The first argument picks it (docker/entrypoint.sh):
# `web` (the default: migrations, then uvicorn on port 8000), `worker`, `beat`, or `manage <command>`.
# Production mode only: the container needs DATABASE_URL, REDIS_URL and SECRET_KEY (docs/configuration.md).

ARG PYTHON_IMAGE=python:3.11-slim

# --- builder: the virtualenv, compiled where a wheel is missing -----------------------------------
FROM ${PYTHON_IMAGE} AS builder

RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN python -m venv /opt/venv
COPY requirements.txt /tmp/requirements.txt
RUN /opt/venv/bin/pip install --upgrade pip \
 && /opt/venv/bin/pip install -r /tmp/requirements.txt

# --- final: the virtualenv and the code, nothing else ---------------------------------------------
FROM ${PYTHON_IMAGE}

# The owner of the files in DATA_ROOT; match it to the owner of a shared (NFS) export if needed.
ARG APP_UID=1000
ARG APP_GID=1000

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=nwbportal.settings \
    DATA_ROOT=/data

RUN groupadd --gid "${APP_GID}" nwbportal \
 && useradd --uid "${APP_UID}" --gid nwbportal --create-home --home-dir /home/nwbportal \
      --shell /usr/sbin/nologin nwbportal

COPY --from=builder /opt/venv /opt/venv

WORKDIR /app
COPY manage.py ./
COPY nwbportal ./nwbportal
COPY conversions ./conversions
COPY templates ./templates
COPY static ./static
COPY docker/entrypoint.sh /usr/local/bin/nwbportal-entrypoint
RUN chmod 0755 /usr/local/bin/nwbportal-entrypoint

# Static files are collected into the image (STATIC_ROOT, /app/var/static) and served by whitenoise.
# The production settings refuse to load without these three variables; the dummy values exist for
# this one command, connect to nothing, and are not kept in the image.
RUN SECRET_KEY=collectstatic-only \
    DATABASE_URL=postgres://collectstatic@localhost:5432/collectstatic \
    REDIS_URL=redis://localhost:6379/0 \
    python manage.py collectstatic --noinput --verbosity 0

# Created and owned before VOLUME, so a new named volume starts out writable by the app user.
RUN mkdir -p /data \
 && chown nwbportal:nwbportal /data

USER ${APP_UID}:${APP_GID}
VOLUME ["/data"]
EXPOSE 8000

ENTRYPOINT ["nwbportal-entrypoint"]
CMD ["web"]
