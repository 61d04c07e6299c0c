"""Re-broadcasts the Episode Studio service's events on ComfyUI's own socket.

A client socket to the service's /ws receives every {type, data} frame; each one goes out through
PromptServer.send_sync(type, data) with no client id, so every ComfyUI tab's /ws carries the studio's events next
to ComfyUI's own. The socket is reopened whenever it drops (the service restarting answers on a new port).
"""
import asyncio
import json
import logging

import aiohttp

LOG = logging.getLogger("episode_studio")
RETRY_S = 1.0


def frame(text):
    """(type, data) of a service frame, or None when it is not {"type": str, "data": ...}."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str) or "data" not in value:
        return None
    return value["type"], value["data"]


class EventBridge:
    def __init__(self, service, server, token=None):
        self.service = service
        self.server = server
        self.token = token

    async def run(self):
        headers = {"Authorization": "Bearer " + self.token} if self.token else {}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=10)) as session:
            while True:
                base = self.service.url
                if base is None:
                    await asyncio.sleep(RETRY_S / 4)
                    continue
                url = base.replace("http", "ws", 1) + "/ws?clientId=comfyui-episode-studio"
                try:
                    async with session.ws_connect(url, headers=headers, heartbeat=30) as ws:
                        LOG.debug("Episode Studio: events bridged from %s", url)
                        async for msg in ws:
                            if msg.type != aiohttp.WSMsgType.TEXT:
                                continue
                            event = frame(msg.data)
                            if event is not None:
                                self.server.send_sync(event[0], event[1])
                except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
                    LOG.debug("Episode Studio: event socket %s: %s", url, e)
                await asyncio.sleep(RETRY_S)
