"""`/ui/<set>/...`: the viewer's pages (evaluator.viewer), the same bytes `doit report` writes.

A browser cannot send a bearer header on a plain link, so where the server has a token a page
also accepts it once as `?token=` and then keeps it in a cookie (HttpOnly, SameSite=Strict)
for the relative links that follow.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import RedirectResponse

from evaluator.api._errors import UnauthorizedError
from evaluator.api._runplan import NAME_PATTERN, check_task_set
from evaluator.api._settings import TOKEN_ENV, Settings

COOKIE = "evaluator_token"
# No script runs on a page, whatever a trajectory holds; nothing is sniffed into HTML.
_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store"}

router = APIRouter(prefix="/ui", include_in_schema=False)
_SetName = Annotated[str, Path(max_length=100, pattern=f"^{NAME_PATTERN}$")]


def _authorize(request: Request) -> str | None:
    """The token to keep in a cookie when it came as a query parameter; raises when wrong."""
    token: str | None = request.app.state.settings.token
    if token is None:
        return None
    scheme, _, header = request.headers.get("authorization", "").partition(" ")
    for given, fresh in ((header if scheme.lower() == "bearer" else "", False),
                         (request.cookies.get(COOKIE, ""), False),
                         (request.query_params.get("token", ""), True)):
        if given and hmac.compare_digest(given.encode(), token.encode()):
            return given if fresh else None
    raise UnauthorizedError(f"missing or wrong token: open /ui/<set>/index.html?token=<token> "
                            f"once with the server's token ({TOKEN_ENV} or --token)")


@router.get("/{task_set}")
def ui_root(task_set: _SetName, request: Request) -> Response:
    _authorize(request)
    return RedirectResponse(f"/ui/{task_set}/index.html", status_code=307)


@router.get("/{task_set}/{path:path}")
def ui_page(task_set: _SetName, path: str, request: Request) -> Response:
    from evaluator.reports import report_site
    from evaluator.viewer import content_type, static_file

    fresh = _authorize(request)
    s: Settings = request.app.state.settings
    check_task_set(s, task_set)
    body = static_file(path)
    if body is None:
        site = report_site(task_set, store=s.store, tasks_root=s.tasks_root, lock_dir=s.lock_dir,
                           evals_root=s.evals_root, agents_root=s.agents_root)
        body = site.page(path or "index.html")
    if body is None:
        return Response(f"the site of {task_set!r} has no page {path!r}; start at "
                        f"/ui/{task_set}/index.html\n", status_code=404, media_type="text/plain",
                        headers=_HEADERS)
    response = Response(body, media_type=content_type(path or "index.html"), headers=_HEADERS)
    if fresh is not None:
        response.set_cookie(COOKIE, fresh, httponly=True, samesite="strict",
                            path=f"/ui/{task_set}/")
    return response
