"""Proxies /studio/* and /api/studio/* on ComfyUI's server to the Episode Studio service's /studio/*.

Streams bodies both ways (uploads and large video files never sit in memory), keeps the query string, Range and
the answer's status (206 + Content-Range), drops hop-by-hop headers, and forwards the browser's Host and Origin
unchanged: the service's own guard decides whether the page may call it. A websocket upgrade on a proxied path is
bridged frame by frame. When the service is not up the answer is JSON {"error": ...} with 503 (starting or
stopped) or 502 (not answering).
"""
import asyncio
import ipaddress
import logging
import re
import urllib.parse

import aiohttp
from aiohttp import web
from yarl import URL

LOG = logging.getLogger("episode_studio")

# Headers that describe one connection, not the message: never passed on (nor those a Connection header names).
HOP_BY_HOP = frozenset(
    (
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "expect",
    )
)
# A websocket client makes its own handshake; these belong to the browser's.
WS_HANDSHAKE = frozenset(
    ("sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-accept")
)
NO_BODY_STATUS = frozenset((204, 304))
# The service refuses a body declared over its upload limit (64 MB plus room for the multipart envelope) before
# reading it and closes the connection; its answer would be lost here while the body is still being sent, so the
# same refusal is made before forwarding.
DECLARED_LIMIT = 65 * 1024 * 1024
# Routes the service serves only to its own machine. Behind this proxy every request reaches it from this machine,
# so the browser's own address is checked here.
SAME_MACHINE_ONLY = frozenset(("/studio/server/stop",))


def error(status, message):
    return web.json_response({"error": message}, status=status)


def _passed(headers, also_drop=frozenset()):
    named = {h.strip().lower() for h in headers.get("Connection", "").split(",") if h.strip()}
    return [(k, v) for k, v in headers.items() if k.lower() not in HOP_BY_HOP | named | also_drop]


def service_path(raw_path):
    """The service's path for a proxied request path (query kept), or None when a segment is `.` or `..`."""
    path, _, query = raw_path.partition("?")
    if path == "/api/studio" or path.startswith("/api/studio/"):
        path = path[len("/api") :]
    for segment in path.split("/"):
        if urllib.parse.unquote(segment) in (".", ".."):
            return None
    return path + ("?" + query if query else "")


def is_loopback_address(remote):
    """True for a peer address on this machine (IPv4-mapped IPv6 included)."""
    try:
        address = ipaddress.ip_address((remote or "").split("%")[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def same_machine_only(path):
    """Whether a service path (query allowed) names a route only this machine may call."""
    bare = re.sub(r"/+", "/", urllib.parse.unquote(path.partition("?")[0])).rstrip("/")
    return bare.lower() in SAME_MACHINE_ONLY


class StudioProxy:
    def __init__(self, service):
        self.service = service
        self._session = None

    def session(self):
        # Made on first use, on ComfyUI's loop; bodies pass through as they are (no decompression).
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                auto_decompress=False,
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=10),
                cookie_jar=aiohttp.DummyCookieJar(),
            )
        return self._session

    async def redirect(self, request):
        """/studio and /api/studio → the same path with a trailing slash, query kept."""
        query = request.query_string
        raise web.HTTPFound(request.path + "/" + ("?" + query if query else ""))

    async def handle(self, request):
        base = self.service.url
        if base is None:
            return error(503, self.service.why)
        path = service_path(request.raw_path)
        if path is None:
            return error(400, "a path with `.` or `..` segments is not proxied")
        declared = request.content_length
        if declared is not None and declared > DECLARED_LIMIT:
            return error(413, "upload: larger than 64 MB")
        if same_machine_only(path) and not is_loopback_address(request.remote):
            return error(403, "{} is only allowed from the machine the server runs on".format(path.partition("?")[0]))
        target = URL(base + path, encoded=True)
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._socket(request, target)
        return await self._forward(request, target, base)

    async def _forward(self, request, target, base):
        headers = _passed(request.headers)
        body = request.content if request.body_exists else None
        try:
            upstream = await self.session().request(
                request.method, target, headers=headers, data=body, allow_redirects=False
            )
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            return error(502, "Episode Studio at {} is not answering: {}".format(base, str(e) or type(e).__name__))
        # Once the answer has begun, a failure can only cut it short (the browser sees a truncated body).
        async with upstream:
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for key, value in _passed(upstream.headers):
                response.headers.add(key, value)
            await response.prepare(request)
            if request.method != "HEAD" and upstream.status not in NO_BODY_STATUS:
                try:
                    async for chunk in upstream.content.iter_any():
                        await response.write(chunk)
                except aiohttp.ClientError as e:
                    # The service went away mid-answer: cut the browser's answer short rather than end it cleanly.
                    LOG.warning("Episode Studio: %s %s cut short: %s", request.method, request.path, e)
                    if request.transport is not None:
                        request.transport.close()
                    return response
            await response.write_eof()
            return response

    async def _socket(self, request, target):
        headers = _passed(request.headers, WS_HANDSHAKE)
        protocols = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
        headers = [(k, v) for k, v in headers if k.lower() != "sec-websocket-protocol"]
        ws_target = target.with_scheme("wss" if target.scheme == "https" else "ws")
        try:
            upstream = await self.session().ws_connect(ws_target, headers=headers, protocols=protocols, autoping=True)
        except aiohttp.WSServerHandshakeError as e:
            return error(e.status if 400 <= e.status < 600 else 502, "the service refused the socket: {}".format(e.message))
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
            return error(502, "Episode Studio is not answering: {}".format(str(e) or type(e).__name__))
        browser = web.WebSocketResponse(protocols=[upstream.protocol] if upstream.protocol else ())
        await browser.prepare(request)

        async def pump(source, sink):
            async for msg in source:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    await sink.send_str(msg.data)
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    await sink.send_bytes(msg.data)
                else:
                    break
            await sink.close()

        tasks = [asyncio.ensure_future(pump(browser, upstream)), asyncio.ensure_future(pump(upstream, browser))]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            await upstream.close()
            await browser.close()
        return browser
