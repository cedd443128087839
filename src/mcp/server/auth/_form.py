"""Reading an `application/x-www-form-urlencoded` request body without `python-multipart`.

Starlette's `Request.form()` needs that optional library even for URL-encoded bodies. The OAuth
endpoints only ever receive URL-encoded forms, so they parse the body here and store the result
where `Request.form()` looks first: later `await request.form()` calls (e.g. in a subclassed
handler) then return the same `FormData` without the library.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request

_CACHE_ATTRIBUTE = "_form"  # where Starlette's Request caches its parsed form


async def read_form(request: Request) -> FormData:
    """The request's form fields (empty for a body of another content type)."""
    cached = getattr(request, _CACHE_ATTRIBUTE, None)
    if isinstance(cached, FormData):
        return cached
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    items: list[tuple[str, str | UploadFile]] = []
    if content_type == "application/x-www-form-urlencoded":
        body = (await request.body()).decode("utf-8", "replace")
        items = [(key, value) for key, value in parse_qsl(body, keep_blank_values=True)]
    form = FormData(items)
    setattr(request, _CACHE_ATTRIBUTE, form)
    return form


def form_string(form: FormData, key: str) -> str | None:
    """A form field as text, `None` when absent (or an upload)."""
    value = form.get(key)
    return value if isinstance(value, str) else None
