"""``EngineWorker``: answers engine requests from the broker with the MCTS engine.

    worker = EngineWorker(config)        # loads the model
    worker.run(stop_event)               # connects, serves until the event is set

How a request goes (see ``schemas/README.md`` for the protocol):

1. The bus client (one ``BusClient``, role ``engine``) receives it on the shared
   subscription ``$share/<group>/gobuddy/v1/engine/request/+/+`` and validates it; an
   invalid one is refused by the client itself with an ``engine_error`` naming the field.
2. The handler (the client's dispatcher thread) sets the request's deadline on this
   worker's clock: arrival plus ``timeout_ms`` (the requester's ``deadline_ms`` only when
   a request has no ``timeout_ms``), so a requester whose clock is off is served all
   the same. It replays the position; an illegal one (code ``invalid``), a board size the
   model does not play (``unplayable``), a request with no time left (``deadline``), a
   full queue or more work ahead than the request has time (``busy``, with
   ``retry_after_ms``) are refused at once with an ``engine_error``. Otherwise the request
   joins the ``JobQueue`` (fair between requesters; it supersedes older ones of the same
   requester, board and purpose) and the requester hears an ``engine_progress`` (queued,
   how many ahead, when the answer is expected). A copy of a request this worker already
   holds (a requester that re-sent it) only gets that progress again.
3. The search thread takes jobs in turn. A superseded job is dropped without an
   answer, a job whose time ran out while it waited is refused (``busy``). An answer in
   the ``AnswerCache`` is sent at once. Otherwise it searches up to
   ``min(max_visits, visit cap)`` visits, ``max_time_ms``, the deadline less a margin
   (the larger of ``deadline_margin_ms`` and a tenth of the time left), and, while
   others wait, its share of the time left (the time left divided by one plus the jobs
   waiting: the search gets weaker as the queue grows, and every queued request can
   still be answered in time); it sends partial answers if asked, then the final answer
   on the requester's own response topic with the request's Correlation Data, and for a
   board's own ``hint`` also on its ``led`` topic. An answer ready after the deadline (a
   stalled machine) is not sent: the requester hears a ``busy`` refusal instead, within
   the short while it still listens (``gobuddy.bus.requests.RESPONSE_GRACE_S``).
   A request with ``judge`` (a learner's move to judge: ``gobuddy.ai.teaching``) is
   never answered from the cache; its first search takes half the time it may have,
   and when that search did not visit the move enough, the position after the move
   is searched too (same visit budget, the time left): the answer's ``judgement``.
   A request with ``final_status`` (purpose ``analysis`` only) is not answered from
   the cache either; after its search the stones that count dead are decided by
   ``gobuddy.ai.final_status.judge`` (the Play page's decision; the search's ownership,
   when asked, a cross-check): the answer's ``final_status``. With ``explain`` (hint
   or analysis) the answer, cached or not, carries the heaviest reason for its first
   move (``gobuddy.explain``): its ``reason``.
4. A retained status (online, model, queue depth, evaluations per second) is refreshed
   every ``status_interval_s``; the last will says offline.

Delivery, as measured with Mosquitto 2.0.11: a shared subscriber's unacknowledged
messages are NOT handed to the other subscribers when it dies. With a clean session they
are dropped; with a persistent session they wait in the dead worker's session, and the
broker even keeps queueing new requests there (round robin) until the session expires.
So workers use clean sessions (a dead worker leaves the group at once), acknowledge a
request once it is queued, and a requester that hears nothing (no progress, no answer)
sends the request again, same id and Correlation Data (``gobuddy.bus.requests``): see
``tests/services/test_worker_pair.py``.

Not done here: cancelling a request other than by superseding it; weights between
requesters (each requester's turn is the same).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any, Sequence

from engine_worker.answer import wire_answer, wire_reason
from gobuddy.ai.analysis import Analysis, analyse
from gobuddy.ai.level_answer import level_answer
from gobuddy.ai.levels import Level, level_named
from gobuddy.ai.evaluator import Evaluation, Query
from gobuddy.ai.mcts import SearchConfig
from gobuddy.ai.search_engines import make_search
from gobuddy.ai.final_status import FinalStatus
from gobuddy.ai.final_status import judge as final_status
from gobuddy.ai.teaching import Judgement, judge, needs_search, position_after
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.engine_messages import EngineAnswer, EngineError, EngineProgress, EngineRequest
from gobuddy.bus.inbox import Received
from gobuddy.bus.lifecycle import connect, serve
from gobuddy.bus.message import now_ms, plain
from gobuddy.go.coords import CoordinateError, from_gtp
from gobuddy.go.position import IllegalMove
from engine_worker.answer_cache import AnswerCache
from engine_worker.config import WorkerConfig
from engine_worker.job_queue import Job, JobQueue, requester_of, supersede_key
from engine_worker.request_position import RequestError, prepare

log = logging.getLogger("engine_worker")
MIN_SEARCH_MS = 5  # below this much time left there is no search worth starting
FIRST_GUESS_S = 0.5  # a job's wall time before this worker has measured any
# A request field that only some purposes may carry: (field, those purposes, why).
PURPOSE_OF = (
    ("level", ("genmove",), "a level chooses a move to play: only with purpose 'genmove'"),
    ("judge", ("analysis", "hint"), "a judgement is of a learner's move: only with purpose 'analysis' or 'hint'"),
    ("explain", ("hint", "analysis"), "a reason is for a hint or an analysis"),
    ("final_status", ("analysis",), "dead stones are told with purpose 'analysis'"),
)


class CountingEvaluator:
    """An ``Evaluator`` that counts the positions it evaluated (for evals/s)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.has_score = inner.has_score
        self.has_ownership = inner.has_ownership
        self.board_sizes = tuple(inner.board_sizes)
        self.name_for = getattr(inner, "name_for", lambda size: inner.name)
        self.count = 0

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        result = self.inner.evaluate(queries)
        self.counted(len(queries))
        return result

    def counted(self, n: int) -> None:
        """Count ``n`` positions evaluated past this wrapper (``NativeSearch`` runs the
        ONNX model inside it directly and reports here)."""
        self.count += n


class EngineWorker:
    """One worker process's engine, queue and bus client; see the module docstring.

    ``evaluator`` defaults to the ONNX models of ``config.models``, one per board size,
    and ``level_evaluator`` (what the opponent levels below ``full`` play) to those of
    ``config.level_models``, with ``config.models`` for a size they lack; tests may pass
    other ``Evaluator``s (a given ``evaluator`` alone plays the levels too)."""

    def __init__(self, config: WorkerConfig, evaluator: Any = None, level_evaluator: Any = None) -> None:
        self.config = config
        if evaluator is None:
            evaluator, built_level = _onnx_evaluators(config)
            level_evaluator = level_evaluator or built_level
        self.evaluator = CountingEvaluator(evaluator)
        self.level_evaluator = self.evaluator if level_evaluator in (None, evaluator) else CountingEvaluator(
            level_evaluator)
        self.cache = AnswerCache(config.cache_size)
        self.jobs = JobQueue(config.max_queue, config.max_queue_per_requester)
        self._job_s = FIRST_GUESS_S  # moving average of a job's wall time (admission estimates)
        self._held: dict[tuple, Job] = {}  # (requester, request id) -> its job, queued or running
        self._held_lock = threading.Lock()
        self.client: BusClient | None = None
        # (rules, a Search or NativeSearch of gobuddy.ai.search_engines) for the full
        # player (False) and the levels (True)
        self._searches: dict[bool, tuple[tuple[float, bool, int], Any]] = {}
        self._search_noted = False  # the note of a fallback to the Python search is logged once
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self.counts = {"answered": 0, "refused": 0, "busy": 0, "superseded": 0, "late": 0, "cached": 0,
                       "duplicates": 0}

    @property
    def worker_id(self) -> str:
        return self.config.bus.client_id

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self, stop: threading.Event | None = None) -> None:
        """Connect (retrying while the broker is unreachable, until ``stop`` is set) and
        start serving. Raises ``ConnectionRefusedError`` when the broker refuses the account."""
        def make_client() -> BusClient:
            client = BusClient(self.config.bus, logger=logging.getLogger(f"gobuddy.bus.{self.worker_id}"))
            client.subscribe(topics.engine_requests_filter(self.config.share_group), self._on_request)
            client.set_status(host=socket.gethostname()[:255], model=" ".join(map(str, self.config.models))[:255],
                              model_name=self.evaluator.name, queue_depth=0, evals_per_s=0.0)
            return client

        self.client = connect(make_client, (self._stopping, stop), log)
        if self.client is None:
            return
        for target, name in ((self._search_loop, "search"), (self._status_loop, "status")):
            thread = threading.Thread(target=target, name=f"engine-{name}", daemon=True)
            thread.start()
            self._threads.append(thread)
        log.info("engine worker %s ready: models %s (%s), levels %s (%s), group %s, visit cap %d",
                 self.worker_id, " ".join(map(str, self.config.models)), self.evaluator.name,
                 " ".join(map(str, self.config.level_models)) or "the same", self.level_evaluator.name,
                 self.config.share_group, self.config.visit_cap)

    def stop(self) -> None:
        """Stop the running search, publish the offline status and disconnect."""
        self._stopping.set()
        for job in self.jobs.close():  # tell their requesters now rather than at their deadlines
            self._refuse_shutdown(job.received)
        for thread in self._threads:
            thread.join(5.0)
        if self.client is not None:
            self.client.stop()
        log.info("engine worker %s stopped: %s", self.worker_id, self.counts)

    def run(self, stop: threading.Event) -> None:
        """``start``, serve until ``stop`` is set, then ``stop``."""
        serve(self, stop)

    # ---- accepting (the bus client's dispatcher thread) ------------------------------------

    def _on_request(self, received: Received) -> None:
        arrived_ms = now_ms()
        request: EngineRequest = received.message  # type: ignore[assignment]
        if not self._answerable(received):
            return
        for field, purposes, why in PURPOSE_OF:
            if getattr(request, field) not in (None, False) and request.purpose not in purposes:
                self._refuse(received, field, f"{why}, not {request.purpose!r}", "invalid")
                return
        requester = requester_of(received)
        with self._held_lock:
            held = self._held.get((requester, request.id))
        if held is not None:  # the requester sent it again: it is not lost, say so
            self.counts["duplicates"] += 1
            self._progress(held)
            return
        deadline_ms = arrived_ms + (request.timeout_ms if request.timeout_ms is not None
                                    else request.deadline_ms - arrived_ms)
        if deadline_ms - now_ms() < self.config.deadline_margin_ms + MIN_SEARCH_MS:
            self._refuse(received, "deadline_ms", "the deadline had passed when the request arrived", "deadline")
            return
        visits = min(request.max_visits, self.config.visit_cap)
        try:
            prepared = prepare(request.position, self.evaluator.board_sizes, visits, request.top_k,
                               request.include_ownership, play_first=request.purpose == "genmove")
        except RequestError as exc:
            code = "unplayable" if exc.field == "position.size" else "invalid"
            self._refuse(received, exc.field, exc.message, code)
            return
        if request.judge is not None:
            try:  # the move to judge must be a legal move of the side to play
                position_after(prepared.position, prepared.history, from_gtp(request.judge.move, request.position.size))
            except (CoordinateError, IllegalMove) as exc:
                self._refuse(received, "judge.move", f"{request.judge.move}: {exc}", "invalid")
                return
        job = Job(received, prepared, visits, key=supersede_key(received), requester=requester,
                  deadline_ms=deadline_ms)
        refusal = self._admission(job)
        if refusal is not None:
            if self._stopping.is_set():
                self._refuse_shutdown(received)
            else:
                self._refuse_busy(received, refusal)
            return
        with self._held_lock:
            self._held[(requester, request.id)] = job
        if not self.jobs.put(job):  # filled up since the admission check
            self._release(job)
            self._refuse_busy(received, f"worker {self.worker_id} is busy; ask again")
            return
        self._progress(job)
        log.debug("accepted %s from %s/%s (%d waiting)", request.id, received.info.role, received.info.client_id,
                  self.jobs.waiting)

    def _admission(self, job: Job) -> str | None:
        """Why ``job`` cannot be taken (a reason for a busy reply), or None: the queue or
        the requester's line is full, or the work ahead of it would outlast its deadline."""
        refusal = self.jobs.refusal(job)
        if refusal == "closed":
            return "closed"
        if refusal is not None:
            what = "its queue is full" if refusal == "full" else "this requester already has its share waiting"
            return f"worker {self.worker_id} is busy: {what} ({self.jobs.waiting} waiting); ask again"
        wait_s = self.jobs.ahead(job.requester) * self._job_s
        left_s = (job.deadline_ms - now_ms() - self.config.deadline_margin_ms) / 1000
        if wait_s + MIN_SEARCH_MS / 1000 > left_s:
            return (f"worker {self.worker_id} is busy: about {wait_s:.1f} s of work ahead and {max(0.0, left_s):.1f} s "
                    "left; ask again")
        return None

    def _progress(self, job: Job) -> None:
        """Tell the requester its request is queued here and when the answer should come."""
        if job.received.response_topic is None:
            return
        ahead = self.jobs.ahead(job.requester)
        expected_s = min((ahead + 1) * self._job_s, max(0.0, (job.deadline_ms - now_ms()) / 1000))
        self._respond(job.received, EngineProgress(id=job.request.id, state="queued", ahead=min(ahead, 100_000),
                                                   expected_ms=int(expected_s * 1000), worker=self.worker_id))

    def _release(self, job: Job) -> None:
        with self._held_lock:
            if self._held.get((job.requester, job.request.id)) is job:
                del self._held[(job.requester, job.request.id)]

    def _answerable(self, received: Received) -> bool:
        """Whether anyone can get an answer: the Response Topic must be the requester's
        own (nobody directs answers at another client), or absent for a board's own hint
        (answered on its LED topic only)."""
        info, request = received.info, received.message
        if received.response_topic is None:
            if _is_own_hint(received):
                return True
            log.warning("dropped request %r from %s/%s: no Response Topic", request.id, info.role, info.client_id)
            return False
        if received.response_topic != topics.engine_response(info.role, info.client_id):
            log.warning("dropped request %r from %s/%s: Response Topic %r is not the requester's own", request.id,
                        info.role, info.client_id, received.response_topic)
            return False
        return True

    # ---- searching (the search thread) -------------------------------------------------------

    def _search_loop(self) -> None:
        while not self._stopping.is_set():
            job = self.jobs.take(0.5)
            if job is None:
                continue
            started = time.monotonic()
            try:
                self._serve(job)
            except Exception as exc:  # one bad request never stops the worker
                log.exception("request %r failed", job.request.id)
                self._refuse(job.received, None, f"internal error: {type(exc).__name__}: {exc}", "internal")
            finally:
                self.jobs.finish(job)
                self._release(job)
                self._job_s = 0.8 * self._job_s + 0.2 * (time.monotonic() - started)

    def _serve(self, job: Job) -> None:
        request, received = job.request, job.received
        if self.jobs.superseded(job):
            self._drop_superseded(job)
            return
        left_ms = job.deadline_ms - now_ms()
        remaining_ms = left_ms - max(self.config.deadline_margin_ms, self.config.deadline_margin_fraction * left_ms)
        if remaining_ms < MIN_SEARCH_MS:  # the work ahead of it took its time: busy, not the requester's fault
            self._refuse_busy(received, f"worker {self.worker_id} is busy: the request's time ran out while it "
                                        "waited; ask again", "deadline_ms")
            return
        started = time.perf_counter()
        level = _level_of(request)
        fresh = level is not None or request.judge is not None or request.final_status
        cached = None if fresh else self.cache.get(job.prepared.key)
        if cached is not None:
            self.counts["cached"] += 1
            self._deliver(job, self._personalise(cached, job, started))
            return
        seconds = remaining_ms / 1000
        if request.max_time_ms is not None:
            seconds = min(seconds, request.max_time_ms / 1000)
        waiting = self.jobs.waiting
        if waiting:  # others wait: this search takes only its share of the time left
            seconds = max(MIN_SEARCH_MS / 1000, min(seconds, remaining_ms / 1000 / (1 + waiting)))
        if request.judge is not None:  # the position after the move may need a search of its own
            seconds /= 2

        if level is not None:
            chosen = level_answer(self._search_for(job, for_level=True), level, job.prepared.position,
                                  job.prepared.history, request.seed or 0, _recent(request), top_k=request.top_k,
                                  seconds=seconds, ownership=request.include_ownership)
            self._deliver(job, self._wire(chosen, request).to_dict())
            return

        def partial(analysis: Analysis) -> None:
            self._respond(received, self._wire(analysis, request).to_dict())

        wants_partial = request.report_every_ms is not None and received.response_topic is not None
        analysis = analyse(
            self._search_for(job), job.prepared.position, job.prepared.history, visits=job.visits, seconds=seconds,
            top_k=request.top_k, ownership=request.include_ownership, stop=job.stop,
            on_partial=partial if wants_partial else None, partial_every=(request.report_every_ms or 1000) / 1000,
            play_first=request.purpose == "genmove")
        if self._stopping.is_set():
            self._refuse_shutdown(received)
            return
        if job.stop.is_set() or self.jobs.superseded(job):
            self._drop_superseded(job)
            return
        judgement = None
        if request.judge is not None:
            judgement = self._judge(job, analysis, seconds)
            if job.stop.is_set() or self.jobs.superseded(job):
                self._drop_superseded(job)
                return
        dead = final_status(job.prepared.position, ownership=analysis.ownership) if request.final_status else None
        answer = self._wire(analysis, request, judgement, dead).to_dict()
        if analysis.root.visits >= job.visits:
            self.cache.put(job.prepared.key, {k: v for k, v in answer.items() if k != "final_status"}
                           | {"judgement": None})
        self._deliver(job, answer)

    def _judge(self, job: Job, before: Analysis, seconds: float) -> Judgement:
        """The judgement of the request's ``judge`` move: from the root search when it
        visited the move enough, else after a search of the position after the move
        (the same visit budget, ``seconds`` at most)."""
        request = job.request
        assert request.judge is not None
        move = from_gtp(request.judge.move, request.position.size)
        after = None
        if needs_search(before, move):
            position, history = position_after(job.prepared.position, job.prepared.history, move)
            after = analyse(self._search_for(job), position, history, visits=job.visits,
                            seconds=max(MIN_SEARCH_MS / 1000, seconds), top_k=1, ownership=False, stop=job.stop)
        return judge(before, move, request.judge.level, after)

    def _wire(self, analysis: Analysis, request: EngineRequest, judgement: Judgement | None = None,
              dead: FinalStatus | None = None) -> EngineAnswer:
        """``analysis`` as the answer to ``request``, from this worker."""
        return wire_answer(analysis, id=request.id, board_id=request.board_id, worker=self.worker_id,
                           judgement=judgement, final_status=dead)

    def _search_for(self, job: Job, for_level: bool = False) -> Any:
        """The search tree (``gobuddy.ai.search_engines``: the configured engine; both
        make the same trees) of the full player, or with ``for_level`` of the levels'
        models; each kept between requests of the same komi, ko rule and board size (a
        continuing game reuses its subtree)."""
        rules = (job.request.position.komi, job.prepared.position.superko, job.prepared.position.size)
        kept = self._searches.get(for_level)
        if kept is None or kept[0] != rules:
            config = SearchConfig(komi=rules[0], batch_size=self.config.batch_size)
            search, note = make_search(self.level_evaluator if for_level else self.evaluator, config,
                                       self.config.search)
            if note and not self._search_noted:
                log.warning("%s: searching in Python", note)
                self._search_noted = True
            kept = self._searches[for_level] = (rules, search)
        return kept[1]

    @property
    def _search(self) -> Any:
        """The full player's search tree last used (None before the first request)."""
        kept = self._searches.get(False)
        return None if kept is None else kept[1]

    def _evaluations(self) -> int:
        """Positions evaluated so far, by the full player and the levels."""
        extra = self.level_evaluator.count if self.level_evaluator is not self.evaluator else 0
        return self.evaluator.count + extra

    def _personalise(self, cached: dict[str, Any], job: Job, started: float) -> dict[str, Any]:
        """A cached answer dressed for this request."""
        request = job.request
        cached.update(id=request.id, board_id=request.board_id, worker=self.worker_id, ts=now_ms(),
                      elapsed_ms=(time.perf_counter() - started) * 1000.0, is_during_search=False)
        cached["position_key"]["move_count"] = job.prepared.position.move_count
        return cached

    def _deliver(self, job: Job, answer: dict[str, Any]) -> None:
        request = job.request
        if request.explain:
            answer = self._explained(job, answer)
        late_ms = now_ms() - job.deadline_ms
        if late_ms > 0:  # a stalled machine: say so (the requester listens a little past its deadline)
            self.counts["late"] += 1
            self._refuse_busy(job.received, f"worker {self.worker_id} is busy: the answer was ready {late_ms} ms "
                                            "after the request's deadline; ask again", "deadline_ms")
            return
        if job.received.response_topic is not None:
            self._respond(job.received, answer)
        if _is_own_hint(job.received):
            try:
                self.client.publish(topics.board_led(request.board_id), answer)  # type: ignore[union-attr,arg-type]
            except Exception as exc:
                log.error("could not publish the hint for %s on its LED topic: %s", request.board_id, exc)
        self.counts["answered"] += 1
        log.debug("answered %r: %s after %.0f ms", request.id, answer["moves"][0]["move"] if answer["moves"] else "-",
                  answer["elapsed_ms"])

    def _explained(self, job: Job, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with the reason for its first move (an explanation that fails is
        logged and left out: the answer goes anyway)."""
        try:
            reason = wire_reason(job.prepared.position, answer)
        except Exception:
            log.exception("could not explain the answer to %r", job.request.id)
            return answer
        return {**answer, "reason": plain(reason)}

    def _drop_superseded(self, job: Job) -> None:
        self.counts["superseded"] += 1
        log.info("dropped %r: superseded by a newer request about %s", job.request.id, job.request.board_id)

    # ---- replies -----------------------------------------------------------------------------

    def _refuse(self, received: Received, field: str | None, message: str, code: str,
                retry_after_ms: int | None = None) -> None:
        self.counts["refused"] += 1
        request_id = getattr(received.message, "id", "")
        log.info("refused %r (%s, %s): %s", request_id, code, field, message)
        if received.response_topic is not None:
            self._respond(received, EngineError(id=request_id, error=message[:500], field=field, code=code,
                                                retry_after_ms=retry_after_ms, worker=self.worker_id))

    def _refuse_busy(self, received: Received, message: str, field: str | None = None) -> None:
        """Refuse with code ``busy``: this worker could not answer in time because of its
        load (``field`` ``deadline_ms`` when the request's own time ran out);
        ``retry_after_ms`` is about two jobs' time."""
        self.counts["busy"] += 1
        self._refuse(received, field, message, "busy", retry_after_ms=int(min(60.0, 2 * self._job_s) * 1000))

    def _refuse_shutdown(self, received: Received) -> None:
        self._refuse(received, None, f"worker {self.worker_id} is shutting down; ask again", "shutdown")

    def _respond(self, received: Received, reply: Any) -> None:
        try:
            self.client.respond(received, reply)  # type: ignore[union-attr]
        except Exception as exc:  # an answer that fails validation is a bug: log it, keep serving
            log.error("could not answer %r: %s", getattr(received.message, "id", None), exc)

    # ---- status (the status thread) ----------------------------------------------------------

    def _status_loop(self) -> None:
        last_count, last_time = self._evaluations(), time.monotonic()
        while not self._stopping.wait(self.config.status_interval_s):
            count, now = self._evaluations(), time.monotonic()
            rate = (count - last_count) / max(now - last_time, 1e-9)
            last_count, last_time = count, now
            client = self.client
            assert client is not None
            try:
                client.set_status(queue_depth=self.jobs.waiting, evals_per_s=round(rate, 1),
                                  answered=self.counts["answered"], refused=self.counts["refused"],
                                  busy=self.counts["busy"], job_ms=round(self._job_s * 1000),
                                  cache_hits=self.cache.hits, invalid=client.stats["rejected"])
            except Exception as exc:
                log.warning("could not publish the status: %s", exc)


def _onnx_evaluators(config: WorkerConfig) -> tuple[Any, Any]:
    """(the full player's evaluator, the levels' evaluator) from the configured files;
    a size without a level model plays its levels with its ``models`` one (the same
    session, loaded once)."""
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator
    from gobuddy.ai.sized_evaluator import SizedEvaluator

    full = [OnnxEvaluator(path, intra_threads=config.threads) for path in config.models]
    if not config.level_models:
        one = SizedEvaluator.of(full)
        return one, one
    levels = [OnnxEvaluator(path, intra_threads=config.threads) for path in config.level_models]
    covered = {size for part in levels for size in part.board_sizes}
    levels += [part for part in full if not covered & set(part.board_sizes)]
    return SizedEvaluator.of(full), SizedEvaluator.of(levels)


def _level_of(request: EngineRequest) -> Level | None:
    """The level a request asks for, or None: no level, or ``full`` (the ordinary search)."""
    if request.level is None:
        return None
    level = level_named(request.level)
    return None if level.is_full else level


def _recent(request: EngineRequest) -> list[int]:
    """The request's last two moves as flat points (passes included)."""
    size = request.position.size
    out = []
    for _, vertex in request.position.moves[-2:]:
        try:
            out.append(from_gtp(vertex, size))
        except CoordinateError:
            continue
    return out


def _is_own_hint(received: Received) -> bool:
    """A board's hint about itself: its answer also goes to the board's LED topic."""
    request = received.message
    return (getattr(request, "purpose", None) == "hint" and received.info.role == "board"
            and getattr(request, "board_id", None) == received.info.client_id)

