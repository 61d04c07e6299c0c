"""Episode Studio inside ComfyUI: starts or finds the studio service, serves it under /studio/ and /api/studio/ on
ComfyUI's own port, carries its events (and ComfyUI's for its prompts) on ComfyUI's socket, and adds an "Episode
Studio" entry to the frontend.
"""
import logging
import os
import threading
import time

from server import PromptServer

from .studio_events import EventBridge
from .studio_prompt_events import share_prompt_events
from .studio_proxy import StudioProxy
from .studio_service import StudioService, comfy_base_url

# The pack adds no graph nodes; ComfyUI loads a pack only when it names its (possibly empty) node mappings.
NODE_CLASS_MAPPINGS = {}
NODE_DISPLAY_NAME_MAPPINGS = {}
WEB_DIRECTORY = "./web"
__all__ = ["NODE_CLASS_MAPPINGS", "NODE_DISPLAY_NAME_MAPPINGS", "WEB_DIRECTORY"]

LOG = logging.getLogger("episode_studio")


def _studio_repo():
    """The Episode Studio checkout: STUDIO_DIR, else the folder holding this pack (symlinks resolved)."""
    given = os.environ.get("STUDIO_DIR", "").strip()
    if given:
        return os.path.abspath(given)
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _tls():
    # Real ComfyUI serves https when given a key and certificate; elsewhere (a stand-in) there are no such args.
    try:
        from comfy.cli_args import args

        return bool(getattr(args, "tls_keyfile", None) and getattr(args, "tls_certfile", None))
    except Exception:
        return False


def _comfy_url(server):
    """Waits (on the service's thread) until ComfyUI listens, then answers the address it can be reached at."""

    def wait():
        while getattr(server, "port", None) is None:
            time.sleep(0.1)
        return comfy_base_url(getattr(server, "address", "127.0.0.1"), server.port, _tls())

    return wait


def _setup(server):
    service = StudioService(_studio_repo(), _comfy_url(server))
    proxy = StudioProxy(service)
    for prefix in ("/studio", "/api/studio"):
        server.routes.route("*", prefix)(proxy.redirect)
        server.routes.route("*", prefix + "/{tail:.*}")(proxy.handle)
    service.start()
    if service.client_id is not None:
        share_prompt_events(server, service.client_id)
    bridge = EventBridge(service, server, os.environ.get("STUDIO_TOKEN", "").strip() or None)

    def start_bridge():
        # The bridge lives on ComfyUI's loop; once ComfyUI listens, the loop is running.
        while getattr(server, "port", None) is None:
            time.sleep(0.1)
        server.loop.call_soon_threadsafe(lambda: server.loop.create_task(bridge.run()))

    threading.Thread(target=start_bridge, name="episode-studio-events", daemon=True).start()


_setup(PromptServer.instance)
