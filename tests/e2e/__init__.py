"""End-to-end tests of the dashboard in a real browser (Playwright driving Debian's
Chromium) against ``streamlit run dashboard/app.py`` with a real Mosquitto, engine
worker and recorder; ``stand_ins`` and ``harness`` are shared with the dashboard's
AppTests and ``bench/bench_live_latency.py``."""
