"""Starts or finds the Episode Studio service for ComfyUI and keeps it running while ComfyUI runs.

With STUDIO_URL set, that running service is used as is. Otherwise `node <repo>/runtime/serve.js` is started on a
free loopback port once ComfyUI listens (so the service knows ComfyUI's address: STUDIO_MOUNTED_COMFY, and the
client id to queue prompts under: STUDIO_COMFY_CLIENT_ID, drawn here once so every restart keeps it), restarted
when it dies (a bounded number of times in a row), and stopped when ComfyUI exits. All of it runs on one
background thread so ComfyUI's start never waits on Node.
"""
import atexit
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid

LOG = logging.getLogger("episode_studio")
LISTENING = re.compile(r"listening on (https?://\S+?)/studio/")
# Exit code 3 is the service asking to be restarted (its own restart route); 0 is a deliberate stop.
RESTART_CODE = 3
MAX_FAILURES = 5
# A run this long resets the count of failures in a row.
HEALTHY_AFTER_S = 60.0
START_TIMEOUT_S = 90.0


def comfy_base_url(address, port, tls=False):
    """The URL the service reaches ComfyUI at: a wildcard listen address becomes the loopback of its family."""
    host = (address or "127.0.0.1").split(",")[0].strip()
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host and not host.startswith("["):
        host = "[{}]".format(host)
    return "{}://{}:{}".format("https" if tls else "http", host, port)


def service_url_from_env(value):
    """STUDIO_URL as given by a user: with or without a trailing /studio/; only http(s) URLs."""
    url = value.strip().rstrip("/")
    if url.endswith("/studio"):
        url = url[: -len("/studio")]
    if not re.match(r"^https?://[^/\s]+$", url):
        raise ValueError("STUDIO_URL must look like http://host:port (got {!r})".format(value))
    return url


def _die_with_parent():
    # Linux only: the service gets SIGTERM if ComfyUI dies without running its exit handlers (kill -9).
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except Exception:
        pass


class StudioService:
    """The service's URL for the proxy and the event bridge, or why there is none yet."""

    def __init__(self, repo, comfy_url, env=None):
        self.repo = repo
        self._comfy_url = comfy_url
        self._env = dict(os.environ if env is None else env)
        self.url = None
        self.pid = None
        self.why = "Episode Studio is starting"
        self.external = False
        # The ComfyUI client id the service queues under (None with STUDIO_URL: that service chose its own).
        self.client_id = None
        self._proc = None
        self._stopping = False
        self._lock = threading.Lock()

    # ---------------------------------------------------------------------------------------------- start

    def start(self):
        """Use STUDIO_URL, or start the service on a background thread; returns at once."""
        given = self._env.get("STUDIO_URL", "").strip()
        if given:
            try:
                self.url = service_url_from_env(given)
            except ValueError as e:
                self.why = str(e)
                LOG.error("Episode Studio: %s", e)
                return
            self.external = True
            LOG.info("Episode Studio: using the service at %s (STUDIO_URL)", self.url)
            return
        self.client_id = uuid.uuid4().hex
        atexit.register(self.stop)
        threading.Thread(target=self._keep, name="episode-studio", daemon=True).start()

    def _command(self):
        node = self._env.get("STUDIO_NODE") or shutil.which("node")
        if not node:
            raise RuntimeError("Node.js is not on PATH (install Node 20+, or set STUDIO_NODE to the node binary)")
        serve = os.path.join(self.repo, "runtime", "serve.js")
        if not os.path.isfile(serve):
            raise RuntimeError(
                "{} is missing: link this folder from an Episode Studio checkout, or set STUDIO_DIR to one".format(serve)
            )
        if not os.path.isdir(os.path.join(self.repo, "node_modules")):
            raise RuntimeError("run `npm ci` in {} first".format(self.repo))
        return [node, serve, "--host", "127.0.0.1", "--port", "0"]

    def _keep(self):
        try:
            command = self._command()
            comfy = self._comfy_url()
        except Exception as e:
            self.why = "Episode Studio cannot start: {}".format(e)
            LOG.error("%s", self.why)
            return
        env = dict(self._env, STUDIO_MOUNTED_COMFY=comfy, STUDIO_COMFY_CLIENT_ID=self.client_id)
        failures = 0
        while not self._stopping:
            began = time.monotonic()
            code = self._run_once(command, env)
            if self._stopping:
                return
            if code == 0:
                self.why = "Episode Studio was stopped; restart ComfyUI to start it again"
                LOG.info("%s", self.why)
                return
            if code == RESTART_CODE:
                LOG.info("Episode Studio: restarting as asked")
                continue
            failures = 1 if time.monotonic() - began > HEALTHY_AFTER_S else failures + 1
            if failures > MAX_FAILURES:
                self.why = "Episode Studio stopped after {} failed starts in a row (last exit {})".format(
                    MAX_FAILURES, code
                )
                LOG.error("%s", self.why)
                return
            LOG.warning("Episode Studio: the service exited (%s); restarting it (%d of %d)", code, failures, MAX_FAILURES)
            time.sleep(min(2 ** (failures - 1), 10))

    def _run_once(self, command, env):
        """Run the service until it exits; answers its exit code (negative: the signal that ended it)."""
        self.why = "Episode Studio is starting"
        popen = {}
        if os.name == "nt":
            popen["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            # Its own session, so a Ctrl-C in ComfyUI's terminal does not stop it behind the pack's back.
            popen["start_new_session"] = True
            if sys.platform.startswith("linux"):
                popen["preexec_fn"] = _die_with_parent
        try:
            proc = subprocess.Popen(
                command,
                cwd=self.repo,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                **popen,
            )
        except OSError as e:
            LOG.error("Episode Studio: cannot run %s: %s", command[0], e)
            return 127
        with self._lock:
            self._proc = proc
        ready = threading.Event()
        timer = threading.Timer(START_TIMEOUT_S, lambda: ready.is_set() or self._kill(proc, "did not start in time"))
        timer.daemon = True
        timer.start()
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            LOG.info("[studio] %s", line)
            m = LISTENING.search(line)
            if m and not ready.is_set():
                ready.set()
                self.url, self.pid = m.group(1), proc.pid
                LOG.info("Episode Studio: service ready at %s (pid %d)", self.url, proc.pid)
        code = proc.wait()
        timer.cancel()
        with self._lock:
            self._proc = None
        self.url = None
        self.pid = None
        self.why = "Episode Studio's service exited ({}); it is being restarted".format(code)
        return code

    # ---------------------------------------------------------------------------------------------- stop

    def _kill(self, proc, why):
        LOG.error("Episode Studio: the service %s; stopping it", why)
        proc.kill()

    def stop(self):
        """Stop the service (SIGTERM, then SIGKILL after 10 s); called when ComfyUI exits."""
        self._stopping = True
        with self._lock:
            proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
