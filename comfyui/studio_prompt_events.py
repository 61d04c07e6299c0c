"""Copies ComfyUI's events for the studio's own prompts to the studio editor's ComfyUI sockets.

ComfyUI sends a prompt's execution events (execution_start, executing, progress, executed, execution_success, ...)
only to the socket of the client id that queued it. The service the pack starts queues under a client id the pack
drew, so without this copy the editor page (another socket, another id) would never hear its renders' progress.
The copies go only to sockets the editor page opened: ComfyUI's own graph-editor tabs would otherwise highlight an
unrelated node of the same id on `executing` and show queue activity that is not theirs.
Binary frames (preview images) are not copied: the page does not read them, and they are large.
"""
import logging

LOG = logging.getLogger("episode_studio")
# The wrapper carries its state under this name, so a second call finds it instead of wrapping twice.
STATE = "_episode_studio_copy"
# The editor page opens ComfyUI's socket under a client id starting with this (the page's side uses the same text),
# which is how its sockets are told apart from ComfyUI's graph-editor tabs.
EDITOR_CLIENT_PREFIX = "studio-page-"


def _socket_ids(server):
    # Executors call send_sync from their own thread while ComfyUI's loop adds and drops sockets: a copy of the keys
    # can meet a resize, and is then taken again.
    for _ in range(5):
        try:
            return tuple(server.sockets)
        except RuntimeError:
            continue
    return ()


def copies_for(event, data, sid, client_id, socket_ids):
    """The editor sockets a frame goes to as well: none unless it is a text event addressed to client_id."""
    if client_id is None or sid != client_id or not isinstance(event, str):
        return ()
    if isinstance(data, (bytes, bytearray, memoryview)):
        return ()
    return tuple(
        other
        for other in socket_ids
        if other != sid and isinstance(other, str) and other.startswith(EDITOR_CLIENT_PREFIX)
    )


def share_prompt_events(server, client_id):
    """Wrap server.send_sync once so frames for client_id also reach the editor's sockets (again: only sets the id)."""
    current = server.send_sync
    state = getattr(current, STATE, None)
    if state is not None:
        state["client_id"] = client_id
        return
    state = {"client_id": client_id}

    def send_sync(event, data, sid=None):
        current(event, data, sid)
        for other in copies_for(event, data, sid, state["client_id"], _socket_ids(server)):
            current(event, data, other)

    setattr(send_sync, STATE, state)
    server.send_sync = send_sync
    LOG.info("Episode Studio: ComfyUI's events for the studio's prompts go to the studio editor's sockets")
