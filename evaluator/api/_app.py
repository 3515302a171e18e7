"""The FastAPI app: five endpoints over the runs database, the store and the reports."""

from __future__ import annotations

import hmac
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Response, Security
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from evaluator.api._bodylimit import BodyLimit
from evaluator.api._db import RunDB
from evaluator.api._errors import (
    AgentVersionError,
    NotReadyError,
    RunNotFoundError,
    UnauthorizedError,
)
from evaluator.api._models import ErrorBody, Leaderboard, RunAccepted, RunRequest, RunView
from evaluator.api._progress import progress
from evaluator.api._runplan import (
    AGENT_VERSION_PATTERN,
    NAME_PATTERN,
    AgentRef,
    check_task_set,
    default_samples,
    resolve_agent,
    run_plan,
)
from evaluator.api._settings import TOKEN_ENV, Settings
from evaluator.api._supervisor import Supervisor
from evaluator.api._ui import router as _ui_router
from evaluator.api._views import run_view
from evaluator.errors import BadInputError, InfraError, StaleLockError
from evaluator.reports import ReportService, Sources, agreement_view
from evaluator.store import Store

_bearer = HTTPBearer(auto_error=False, description=f"the server's token ({TOKEN_ENV} or --token)")
_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "no bearer token, or the wrong one"},
    422: {"model": ErrorBody, "description": "invalid input; `detail` says which and why"},
}
_BODY_HINT = ('the body must be a UTF-8 JSON object, e.g. {"agent_version": "name", '
              '"task_set": "demo", "samples": 1}')
_STATUS: tuple[tuple[type[Exception], int], ...] = (
    # Most specific first: each is also a BadInputError.
    (UnauthorizedError, 401), (RunNotFoundError, 404), (AgentVersionError, 409),
    (NotReadyError, 409), (StaleLockError, 409), (BadInputError, 422), (InfraError, 503),
)


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _db(request: Request) -> RunDB:
    db: RunDB = request.app.state.db
    return db


def _reports(request: Request) -> ReportService:
    reports: ReportService = request.app.state.reports
    return reports


def _check_token(request: Request) -> None:
    token = _settings(request).token
    if token is None:
        return
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.encode(), token.encode()):
        raise UnauthorizedError("missing or wrong bearer token: send `Authorization: Bearer "
                                f"<token>` with the server's token ({TOKEN_ENV} or --token)")


def _require_token(request: Request,
                   creds: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)]) -> None:
    """Puts the bearer scheme in the OpenAPI schema; `_auth_first` has already checked it."""
    _check_token(request)


async def _auth_first(request: Request, call_next: Any) -> Response:
    # A dependency runs after FastAPI has parsed the body: a malformed body without a token
    # would get 422 and tell a stranger about the API. Check before anything else.
    if request.url.path.startswith("/v1"):
        try:
            _check_token(request)
        except UnauthorizedError as exc:
            return _error_response(exc)
    response: Response = await call_next(request)
    return response


_PLANNING = threading.Lock()
_router = APIRouter(prefix="/v1", dependencies=[Depends(_require_token)], responses=_ERRORS)


@_router.post("/runs", status_code=202, response_model=RunAccepted, responses={
    400: {"model": ErrorBody, "description": "the body could not be read (not UTF-8 JSON)"},
    409: {"model": ErrorBody, "description": "pinned version is not the agent's current one, "
                                             "or the set is not locked and gated yet"}})
def post_run(body: RunRequest, request: Request, response: Response) -> RunAccepted:
    """Schedule `doit eval:<set>` for one agent; an identical queued or running run is reused,
    and a run whose attempts are all in the store succeeds at once without running anything."""
    s = _settings(request)
    # One plan at a time: planning is CPU-bound under the GIL, so parallel plans only interleave,
    # and sixteen cold ones at once each walk every installed distribution; in turn, all but the
    # first find the walks cached (keyed by content and folder stamps, so never stale).
    with _PLANNING:
        check_task_set(s, body.task_set)
        agent = resolve_agent(s, AgentRef.parse(body.agent_version))
        samples = body.samples or default_samples(s, body.task_set)
        plan = run_plan(s, body.task_set, agent.name, samples, body.isolation)
        snapshot = progress(Store(s.store), plan)
    complete = snapshot["counts"]["done"] == snapshot["counts"]["planned"]
    run, created = _db(request).schedule(task_set=body.task_set, agent=agent.name,
                                         identity=agent.identity, samples=samples,
                                         isolation=body.isolation,
                                         done=snapshot if complete else None)
    if created and run.status == "queued":
        request.app.state.supervisor.wake()
    response.headers["Location"] = f"/v1/runs/{run.id}"
    return RunAccepted(id=run.id, status=run.status, reused=not created)


@_router.get("/runs/{run_id}", response_model=RunView,
            responses={404: {"model": ErrorBody, "description": "no run has this id"}})
def get_run(run_id: str, request: Request) -> RunView:
    """Status, counts (done, running, errors), cost so far and queue age of a run."""
    run = _db(request).get(run_id)
    if run is None:
        raise RunNotFoundError(f"no run {run_id!r}: use the id that POST /v1/runs returned")
    return run_view(_settings(request), run)


_TaskSet = Annotated[str, Query(max_length=100, pattern=f"^{NAME_PATTERN}$",
                                description="a task set with an eval config")]
_AgentQ = Annotated[str, Query(max_length=140, pattern=AGENT_VERSION_PATTERN,
                               description="`name` (its current version) or `name@identity` "
                                           "(a version with results in the store)")]
_NOT_READY: dict[int | str, dict[str, Any]] = {409: {
    "model": ErrorBody,
    "description": "the lock is stale or the gold gate is undecided; run doit lock/gold first"}}


@_router.get("/leaderboard", response_model=Leaderboard, responses=_NOT_READY)
def get_leaderboard(task_set: _TaskSet, request: Request) -> Leaderboard:
    """The report's leaderboard rows: valid tasks only, infra errors counted apart."""
    s = _settings(request)
    check_task_set(s, task_set)
    return Leaderboard(task_set=task_set, rows=_reports(request).leaderboard_rows(
        task_set, **_sources(s)))


@_router.get("/compare", response_model=dict[str, Any], responses=_NOT_READY)
def get_compare(task_set: _TaskSet, a: _AgentQ, b: _AgentQ, request: Request) -> dict[str, Any]:
    """B against A on the valid tasks both have results for (`delta` = B - A), or the guard's
    refusal: `{"refused": true, "reasons": [...]}`."""
    s = _settings(request)
    check_task_set(s, task_set)
    ra, rb = AgentRef.parse(a), AgentRef.parse(b)
    return _reports(request).compare(task_set, ra.name, rb.name, identity_a=ra.identity,
                                     identity_b=rb.identity, **_sources(s))


_Subject = Annotated[str | None, Query(max_length=200, pattern=r"^[\w.@/+:-]+$",
                                       description="one imported submission (default: all)")]


@_router.get("/agreement", response_model=list[dict[str, Any]], responses=_NOT_READY)
def get_agreement(task_set: Annotated[str, Query(max_length=100, pattern=f"^{NAME_PATTERN}$")],
                  request: Request, subject: _Subject = None) -> list[dict[str, Any]]:
    """Each imported submission's agreement table (`evaluator import submission`): per
    instance its published outcome beside our grade, the tests that differ with both outputs'
    lines, and the cause of each difference."""
    s = _settings(request)
    if not (s.tasks_root / task_set / "set.yaml").is_file():
        raise BadInputError(f"unknown task set {task_set!r}")
    return agreement_view(task_set, Sources.of(**_sources(s)), subject)


def _sources(s: Settings) -> dict[str, Any]:
    return {"store": s.store, "tasks_root": s.tasks_root, "lock_dir": s.lock_dir,
            "evals_root": s.evals_root, "agents_root": s.agents_root}


def _error_response(exc: Exception) -> JSONResponse:
    if isinstance(exc, sqlite3.OperationalError):
        # Busy beyond the timeout (many writers at once) or a full disk: nothing the client
        # sent was wrong.
        return JSONResponse({"detail": f"the runs database failed: {exc}; retry shortly"},
                            status_code=503)
    code = next(c for kind, c in _STATUS if isinstance(exc, kind))
    headers = {"WWW-Authenticate": "Bearer"} if code == 401 else None
    return JSONResponse({"detail": str(exc)}, status_code=code, headers=headers)


async def _on_eval_error(request: Request, exc: Exception) -> JSONResponse:
    return _error_response(exc)


async def _on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and request.method == "POST":
        # FastAPI's own words for a body that is not UTF-8 do not say what to send instead.
        return JSONResponse({"detail": f"{exc.detail}: {_BODY_HINT}"}, status_code=400)
    return await http_exception_handler(request, exc)


async def _on_invalid(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg")), "type": str(e.get("type"))}
              for e in exc.errors()]
    said = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
    if any(e["type"] == "json_invalid" for e in errors):
        said += f" ({_BODY_HINT})"
    return JSONResponse({"detail": said, "errors": errors}, status_code=422)


def create_app(settings: Settings | None = None, *, supervise: bool = True) -> FastAPI:
    """The app over `settings` (default: from the environment). With `supervise` it starts and
    watches run workers while it serves; without, runs stay queued (for schema tests)."""
    resolved = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        supervisor = app.state.supervisor
        if supervise:
            supervisor.start()
        try:
            yield
        finally:
            if supervise:
                supervisor.stop()

    app = FastAPI(title="evaluator", version="1", lifespan=lifespan,
                  description="Schedule evaluation runs and read leaderboards and comparisons "
                              "of a hermetic coding-agent evaluation harness.")
    db = RunDB(resolved.db_path)
    app.state.settings, app.state.db = resolved, db
    app.state.supervisor = Supervisor(resolved, db)
    app.state.reports = ReportService()  # each set's rows kept while their inputs hold
    app.include_router(_router)
    app.include_router(_ui_router)  # the viewer's pages under /ui/<set>/
    # Inside the token check (added later, so outside), which reads no body either: a body
    # over the limit is refused before anything reads it.
    app.add_middleware(BodyLimit, limit=resolved.max_body)
    app.middleware("http")(_auth_first)
    for kind in (*(k for k, _ in _STATUS), sqlite3.OperationalError):
        app.add_exception_handler(kind, _on_eval_error)
    app.add_exception_handler(RequestValidationError, _on_invalid)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    return app
