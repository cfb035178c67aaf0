"""web_fetch: one http(s) page, as Markdown, within size, time and redirect limits.

Declared ``network``: it changes nothing here, but a request leaves the
machine, so it asks in every mode but bypass (plan mode included: research is
what plan mode is for), and ``web_fetch(domain:docs.python.org)`` rules allow
or deny hosts (``domain:*.python.org`` covers subdomains). Because those rules
judge the URL the model gave, a redirect is followed only within the same host
(http to https included); a redirect elsewhere ends the call with the new URL,
so fetching it is a new call the rules judge again.

Local addresses are refused: a page the model read can ask it to fetch
``http://169.254.169.254/`` (a cloud's credentials endpoint) or a service on
``localhost``, and an approval prompt showing a URL is easy to wave through.
Every hop's host is resolved first and every address it resolves to must be
global (not loopback, private, link-local, shared, reserved or multicast;
IPv4-mapped IPv6 addresses are judged as IPv4). The user opts in with
``"webFetchLocalAddresses": true`` in their own settings file (a project's
settings cannot: it would loosen a rule) or ``PSEUDOCLAUDE_WEB_FETCH_LOCAL=1``.
The check resolves the name once before the request, so a DNS server that
answers differently a moment later (rebinding) is not caught; the approval
prompt and domain rules remain the first line.

Limits: ``MAX_REDIRECTS`` hops, ``MAX_BYTES`` of body (checked against
``Content-Length`` first, then while reading), ``TIMEOUT_S`` for the whole
fetch. HTML becomes Markdown through ``markdownify`` (BeautifulSoup underneath;
scripts, styles and other non-content elements removed first); other text
types pass through; binary content is refused with its type and size. The
result goes through the output budget (a page of a file, ``read_bytes``), the
complete text spilled to a file the model can page through with ``read_file``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urljoin, urlsplit

from pseudoclaude import __version__
from pseudoclaude.tools.args import check_args
from pseudoclaude.tools.base import ToolContext, ToolError, ToolOutput, ToolTraits
from pseudoclaude.tools.budgeted import budgeted_output
from pseudoclaude.tools.output import guess_type, looks_binary

MAX_REDIRECTS = 5
MAX_BYTES = 10 * 1024 * 1024
TIMEOUT_S = 60.0
_HTML = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-javascript", "application/ld+json", "application/yaml")
_DROPPED = ("script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "head")

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string"}},
    "required": ["url"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Page:
    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes


class WebFetchTool:
    name = "web_fetch"
    description = (
        "Fetch one http(s) URL (no search): HTML as Markdown, other text as is. Same-host redirects are followed (at most "
        f"{MAX_REDIRECTS}); another host's URL is returned for you to fetch. Bodies over {MAX_BYTES // (1024 * 1024)} MB "
        "and binary files are refused; long pages arrive shortened, naming the file with the complete text."
    )
    input_schema: Mapping[str, Any] = _SCHEMA
    traits = ToolTraits(kind="network", clearable=True, claude_names=("WebFetch",), key_argument="url")

    def __init__(self, *, local_addresses: bool = False) -> None:
        self.local_addresses = local_addresses

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        url = check_args(self.name, args, self.input_schema)["url"].strip()
        _check_url(url)
        try:
            page = await asyncio.wait_for(_fetch(url, self.local_addresses), TIMEOUT_S)
        except asyncio.TimeoutError:
            raise ToolError(f"{url} did not answer completely within {TIMEOUT_S:g} s") from None
        if isinstance(page, str):
            return ToolOutput(page, summary="redirected to another host")
        return _render(page, ctx)


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolError(f"only http:// and https:// URLs can be fetched, not {url[:200]!r}")


async def check_public_host(url: str) -> None:
    """Refuse ``url`` unless every address its host resolves to is global (see the module docstring)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, ValueError) as error:
        raise ToolError(f"cannot fetch {url}: the host {host!r} does not resolve ({error})") from None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            named = host if host == str(address) else f"{host} ({address})"
            raise ToolError(
                f"web_fetch reaches public hosts only: {named} is a local or private address. "
                'The user can allow local addresses with "webFetchLocalAddresses": true in their own settings file.'
            )


async def _fetch(url: str, local_addresses: bool = False) -> Page | str:
    """The page at ``url`` after same-host redirects, or a message naming a redirect to another host."""
    import httpx

    headers = {"User-Agent": f"pseudoclaude/{__version__} (web_fetch)", "Accept": "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.5"}
    async with httpx.AsyncClient(follow_redirects=False, timeout=httpx.Timeout(30.0, connect=10.0), headers=headers) as client:
        for _ in range(MAX_REDIRECTS + 1):
            if not local_addresses:
                await check_public_host(url)
            try:
                async with client.stream("GET", url) as response:
                    if response.is_redirect and "location" in response.headers:
                        target = urljoin(url, response.headers["location"])
                        _check_url(target)
                        if urlsplit(target).hostname != urlsplit(url).hostname:
                            return (
                                f"{url} redirects (HTTP {response.status_code}) to another host: {target}\n"
                                "Call web_fetch again with that URL if you want its content."
                            )
                        url = target
                        continue
                    return await _read(url, response)
            except httpx.HTTPError as error:
                raise ToolError(f"cannot fetch {url}: {type(error).__name__}: {error or 'no detail'}") from None
    raise ToolError(f"too many redirects: more than {MAX_REDIRECTS}, the last to {url}")


async def _read(url: str, response: Any) -> Page:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise ToolError(f"{url} is {int(declared):,} bytes, over the {MAX_BYTES // (1024 * 1024)} MB limit: not fetched")
    body = bytearray()
    async for chunk in response.aiter_bytes():  # decoded (gzip...), so the limit holds for what is kept
        body += chunk
        if len(body) > MAX_BYTES:
            raise ToolError(f"{url} sent more than {MAX_BYTES // (1024 * 1024)} MB: stopped reading, nothing kept")
    content_type = response.headers.get("content-type", "")
    mime = content_type.split(";")[0].strip().lower()
    return Page(str(response.url), response.status_code, mime, response.charset_encoding, bytes(body))


def _render(page: Page, ctx: ToolContext) -> ToolOutput:
    mime = page.content_type
    textual = mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml"))
    if (mime and not textual) or looks_binary(page.body):
        kind = mime if mime and not looks_binary(page.body) else guess_type(page.body)
        raise ToolError(f"{page.url} is binary ({kind}, {len(page.body):,} bytes): web_fetch returns text only, nothing was kept")
    text = page.body.decode(page.charset or "utf-8", errors="replace")
    title = ""
    if page.content_type in _HTML or (not page.content_type and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))):
        title, text = html_to_markdown(text)
    header = (
        f"{'# ' + title + chr(10) if title else ''}[{page.url} · HTTP {page.status} · {page.content_type or 'unknown type'} · {len(page.body):,} bytes]\n\n"
    )
    error = page.status >= 400
    summary = f"{page.url} (HTTP {page.status}, {len(page.body):,} bytes)"
    return budgeted_output(header + text.strip() + "\n", ctx, label="web_fetch", limit=ctx.budget.read_bytes, is_error=error, summary=summary)


def html_to_markdown(html: str) -> tuple[str, str]:
    """(title, Markdown) of an HTML document: non-content elements removed, then ``markdownify``."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title is not None else ""
    for element in soup(list(_DROPPED)):
        element.decompose()
    markdown = MarkdownConverter(heading_style="ATX", bullets="-", code_language="").convert_soup(soup)
    lines = [line.rstrip() for line in markdown.splitlines()]
    compact: list[str] = []
    for line in lines:
        if line or (compact and compact[-1]):
            compact.append(line)
    return title[:300], "\n".join(compact)
