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
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,os; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"OPSMEMORY_PORT\",\"3000\")}/healthz')" || exit 1
CMD ["opsmemory", "run"]
