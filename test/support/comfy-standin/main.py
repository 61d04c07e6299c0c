"""Runs the stand-in ComfyUI: python3 main.py --custom-nodes DIR [--front-end-root DIR] [--listen 127.0.0.1] [--port 0].

Order as in ComfyUI's main.py: the PromptServer first, then the custom nodes, loaded inside the running loop (they
register routes on it), then the routes are added and the server listens. Prints "port N" once listening; SIGTERM/SIGINT stop it cleanly, so
packs' atexit handlers run.
"""
import argparse
import asyncio
import logging
import signal
import sys

import nodes
import server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--custom-nodes", required=True)
    parser.add_argument("--front-end-root", default=None)
    parser.add_argument("--listen", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    prompt_server = server.PromptServer(loop, args.front_end_root)

    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)

    async def run():
        await nodes.init_external_custom_nodes(args.custom_nodes)
        prompt_server.add_routes()
        port = await prompt_server.start(args.listen, args.port)
        print("port {}".format(port), flush=True)
        publisher = loop.create_task(prompt_server.publish_loop())
        await stop.wait()
        publisher.cancel()
        # Open sockets would hold the shutdown for a minute: close them first.
        for ws in list(prompt_server.sockets.values()):
            await ws.close()
        await prompt_server.runner.cleanup()

    loop.run_until_complete(run())
    loop.close()
    logging.info("stopped")


if __name__ == "__main__":
    main()
