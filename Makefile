# Go Learning Buddy — every command a person or CI needs.
#   make run    install what is missing, then start the whole system on one machine
#   make test   install what is missing, then run every test
#   make bench  run the benchmarks and rewrite bench/RESULTS.md
#   make model  reproduce the shipped model from nothing (long)
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

.PHONY: run test bench model firmware deps apt venv clean-venv lint

deps: apt venv

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

test: deps firmware
	$(PY) -m pytest -q -p no:cacheprovider tests

bench: deps firmware
	$(PY) -m bench.run --out bench/RESULTS.md

run: deps firmware
	$(PY) -m launcher

model: deps
	$(PY) -m training.make_model

clean-venv:
	rm -rf $(VENV)
