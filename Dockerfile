# opsmemory: the bot on its embedded defaults (offline embedder, built-in runbooks, no LLM).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    OPSMEMORY_DATA_DIR=/data

WORKDIR /app
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY memory ./memory
COPY knowledge ./knowledge
COPY skills ./skills
COPY evals ./evals
RUN pip install --no-deps . \
 && useradd --system --uid 10001 --home-dir /data opsmemory \
 && mkdir -p /data && chown opsmemory /data

USER opsmemory
VOLUME ["/data"]
EXPOSE 3000
# Stopping drains (issue 18): on SIGTERM /healthz turns 503 at once, new Slack requests get 503
# (Slack redelivers events), and accepted work gets OPSMEMORY_SHUTDOWN_GRACE_S to finish before
# the database closes; exit 0 when it all finished, 1 when something was abandoned (logged by id).
# The stop timeout is set where the container runs, not here: give it the grace period plus ~5 s
# to close, e.g. `docker run --stop-timeout 25`, compose `stop_grace_period: 25s`, Kubernetes
# `terminationGracePeriodSeconds: 25` (Docker's default of 10 s would SIGKILL mid-drain).
ENV OPSMEMORY_SHUTDOWN_GRACE_S=20
LABEL org.opsmemory.stop-timeout-seconds="25"
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,os; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"OPSMEMORY_PORT\",\"3000\")}/healthz')" || exit 1
CMD ["opsmemory", "run"]
