"""`/ui/<set>/...`: the viewer's pages (evaluator.viewer), the same bytes `doit report` writes.

A browser cannot send a bearer header on a plain link, so where the server has a token a page
without one answers 401 with a form; posting the token there sets a cookie (HttpOnly,
SameSite=Strict, for `/ui/<set>/`) that the relative links then carry. The token never goes in
a URL, where access logs and browser history would keep it.
"""

from __future__ import annotations

import hmac
import html
import re
from typing import Annotated
from urllib.parse import parse_qs

from fastapi import APIRouter, Path, Request, Response
from fastapi.responses import RedirectResponse

from evaluator.api._runplan import NAME_PATTERN, check_task_set
from evaluator.api._settings import TOKEN_ENV, Settings
from evaluator.viewer import content_type, static_file

COOKIE = "evaluator_token"
# No script runs on a page, whatever a trajectory holds; nothing is sniffed into HTML.
_HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; "
                                       "form-action 'self'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store"}
_PAGE = re.compile(r"^[A-Za-z0-9._/-]{0,300}$")

router = APIRouter(prefix="/ui", include_in_schema=False)
_SetName = Annotated[str, Path(max_length=100, pattern=f"^{NAME_PATTERN}$")]


def _token(request: Request) -> str | None:
    token: str | None = request.app.state.settings.token
    return token


def _authorized(request: Request) -> bool:
    token = _token(request)
    if token is None:
        return True
    scheme, _, header = request.headers.get("authorization", "").partition(" ")
    given = header if scheme.lower() == "bearer" else request.cookies.get(COOKIE, "")
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())


def _login_form(task_set: str, path: str, wrong: bool) -> Response:
    said = "That token is wrong. " if wrong else ""
    body = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Token needed'
            f'</title></head><body><h1>Token needed</h1><p>{said}This server needs its token '
            f'({TOKEN_ENV} or --token) to show the pages of <code>{html.escape(task_set)}</code>.'
            f'</p><form method="post" action="/ui/{html.escape(task_set)}/login">'
            f'<input type="hidden" name="next" value="{html.escape(path)}">'
            f'<input type="password" name="token" id="token" autocomplete="current-password">'
            f'<button type="submit" id="login">open</button></form></body></html>')
    return Response(body, status_code=401, media_type="text/html; charset=utf-8",
                    headers={**_HEADERS, "WWW-Authenticate": "Bearer"})


@router.get("/{task_set}")
def ui_root(task_set: _SetName) -> Response:
    return RedirectResponse(f"/ui/{task_set}/index.html", status_code=307)


@router.post("/{task_set}/login")
async def ui_login(task_set: _SetName, request: Request) -> Response:
    form = parse_qs((await request.body())[:10_000].decode("utf-8", errors="replace"))
    given = (form.get("token") or [""])[0]
    page = (form.get("next") or ["index.html"])[0]
    if not _PAGE.match(page) or ".." in page:
        page = "index.html"  # only a page of this set: never a redirect elsewhere
    token = _token(request)
    if token is not None and not (given and hmac.compare_digest(given.encode(), token.encode())):
        return _login_form(task_set, page, wrong=True)
    response = RedirectResponse(f"/ui/{task_set}/{page}", status_code=303)
    if token is not None:
        response.set_cookie(COOKIE, given, httponly=True, samesite="strict",
                            path=f"/ui/{task_set}/")
    return response


@router.get("/{task_set}/{path:path}")
def ui_page(task_set: _SetName, path: str, request: Request) -> Response:
    if not _authorized(request):
        return _login_form(task_set, path, wrong=False)
    s: Settings = request.app.state.settings
    check_task_set(s, task_set)
    body = static_file(path)
    if body is None:
        site = request.app.state.reports.site(
            task_set, store=s.store, tasks_root=s.tasks_root, lock_dir=s.lock_dir,
            evals_root=s.evals_root, agents_root=s.agents_root)
        body = site.page(path or "index.html")
    if body is None:
        return Response(f"the site of {task_set!r} has no page {path!r}; start at "
                        f"/ui/{task_set}/index.html\n", status_code=404, media_type="text/plain",
                        headers=_HEADERS)
    return Response(body, media_type=content_type(path or "index.html"), headers=_HEADERS)
