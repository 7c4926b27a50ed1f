# Go Learning Buddy — every command a person or CI needs.
#   make run    install what is missing, then start the whole system on one machine
#   make test   install what is missing, then run every test
#   make bench  run the benchmarks and rewrite bench/RESULTS.md
#   make model  reproduce the shipped model from nothing (long)
#   make deploy the secrets of a docker compose deployment, into deploy/ (see README)
# All targets are idempotent: a second run installs nothing and changes nothing.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
export PATH := /usr/games:$(PATH)

APT_PACKAGES := python3 python3-venv python3-dev make gcc git \
	mosquitto mosquitto-clients gnugo socat \
	gcc-avr avr-libc arduino-core-avr simavr libsimavr-dev libelf-dev pkg-config \
	chromium postgresql openssl

.PHONY: run test bench model firmware deps apt venv native clean-venv lint deploy

deps: apt venv native

# Debian packages: installed only when one is missing (as root on a fresh machine).
apt:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "apt: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; \
	fi

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev,train]'
	@touch $(STAMP)

firmware: apt
	$(MAKE) -C firmware

# The compiled search (gobuddy/ai/native/search.c) built once into build/native/, so that
# no engine compiles it at its first search (built again only when the source changes).
native: apt venv
	@$(PY) -c "from gobuddy.ai.native_search import build; build()"

# Two test processes (CI has 2 cores; most tests wait on brokers, browsers and
# subprocesses): a test file stays in one process, so its module fixtures are shared.
# The 25 slowest tests are listed at the end (CI's limit for the whole run is 15 minutes).
test: deps firmware
	$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --durations=25 tests

bench: deps firmware
	$(PY) -m bench.run --out bench/RESULTS.md

run: deps firmware
	$(PY) -m launcher

model: deps
	$(PY) -m training.make_model

# A compose deployment's secrets (once, before the first `docker compose up`; re-running
# keeps the passwords and the CA): accounts with one password file each, a CA, and TLS
# certificates for the broker and the dashboard's HTTPS, for the name `broker` and
# BROKER_SANS (e.g. "IP:192.168.1.10 DNS:gobuddy.lan": the names the LAN uses).
BOARDS ?= board-1
ENGINES ?= 2
BROKER_SANS ?=
deploy: deps
	$(PY) broker/make_users.py --boards $(BOARDS) --engines $(ENGINES) \
		--dynsec deploy/broker/dynamic-security.json --secrets-dir deploy/secrets
	sh broker/make_certs.sh -o deploy/certs -w dashboard DNS:broker $(BROKER_SANS)
	install -d -m 0700 deploy/broker/certs
	install -m 0600 deploy/certs/ca.crt deploy/certs/server.crt deploy/certs/server.key deploy/broker/certs/

clean-venv:
	rm -rf $(VENV)
