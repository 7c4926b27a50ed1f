# One image for every Go Learning Buddy service; docker-compose.yml picks the command.
FROM debian:bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PATH=/app/.venv/bin:/usr/games:$PATH
RUN apt-get update && apt-get install -y --no-install-recommends \
        python3 python3-venv python3-dev gcc mosquitto mosquitto-clients gnugo openssl ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY gobuddy gobuddy
COPY edge edge
COPY engine_worker engine_worker
COPY dashboard dashboard
COPY .streamlit .streamlit
COPY training training
COPY launcher launcher
COPY bench bench
COPY schemas schemas
COPY broker broker
COPY models models
RUN python3 -m venv .venv && .venv/bin/pip install --upgrade pip && .venv/bin/pip install -e .
# the compiled search (gobuddy/ai/native/search.c), built once here rather than at each start
RUN python -c "from gobuddy.ai.native_search import build; print(build())"
EXPOSE 1883 8883 8501
CMD ["python", "-m", "launcher"]
