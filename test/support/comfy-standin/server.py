"""The stand-in's PromptServer: ComfyUI's server mechanics that a custom node pack relies on, and nothing more.

Same shape as ComfyUI's server.py: PromptServer.instance, a RouteTableDef on .routes that packs add to while they
load, routes added to the app afterwards (each also under /api), extension web folders served under
/extensions/<module>/, the Host/Origin check on loopback, /ws?clientId= with a `status` frame on connect, and
send_sync handing frames to the loop's queue for the publish loop. /prompt "runs" a graph by emitting ComfyUI's
execution events as ComfyUI addresses them: to the socket of the prompt's client_id, and with no client_id only
`progress` and the binary preview frames, to every socket.
"""
import asyncio
import glob
import ipaddress
import logging
import os
import struct
import urllib.parse
import uuid

import aiohttp
from aiohttp import web

import nodes

# ComfyUI's BinaryEventTypes.PREVIEW_IMAGE: binary events are numbered, text events named.
PREVIEW_IMAGE = 1


@web.middleware
async def cache_control(request, handler):
    response = await handler(request)
    if request.path.endswith(".js") or request.path.endswith(".css"):
        response.headers.setdefault("Cache-Control", "no-cache")
    return response


def is_loopback(host):
    # Only literal addresses and localhost: the stand-in never resolves names (tests stay off the network).
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@web.middleware
async def origin_only(request, handler):
    """ComfyUI's guard: on a loopback Host, a request whose Origin names another host is refused with a bare 403."""
    if "Host" in request.headers and "Origin" in request.headers:
        host_domain = request.headers["Host"].lower()
        parsed = urllib.parse.urlparse(request.headers["Origin"])
        origin_domain = parsed.netloc.lower()
        host_parsed = urllib.parse.urlsplit("//" + host_domain)
        loopback = is_loopback(host_parsed.hostname)
        if parsed.port is None:
            host_domain = host_parsed.hostname
        if host_parsed.port is None:
            origin_domain = parsed.hostname
        if loopback and host_domain and origin_domain and host_domain != origin_domain:
            logging.warning("request with non matching host and origin %s != %s, returning 403", host_domain, origin_domain)
            return web.Response(status=403)
    if request.method == "OPTIONS":
        return web.Response()
    return await handler(request)


class PromptServer:
    instance = None

    def __init__(self, loop, web_root=None):
        PromptServer.instance = self
        self.loop = loop
        # The frontend's folder (index.html, scripts/app.js): extension modules import from it.
        self.web_root = web_root
        self.messages = asyncio.Queue()
        self.sockets = {}
        self.queue_remaining = 0
        self.app = web.Application(middlewares=[cache_control, origin_only])
        self.routes = web.RouteTableDef()
        routes = self.routes

        @routes.get("/ws")
        async def websocket_handler(request):
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            sid = request.rel_url.query.get("clientId", "")
            if sid:
                self.sockets.pop(sid, None)
            else:
                sid = uuid.uuid4().hex
            self.sockets[sid] = ws
            try:
                await self.send_json("status", {"status": self.queue_info(), "sid": sid}, sid)
                async for msg in ws:
                    if msg.type == aiohttp.WSMsgType.ERROR:
                        logging.warning("ws connection closed with exception %s", ws.exception())
            finally:
                if self.sockets.get(sid) is ws:
                    self.sockets.pop(sid, None)
            return ws

        @routes.get("/")
        async def get_root(request):
            if self.web_root is None:
                raise web.HTTPNotFound()
            return web.FileResponse(os.path.join(self.web_root, "index.html"))

        @routes.get("/extensions")
        async def get_extensions(request):
            found = []
            for name, folder in nodes.EXTENSION_WEB_DIRS.items():
                for f in glob.glob(os.path.join(glob.escape(folder), "**/*.js"), recursive=True):
                    rel = os.path.relpath(f, folder).replace("\\", "/")
                    found.append("/extensions/" + urllib.parse.quote(name) + "/" + rel)
            return web.json_response(found)

        @routes.get("/object_info")
        async def get_object_info(request):
            out = {}
            for name, cls in nodes.NODE_CLASS_MAPPINGS.items():
                out[name] = {
                    "name": name,
                    "display_name": nodes.NODE_DISPLAY_NAME_MAPPINGS.get(name, name),
                    "python_module": getattr(cls, "RELATIVE_PYTHON_MODULE", "nodes"),
                }
            return web.json_response(out)

        @routes.get("/standin/custom_nodes")
        async def get_loaded(request):
            return web.json_response({os.path.basename(p): ok for p, ok in nodes.LOADED.items()})

        @routes.post("/prompt")
        async def post_prompt(request):
            body = await request.json()
            prompt = body.get("prompt") if isinstance(body, dict) else None
            if not isinstance(prompt, dict) or not prompt:
                return web.json_response({"error": "no prompt", "node_errors": []}, status=400)
            prompt_id = str(uuid.uuid4())
            self.loop.create_task(self.execute(prompt_id, list(prompt.keys()), body.get("client_id")))
            return web.json_response({"prompt_id": prompt_id, "number": 0, "node_errors": {}})

    def queue_info(self):
        return {"exec_info": {"queue_remaining": self.queue_remaining}}

    async def execute(self, prompt_id, node_ids, client_id):
        """What ComfyUI's executor reports while running a prompt, without running anything."""
        self.queue_remaining += 1
        self.send_sync("status", {"status": self.queue_info()})
        await asyncio.sleep(0)
        now = lambda: int(self.loop.time() * 1000)  # noqa: E731

        def message(event, data):
            # ComfyUI's executor sends these only when the prompt names a client; the progress hook sends regardless.
            if client_id is not None:
                self.send_sync(event, data, client_id)

        message("execution_start", {"prompt_id": prompt_id, "timestamp": now()})
        message("execution_cached", {"nodes": [], "prompt_id": prompt_id, "timestamp": now()})
        for node in node_ids:
            message("executing", {"node": node, "display_node": node, "prompt_id": prompt_id})
            for value in (1, 2):
                self.send_sync("progress", {"value": value, "max": 2, "prompt_id": prompt_id, "node": node}, client_id)
                # A preview image frame: event type 1, image type 1 (JPEG), then the image's bytes.
                self.send_sync(PREVIEW_IMAGE, struct.pack(">I", 1) + b"\xff\xd8 preview", client_id)
            message("executed", {"node": node, "display_node": node, "output": {}, "prompt_id": prompt_id})
        message("executing", {"node": None, "prompt_id": prompt_id})
        message("execution_success", {"prompt_id": prompt_id, "timestamp": now()})
        self.queue_remaining -= 1
        self.send_sync("status", {"status": self.queue_info()})

    def add_routes(self):
        """After the packs loaded: every route also under /api, then the extension folders as static routes."""
        api_routes = web.RouteTableDef()
        for route in self.routes:
            if isinstance(route, web.RouteDef):
                api_routes.route(route.method, "/api" + route.path)(route.handler, **route.kwargs)
        self.app.add_routes(api_routes)
        self.app.add_routes(self.routes)
        for name, folder in nodes.EXTENSION_WEB_DIRS.items():
            self.app.add_routes([web.static("/extensions/" + urllib.parse.quote(name), folder)])
        if self.web_root is not None:
            self.app.add_routes([web.static("/", self.web_root)])

    async def send_json(self, event, data, sid=None):
        message = {"type": event, "data": data}
        targets = list(self.sockets.values()) if sid is None else [self.sockets[sid]] if sid in self.sockets else []
        for ws in targets:
            try:
                await ws.send_json(message)
            except (aiohttp.ClientError, ConnectionError) as err:
                logging.warning("send error: %s", err)

    async def send_bytes(self, event, data, sid=None):
        message = struct.pack(">I", event) + data
        targets = list(self.sockets.values()) if sid is None else [self.sockets[sid]] if sid in self.sockets else []
        for ws in targets:
            try:
                await ws.send_bytes(message)
            except (aiohttp.ClientError, ConnectionError) as err:
                logging.warning("send error: %s", err)

    async def send(self, event, data, sid=None):
        # As ComfyUI: bytes go out as a binary frame headed by the event's number, the rest as JSON text.
        if isinstance(data, (bytes, bytearray)):
            await self.send_bytes(event, data, sid)
        else:
            await self.send_json(event, data, sid)

    def send_sync(self, event, data, sid=None):
        """Thread-safe: hands the frame to the loop, which sends it from publish_loop."""
        self.loop.call_soon_threadsafe(self.messages.put_nowait, (event, data, sid))

    async def publish_loop(self):
        while True:
            event, data, sid = await self.messages.get()
            await self.send(event, data, sid)

    async def start(self, address, port):
        runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, address, port)
        await site.start()
        self.runner = runner
        self.address = address
        # Port 0 asks the OS for a free one; what a pack reads is the port actually bound.
        self.port = site._server.sockets[0].getsockname()[1]
        return self.port
